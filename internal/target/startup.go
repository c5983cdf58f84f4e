package target

import (
	"context"
	"runtime"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/internal/session"
)

// Start-ups (issue 31). A connection's first answer includes its
// start-up: on stdio a new process's (a runtime's start-up, JIT, a
// server's own set-up), over HTTP a new session's. A start-up is not held
// to the per-response timeout (--timeout, the limit for a hung server):
// several processes starting at once on a loaded machine stretch each
// other's, and a slow start-up is not "could not open a session". Its
// deadline is learned from the start-ups the run saw: StartupMultiple ×
// the slowest, at least StartupFactor × the timeout, at most StartupCap
// (and never less than that floor).
const (
	// StartupMultiple multiplies the slowest start-up observed.
	StartupMultiple = 8
	// StartupCap bounds the learned start-up deadline.
	StartupCap = 2 * time.Minute
)

// startups keeps what the run learned of its start-ups.
type startups struct {
	mu      sync.Mutex
	slowest time.Duration
	n       int
}

// observeStartup notes a start-up that took d (a handshake on a new
// connection that succeeded).
func (t *Target) observeStartup(d time.Duration) {
	t.starts.mu.Lock()
	defer t.starts.mu.Unlock()
	t.starts.n++
	t.starts.slowest = max(t.starts.slowest, d)
}

// StartupDeadline is the deadline of a connection's first answer (see
// StartupMultiple).
func (t *Target) StartupDeadline() time.Duration {
	to := t.Timeout
	if to <= 0 {
		to = 5 * time.Second
	}
	floor := StartupFactor * to
	t.starts.mu.Lock()
	learned := StartupMultiple * t.starts.slowest
	t.starts.mu.Unlock()
	return max(floor, min(learned, StartupCap))
}

// SlowestStartup returns the slowest start-up observed and how many were.
func (t *Target) SlowestStartup() (time.Duration, int) {
	t.starts.mu.Lock()
	defer t.starts.mu.Unlock()
	return t.starts.slowest, t.starts.n
}

// Quiet returns the run's quiet gate (session.Quiet): every session of
// the target passes it, and the silences recorded there are re-asked
// before they are graded.
func (t *Target) Quiet() *session.Quiet { return &t.quiet }

// Starting reports how many process start-ups are under way on stdio:
// handshakes and processes being started ahead of need (over HTTP a new
// session costs the machine next to nothing while it waits: 0).
func (t *Target) Starting() int {
	if t.URL != "" {
		return 0
	}
	t.hsMu.Lock()
	n := t.hsActive
	t.hsMu.Unlock()
	t.pool.mu.Lock()
	n += t.pool.inflight
	t.pool.mu.Unlock()
	return n
}

// MaxStarting is how many start-ups the run lets overlap before it stops
// adding work that opens more (lane workers): one per core the machine
// has, at least two. A runtime's start-up is CPU-bound: beside more of
// them it gets no faster, and every one of them slower.
func MaxStarting() int { return max(2, runtime.NumCPU()) }

// waitQuiet lets a process started ahead of need wait while the run is
// held quiet (a re-ask measures the server alone).
func (t *Target) waitQuiet() {
	ctx, cancel := context.WithTimeout(context.Background(), StartupFactor*max(t.Timeout, time.Second))
	defer cancel()
	t.quiet.Wait(ctx)
}
