package conform

import (
	"context"
	"slices"
	"testing"

	"github.com/mcpconform/mcpconform/internal/catalog"
	"github.com/mcpconform/mcpconform/internal/target"
	"github.com/mcpconform/mcpconform/internal/wire"
)

// A check's transcript holds the frames attached to it (work another check
// did for it: the first contact) besides its own, each once, in order; not
// the other frames recorded before it began.
func TestAttachedFramesInTranscript(t *testing.T) {
	rec := wire.NewRecorder(nil)
	env := &Env{Target: &target.Target{Recorder: rec}}
	msg := func(conn string) {
		rec.Record(wire.Frame{Conn: conn, Dir: wire.Out, Kind: wire.KindMessage, Raw: []byte(`{}`)})
	}
	msg("contact") // 1
	msg("contact") // 2
	msg("other")   // 3: before the check, not attached
	msg("contact") // 4: after the contact's end
	ck := newT(context.Background(), env, catalog.MustGet("LIFE-003"), catalog.LatestLegacy, wire.Stdio)
	msg("own") // 5
	ck.attach("contact", 0, 2)
	ck.attach("contact", 0, 1) // the same span again: kept once
	msg("contact")             // 6: the check's own time
	ck.finish()
	var got []int64
	for _, f := range ck.out.Frames {
		got = append(got, f.Seq)
	}
	if want := []int64{1, 2, 5, 6}; !slices.Equal(got, want) {
		t.Errorf("transcript frames %v, want %v", got, want)
	}
}

// A connection handed to a background close before a check began (another
// check's session, the first contact's stdin EOF) is no evidence of that
// check: its frames (a process ending, a transport problem) are neither in
// the check's transcript nor in its message, unless the check attached
// them (STD-002 attaches the contact's EOF).
func TestRetiredConnectionNotInTranscript(t *testing.T) {
	rec := wire.NewRecorder(nil)
	env := &Env{Target: &target.Target{Recorder: rec}}
	msg := func(conn string) {
		rec.Record(wire.Frame{Conn: conn, Dir: wire.Out, Kind: wire.KindMessage, Raw: []byte(`{}`)})
	}
	msg("old") // 1
	env.retired.Store("old", rec.Seq())
	ck := newT(context.Background(), env, catalog.MustGet("RPC-002"), catalog.LatestLegacy, wire.Stdio)
	msg("own")                                                                                                                                  // 2
	rec.Record(wire.Frame{Conn: "old", Dir: wire.In, Kind: wire.KindNote, Note: wire.CausePrefix + "the server process ended (exit status 1)"}) // 3
	msg("own")                                                                                                                                  // 4
	ck.out.Verdict, ck.out.Message = FAIL, "no response"
	ck.finish()
	var got []int64
	for _, f := range ck.out.Frames {
		got = append(got, f.Seq)
	}
	if want := []int64{2, 4}; !slices.Equal(got, want) {
		t.Errorf("transcript frames %v, want %v", got, want)
	}
	if r := ck.out.Result(); r.Message != "no response" {
		t.Errorf("message %q names another connection's transport problem", r.Message)
	}
	if fs := ck.FramesSince(0); len(fs) != 3 {
		t.Errorf("FramesSince(0): %d frames, want 3 (the retired connection's frame before the check stays)", len(fs))
	}

	// attached, the same frames are the check's evidence
	ck2 := newT(context.Background(), env, catalog.MustGet("STD-002"), catalog.LatestLegacy, wire.Stdio)
	ck2.startSeq = 1
	ck2.attach("old", 0, 3)
	ck2.finish()
	if !slices.ContainsFunc(ck2.out.Frames, func(f wire.Frame) bool { return f.Seq == 3 }) {
		t.Errorf("the attached EOF frames are missing from the check that attached them")
	}
}
