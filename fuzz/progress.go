package fuzz

import (
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// Progress of a campaign: on a terminal a status line rewritten in place
// (elapsed and remaining time, cases and exchanges per second, findings so
// far, the property running); otherwise a plain line every PlainEvery
// (CI logs). Other output (findings, property ends) goes through the same
// writer, which clears the status line first.

// PlainEvery is the period of the plain progress lines.
const PlainEvery = 10 * time.Second

const liveEvery = 250 * time.Millisecond

type progress struct {
	mu       sync.Mutex
	w        io.Writer
	live     bool
	shown    bool // a live line is on screen
	start    time.Time
	budget   time.Duration
	h        *harness
	findings atomic.Int64
	property atomic.Value // string
	stop     chan struct{}
	done     chan struct{}
}

func newProgress(w io.Writer, live, enabled bool, budget time.Duration) *progress {
	p := &progress{w: w, live: live, start: time.Now(), budget: budget, stop: make(chan struct{}), done: make(chan struct{})}
	p.property.Store("")
	if !enabled {
		close(p.done)
	}
	return p
}

// Write passes other output through, after clearing a live status line.
func (p *progress) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clearLocked()
	return p.w.Write(b)
}

func (p *progress) clearLocked() {
	if p.shown {
		_, _ = io.WriteString(p.w, "\r\x1b[K")
		p.shown = false
	}
}

// run ticks until finish; h is the campaign's harness.
func (p *progress) run(h *harness) {
	p.h = h
	go func() {
		defer close(p.done)
		every := PlainEvery
		if p.live {
			every = liveEvery
		}
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-p.stop:
				if !p.live {
					p.show() // the last plain line: a short run gets one too
				}
				p.mu.Lock()
				p.clearLocked()
				p.mu.Unlock()
				return
			case <-tick.C:
				p.show()
			}
		}
	}()
}

// Line renders the status.
func (p *progress) line() string {
	el := time.Since(p.start)
	left := max(0, p.budget-el)
	secs := max(el.Seconds(), 1e-9)
	cases, ex := p.h.cases.Load(), p.h.exchanges.Load()
	return fmt.Sprintf("fuzz %s elapsed, %s left · %d cases (%.0f/s) · %d exchanges (%.0f/s) · %d finding(s) · property %s",
		el.Round(time.Second), left.Round(time.Second), cases, float64(cases)/secs, ex, float64(ex)/secs, p.findings.Load(), p.property.Load())
}

func (p *progress) show() {
	l := p.line()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.live {
		_, _ = io.WriteString(p.w, "\r\x1b[K"+l)
		p.shown = true
		return
	}
	_, _ = io.WriteString(p.w, l+"\n")
}

func (p *progress) finish() {
	select {
	case <-p.done:
		return
	default:
	}
	close(p.stop)
	<-p.done
}
