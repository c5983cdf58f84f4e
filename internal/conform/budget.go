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
	// extended adds up the waits, for the lane's bound (nil: no lane).
	extended *atomic.Int64
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
	return c.b.deadline, true
}

// withBudget returns the context of a check with budget d under parent;
// extended (when not nil) adds up the time the gate's waits added.
func withBudget(parent context.Context, d time.Duration, extended *atomic.Int64) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(parent)
	b := &budget{deadline: time.Now().Add(d), extended: extended}
	b.timer = time.AfterFunc(d, func() { cancel(context.DeadlineExceeded) })
	bc := budgetCtx{Context: session.WithGateWait(ctx, b.extend), b: b}
	return bc, func() {
		b.timer.Stop()
		cancel(context.Canceled)
	}
}

// extend moves the deadline by a wait at the gate.
func (b *budget) extend(w time.Duration) {
	if w <= 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.deadline = b.deadline.Add(w)
	b.timer.Reset(time.Until(b.deadline))
	if b.extended != nil {
		b.extended.Add(int64(w))
	}
}
