package conform

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/internal/catalog"
	"github.com/mcpconform/mcpconform/internal/session"
	"github.com/mcpconform/mcpconform/internal/target"
)

// Lanes (--parallel): the checks of each revision run in a lane of their
// own, in Ginkgo's order, beside the other revisions' lanes. A revision's
// checks share its sessions (Env.Shared) and one another's memos, so
// within a lane they run one after another as in a sequential run; two
// revisions share no session, no memo and, on stdio, no process. Ginkgo
// still runs the specs one at a time: each spec takes its check's outcome
// from the lane (waiting for it when the lane has not got there yet) and
// reports it, its steps included, as if it had run the check itself. The
// transcripts and the run-wide observers tell the lanes apart by
// connection (Target.RevisionOf).

// specKey names one check: a requirement in a revision.
type specKey struct {
	id  string
	rev catalog.Revision
}

// job is one check of a lane.
type job struct {
	req       catalog.Requirement
	transport string
	fn        func(t *T)
	done      chan struct{}
	out       *Outcome
	steps     []string
}

type lanes struct {
	env   *Env
	width int

	mu      sync.Mutex
	order   map[catalog.Revision][]string // requirement ids in run order, by revision
	jobs    map[specKey]*job
	started bool

	// named are the locks of T.Exclusive, by name (under mu).
	named map[string]*sync.Mutex
	// revs holds each revision's lane once started.
	revs map[catalog.Revision]*revLane
	// idle tells whether the machine has CPU to spare (grow); tests
	// replace spare.
	idle  cpuIdle
	spare func() bool
	// cheap tells whether a new worker's shared session costs next to
	// nothing (steal); tests replace it.
	cheap func() bool

	// asked is the width --parallel asked for; width may be less (what
	// our side can serve: MaxWorkers). starting tells how many start-ups
	// are under way, startMax how many may overlap before grow waits;
	// tests replace them. heldBack counts the checks during which grow
	// did not start a worker for our own load (our CPU, start-ups), capped
	// those during which the width cap refused one (both under mu).
	asked    int
	starting func() int
	startMax int
	// silenced tells whether a request of the run went unanswered for its
	// whole deadline (grow narrows the lanes from then on).
	silenced func() bool
	heldBack int
	capped   int

	ctx    context.Context
	cancel context.CancelCauseFunc
	slots  chan struct{}
	wg     sync.WaitGroup

	// alone is held for reading by every check running in a lane, and
	// for writing by a check that changes what the server shows every
	// session (T.Alone): the other lanes wait until it ends.
	alone sync.RWMutex
}

// laneCheck is what a check running in a lane keeps of its lane: the steps
// its spec reports, and its hold on lanes.alone.
type laneCheck struct {
	l     *lanes
	steps []string
	// worker is the revision's worker running the check (0 the first):
	// each has its own shared session.
	worker int
	// named are the lanes' named locks the check holds (T.Exclusive).
	named []*sync.Mutex

	// budget: the check's waits at the run's quiet gate, by which its
	// budget (withBudget) and the lane's bound on it move.
	budget laneBudget

	mu        sync.Mutex
	held      int // 0 none, 1 read, 2 write
	abandoned bool
}

// alone turns the check's read hold into the write hold. The wait for
// the other checks to end is the harness's, not the server's: ctx's
// budget pauses meanwhile (session.Pause), and c.mu is not held, so that
// the lane can abandon the check while it waits.
func (c *laneCheck) alone(ctx context.Context) {
	c.mu.Lock()
	if c.abandoned || c.held != 1 {
		c.mu.Unlock()
		return
	}
	c.l.alone.RUnlock()
	c.held = 0
	c.mu.Unlock()
	c.resume(ctx, 2)
}

// pause lets the check's hold go while it waits for another check (a
// memo being computed); resume takes it back. Both accept a nil c (no
// lanes).
func (c *laneCheck) pause() int {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	held := c.held
	switch held {
	case 1:
		c.l.alone.RUnlock()
	case 2:
		c.l.alone.Unlock()
	}
	c.held = 0
	return held
}

