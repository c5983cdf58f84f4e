package conform

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/internal/catalog"
	"github.com/mcpconform/mcpconform/internal/session"
	"github.com/mcpconform/mcpconform/internal/target"
	"github.com/mcpconform/mcpconform/internal/wire"
)

// laneEnv is an Env with lanes for two revisions, whose checks open no
// connection (the target is never contacted).
func laneEnv(t *testing.T, order map[catalog.Revision][]string) *Env {
	t.Helper()
	e := &Env{Target: &target.Target{URL: "http://127.0.0.1:9/mcp", Recorder: wire.NewRecorder(wire.NewRedactor()), Timeout: time.Second},
		SpecBudget: 5 * time.Second}
	e.UseLanes(2, order)
	t.Cleanup(e.StopLanes)
	return e
}

const laneA, laneB = catalog.R20251125, catalog.Modern

// TestLanesRunRevisionsSideBySide: each revision's checks run in order in
// their own lane, both lanes at once, and each spec gets its own check's
// outcome and steps.
func TestLanesRunRevisionsSideBySide(t *testing.T) {
	e := laneEnv(t, map[catalog.Revision][]string{laneA: {"RPC-001", "RPC-002"}, laneB: {"RPC-001", "RPC-002"}})
	bothRunning := make(chan struct{})
	var once sync.Once
	var running sync.WaitGroup
	running.Add(2)
	meet := func(t *T) { // each lane's first check waits for the other's
		running.Done()
		go func() { running.Wait(); once.Do(func() { close(bothRunning) }) }()
		select {
		case <-bothRunning:
		case <-t.Ctx.Done():
			t.Error("the other lane's check never ran beside this one")
		}
	}
	l := e.lanes
	for _, rev := range []catalog.Revision{laneA, laneB} {
		l.register(catalog.MustGet("RPC-001"), rev, wire.HTTP, func(t *T) { t.Step("first " + string(t.Rev)); meet(t) })
		l.register(catalog.MustGet("RPC-002"), rev, wire.HTTP, func(t *T) { t.Step("second " + string(t.Rev)); t.Warn("second") })
	}
	for _, rev := range []catalog.Revision{laneA, laneB} {
		out, steps := l.await(context.Background(), specKey{"RPC-001", rev})
		if out.Verdict != PASS || len(steps) != 1 || steps[0] != "first "+string(rev) {
			t.Errorf("%s RPC-001: %s %v", rev, out, steps)
		}
		out, steps = l.await(context.Background(), specKey{"RPC-002", rev})
		if out.Verdict != WARN || out.Requirement != "RPC-002" || out.Revision != rev || len(steps) != 1 {
			t.Errorf("%s RPC-002: %s %v", rev, out, steps)
		}
	}
}

// TestLanesAlone: a check that calls Alone (it changes what every session
// sees) waits for the other lanes' running checks to end, and no other
// check starts until it has ended.
func TestLanesAlone(t *testing.T) {
	e := laneEnv(t, map[catalog.Revision][]string{laneA: {"RPC-001"}, laneB: {"RPC-001", "RPC-002"}})
	var mu sync.Mutex
	var events []string
	log := func(s string) { mu.Lock(); events = append(events, s); mu.Unlock() }
	b1Started, releaseB1 := make(chan struct{}), make(chan struct{})
	l := e.lanes
	l.register(catalog.MustGet("RPC-001"), laneB, wire.HTTP, func(t *T) {
		close(b1Started)
		<-releaseB1
		log("B1 end")
	})
	l.register(catalog.MustGet("RPC-002"), laneB, wire.HTTP, func(t *T) { log("B2 start") })
	l.register(catalog.MustGet("RPC-001"), laneA, wire.HTTP, func(t *T) {
		<-b1Started
		go func() { time.Sleep(20 * time.Millisecond); close(releaseB1) }()
		t.Alone()
		log("A1 alone")
		time.Sleep(30 * time.Millisecond) // B2 would start here without Alone
		log("A1 end")
	})
	l.await(context.Background(), specKey{"RPC-001", laneA})
	l.await(context.Background(), specKey{"RPC-002", laneB})
	if got := strings.Join(events, ", "); got != "B1 end, A1 alone, A1 end, B2 start" {
		t.Fatalf("order: %s", got)
	}
}

