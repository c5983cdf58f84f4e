package utilities

// The exercise's cancellation phase: requests cancelled at once or in
// flight, and what the server sent after (exercise.go runs the phases).

import (
	"cmp"
	"slices"
	"sync"
	"time"

	c "github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/jsonrpc"
	"github.com/mcpconform/mcpconform/internal/session"
	"github.com/mcpconform/mcpconform/internal/wire"
)

// runCancel is phase D: each tool is called in turn, and a call still
// running after cancelAfter is cancelled. A cancelled call answered within
// the grace window (a fast tool slowed down, or a server answering the
// cancellation) does not end the phase, up to maxProbes; the first one that
// stays silent, or answers late, is watched for cancelWatch with nothing
// else in flight, and ends it.
func runCancel(t *c.T, tools []tool, ph *phase, lineUp *sync.WaitGroup) []*probe {
	mark := t.Mark()
	s, err := openLinedUp(t, lineUp)
	if err != nil {
		ph.err = err
		return nil
	}
	// A server may hold a cancelled request until the connection ends:
	// closing must not hold the check up.
	defer t.Env.CloseLater(s)
	ph.conn = s.Conn().Name()
	ph.logging = c.Declared(s, "logging")
	var probes []*probe
	deadline := time.Now().Add(cancelBudget)
	tools = cancelOrder(t, tools)
	for i, tl := range tools {
		if len(probes) == maxProbes || time.Now().After(deadline) || t.Ctx.Err() != nil {
			break
		}
		params, o, cl := ph.callParams(s, tl, i)
		o.Timeout = cancelAfter + cancelWatch + 20*time.Millisecond
		done := make(chan struct{})
		callMark := t.Mark()
		go func() {
			defer close(done)
			cl.resp, cl.err = s.Call(t.Ctx, "tools/call", params, o)
		}()
		// cancelAfter counts from the request being on the wire: on a
		// loaded machine the write can come late, and a cancellation
		// must never precede its request.
		<-onWire(t, ph.conn, cl.id, callMark, done)
		timer := time.NewTimer(cancelAfter)
		select {
		case <-done:
			timer.Stop()
			ph.calls = append(ph.calls, cl)
			continue
		case <-timer.C:
		}
		pr := &probe{cl: cl, cancelAt: time.Now()}
		_, pr.cancelErr = s.Notify(t.Ctx, "notifications/cancelled", map[string]any{"requestId": cl.id, "reason": "mcpconform: cancellation check"})
		settle(t, s)
		<-done // bounded by the call's timeout
		ph.calls = append(ph.calls, cl)
		probes = append(probes, pr)
		if cl.resp != nil && cl.resp.Msg != nil && time.Since(pr.cancelAt) <= cancelGrace {
			continue // answered within the race window
		}
		watchAfterCancel(t, pr)
		break
	}
	if len(probes) == 0 && len(ph.calls) > 0 && t.Ctx.Err() == nil {
		// Every call was answered before it could be cancelled while
		// running: cancel one right after sending it and judge what comes
		// after the grace window.
		if pr := cancelAtOnce(t, s, ph, tools[0], len(ph.calls)); pr != nil {
			probes = append(probes, pr)
		}
	}
	ph.collect(t, mark)
	for _, pr := range probes {
		for _, e := range ph.events {
			if e.f.Dir == wire.Out && e.msg.Method == "notifications/cancelled" && e.f.Seq > pr.cl.reqSeq && pr.cancelSeq == 0 {
				if rid, ok := param(e.msg, "requestId"); ok && jsonrpc.RawID(rid).Key() == pr.cl.id.Key() {
					pr.cancelSeq, pr.cancelAt = e.f.Seq, e.f.Time
				}
			}
		}
	}
	return probes
}

// cancelOrder is the order in which phase D tries the tools: first those
// the run saw answer within the span a cancellation can be judged in
// (slowEnough to cancelAfter+cancelWatch), slowest first; then those not
// called yet, in list order; then those seen faster; last those seen
// slower (such a probe is watched, and ends the phase, without a
// verdict). The other checks' calls decide where to look first; the
// verdict still rests on session A's uncancelled call.
func cancelOrder(t *c.T, tools []tool) []tool {
	lat := t.Env.Target.Latency()
	rank := func(tl tool) (int, time.Duration) {
		d, seen := lat.Tool(tl.name)
		switch {
		case !seen:
			return 1, 0
		case d >= slowEnough && d <= cancelAfter+cancelWatch:
			return 0, -d
		case d < slowEnough:
			return 2, 0
		}
		return 3, d
	}
	out := slices.Clone(tools)
	slices.SortStableFunc(out, func(a, b tool) int {
		ra, da := rank(a)
		rb, db := rank(b)
		return cmp.Or(cmp.Compare(ra, rb), cmp.Compare(da, db))
	})
	return out
}

// cancelAtOnce sends a call of tl and its cancellation back to back, and
// watches it for cancelWatch.
func cancelAtOnce(t *c.T, s *session.Session, ph *phase, tl tool, i int) *probe {
	params, o, cl := ph.callParams(s, tl, i)
	o.Timeout = cancelWatch + 20*time.Millisecond
	done := make(chan struct{})
	mark := t.Mark()
	go func() {
		defer close(done)
		cl.resp, cl.err = s.Call(t.Ctx, "tools/call", params, o)
	}()
	<-onWire(t, ph.conn, cl.id, mark, done)
	pr := &probe{cl: cl, cancelAt: time.Now(), immediate: true}
	_, pr.cancelErr = s.Notify(t.Ctx, "notifications/cancelled", map[string]any{"requestId": cl.id, "reason": "mcpconform: cancellation check"})
	settle(t, s)
	<-done
	ph.calls = append(ph.calls, cl)
	watchAfterCancel(t, pr)
	return pr
}

// onWire returns a channel closed once the request with id is in the
// recorder (sent on conn after mark), or the call ended (done), or the
// check's budget did. It waits for the event, not for a number of polls.
func onWire(t *c.T, conn string, id jsonrpc.ID, mark int64, done <-chan struct{}) <-chan struct{} {
	sent := make(chan struct{})
	go func() {
		defer close(sent)
		for {
			for _, f := range t.FramesSince(mark) {
				if f.Conn == conn && f.Dir == wire.Out && f.Kind == wire.KindMessage {
					if m, err := c.Decode(f); err == nil && m.HasID && m.ID.Key() == id.Key() {
						return
					}
				}
			}
			select {
			case <-done:
				return
			case <-t.Ctx.Done():
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	return sent
}

func watchAfterCancel(t *c.T, pr *probe) {
	if d := time.Until(pr.cancelAt.Add(cancelWatch)); d > 0 {
		w := time.NewTimer(d)
		select {
		case <-w.C:
		case <-t.Ctx.Done():
			w.Stop()
		}
	}
	pr.watched = true
}