// resume takes the hold back; while a check holds the lanes alone, the
// wait pauses ctx's budget (the harness's time).
func (c *laneCheck) resume(ctx context.Context, held int) {
	if c == nil || held == 0 {
		return
	}
	// Taken outside c.mu: a writer waiting for the lanes must not block
	// release (abandon) of this check.
	if held == 2 {
		if !c.l.alone.TryLock() {
			defer session.Pause(ctx)()
			c.l.alone.Lock()
		}
	} else if !c.l.alone.TryRLock() {
		defer session.Pause(ctx)()
		c.l.alone.RLock()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.abandoned {
		if held == 2 {
			c.l.alone.Unlock()
		} else {
			c.l.alone.RUnlock()
		}
		return
	}
	c.held = held
}

// release lets the hold go; abandon also stops the check from taking one.
func (c *laneCheck) release(abandon bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch c.held {
	case 1:
		c.l.alone.RUnlock()
	case 2:
		c.l.alone.Unlock()
	}
	c.held = 0
	for _, m := range c.named {
		m.Unlock()
	}
	c.named = nil
	c.abandoned = c.abandoned || abandon
}

// exclusive takes the lanes' lock of name until the check ends (T.Exclusive).
func (c *laneCheck) exclusive(ctx context.Context, name string) {
	c.l.mu.Lock()
	if c.l.named == nil {
		c.l.named = map[string]*sync.Mutex{}
	}
	m := c.l.named[name]
	if m == nil {
		m = &sync.Mutex{}
		c.l.named[name] = m
	}
	c.l.mu.Unlock()
	c.mu.Lock()
	if c.abandoned || slices.Contains(c.named, m) {
		c.mu.Unlock()
		return
	}
	c.mu.Unlock()
	// While it waits, the check lets its hold on the lanes go: the holder
	// of name may need the lanes to itself (T.Alone) before it ends.
	held := c.pause()
	if !m.TryLock() {
		resume := session.Pause(ctx) // another check's time, not the server's
		m.Lock()
		resume()
	}
	c.resume(ctx, held)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.abandoned {
		m.Unlock()
		return
	}
	c.named = append(c.named, m)
}

// UseLanes makes the run's checks run in one lane per revision, at most
// width checks at a time, in the order the run will report them (order:
// each revision's requirement ids as Ginkgo will run them, from a preview
// of the spec tree with the run's filter). Call it before the tree is
// built for the run; Env.StopLanes ends the lanes.
func (e *Env) UseLanes(width int, order map[catalog.Revision][]string) {
	ctx, cancel := context.WithCancelCause(context.Background())
	asked := max(width, 1)
	width = min(asked, MaxWorkers())
	e.lanes = &lanes{env: e, width: width, asked: asked, order: order, jobs: map[specKey]*job{},
		ctx: ctx, cancel: cancel, slots: make(chan struct{}, width),
		startMax: target.MaxStarting()}
	if e.Target != nil {
		e.lanes.starting = e.Target.Starting
		q := e.Target.Quiet()
		e.lanes.silenced = func() bool { return q.Recorded() > 0 }
	}
	e.lanes.spare = e.lanes.idle.spare
	e.lanes.cheap = func() bool {
		st := e.Target.Stats()
		return st.Handshakes > 0 && st.HandshakeMs <= float64(st.Handshakes)*float64(stealHandshake)/1e6
	}
}

// Lanes reports how many lanes the run uses (0: none, the checks run as
// Ginkgo reaches them).
func (e *Env) Lanes() int {
	if e.lanes == nil {
		return 0
	}
	return len(e.lanes.order)
}

// Workers reports how many lane workers ran checks in all (0: no lanes).
func (e *Env) Workers() int {
	if e.lanes == nil {
		return 0
	}
	l := e.lanes
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, rl := range l.revs {
		n += rl.workers
	}
	return n
}

// CancelLanes cancels the lanes' checks without waiting for them (an
// interrupted run: a lane check still waiting, for a quiet hold or a slow
// server, gives up at once instead of holding the report's locks).
func (e *Env) CancelLanes() {
	if e.lanes != nil {
		e.lanes.cancel(context.Canceled)
	}
}

// StopLanes cancels the checks still running in the lanes and waits for
// their ends (Ctrl-C, the run's budget, or the end of the run).
func (e *Env) StopLanes() {
	if e.lanes == nil {
		return
	}
	e.lanes.cancel(context.Canceled)
	e.lanes.wg.Wait()
}

// register records the check of a spec (the tree is built twice, for the
// preview and for the run: the last one counts).
func (l *lanes) register(req catalog.Requirement, rev catalog.Revision, transport string, fn func(t *T)) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.started {
		return
	}
	l.jobs[specKey{req.ID, rev}] = &job{req: req, transport: transport, fn: fn, done: make(chan struct{})}
}

