package stdio_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/internal/wire"
	"github.com/mcpconform/mcpconform/internal/wire/stdio"
)

// causes returns the transport-problem notes recorded so far.
func causes(rec *wire.Recorder) []string {
	var out []string
	for _, f := range rec.Since(0, 0) {
		if c, ok := strings.CutPrefix(f.Note, wire.CausePrefix); ok && f.Kind == wire.KindNote {
			out = append(out, c)
		}
	}
	return out
}

// TestCauseNotes: what is wrong with the server's output at the transport
// level is recorded as a cause note, and nothing else is.
func TestCauseNotes(t *testing.T) {
	for _, tc := range []struct {
		name, script string
		send         bool   // send one line first
		want         string // the cause's start; "" = no cause
	}{
		{"line over the cap", `head -c 3000 /dev/zero | tr '\0' a; echo`, false, "a stdout line exceeds the 1000 bytes cap (2 KiB in all)"},
		{"invalid UTF-8", `printf '{"a":"\377x"}\n'`, false, "invalid UTF-8 in server output (a stdout line of 10 bytes, first invalid byte 0xff at offset 6)"},
		{"cut off by the end of stdout", `printf '{"a":'`, false, "stdout ended in the middle of a message: 5 bytes without the final newline"},
		{"exit on its own", `read x; exit 3`, true, "the server process ended on its own (exit status 3) after 1 messages from the harness"},
		{"clean exit", `echo '{}'`, false, ""},
		{"valid UTF-8 cut inside a character", `printf a; for i in $(seq 600); do printf 'é'; done; echo`, false, "a stdout line exceeds the 1000 bytes cap (1 KiB in all)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := wire.NewRecorder(nil)
			c := start(t, stdio.Options{Command: shell(tc.script), Recorder: rec, MaxLineBytes: 1000})
			if tc.send {
				send(t, c, `{"jsonrpc":"2.0","method":"x"}`, nil)
			}
			for f := recv(t, c); f.Kind != wire.KindClosed; f = recv(t, c) {
			}
			got := causes(rec)
			switch {
			case tc.want == "" && len(got) > 0:
				t.Errorf("causes %q, want none", got)
			case tc.want != "" && (len(got) != 1 || !strings.HasPrefix(got[0], tc.want)):
				t.Errorf("causes %q, want %q", got, tc.want)
			}
		})
	}
	t.Run("the harness ends the process", func(t *testing.T) {
		rec := wire.NewRecorder(nil)
		c := start(t, stdio.Options{Command: shell(`trap '' TERM; while :; do sleep 1; done`), Recorder: rec})
		_ = c.Close()
		if got := causes(rec); len(got) > 0 {
			t.Errorf("causes %q, want none", got)
		}
	})
}

// TestTerminateAndWait: SIGTERM ends a well-behaved process; one that
// ignores it is reported, and Close then does not wait again.
func TestTerminateAndWait(t *testing.T) {
	c := start(t, stdio.Options{Command: shell(`exec sleep 30`)})
	if !c.TerminateAndWait(2 * time.Second) {
		t.Errorf("sleep did not end on SIGTERM")
	}
	c = start(t, stdio.Options{Command: shell(`trap '' TERM; exec sleep 30`), ExitWait: 2 * time.Second})
	if c.CloseStdinAndWait(100 * time.Millisecond) {
		t.Fatalf("the process ended on stdin EOF")
	}
	if c.TerminateAndWait(100 * time.Millisecond) {
		t.Fatalf("the process ended on SIGTERM")
	}
	t0 := time.Now()
	_ = c.Close()
	if d := time.Since(t0); d > time.Second {
		t.Errorf("Close waited %s after the shutdown check had waited", d)
	}
	waitGone(t, c.Pid())
}

// TestReapOrphans: a child that left the server's process group (its own
// session) and outlives the server is adopted and killed at Close.
func TestReapOrphans(t *testing.T) {
	if err := stdio.AdoptOrphans(); err != nil {
		t.Skipf("no subreaper: %v", err)
	}
	c := start(t, stdio.Options{Command: shell(`setsid sleep 30 </dev/null >/dev/null 2>&1 & echo $!`)})
	f := recv(t, c)
	child, err := strconv.Atoi(strings.TrimSpace(string(f.Raw)))
	if err != nil {
		t.Fatalf("child pid line %q: %v", f.Raw, err)
	}
	expectEnd(t, c) // the server exited; its child runs on, adopted by us
	if gone(child) {
		t.Fatalf("child %d not running before Close", child)
	}
	_ = c.Close()
	waitGone(t, child)
}
