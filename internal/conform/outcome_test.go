package conform

import (
	"testing"

	"github.com/mcpconform/mcpconform/internal/wire"
)

// TestWithCauses: a verdict quotes the distinct transport problems of its
// transcript (at most three), and nothing else.
func TestWithCauses(t *testing.T) {
	note := func(text string) wire.Frame { return wire.Frame{Kind: wire.KindNote, Note: text} }
	frames := []wire.Frame{
		note("started pid 7"),
		note(wire.CausePrefix + "invalid UTF-8 in server output (a stdout line of 10 bytes, first invalid byte 0xff at offset 6)"),
		note(wire.CausePrefix + "invalid UTF-8 in server output (a stdout line of 12 bytes, first invalid byte 0xfe at offset 2)"),
		{Kind: wire.KindMessage, Note: wire.CausePrefix + "not a note"},
		note(wire.CausePrefix + "a stdout line exceeds the 16 MiB cap (200 MiB in all): cut"),
	}
	got := withCauses("no response to ping", frames)
	want := "no response to ping [transport problem: invalid UTF-8 in server output (a stdout line of 10 bytes, first invalid byte 0xff at offset 6); a stdout line exceeds the 16 MiB cap (200 MiB in all): cut]"
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if got := withCauses("m", frames[:1]); got != "m" {
		t.Errorf("no cause: got %q", got)
	}
}

// TestOutcomeResult: an outcome becomes a result with its requirement's
// catalog text and transcript; only a problem's message names the
// transport causes.
func TestOutcomeResult(t *testing.T) {
	frames := []wire.Frame{{Kind: wire.KindNote, Note: wire.CausePrefix + "the server exited"}, {Kind: wire.KindMessage, Raw: []byte(`{}`)}}
	o := &Outcome{Requirement: "LIFE-001", Level: "MUST", Revision: "2025-11-25", Transport: "stdio", Verdict: FAIL, Message: "no answer", Frames: frames}
	r := o.Result()
	if r.Verdict != FAIL || r.Title == "" || r.Area != "lifecycle" || r.Statement == "" || len(r.Transcript) != 2 ||
		r.Message != "no answer ["+wire.CausePrefix+"the server exited]" {
		t.Errorf("result %+v", r)
	}
	o.Verdict = PASS
	if r := o.Result(); r.Message != "no answer" {
		t.Errorf("a PASS names causes: %q", r.Message)
	}
}
