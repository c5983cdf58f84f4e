package conform

import (
	"context"
	"sync/atomic"
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
		var ext atomic.Int64
		ctx, cancel := withBudget(context.Background(), 10*time.Second, &ext)
		defer cancel()
		release := q.Hush(context.Background(), time.Second) // another check re-asks a silence
		go func() {
			time.Sleep(8 * time.Second)
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
		if got := time.Duration(ext.Load()); got != 8*time.Second {
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
