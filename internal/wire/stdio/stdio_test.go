package stdio_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/internal/wire"
	"github.com/mcpconform/mcpconform/internal/wire/stdio"
)

// start launches opts and closes the connection when the test ends.
func start(t *testing.T, opts stdio.Options) *stdio.Conn {
	t.Helper()
	if opts.ExitWait == 0 {
		opts.ExitWait = 200 * time.Millisecond
	}
	c, err := stdio.Start(opts)
	if err != nil {
		t.Fatalf("Start(%q): %v", opts.Command, err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func shell(script string) []string { return []string{"sh", "-c", script} }

func recv(t *testing.T, c *stdio.Conn) wire.Frame {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	f, err := c.Recv(ctx)
	if err != nil {
		t.Fatalf("Recv: %v", err)
	}
	return f
}

func send(t *testing.T, c *stdio.Conn, payload string, opts *wire.SendOptions) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	reply, err := c.Send(ctx, []byte(payload), opts)
	if err != nil {
		t.Fatalf("Send(%q): %v", payload, err)
	}
	if reply != nil {
		t.Fatalf("Send on stdio returned a non-nil Reply: %+v", reply)
	}
}

func expectMessage(t *testing.T, f wire.Frame, raw string, truncated bool) {
	t.Helper()
	if f.Kind != wire.KindMessage || f.Dir != wire.In || string(f.Raw) != raw || f.Truncated != truncated {
		t.Fatalf("frame = {kind %v dir %v raw %q truncated %v}, want message %q truncated %v",
			f.Kind, f.Dir, clip(f.Raw), f.Truncated, clip([]byte(raw)), truncated)
	}
}

func clip(b []byte) string {
	if len(b) > 80 {
		return fmt.Sprintf("%s…(%d bytes)", b[:80], len(b))
	}
	return string(b)
}

// expectEnd expects the KindClosed frame and then ErrClosed.
func expectEnd(t *testing.T, c *stdio.Conn) wire.Frame {
	t.Helper()
	f := recv(t, c)
	if f.Kind != wire.KindClosed {
		t.Fatalf("frame kind %v (raw %q), want closed", f.Kind, clip(f.Raw))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for i := 0; i < 2; i++ {
		if g, err := c.Recv(ctx); !errors.Is(err, wire.ErrClosed) {
			t.Fatalf("Recv after the closed frame = %+v, %v; want ErrClosed", g, err)
		}
	}
	return f
}

// gone reports whether pid no longer runs (absent or a zombie nobody reaped).
func gone(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	// Field 3 (after "(comm)") is the state.
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] == 'Z' || s[i+2] == 'X'
	}
	return false
}

func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for !gone(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("process %d still runs", pid)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestEchoFraming(t *testing.T) {
	c := start(t, stdio.Options{Command: []string{"cat"}, Name: "stdio#echo"})
	if c.Name() != "stdio#echo" || c.Transport() != wire.Stdio {
		t.Errorf("Name %q Transport %q", c.Name(), c.Transport())
	}
	msgs := []string{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, `{"a":"é 🔑"}`, `{}`}
	for _, m := range msgs {
		send(t, c, m, nil)
	}
	for _, m := range msgs {
		f := recv(t, c)
		expectMessage(t, f, m, false)
		if f.Conn != "stdio#echo" || f.Exchange != 0 || f.HTTP != nil {
			t.Errorf("frame conn %q exchange %d http %v", f.Conn, f.Exchange, f.HTTP)
		}
	}
	// Raw sends add no newline: two raw pieces and a normal send make one line.
	send(t, c, `{"x":`, &wire.SendOptions{Raw: true})
	send(t, c, `1`, &wire.SendOptions{Raw: true})
	send(t, c, `}`, nil)
	expectMessage(t, recv(t, c), `{"x":1}`, false)
	// A raw payload with embedded newlines is split by the reader.
	send(t, c, "{\"a\":1}\n{\"b\":2}\n", &wire.SendOptions{Raw: true})
	expectMessage(t, recv(t, c), `{"a":1}`, false)
	expectMessage(t, recv(t, c), `{"b":2}`, false)
}

func TestConcurrentSendsKeepLinesWhole(t *testing.T) {
	c := start(t, stdio.Options{Command: []string{"cat"}})
	const writers, per = 4, 50
	pad := strings.Repeat("x", 3000) // lines larger than PIPE_BUF-sized chunks
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < per; i++ {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				_, err := c.Send(ctx, []byte(fmt.Sprintf(`{"w":%d,"i":%d,"pad":"%s"}`, w, i, pad)), nil)
				cancel()
				if err != nil {
					t.Errorf("Send: %v", err)
					return
				}
			}
		}()
	}
	seen := map[string]bool{}
	for n := 0; n < writers*per; n++ {
		f := recv(t, c)
		var w, i int
		if _, err := fmt.Sscanf(string(f.Raw), `{"w":%d,"i":%d,`, &w, &i); err != nil || !bytes.HasSuffix(f.Raw, []byte(pad+`"}`)) {
			t.Fatalf("mangled line %q", clip(f.Raw))
		}
		key := fmt.Sprint(w, "/", i)
		if seen[key] {
			t.Fatalf("line %s twice", key)
		}
		seen[key] = true
	}
	wg.Wait()
}