// revLane is one revision's checks, in the order the run reports them,
// and the workers that take them in that order.
type revLane struct {
	rev     catalog.Revision
	jobs    []*job
	next    int // the next job to hand out (under lanes.mu)
	workers int // workers started (under lanes.mu)
}

// start runs each revision's lane (once, when Ginkgo runs the first spec):
// one worker per revision, more when its checks are slow (grow).
func (l *lanes) start() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.started {
		return
	}
	l.started = true
	l.idle.spare() // the first sample: grow judges the CPU time since
	l.revs = map[catalog.Revision]*revLane{}
	for rev, ids := range l.order {
		rl := &revLane{rev: rev}
		for _, id := range ids {
			if j := l.jobs[specKey{id, rev}]; j != nil {
				rl.jobs = append(rl.jobs, j)
			}
		}
		l.revs[rev] = rl
		l.spawn(rl)
	}
}

// spawn starts another worker on rl (l.mu held).
func (l *lanes) spawn(rl *revLane) {
	w := rl.workers
	rl.workers++
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		for {
			l.mu.Lock()
			var j *job
			if rl.next < len(rl.jobs) {
				j = rl.jobs[rl.next]
				rl.next++
			}
			last := l.allHandedOut()
			if j == nil {
				l.steal()
			}
			l.mu.Unlock()
			if last {
				l.env.Target.StopRefill()
			}
			if j == nil {
				return
			}
			select {
			case l.slots <- struct{}{}:
			case <-l.ctx.Done():
			}
			if l.ctx.Err() == nil {
				j.out, j.steps = l.run(j, rl, w)
				<-l.slots
			}
			close(j.done)
		}
	}()
}

// allHandedOut reports whether every lane has handed out its last check
// (l.mu held).
func (l *lanes) allHandedOut() bool {
	for _, rl := range l.revs {
		if rl.next < len(rl.jobs) {
			return false
		}
	}
	return true
}