// TestLanesInterrupted: when Ginkgo interrupts a spec (Ctrl-C, the run's
// budget), every lane is cancelled: the running check ends with ERROR, and
// a check that had not started yet is not run.
func TestLanesInterrupted(t *testing.T) {
	e := laneEnv(t, map[catalog.Revision][]string{laneA: {"RPC-001", "RPC-002"}})
	l := e.lanes
	started := make(chan struct{})
	ran := false
	l.register(catalog.MustGet("RPC-001"), laneA, wire.HTTP, func(t *T) {
		close(started)
		<-t.Ctx.Done()
		t.Error("cancelled")
	})
	l.register(catalog.MustGet("RPC-002"), laneA, wire.HTTP, func(t *T) { ran = true })
	ctx, cancel := context.WithCancelCause(context.Background())
	l.start()
	<-started
	cancel(errors.New("interrupted by the test"))
	out, _ := l.await(ctx, specKey{"RPC-001", laneA})
	if out.Verdict != ERROR || !strings.Contains(out.Message, "interrupted") {
		t.Errorf("RPC-001: %s", out)
	}
	out, _ = l.await(context.Background(), specKey{"RPC-002", laneA})
	if out.Verdict != ERROR || ran {
		t.Errorf("RPC-002 after the interruption: %s (ran %v)", out, ran)
	}
}

// TestLanesAbandonOverrun: a check that ignores its context past its
// budget is abandoned with ERROR, and its lane goes on.
func TestLanesAbandonOverrun(t *testing.T) {
	e := laneEnv(t, map[catalog.Revision][]string{laneA: {"RPC-001", "RPC-002"}})
	e.SpecBudget = time.Millisecond
	defer func(g time.Duration) { laneGrace = g }(laneGrace)
	laneGrace = 20 * time.Millisecond
	l := e.lanes
	stuck := make(chan struct{})
	defer close(stuck)
	l.register(catalog.MustGet("RPC-001"), laneA, wire.HTTP, func(t *T) { <-stuck })
	l.register(catalog.MustGet("RPC-002"), laneA, wire.HTTP, func(t *T) {})
	out, _ := l.await(context.Background(), specKey{"RPC-001", laneA})
	if out.Verdict != ERROR || !strings.Contains(out.Message, "abandoned") {
		t.Errorf("RPC-001: %s", out)
	}
	if out, _ = l.await(context.Background(), specKey{"RPC-002", laneA}); out.Verdict != PASS {
		t.Errorf("RPC-002 after the abandoned check: %s", out)
	}
}

// TestLanesGrow: while a lane's check waits (on a slow server) and the
// machine has CPU to spare, the lane takes another worker, which runs the
// next checks beside it with a shared session of its own; each check
// keeps its own outcome. With no CPU to spare the lane keeps one worker.
func TestLanesGrow(t *testing.T) {
	defer func(g time.Duration) { growAfter = g }(growAfter)
	growAfter = time.Millisecond
	t.Run("spare", func(t *testing.T) {
		e := laneEnv(t, map[catalog.Revision][]string{laneA: {"RPC-001", "RPC-002", "RPC-003"}})
		l := e.lanes
		l.spare = func() bool { return true }
		l.cheap = func() bool { return true } // fewer than stealMin checks
		secondRan := make(chan struct{})
		var workers [3]int
		l.register(catalog.MustGet("RPC-001"), laneA, wire.HTTP, func(t *T) {
			workers[0] = t.worker()
			select { // the next check runs while this one waits
			case <-secondRan:
			case <-t.Ctx.Done():
				t.Error("no other worker ran the next check while this one waited")
			}
		})
		l.register(catalog.MustGet("RPC-002"), laneA, wire.HTTP, func(t *T) { workers[1] = t.worker(); close(secondRan); t.Warn("second") })
		l.register(catalog.MustGet("RPC-003"), laneA, wire.HTTP, func(t *T) { workers[2] = t.worker() })
		for i, id := range []string{"RPC-001", "RPC-002", "RPC-003"} {
			out, _ := l.await(context.Background(), specKey{id, laneA})
			if want := []Verdict{PASS, WARN, PASS}[i]; out.Verdict != want || out.Requirement != id {
				t.Errorf("%s: %s, want %s", id, out, want)
			}
		}
		if workers[1] == workers[0] || e.Workers() < 2 {
			t.Errorf("the second check ran on worker %d beside worker %d (%d workers)", workers[1], workers[0], e.Workers())
		}
	})
	t.Run("busy", func(t *testing.T) {
		e := laneEnv(t, map[catalog.Revision][]string{laneA: {"RPC-001", "RPC-002"}})
		l := e.lanes
		asked := make(chan struct{})
		var once sync.Once
		l.spare = func() bool { once.Do(func() { close(asked) }); return false }
		l.cheap = func() bool { return true }
		firstDone := false
		l.register(catalog.MustGet("RPC-001"), laneA, wire.HTTP, func(t *T) {
			select { // until the lane asked whether it may grow
			case <-asked:
			case <-t.Ctx.Done():
				t.Error("the lane never considered growing")
			}
			firstDone = true
		})
		var afterFirst bool
		l.register(catalog.MustGet("RPC-002"), laneA, wire.HTTP, func(t *T) { afterFirst = firstDone })
		if out, _ := l.await(context.Background(), specKey{"RPC-001", laneA}); out.Verdict != PASS {
			t.Errorf("RPC-001: %s", out)
		}
		if out, _ := l.await(context.Background(), specKey{"RPC-002", laneA}); out.Verdict != PASS || !afterFirst {
			t.Errorf("RPC-002: %s (after the first: %v)", out, afterFirst)
		}
		if e.Workers() != 1 {
			t.Errorf("%d workers with no CPU to spare, want 1", e.Workers())
		}
	})
	// Sessions that cost a start-up: the last few checks (fewer than
	// stealMin) do not pay back a new worker's shared session.
	t.Run("dear", func(t *testing.T) {
		e := laneEnv(t, map[catalog.Revision][]string{laneA: {"RPC-001", "RPC-002"}})
		l := e.lanes
		l.spare = func() bool { return true }
		asked := make(chan struct{})
		var once sync.Once
		l.cheap = func() bool { once.Do(func() { close(asked) }); return false }
		l.register(catalog.MustGet("RPC-001"), laneA, wire.HTTP, func(t *T) {
			select { // until the lane asked whether sessions are cheap
			case <-asked:
			case <-t.Ctx.Done():
				t.Error("the lane never considered growing")
			}
		})
		l.register(catalog.MustGet("RPC-002"), laneA, wire.HTTP, func(t *T) {})
		for _, id := range []string{"RPC-001", "RPC-002"} {
			if out, _ := l.await(context.Background(), specKey{id, laneA}); out.Verdict != PASS {
				t.Errorf("%s: %s", id, out)
			}
		}
		if e.Workers() != 1 {
			t.Errorf("%d workers for one check left on a server whose sessions cost a start-up, want 1", e.Workers())
		}
	})
}