func TestNonJSONAndBlankLinesAreMessages(t *testing.T) {
	c := start(t, stdio.Options{Command: shell(`printf 'not json\n\n  \n{"x":1}\r\n[1,2]\nno newline at end'`)})
	for _, want := range []string{"not json", "", "  ", "{\"x\":1}\r", "[1,2]", "no newline at end"} {
		expectMessage(t, recv(t, c), want, false)
	}
	f := expectEnd(t, c)
	if !strings.Contains(f.Note, "exit status 0") {
		t.Errorf("closed note %q does not report the exit", f.Note)
	}
}

func TestLongLineTruncated(t *testing.T) {
	const max = 1000
	cases := []struct {
		name      string
		lineLen   int
		truncated bool
	}{
		{"just below the cap", max - 1, false},
		{"exactly the cap", max, false},
		{"one over the cap", max + 1, true},
		{"far over the cap and the read buffer", 200 << 10, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			script := fmt.Sprintf(`head -c %d /dev/zero | tr '\0' a; printf '\n{"next":1}\n'`, tc.lineLen)
			c := start(t, stdio.Options{Command: shell(script), MaxLineBytes: max})
			want := strings.Repeat("a", min(tc.lineLen, max))
			expectMessage(t, recv(t, c), want, tc.truncated)
			expectMessage(t, recv(t, c), `{"next":1}`, false)
			expectEnd(t, c)
		})
	}
	t.Run("line longer than the read buffer under the cap", func(t *testing.T) {
		n := 150 << 10
		c := start(t, stdio.Options{Command: shell(fmt.Sprintf(`head -c %d /dev/zero | tr '\0' b; printf '\nok\n'`, n)), MaxLineBytes: 1 << 20})
		expectMessage(t, recv(t, c), strings.Repeat("b", n), false)
		expectMessage(t, recv(t, c), "ok", false)
	})
	t.Run("exactly the cap across the read buffer", func(t *testing.T) {
		n := 64 << 10
		c := start(t, stdio.Options{Command: shell(fmt.Sprintf(`head -c %d /dev/zero | tr '\0' c; printf '\nok\n'`, n)), MaxLineBytes: n})
		expectMessage(t, recv(t, c), strings.Repeat("c", n), false)
		expectMessage(t, recv(t, c), "ok", false)
	})
}

func TestStderrTailBounded(t *testing.T) {
	c := start(t, stdio.Options{
		Command:     shell(`i=0; while [ $i -lt 500 ]; do echo "noise line $i" >&2; i=$((i+1)); done; echo LAST-LINE >&2; echo done`),
		StderrBytes: 100,
	})
	expectMessage(t, recv(t, c), "done", false)
	expectEnd(t, c)
	if err := c.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	s := c.Stderr()
	if !strings.HasSuffix(s, "LAST-LINE\n") {
		t.Fatalf("stderr tail %q does not end with the last line", s)
	}
	if !strings.HasPrefix(s, "…") {
		t.Errorf("stderr tail %q is not marked as cut", s)
	}
	if n := len(strings.TrimPrefix(s, "…")); n != 100 {
		t.Errorf("stderr tail keeps %d bytes, want 100", n)
	}
	if strings.Contains(s, "noise line 0\n") {
		t.Errorf("stderr tail kept the head: %q", s)
	}

	short := start(t, stdio.Options{Command: shell(`echo short >&2`), StderrBytes: 100})
	expectEnd(t, short)
	_ = short.Close()
	if s := short.Stderr(); s != "short\n" {
		t.Errorf("short stderr = %q", s)
	}
}

func TestExitYieldsClosedThenErrClosed(t *testing.T) {
	c := start(t, stdio.Options{Command: shell(`echo '{"bye":1}'; exit 3`)})
	expectMessage(t, recv(t, c), `{"bye":1}`, false)
	f := expectEnd(t, c)
	if f.Dir != wire.In || !strings.Contains(f.Note, "exit status 3") {
		t.Errorf("closed frame dir %v note %q", f.Dir, f.Note)
	}
	select {
	case <-c.Exited():
	case <-time.After(5 * time.Second):
		t.Fatal("Exited not closed")
	}
	if got := c.ExitState(); got != "exit status 3" {
		t.Errorf("ExitState = %q", got)
	}
}