// grow starts another worker on rl when checks are still waiting for one
// and rl has fewer than the lanes' width: a check that ran growAfter is
// waiting on a slow server (a start-up, a slow tool, a slow answer), and
// the checks behind it need not wait with it. Each worker has its own
// shared session (Env.Shared): a worker's checks run one after another on
// it, as a lane's do.
//
// Only while the machine has CPU to spare (l.idle): a check that is slow
// because the server's start-ups compete for the cores (a Node or .NET
// runtime on a small or loaded machine) gets no faster beside more of
// them. And, where a session is not cheap (steal), only while stealMin
// checks or more are left: the new worker's shared session costs a
// start-up, which the last few checks do not pay back (the TypeScript
// everything server grew a worker, and a Node process, for two checks).
//
// It returns why it did not start a worker for our own side's sake
// (held: our process or the machine busy, start-ups overlapping; capped:
// the width MaxWorkers allows), for Backoff.
func (l *lanes) grow(rl *revLane) (held, capped bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	left := len(rl.jobs) - rl.next
	if l.ctx.Err() != nil || left == 0 || !(left >= stealMin || l.cheap()) {
		return false, false
	}
	if rl.workers >= l.width {
		return false, l.width < l.asked && rl.workers < l.asked
	}
	// Once a request went unanswered for its whole deadline, the server
	// may be slow because of us: fewer checks at once from then on.
	if l.silenced != nil && l.silenced() && len(l.slots) >= min(l.width, narrowWorkers()) {
		return false, true
	}
	// What our side can serve: not while our own process keeps its Ps
	// busy or the machine has no CPU to spare (spare), nor while as many
	// start-ups overlap as the machine has cores (a new worker's shared
	// session is one more, and every one of them gets slower).
	if !l.spare() || (l.starting != nil && l.starting() >= l.startMax) {
		return true, false
	}
	l.spawn(rl)
	return false, false
}

// MaxWorkers is the most checks the lanes run at once, whatever
// --parallel asks: workersPerCPU per core (the checks share GOMAXPROCS Ps
// and the machine's cores with the server), at least minWorkers. Beyond
// it a slow server's answers wait for our own work.
func MaxWorkers() int { return max(minWorkers, workersPerCPU*runtime.NumCPU()) }

const (
	workersPerCPU = 8
	minWorkers    = 4
	// narrowPerCPU: checks per core at once after a silence (grow).
	narrowPerCPU = 4
)

func narrowWorkers() int { return max(minWorkers, narrowPerCPU*runtime.NumCPU()) }

// Backoff says how the lanes held back for our own load: the width they
// took (and the one --parallel asked), the checks during which grow did
// not start a worker because our process or the machine was busy or
// start-ups overlapped, and those during which the width cap refused one.
type Backoff struct {
	Width, Asked     int
	HeldBack, Capped int
}

// Backoff returns the lanes' Backoff (zero without lanes).
func (e *Env) Backoff() Backoff {
	if e.lanes == nil {
		return Backoff{}
	}
	l := e.lanes
	l.mu.Lock()
	defer l.mu.Unlock()
	return Backoff{Width: l.width, Asked: l.asked, HeldBack: l.heldBack, Capped: l.capped}
}

// steal starts a worker on the lane with the most checks still to hand
// out, at least stealMin, when a worker ran out of checks in its own (l.mu
// held): on a fast server no check is slow enough to grow a lane, and the
// revision with more checks would run on alone while the cores the other
// one used sit idle. It replaces the worker that ran out, so as many
// checks run at once as before (grow's test of spare CPU does not apply);
// and only where a session costs next to nothing: while the run's
// handshakes took at most stealHandshake on average (a Node or .NET
// server's start-up is CPU a new worker's shared session would cost).
func (l *lanes) steal() {
	var most *revLane
	for _, rl := range l.revs {
		if left := len(rl.jobs) - rl.next; left >= stealMin && rl.workers < l.width && (most == nil || left > len(most.jobs)-most.next) {
			most = rl
		}
	}
	if most == nil || l.ctx.Err() != nil {
		return
	}
	if l.cheap() {
		l.spawn(most)
	}
}

// stealMin is the fewest checks left in a lane for which steal starts a
// worker; stealHandshake the longest mean handshake.
const (
	stealMin       = 8
	stealHandshake = 20 * time.Millisecond
)

// growAfter is how long a check runs before its revision gets another
// worker (lanes.grow). On a fast server most checks end well within it.
var growAfter = 250 * time.Millisecond

// laneGrace is how long a check in a lane may run past its budget (or, once
// the run was interrupted, past the interruption) before its lane gives up
// on it and goes on, as Ginkgo does with a spec past its SpecTimeout.
var laneGrace = 5 * time.Second

