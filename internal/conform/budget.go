package conform

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpconform/mcpconform/internal/session"
)

// A check's budget (Env.SpecBudget) is its own time: a wait at the run's
// quiet gate — the harness holding every check while it re-asks another
// check's silence (reask.go) — does not spend it, for that wait is the
// harness's, not the server's (issue 31: under load, checks held at the
// gate ran out of budget and ended ERROR "waiting for the harness's
// quiet"). The budget's deadline moves by every such wait, and a lane's
// own bound on the check (lanes.run) with it.

// budget is one check's budget.
type budget struct {
	mu       sync.Mutex
	deadline time.Time
	timer    *time.Timer
	// pauses counts the waits at the gate in progress (the check's
	// goroutines may wait at once), since pausedAt.
	pauses   int
	pausedAt time.Time
	// lane is the check's lane bound's view (nil: no lane): the time the
	// waits added, and the waits in progress.
	lane *laneBudget
}

// laneBudget is what a lane's bound on a check (lanes.run) knows of the
// check's budget.
type laneBudget struct {
	extended atomic.Int64 // the time the waits added, not yet taken
	waiting  atomic.Int32 // waits in progress
}

// budgetCtx is a check's context: cancelled when its budget is spent,
// with the budget's current deadline (which moves later by the gate's
// waits; a request's own deadline, taken from it when the request starts,
// does not move).
type budgetCtx struct {
	context.Context
	b *budget
}

func (c budgetCtx) Deadline() (time.Time, bool) {
	c.b.mu.Lock()
	defer c.b.mu.Unlock()
	if c.b.pauses > 0 {
		return c.b.deadline.Add(time.Since(c.b.pausedAt)), true
	}
	return c.b.deadline, true
}

// withBudget returns the context of a check with budget d under parent;
// lane (when not nil) is told of the waits.
func withBudget(parent context.Context, d time.Duration, lane *laneBudget) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(parent)
	b := &budget{deadline: time.Now().Add(d), lane: lane}
	b.timer = time.AfterFunc(d, func() { cancel(context.DeadlineExceeded) })
	bc := budgetCtx{Context: session.WithGateWait(ctx, b.pause), b: b}
	return bc, func() {
		b.timer.Stop()
		cancel(context.Canceled)
	}
}

// pause stops the budget's clock until the returned function is called.
func (b *budget) pause() (resume func()) {
	b.mu.Lock()
	b.pauses++
	if b.pauses == 1 {
		b.pausedAt = time.Now()
		b.timer.Stop()
	}
	if b.lane != nil {
		b.lane.waiting.Add(1)
	}
	b.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			b.mu.Lock()
			defer b.mu.Unlock()
			b.pauses--
			if b.lane != nil {
				b.lane.waiting.Add(-1)
			}
			if b.pauses > 0 {
				return
			}
			w := time.Since(b.pausedAt)
			b.deadline = b.deadline.Add(w)
			b.timer.Reset(time.Until(b.deadline))
			if b.lane != nil {
				b.lane.extended.Add(int64(w))
			}
		})
	}
}