func TestRecvRespectsContext(t *testing.T) {
	c := start(t, stdio.Options{Command: []string{"cat"}})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	t0 := time.Now()
	_, err := c.Recv(ctx)
	if !errors.Is(err, wire.ErrTimeout) {
		t.Fatalf("Recv on a silent server = %v, want ErrTimeout", err)
	}
	if d := time.Since(t0); d > 2*time.Second {
		t.Errorf("Recv took %v", d)
	}
}

func TestSendAfterExit(t *testing.T) {
	c := start(t, stdio.Options{Command: shell(`exit 0`)})
	select {
	case <-c.Exited():
	case <-time.After(5 * time.Second):
		t.Fatal("process did not exit")
	}
	_, err := c.Send(context.Background(), []byte(`{"jsonrpc":"2.0","method":"x"}`), nil)
	if !errors.Is(err, wire.ErrClosed) {
		t.Fatalf("Send after exit = %v, want ErrClosed", err)
	}
	// And after Close.
	_ = c.Close()
	if _, err := c.Send(context.Background(), []byte(`{}`), nil); !errors.Is(err, wire.ErrClosed) {
		t.Fatalf("Send after Close = %v, want ErrClosed", err)
	}
}

func TestSendAfterStdinClosedButProcessAlive(t *testing.T) {
	// The server ignores stdin EOF; CloseStdinAndWait closes stdin.
	c := start(t, stdio.Options{Command: shell(`exec 0<&-; exec sleep 30`), ExitWait: 50 * time.Millisecond})
	if c.CloseStdinAndWait(20 * time.Millisecond) {
		t.Fatal("sleep exited on stdin EOF")
	}
	if _, err := c.Send(context.Background(), []byte(`{}`), nil); !errors.Is(err, wire.ErrClosed) {
		t.Fatalf("Send after stdin closed = %v, want ErrClosed", err)
	}
}

func TestCloseStdinAndWaitOnWellBehavedServer(t *testing.T) {
	c := start(t, stdio.Options{Command: []string{"cat"}})
	if !c.CloseStdinAndWait(5 * time.Second) {
		t.Fatal("cat did not exit after stdin EOF")
	}
	expectEnd(t, c)
}

func TestSendTimeoutWhenServerDoesNotRead(t *testing.T) {
	c := start(t, stdio.Options{Command: []string{"sleep", "30"}, ExitWait: 50 * time.Millisecond})
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	defer cancel()
	payload := bytes.Repeat([]byte("z"), 2<<20) // well over any pipe buffer
	t0 := time.Now()
	_, err := c.Send(ctx, payload, nil)
	if !errors.Is(err, wire.ErrTimeout) {
		t.Fatalf("Send to a server that does not read = %v, want ErrTimeout", err)
	}
	if d := time.Since(t0); d > 3*time.Second {
		t.Errorf("Send took %v", d)
	}
	// An already expired context fails at once as well.
	expired, cancel2 := context.WithTimeout(context.Background(), -time.Second)
	defer cancel2()
	if _, err := c.Send(expired, payload, nil); !errors.Is(err, wire.ErrTimeout) {
		t.Fatalf("Send with an expired context = %v, want ErrTimeout", err)
	}
	t0 = time.Now()
	if err := c.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if d := time.Since(t0); d > 3*time.Second {
		t.Errorf("Close took %v", d)
	}
}

