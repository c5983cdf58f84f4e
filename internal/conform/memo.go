package conform

import (
	"context"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/internal/catalog"
)

// A Memo is work several checks share, done once per run, revision and
// transport: the exercise the utilities checks judge, the MRTR targets, the
// legacy server-request sessions. Its values live in the Env, so a new run
// (a new Env) computes them afresh and a finished run frees them.
//
// Declare one per kind of value, at package level:
//
//	var exercises = c.NewMemo[*exercise]("the utilities exercise")
//
//	ex := exercises.Get(t, func() *exercise { return runExercise(t) })
type Memo[V any] struct{ name string }

// NewMemo returns a memo; name says what it holds (in the message of a check
// that stopped waiting for it).
func NewMemo[V any](name string) *Memo[V] { return &Memo[V]{name: name} }

// Get returns the value for t's revision and transport, computing it with
// compute (which runs on t, the first check that asks) on first use. Checks
// that ask while it is being computed wait for it. When compute ends its
// check (t.Error, t.NA, a violation) nothing is stored and the next check
// that asks computes it again. A check whose budget runs out while it waits
// ends with ERROR.
func (m *Memo[V]) Get(t *T, compute func() V) V {
	v, ok, waited := t.Env.memos.get(t.Ctx, memoKey{memo: m, rev: t.Rev, transport: t.Transport}, func() any { return compute() }, t.lane)
	t.waited += waited
	if !ok {
		t.Error("the check's budget ran out while it waited for %s (computed by another check)", m.name)
	}
	out, _ := v.(V) // a nil interface value is V's zero value
	return out
}

type memoKey struct {
	memo      any // the *Memo[V]: one namespace per declaration
	rev       catalog.Revision
	transport string
}

type memoEntry struct {
	// from and to are the recorder's positions before and after the
	// computation (spans: its silences are those of every check that
	// takes the value).
	from, to int64
	done     chan struct{} // closed when the computation ended
	v        any
	ok       bool // v was computed (false: the computation ended its check)
}

// memoTable is the Env's memo storage.
type memoTable struct {
	mu sync.Mutex
	m  map[memoKey]*memoEntry
	// seq reads the recorder's position (nil: spans are not kept); used
	// holds, by the context of the check that took them, the spans of the
	// values it took (spans).
	seq  func() int64
	used map[context.Context][]memoSpan
}

// memoSpan is the recorder positions a memo's computation spanned.
type memoSpan struct{ from, to int64 }

// took notes that the check of ctx took e's value.
func (tb *memoTable) took(ctx context.Context, e *memoEntry) {
	if tb.seq == nil {
		return
	}
	tb.mu.Lock()
	defer tb.mu.Unlock()
	if tb.used == nil {
		tb.used = map[context.Context][]memoSpan{}
	}
	tb.used[ctx] = append(tb.used[ctx], memoSpan{e.from, e.to})
}

// spans returns (and forgets) the spans of the values the check of ctx
// took.
func (tb *memoTable) spans(ctx context.Context) []memoSpan {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	sp := tb.used[ctx]
	delete(tb.used, ctx)
	return sp
}

// get returns k's value, computing it once; ok is false when ctx ended
// while another caller's computation was running; waited is how long the
// caller waited for another's. A caller in a lane (lc not nil) lets its
// hold on the lanes go while it waits for another caller's computation:
// that one may need the lanes to itself (T.Alone).
func (tb *memoTable) get(ctx context.Context, k memoKey, compute func() any, lc *laneCheck) (v any, ok bool, waited time.Duration) {
	for {
		tb.mu.Lock()
		if tb.m == nil {
			tb.m = map[memoKey]*memoEntry{}
		}
		e := tb.m[k]
		if e == nil {
			e = &memoEntry{done: make(chan struct{})}
			tb.m[k] = e
			tb.mu.Unlock()
			tb.fill(k, e, compute)
			tb.took(ctx, e)
			return e.v, true, waited
		}
		tb.mu.Unlock()
		held := lc.pause()
		start := time.Now()
		select {
		case <-e.done:
		case <-ctx.Done():
			lc.resume(ctx, held)
			return nil, false, waited + time.Since(start)
		}
		waited += time.Since(start)
		lc.resume(ctx, held)
		if e.ok {
			tb.took(ctx, e)
			return e.v, true, waited
		}
		// The computing caller ended without a value: compute it here.
	}
}

// fill computes e; a panic (a check ending) leaves no value behind and
// wakes the waiters, which compute again.
func (tb *memoTable) fill(k memoKey, e *memoEntry, compute func() any) {
	defer func() {
		if !e.ok {
			tb.mu.Lock()
			if tb.m[k] == e {
				delete(tb.m, k)
			}
			tb.mu.Unlock()
		}
		close(e.done)
	}()
	if tb.seq != nil {
		e.from = tb.seq()
	}
	e.v = compute()
	if tb.seq != nil {
		e.to = tb.seq()
	}
	e.ok = true
}