// TestCPUIdle: the sampler reads /proc/stat where there is one, and
// answers without a previous sample.
func TestCPUIdle(t *testing.T) {
	var c cpuIdle
	if !c.spare() {
		t.Error("the first sample must allow growth (nothing measured yet)")
	}
	if _, all, ok := readCPU(); ok && all == 0 {
		t.Error("/proc/stat read as zero CPU time")
	}
}

// TestLanesExclusive: two checks that take the same named lock run one
// after the other, while a check that does not take it runs beside them.
func TestLanesExclusive(t *testing.T) {
	e := laneEnv(t, map[catalog.Revision][]string{laneA: {"RPC-001", "RPC-002"}, laneB: {"RPC-001"}})
	l := e.lanes
	var mu sync.Mutex
	var events []string
	log := func(s string) { mu.Lock(); events = append(events, s); mu.Unlock() }
	aHolds, bDone := make(chan struct{}), make(chan struct{})
	l.register(catalog.MustGet("RPC-001"), laneA, wire.HTTP, func(t *T) {
		t.Exclusive("thing")
		close(aHolds)
		<-bDone // the other lane's check runs meanwhile: not excluded
		log("A1 end")
	})
	l.register(catalog.MustGet("RPC-001"), laneB, wire.HTTP, func(t *T) {
		<-aHolds
		log("B1 free")
		close(bDone)
		t.Exclusive("thing") // waits for A1's end
		log("B1 exclusive")
	})
	l.register(catalog.MustGet("RPC-002"), laneA, wire.HTTP, func(t *T) {})
	l.await(context.Background(), specKey{"RPC-001", laneA})
	l.await(context.Background(), specKey{"RPC-001", laneB})
	l.await(context.Background(), specKey{"RPC-002", laneA})
	if got := strings.Join(events, ", "); got != "B1 free, A1 end, B1 exclusive" {
		t.Fatalf("order: %s", got)
	}
}

