package conform

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpconform/mcpconform/internal/catalog"
)

func memoT(ctx context.Context, env *Env, rev catalog.Revision, transport string) *T {
	return &T{Ctx: ctx, Env: env, Rev: rev, Transport: transport, out: &Outcome{Verdict: PASS}}
}

// ends runs fn and reports whether it ended its check (stopSignal).
func ends(fn func()) (ended bool) {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(stopSignal); !ok {
				panic(r)
			}
			ended = true
		}
	}()
	fn()
	return false
}

func TestMemoComputesOnceUnderConcurrency(t *testing.T) {
	env := &Env{}
	m := NewMemo[*int]("a number")
	var computed atomic.Int32
	release := make(chan struct{})
	const n = 16
	got := make([]*int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i] = m.Get(memoT(context.Background(), env, catalog.Modern, "stdio"), func() *int {
				computed.Add(1)
				<-release
				v := 42
				return &v
			})
		}()
	}
	close(release)
	wg.Wait()
	if c := computed.Load(); c != 1 {
		t.Fatalf("computed %d times, want 1", c)
	}
	for i, p := range got {
		if p != got[0] || *p != 42 {
			t.Fatalf("caller %d got %v, want the one shared value", i, p)
		}
	}
}

func TestMemoKeys(t *testing.T) {
	env, other := &Env{}, &Env{}
	a, b := NewMemo[string]("a"), NewMemo[string]("b")
	calls := 0
	get := func(m *Memo[string], e *Env, rev catalog.Revision, tr string) string {
		return m.Get(memoT(context.Background(), e, rev, tr), func() string {
			calls++
			return m.name + "/" + string(rev) + "/" + tr
		})
	}
	for _, c := range []struct {
		m     *Memo[string]
		e     *Env
		rev   catalog.Revision
		tr    string
		calls int
	}{
		{a, env, catalog.Modern, "stdio", 1},
		{a, env, catalog.Modern, "stdio", 1}, // cached
		{a, env, catalog.R20251125, "stdio", 2},
		{a, env, catalog.Modern, "http", 3},
		{b, env, catalog.Modern, "stdio", 4},   // another memo: its own value
		{a, other, catalog.Modern, "stdio", 5}, // another run: computed afresh
		{a, env, catalog.R20251125, "stdio", 5},
	} {
		want := c.m.name + "/" + string(c.rev) + "/" + c.tr
		if got := get(c.m, c.e, c.rev, c.tr); got != want || calls != c.calls {
			t.Errorf("%s: got %q after %d computations, want %q after %d", want, got, calls, want, c.calls)
		}
	}
}

func TestMemoRecomputesAfterACheckEnded(t *testing.T) {
	env := &Env{}
	m := NewMemo[int]("a number")
	started, release := make(chan struct{}), make(chan struct{})
	first := make(chan bool)
	go func() {
		tt := memoT(context.Background(), env, catalog.Modern, "stdio")
		first <- ends(func() {
			m.Get(tt, func() int {
				close(started)
				<-release
				tt.NA("the first check ended while computing")
				return 1
			})
		})
	}()
	<-started
	second := make(chan int)
	go func() {
		second <- m.Get(memoT(context.Background(), env, catalog.Modern, "stdio"), func() int { return 2 })
	}()
	close(release)
	if !<-first {
		t.Fatal("the first check did not end")
	}
	if v := <-second; v != 2 {
		t.Fatalf("the waiting check got %d, want its own computation (2)", v)
	}
	if v := m.Get(memoT(context.Background(), env, catalog.Modern, "stdio"), func() int { return 3 }); v != 2 {
		t.Fatalf("later check got %d, want the stored 2", v)
	}
}

func TestMemoWaiterWithoutBudgetEnds(t *testing.T) {
	env := &Env{}
	m := NewMemo[int]("a number")
	started, release := make(chan struct{}), make(chan struct{})
	done := make(chan int)
	go func() {
		done <- m.Get(memoT(context.Background(), env, catalog.Modern, "stdio"), func() int {
			close(started)
			<-release
			return 7
		})
	}()
	<-started
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	tt := memoT(ctx, env, catalog.Modern, "stdio")
	if !ends(func() { m.Get(tt, func() int { return 8 }) }) || tt.out.Verdict != ERROR {
		t.Fatalf("a waiter whose budget ran out got verdict %s, want ERROR", tt.out.Verdict)
	}
	close(release)
	if v := <-done; v != 7 {
		t.Fatalf("the computing check got %d, want 7", v)
	}
}

// TestMemoWaitIsCounted: a check that waits for another's computation
// counts the wait (Outcome.Waited, report.json waitMs); the computing
// check does not (fake time).
func TestMemoWaitIsCounted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		env := &Env{}
		m := NewMemo[int]("a slow number")
		computer := memoT(context.Background(), env, catalog.Modern, "stdio")
		waiter := memoT(context.Background(), env, catalog.Modern, "stdio")
		started := make(chan struct{})
		done := make(chan struct{})
		go func() {
			defer close(done)
			m.Get(computer, func() int { close(started); time.Sleep(3 * time.Second); return 1 })
		}()
		<-started
		if v := m.Get(waiter, func() int { return 2 }); v != 1 {
			t.Fatalf("the waiter got %d, want the computed 1", v)
		}
		<-done
		if waiter.waited != 3*time.Second || computer.waited != 0 {
			t.Fatalf("waited: waiter %s (want 3s), computer %s (want 0)", waiter.waited, computer.waited)
		}
	})
}
