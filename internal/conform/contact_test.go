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