// TestLanesExclusiveThenAlone: a check waiting for a named lock does not
// keep the lanes from the holder of that lock when it needs them to itself
// (T.Alone): no deadlock.
func TestLanesExclusiveThenAlone(t *testing.T) {
	e := laneEnv(t, map[catalog.Revision][]string{laneA: {"RPC-001"}, laneB: {"RPC-001"}})
	l := e.lanes
	aHolds := make(chan struct{})
	l.register(catalog.MustGet("RPC-001"), laneA, wire.HTTP, func(t *T) {
		t.Exclusive("thing")
		close(aHolds)
		t.Alone() // B waits for "thing" meanwhile
	})
	l.register(catalog.MustGet("RPC-001"), laneB, wire.HTTP, func(t *T) {
		<-aHolds
		t.Exclusive("thing")
	})
	for _, rev := range []catalog.Revision{laneA, laneB} {
		if out, _ := l.await(context.Background(), specKey{"RPC-001", rev}); out.Verdict != PASS {
			t.Errorf("%s: %s", rev, out)
		}
	}
}

// TestLanesSteal: a worker that ran out of checks in its own lane starts
// one on the lane with the most checks left (at least stealMin), when
// sessions are cheap; the lane's remaining checks then run on two workers.
func TestLanesSteal(t *testing.T) {
	ids := []string{"RPC-001", "RPC-002", "RPC-003", "RPC-004", "RPC-005", "RPC-006", "RPC-007", "RPC-008", "RPC-009", "RPC-010"}
	e := laneEnv(t, map[catalog.Revision][]string{laneA: {"RPC-001"}, laneB: ids})
	l := e.lanes
	l.width = 3
	l.slots = make(chan struct{}, 3)
	l.spare = func() bool { return false } // no growth: only stealing adds a worker
	l.cheap = func() bool { return true }
	// ran gets the worker of each of lane B's later checks; the first one
	// is held until one ran on another worker than its own (the stolen
	// worker may start before lane B's own took its first check, and take
	// that one itself).
	ran := make(chan int, len(ids))
	l.register(catalog.MustGet("RPC-001"), laneA, wire.HTTP, func(t *T) {})
	l.register(catalog.MustGet(ids[0]), laneB, wire.HTTP, func(t *T) {
		for {
			select {
			case w := <-ran:
				if w != t.worker() {
					return
				}
			case <-t.Ctx.Done():
				t.Error("no second worker took lane B's checks")
			}
		}
	})
	for _, id := range ids[1:] {
		l.register(catalog.MustGet(id), laneB, wire.HTTP, func(t *T) { ran <- t.worker() })
	}
	for _, id := range ids {
		if out, _ := l.await(context.Background(), specKey{id, laneB}); out.Verdict != PASS {
			t.Errorf("%s: %s", id, out)
		}
	}
	if w := e.Workers(); w != 3 {
		t.Errorf("%d workers, want 3 (one per lane, and the one lane A's worker started on lane B)", w)
	}
}

// TestLanesAloneWaitKeepsTheBudget (issue 31): a check that waits for the
// lanes to itself (T.Alone: a catalog change) while another check runs
// longer than the waiter's whole budget and its lane's grace is neither
// abandoned nor out of budget: the wait is the harness's. Before,
// STALE-005 under a crowded server ended ERROR "did not end within its
// budget … abandoned". (Real time: a goroutine blocked on a mutex stops
// testing/synctest's clock.)
func TestLanesAloneWaitKeepsTheBudget(t *testing.T) {
	e := laneEnv(t, map[catalog.Revision][]string{laneA: {"RPC-001"}, laneB: {"RPC-001"}})
	// a budget a loaded machine does not spend before the wait begins
	e.SpecBudget = 250 * time.Millisecond
	defer func(g time.Duration) { laneGrace = g }(laneGrace)
	laneGrace = 50 * time.Millisecond
	l := e.lanes
	holding, waited := make(chan struct{}), make(chan struct{})
	l.register(catalog.MustGet("RPC-001"), laneB, wire.HTTP, func(t *T) {
		// held at the quiet gate (another check's re-ask), until the other
		// check has waited for the lanes past its budget and grace
		defer session.Pause(t.Ctx)()
		close(holding)
		<-waited
	})
	l.register(catalog.MustGet("RPC-001"), laneA, wire.HTTP, func(t *T) {
		<-holding
		go func() {
			// past the waiter's budget and its lane's grace, several times
			time.Sleep(4 * (e.SpecBudget + laneGrace))
			close(waited)
		}()
		t.Alone()
		if t.Ctx.Err() != nil {
			t.Error("the wait for the lanes spent the check's budget")
		}
	})
	if out, _ := l.await(context.Background(), specKey{"RPC-001", laneA}); out.Verdict != PASS {
		t.Errorf("the check that waited for the lanes: %s", out)
	}
	if out, _ := l.await(context.Background(), specKey{"RPC-001", laneB}); out.Verdict != PASS {
		t.Errorf("the check held at the gate: %s", out)
	}
}