// run executes j in its own goroutine and returns its outcome and steps; a
// check that overruns its budget by laneGrace (one that ignores its
// context) is abandoned with ERROR, so that the lane goes on.
func (l *lanes) run(j *job, rl *revLane, worker int) (*Outcome, []string) {
	rev := rl.rev
	type result struct {
		out   *Outcome
		steps []string
	}
	ch := make(chan result, 1)
	lc := &laneCheck{l: l, held: 1, worker: worker}
	l.alone.RLock()
	go func() {
		out := execute(l.ctx, l.env, j.req, rev, j.transport, j.fn, lc)
		lc.release(false)
		lc.mu.Lock()
		steps := lc.steps
		lc.mu.Unlock()
		ch <- result{out, steps}
	}()
	budget := time.NewTimer(l.env.SpecBudget + laneGrace)
	defer budget.Stop()
	slow := time.NewTimer(growAfter)
	defer slow.Stop()
	var interrupted <-chan time.Time
	var wasHeld, wasCapped bool // counted for this check (Backoff)
	ctxDone := l.ctx.Done()
	abandon := func(why string) (*Outcome, []string) {
		lc.release(true)
		return &Outcome{Requirement: j.req.ID, Level: j.req.LevelFor(rev), Revision: rev, Transport: j.transport, Verdict: ERROR, Message: why}, nil
	}
	for {
		select {
		case r := <-ch:
			return r.out, r.steps
		case <-slow.C:
			// asked again while the check runs: the CPU a start-up kept
			// busy when it was slow enough may be idle a moment later
			held, capped := l.grow(rl)
			if (held && !wasHeld) || (capped && !wasCapped) {
				l.mu.Lock()
				if held && !wasHeld {
					l.heldBack++
				}
				if capped && !wasCapped {
					l.capped++
				}
				l.mu.Unlock()
			}
			wasHeld, wasCapped = wasHeld || held, wasCapped || capped
			slow.Reset(growAfter)
		case <-budget.C:
			if ext := lc.budget.extended.Swap(0); ext > 0 {
				budget.Reset(time.Duration(ext)) // the check waited at the gate that long
				continue
			}
			if lc.budget.waiting.Load() > 0 {
				budget.Reset(laneGrace) // it waits at the gate still
				continue
			}
			return abandon(fmt.Sprintf("the check did not end within its budget of %s (and %s more): abandoned", l.env.SpecBudget, laneGrace))
		case <-ctxDone:
			ctxDone = nil
			interrupted = time.After(laneGrace)
		case <-interrupted:
			return abandon(fmt.Sprintf("the check was interrupted (%v) and did not end within %s: abandoned", context.Cause(l.ctx), laneGrace))
		}
	}
}

// await returns the outcome of the check for key and its steps, waiting
// for its lane. When Ginkgo interrupts the spec (Ctrl-C, the run's
// budget), every lane is cancelled and the check ends with ERROR.
func (l *lanes) await(sctx context.Context, key specKey) (*Outcome, []string) {
	l.start()
	l.mu.Lock()
	j := l.jobs[key]
	l.mu.Unlock()
	if j == nil {
		req := catalog.MustGet(key.id)
		return &Outcome{Requirement: key.id, Level: req.LevelFor(key.rev), Revision: key.rev, Transport: l.env.Target.Transport(),
			Verdict: ERROR, Message: "the check was not scheduled in its revision's lane (the spec tree changed between the preview and the run)"}, nil
	}
	select {
	case <-j.done:
	case <-sctx.Done():
		l.cancel(context.Cause(sctx))
		<-j.done
	}
	if j.out == nil {
		return &Outcome{Requirement: key.id, Level: j.req.LevelFor(key.rev), Revision: key.rev, Transport: j.transport,
			Verdict: ERROR, Message: fmt.Sprintf("the check was interrupted before it started (%v)", context.Cause(l.ctx))}, nil
	}
	return j.out, j.steps
}
