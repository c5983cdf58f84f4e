package fuzz

import (
	"context"
	"testing"

	"github.com/mcpconform/mcpconform/internal/catalog"
	"github.com/mcpconform/mcpconform/internal/jsonrpc"
)

// The liveness probe follows a case only when its outcome needs it: not
// after a case the server answered whole, after one with a notification
// (or a fault, an unanswered request…); a connection found ended after an
// unprobed case is not the next case's crash, and the probe follows every
// case from then on.
func TestProbeOnlyWhenTheCaseNeedsIt(t *testing.T) {
	ctx := context.Background()
	h, err := newHarness(ctx, stdioTarget(), catalog.LatestLegacy)
	if err != nil {
		t.Fatal(err)
	}
	defer h.close()
	exchange := func(msgs ...[]byte) {
		t.Helper()
		if ps, tr := h.exchange(ctx, msgs); len(ps) > 0 {
			t.Fatalf("%v\n%v", ps, tr)
		}
	}
	exchange(jsonrpc.Request(jsonrpc.StringID("a"), "ping", nil), jsonrpc.Request(jsonrpc.IntID(1), "tools/list", nil))
	if n := h.probes.Load(); n != 0 || !h.unprobed {
		t.Fatalf("a case answered whole was probed (%d probes)", n)
	}
	exchange(jsonrpc.Request(jsonrpc.StringID("b"), "ping", nil), notification("notifications/x-mcpconform-fuzz", nil))
	if n := h.probes.Load(); n != 1 || h.unprobed {
		t.Fatalf("a case with a notification: %d probes, want 1", n)
	}
	exchange(jsonrpc.Request(jsonrpc.StringID("c"), "ping", nil))
	// the connection ends after an unprobed case: the next case reopens it
	// and is judged on its own, with the probe from then on
	h.s.Close()
	exchange(jsonrpc.Request(jsonrpc.StringID("d"), "ping", nil))
	if !h.alwaysProbe || h.probes.Load() != 2 {
		t.Fatalf("after the connection ended unprobed: alwaysProbe %v, %d probes", h.alwaysProbe, h.probes.Load())
	}
	exchange(jsonrpc.Request(jsonrpc.StringID("e"), "ping", nil))
	if h.probes.Load() != 3 {
		t.Fatalf("%d probes, want one after every case", h.probes.Load())
	}
}
