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
	got := withCauses("no response to ping", frames, nil)
	want := "no response to ping [transport problem: invalid UTF-8 in server output (a stdout line of 10 bytes, first invalid byte 0xff at offset 6); a stdout line exceeds the 16 MiB cap (200 MiB in all): cut]"
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if got := withCauses("m", frames[:1], nil); got != "m" {
		t.Errorf("no cause: got %q", got)
	}
}

// TestWithCausesOfTheVerdictsConnection: a process of the check that ended
// for another reason (a probe before the exchange judged) is not the
// verdict's cause; the connection of the evidence, else of the last
// message sent, decides.
func TestWithCausesOfTheVerdictsConnection(t *testing.T) {
	frames := []wire.Frame{
		{Seq: 1, Conn: "stdio#1", Dir: wire.Out, Kind: wire.KindMessage, Raw: []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)},
		{Seq: 2, Conn: "stdio#1", Kind: wire.KindNote, Note: wire.CausePrefix + "the server process ended on its own (exit status 1) after 1 messages from the harness"},
		{Seq: 3, Conn: "stdio#2", Dir: wire.Out, Kind: wire.KindMessage, Raw: []byte(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)},
		{Seq: 4, Conn: "stdio#2", Kind: wire.KindNote, Note: wire.CausePrefix + "the server process ended on its own (exit status 1) after 2 messages from the harness"},
	}
	want := "m [" + wire.CausePrefix + "the server process ended on its own (exit status 1) after 2 messages from the harness]"
	if got := withCauses("m", frames, nil); got != want {
		t.Errorf("last sent: got %q, want %q", got, want)
	}
	want = "m [" + wire.CausePrefix + "the server process ended on its own (exit status 1) after 1 messages from the harness]"
	if got := withCauses("m", frames, []int64{1}); got != want {
		t.Errorf("evidence: got %q, want %q", got, want)
	}
	if got := withCauses("m", frames[3:], nil); got != "m ["+wire.CausePrefix+"the server process ended on its own (exit status 1) after 2 messages from the harness]" {
		t.Errorf("no message sent: got %q", got)
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
