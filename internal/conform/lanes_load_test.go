package conform

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/internal/catalog"
	"github.com/mcpconform/mcpconform/internal/wire"
)

// TestLanesBoundedByOurSide (issue 31): --parallel asks at most; the lanes
// run no more checks at once than MaxWorkers, and a lane takes no worker
// more while as many start-ups overlap as the machine has cores (counted
// in Backoff).
func TestLanesBoundedByOurSide(t *testing.T) {
	e := &Env{Target: laneEnv(t, nil).Target, SpecBudget: 5 * time.Second}
	e.UseLanes(10000, map[catalog.Revision][]string{laneA: {"RPC-001"}})
	t.Cleanup(e.StopLanes)
	if b := e.Backoff(); b.Width != MaxWorkers() || b.Asked != 10000 || cap(e.lanes.slots) != MaxWorkers() {
		t.Fatalf("backoff %+v, slots %d, want width %d", b, cap(e.lanes.slots), MaxWorkers())
	}

	defer func(g time.Duration) { growAfter = g }(growAfter)
	growAfter = time.Millisecond
	e = laneEnv(t, map[catalog.Revision][]string{laneA: {"RPC-001", "RPC-002"}})
	l := e.lanes
	l.spare = func() bool { return true }
	l.cheap = func() bool { return true }
	asked := make(chan struct{})
	var once sync.Once
	l.starting = func() int { once.Do(func() { close(asked) }); return l.startMax }
	first := false
	l.register(catalog.MustGet("RPC-001"), laneA, wire.HTTP, func(t *T) {
		select { // until the lane asked how many start-ups are under way
		case <-asked:
		case <-t.Ctx.Done():
			t.Error("the lane never considered growing")
		}
		first = true
	})
	var afterFirst bool
	l.register(catalog.MustGet("RPC-002"), laneA, wire.HTTP, func(t *T) { afterFirst = first })
	for _, id := range []string{"RPC-001", "RPC-002"} {
		if out, _ := l.await(context.Background(), specKey{id, laneA}); out.Verdict != PASS {
			t.Errorf("%s: %s", id, out)
		}
	}
	if !afterFirst || e.Workers() != 1 {
		t.Errorf("a worker was started while start-ups overlapped (%d workers)", e.Workers())
	}
	if b := e.Backoff(); b.HeldBack != 1 {
		t.Errorf("backoff %+v, want one check held back", b)
	}
}
