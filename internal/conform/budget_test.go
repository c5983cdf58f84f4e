package conform

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpconform/mcpconform/internal/session"
)

// A wait at the run's quiet gate does not spend a check's budget: its
// deadline moves by the wait, and the lane's bound learns by how much.
func TestGateWaitDoesNotSpendTheBudget(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var q session.Quiet
		var lb laneBudget
		ctx, cancel := withBudget(context.Background(), 10*time.Second, &lb)
		defer cancel()
		release := q.Hush(context.Background(), time.Second) // another check re-asks a silence
		go func() {
			time.Sleep(4 * time.Second)
			if lb.waiting.Load() != 1 {
				t.Errorf("the lane's bound does not see the check waiting at the gate")
			}
			time.Sleep(4 * time.Second)
			release()
		}()
		if err := q.Enter(ctx); err != nil { // held 8 s at the gate
			t.Fatalf("the gate: %v", err)
		}
		q.Leave()
		time.Sleep(9 * time.Second) // 17 s after the start: 9 s of the budget's own time
		if ctx.Err() != nil {
			t.Fatalf("the budget was spent after 9 s of the check's own time and 8 s at the gate")
		}
		if got := time.Duration(lb.extended.Load()); got != 8*time.Second {
			t.Errorf("the lane's bound moved by %s, want 8s", got)
		}
		time.Sleep(2 * time.Second)
		if ctx.Err() == nil {
			t.Errorf("the budget was not spent after 11 s of the check's own time")
		}
		if dl, ok := ctx.Deadline(); !ok || dl.IsZero() {
			t.Errorf("the budget's context has no deadline")
		}
	})
}

// A wait at the gate longer than the whole budget does not spend it
// either: the clock stops while the check waits.
func TestLongGateWaitKeepsTheBudget(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var q session.Quiet
		ctx, cancel := withBudget(context.Background(), 10*time.Second, nil)
		defer cancel()
		release := q.Hush(context.Background(), time.Second)
		go func() {
			time.Sleep(30 * time.Second)
			release()
		}()
		if err := q.Enter(ctx); err != nil {
			t.Fatalf("held 30 s at the gate with a 10 s budget: %v", err)
		}
		q.Leave()
		if ctx.Err() != nil {
			t.Fatal("the budget was spent at the gate")
		}
		time.Sleep(11 * time.Second)
		if ctx.Err() == nil {
			t.Error("the budget was not spent after 11 s of the check's own time")
		}
	})
}
