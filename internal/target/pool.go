package target

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/internal/session"
	"github.com/mcpconform/mcpconform/internal/wire"

	"github.com/mcpconform/mcpconform/internal/wire/stdio"
)

// DefaultPrestart is how many stdio server processes a run keeps started
// ahead of need (Target.StartPool) unless told otherwise: a check that
// needs a fresh process (a handshake check, a stimulus that may poison the
// shared session) takes one whose start-up (a Node or .NET runtime, a
// second or more on a loaded machine) already happened while earlier
// checks ran. Three cover the checks that open three sessions at once and
// most runs of consecutive handshake checks; each unused one costs a
// start-up's CPU.
const DefaultPrestart = 3

// pool holds stdio processes started ahead of need: started, nothing sent
// to them. Each one taken is replaced in the background.
type pool struct {
	mu     sync.Mutex
	size   int
	idle   []*stdio.Conn
	closed bool
	// inflight counts the processes being started; started is signalled
	// (under mu) when one of those starts ended.
	inflight int
	started  *sync.Cond
	// starting counts the refills under way (Close waits for them).
	starting sync.WaitGroup
	// taken counts the processes handed out, unused the ones ended idle.
	taken, unused int64
	// demand is how many processes the checks still to come may take
	// (SetPoolDemand); -1 unknown. The pool holds at most that many.
	demand int
	// demanded: SetPoolDemand was called (demand is known).
	demanded bool
}

// StartPool keeps Prestart stdio server processes started ahead of need
// (none for an HTTP target). ClosePool ends the idle ones; call it on
// every exit path once the checks are done.
func (t *Target) StartPool() {
	n := t.Prestart
	if n == 0 {
		n = DefaultPrestart
	}
	if n <= 0 || t.URL != "" {
		return
	}
	t.pool.mu.Lock()
	t.pool.size = n
	t.pool.closed = false
	t.pool.mu.Unlock()
	t.refill()
}

// StopRefill stops replacing the processes taken from the pool: no check
// that has not started yet remains (the lanes handed out their last), and a
// process started now would most likely end unused (a Node or .NET
// start-up's CPU for nothing, at the end of the run). Those idle and being
// started stay available.
func (t *Target) StopRefill() {
	t.pool.mu.Lock()
	t.pool.size = 0
	t.pool.mu.Unlock()
}

// SetPoolDemand tells the pool how many processes the checks that have not
// started yet may take (from the plan of the run): it never holds more, so
// that no start-up is spent on a process no check takes. It only lowers
// what the pool starts from now on; the processes already started stay
// available.
func (t *Target) SetPoolDemand(n int) {
	t.pool.mu.Lock()
	t.pool.demand, t.pool.demanded = n, true
	t.pool.mu.Unlock()
}

// refill starts processes in the background until the pool holds its size,
// or the demand when that is lower (counting those being started).
func (t *Target) refill() {
	p := &t.pool
	p.mu.Lock()
	defer p.mu.Unlock()
	size := p.size
	if p.demanded {
		size = min(size, p.demand)
	}
	for n := len(p.idle) + p.inflight; !p.closed && n < size; n++ {
		p.inflight++
		p.starting.Add(1)
		go func() {
			defer p.starting.Done()
			t.waitQuiet()
			c, err := t.startStdio(true)
			p.mu.Lock()
			p.inflight--
			if p.started != nil {
				p.started.Broadcast()
			}
			switch {
			case err != nil:
				p.size = 0 // the synchronous start reports the error
			case p.closed:
				p.unused++
				p.mu.Unlock()
				c.Close()
				return
			default:
				p.idle = append(p.idle, c)
			}
			p.mu.Unlock()
		}()
	}
}

// take hands out the oldest idle process that is still running (nil when
// none is ready) and starts its replacement, unless later: then the caller
// does (refillAfterAnswer). A process that ended while idle is closed
// (reaped) and skipped: its exit is in the recorder.
func (t *Target) take(later bool) *stdio.Conn {
	p := &t.pool
	var got *stdio.Conn
	var dead []*stdio.Conn
	p.mu.Lock()
	// A process being started (fork and exec: milliseconds) is waited
	// for rather than another started beside it: it would start no sooner,
	// and the one being started would end unused.
	// (Not while the run is held quiet: those wait for the quiet to end,
	// and the re-ask that holds it may need a process.)
	for len(p.idle) == 0 && p.inflight > 0 && !p.closed && !t.quiet.Holding() {
		if p.started == nil {
			p.started = sync.NewCond(&p.mu)
		}
		p.started.Wait()
	}
	for got == nil && len(p.idle) > 0 {
		c := p.idle[0]
		p.idle = p.idle[1:]
		select {
		case <-c.Exited():
			dead = append(dead, c)
		default:
			got = c
			p.taken++
		}
	}
	p.unused += int64(len(dead))
	p.mu.Unlock()
	for _, c := range dead {
		c.Close()
	}
	if (got != nil && !later) || len(dead) > 0 {
		t.refill()
	}
	if got != nil {
		got.Adopt()
	}
	return got
}

// refillAfterAnswer replaces a process taken from the pool once the
// server has sent something on s (its start-up is over), or ended, or
// the start-up deadline passed: a process still starting up when a
// check took it gets the CPU before its replacement (on a loaded machine
// a Node or .NET start-up is CPU-bound, and the check waits for it).
func (t *Target) refillAfterAnswer(s *session.Session) {
	ctx, cancel := context.WithTimeout(context.Background(), t.StartupDeadline())
	defer cancel()
	s.WaitEvent(ctx, 0, func(e session.Event) bool { return e.Frame.Dir == wire.In })
	t.refill()
}

// ClosePool ends the idle processes (concurrently) and waits for them and
// for refills under way; the pool takes no more. On HTTP it closes the
// shared client's idle TCP connections.
func (t *Target) ClosePool() {
	if c := t.client.Load(); c != nil {
		defer c.CloseIdleConnections()
	}
	p := &t.pool
	p.mu.Lock()
	p.closed = true
	idle := p.idle
	p.idle = nil
	p.unused += int64(len(idle))
	p.mu.Unlock()
	var wg sync.WaitGroup
	for _, c := range idle {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.Close()
		}()
	}
	wg.Wait()
	p.starting.Wait()
}

// exitWait is how long closing a process waits after stdin EOF before
// SIGTERM, and after SIGTERM before SIGKILL. These closes only end
// processes a check is done with (STD-002 judges the shutdown with its own
// waits), many in the background, but the run waits for the last ones
// before its reports: the first process of a run that ignored stdin EOF
// (a Node server with a timer still pending) cost the 2 s default, often
// at the very end of the run. Once one has, the others of the command get
// 100 ms (stdio's learned wait).
const exitWait = time.Second

// startStdio starts a server process named stdio#N.
func (t *Target) startStdio(prestart bool) (*stdio.Conn, error) {
	n := t.seq.Add(1)
	return stdio.Start(stdio.Options{
		Command:  t.Command,
		Env:      t.Env,
		Dir:      t.Dir,
		Name:     fmt.Sprintf("stdio#%d", n),
		Recorder: t.Recorder,
		Prestart: prestart,
		ExitWait: exitWait,
	})
}