func TestCloseEscalatesToSIGKILL(t *testing.T) {
	rec := wire.NewRecorder(nil)
	c := start(t, stdio.Options{
		Command:  shell(`trap "" TERM; while :; do sleep 0.05; done`),
		ExitWait: 100 * time.Millisecond,
		Recorder: rec,
		Name:     "stubborn",
	})
	pid := c.Pid()
	t0 := time.Now()
	if err := c.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	d := time.Since(t0)
	if d < 200*time.Millisecond {
		t.Errorf("Close took %v, less than two ExitWaits: did it wait at all?", d)
	}
	if d > 3*time.Second {
		t.Errorf("Close took %v", d)
	}
	select {
	case <-c.Exited():
	default:
		t.Fatal("Close returned before the process was reaped")
	}
	if got := c.ExitState(); got != "signal: killed" {
		t.Errorf("ExitState = %q, want signal: killed", got)
	}
	// Reaped: the pid is gone, not a zombie.
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("kill -0 %d after Close = %v, want ESRCH", pid, err)
	}
	var notes []string
	for _, f := range rec.Since(0, 0) {
		if f.Kind == wire.KindNote {
			notes = append(notes, f.Note)
		}
	}
	joined := strings.Join(notes, "\n")
	for _, want := range []string{"started pid " + strconv.Itoa(pid), "SIGTERM", "SIGKILL", "process signal: killed"} {
		if !strings.Contains(joined, want) {
			t.Errorf("notes %q lack %q", notes, want)
		}
	}
	// Close is idempotent.
	if err := c.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestCloseKillsBackgroundChildHoldingStdout(t *testing.T) {
	cases := []struct{ name, script string }{
		{"parent still runs", `sleep 30 & echo $!; exec cat`},
		{"parent already exited", `sleep 30 & echo $!`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := start(t, stdio.Options{Command: shell(tc.script), ExitWait: 2 * time.Second})
			f := recv(t, c)
			child, err := strconv.Atoi(strings.TrimSpace(string(f.Raw)))
			if err != nil {
				t.Fatalf("child pid line %q: %v", f.Raw, err)
			}
			if gone(child) {
				t.Fatalf("child %d not running before Close", child)
			}
			t0 := time.Now()
			if err := c.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			if d := time.Since(t0); d > 1500*time.Millisecond {
				t.Errorf("Close took %v", d)
			}
			waitGone(t, child)
			expectEnd(t, c)
		})
	}
}

func TestRecorderRedactsWhileRecvKeepsOriginal(t *testing.T) {
	const secret = "sekrit-token-123"
	rec := wire.NewRecorder(wire.NewRedactor(secret))
	c := start(t, stdio.Options{Command: []string{"cat"}, Recorder: rec, Name: "stdio#rec"})
	after := rec.Seq()
	payload := `{"jsonrpc":"2.0","id":1,"method":"x","params":{"token":"` + secret + `"}}`
	send(t, c, payload, nil)
	f := recv(t, c)
	expectMessage(t, f, payload, false)
	if f.Seq == 0 {
		t.Error("delivered frame has no Seq")
	}
	frames := rec.Since(after, 0)
	var out, in *wire.Frame
	for i := range frames {
		g := &frames[i]
		if strings.Contains(string(g.Raw), secret) || strings.Contains(g.Note, secret) {
			t.Errorf("recorded frame %d leaks the secret: %q", g.Seq, g.Raw)
		}
		if g.Kind != wire.KindMessage {
			continue
		}
		if g.Dir == wire.Out {
			out = g
		} else {
			in = g
		}
	}
	want := strings.ReplaceAll(payload, secret, wire.Redacted)
	if out == nil || string(out.Raw) != want || out.Conn != "stdio#rec" {
		t.Fatalf("recorded send frame %+v, want raw %q", out, want)
	}
	if in == nil || string(in.Raw) != want || in.Seq != f.Seq || in.Seq <= out.Seq {
		t.Fatalf("recorded recv frame %+v, want raw %q seq %d", in, want, f.Seq)
	}
	_ = c.Close()
	// Everything, including the closed frame and the notes, is recorded in order.
	all := rec.Since(0, 0)
	for i := 1; i < len(all); i++ {
		if all[i].Seq <= all[i-1].Seq {
			t.Fatalf("recorder seqs not increasing: %d then %d", all[i-1].Seq, all[i].Seq)
		}
	}
	var closed bool
	for _, g := range all {
		closed = closed || g.Kind == wire.KindClosed
	}
	if !closed {
		t.Error("closed frame not recorded")
	}
}

func TestStartErrors(t *testing.T) {
	if _, err := stdio.Start(stdio.Options{}); err == nil {
		t.Error("Start with no command succeeded")
	}
	if _, err := stdio.Start(stdio.Options{Command: []string{"/nonexistent/mcpconform-no-such-binary"}}); err == nil {
		t.Error("Start of a missing binary succeeded")
	}
}

func TestEnvAndDir(t *testing.T) {
	dir := t.TempDir()
	c := start(t, stdio.Options{Command: shell(`echo "$MCPCONFORM_TEST_VAR $(pwd)"`), Env: []string{"MCPCONFORM_TEST_VAR=hello"}, Dir: dir})
	f := recv(t, c)
	got := string(f.Raw)
	// pwd may resolve symlinks in the temp dir path.
	if !strings.HasPrefix(got, "hello ") || !strings.HasSuffix(got, dir[strings.LastIndexByte(dir, '/'):]) {
		t.Errorf("env/dir line %q (dir %s)", got, dir)
	}
}
