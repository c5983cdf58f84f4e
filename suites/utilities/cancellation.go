package utilities

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/internal/catalog"
	c "github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/jsonrpc"
	"github.com/mcpconform/mcpconform/internal/wire"
)

// CAN-004 (2026-07-28 HTTP: closing a request's SSE stream cancels it) has
// no check. Once the client closed the stream, nothing more of that request
// can be seen: not its progress, not its response. What remains are side
// effects (work that never completes), which an arbitrary server does not
// expose and read-only tools, the only ones the default call policy allows
// to run, do not have. A check could only pass by assuming, so there is
// none.

var _ = c.Area("cancellation", func() {
	c.It("CAN-001", "a cancelled request that is still running gets no response", func(t *c.T) {
		judgeCancel(t, false)
	})

	c.It("CAN-003", "after a cancellation no message for the request arrives on stdio: no response, progress or log", func(t *c.T) {
		judgeCancel(t, true)
	})

	c.It("CAN-002", "cancellations for unknown, finished or malformed requests get no response and the server keeps working", func(t *c.T) {
		s := t.Open()
		m, p := t.Probe()
		finished := t.Call(s, m, p, nil)
		mark := t.Mark()
		never := jsonrpc.StringID(fmt.Sprintf("mcpconform-never-sent-%d", s.NewID().Int()))
		cases := []struct {
			what   string
			params any
		}{
			{"a request id that was never used", map[string]any{"requestId": never, "reason": "mcpconform: cancellation check"}},
			{"a request that was already answered (" + m + ")", map[string]any{"requestId": finished.ID, "reason": "mcpconform: cancellation check"}},
			{"a malformed cancellation (requestId an object)", map[string]any{"requestId": map[string]any{"id": finished.ID}}},
			{"a malformed cancellation (no requestId)", map[string]any{"reason": "mcpconform: cancellation check"}},
			{"a malformed cancellation (params an array)", json.RawMessage(`[1]`)},
		}
		rejected := map[int64]bool{}
		for _, k := range cases {
			t.Step("send notifications/cancelled for " + k.what)
			reply, err := s.Notify(t.Ctx, "notifications/cancelled", k.params)
			if err != nil {
				// the write failing because the connection ended (a stdio
				// server that exited on the previous cancellation: broken
				// pipe) is that crash, noticed before the reader saw it
				if closed, cerr := s.Closed(); closed || errors.Is(err, wire.ErrClosed) {
					if cerr == nil {
						cerr = err
					}
					t.CrashedAt(cancelLiveLevel, "the server keeps serving", fmt.Sprintf("the connection ended (%v)", cerr), "the server went away during the cancellations (noticed sending the one for %s)", k.what)
				}
				t.Error("notifications/cancelled for %s could not be sent: %v", k.what, err)
			}
			if reply == nil {
				continue
			}
			select {
			case <-reply.Done:
			case <-t.Ctx.Done():
			}
			body := exchangeBody(t, s.Conn().Name(), mark, reply.Exchange)
			switch st := reply.Status; {
			case st == 202 && len(body) == 0:
			case st >= 400 && st < 500:
				rejected[reply.Exchange] = true
				t.Note("notifications/cancelled for %s was rejected with HTTP %d", k.what, st)
			default:
				// HTTP-004 judges the status and body of every POSTed
				// notification; a JSON-RPC response among them is this
				// requirement's (the events, below).
				t.Note("notifications/cancelled for %s got HTTP %d, body %s: the status and body of a POSTed notification are judged under HTTP-004", k.what, st, c.Clip(body))
			}
		}
		t.Settle(s)
		t.ExpectAliveAt(cancelLiveLevel, s, "cancellations for unknown, finished and malformed requests")
		for _, e := range s.Events(mark) {
			if e.Msg == nil || e.Msg.Kind() != jsonrpc.KindResponse {
				continue
			}
			if rejected[e.Frame.Exchange] && (!e.Msg.HasID || e.Msg.ID.IsNull()) && e.Msg.IsError() {
				continue // the error body of a 4xx rejection, addressed to no request
			}
			if c.AddressedToNoRequest(t, e.Frame, e.Msg, "notifications/cancelled") {
				continue
			}
			t.Evidence(e.Frame)
			t.Violation("no response to notifications/cancelled", c.Clip(e.Frame.Raw), "the server answered a cancellation")
		}
	})

	c.It("CAN-005", "the server sends notifications/cancelled only for an open subscriptions/listen request", func(t *c.T) {
		ex := exerciseFor(t)
		type source struct {
			what   string
			events []event
		}
		var sources []source
		s := t.Shared()
		sources = append(sources, source{"the shared session", connEvents(t, s.Conn().Name())})
		for _, ph := range ex.phases {
			sources = append(sources, source{"the session of calls " + ph.what, ph.events})
		}
		if ex.cancel != nil {
			sources = append(sources, source{"the session of calls " + ex.cancel.what, ex.cancel.events})
		}
		n, seen := 0, 0
		for _, src := range sources {
			open := map[string]bool{}
			for _, e := range src.events {
				switch {
				case e.f.Dir == wire.Out && e.msg.Kind() == jsonrpc.KindRequest && e.msg.Method == "subscriptions/listen":
					open[e.msg.ID.Key()] = true
				case e.f.Dir == wire.In && e.msg.Kind() == jsonrpc.KindResponse:
					seen++
					delete(open, e.msg.ID.Key())
				case e.f.Dir == wire.In && e.msg.Method == "notifications/cancelled" && e.msg.Kind() == jsonrpc.KindNotification:
					seen++
					n++
					rid, _ := param(e.msg, "requestId")
					if !open[jsonrpc.RawID(rid).Key()] {
						t.Violation("notifications/cancelled only for an open subscriptions/listen request", c.Clip(e.f.Raw),
							"in %s the server sent notifications/cancelled for %s, which is not an open subscriptions/listen request", src.what, idOrNone(rid))
					}
				case e.f.Dir == wire.In:
					seen++
				}
			}
		}
		if n == 0 {
			t.NA("the server sent no notifications/cancelled in %d observed server message(s) (the shared session and the utilities exercise: %s)", seen, ex.tried())
		}
		t.Note("judged %d server cancellation(s)", n)
	})
})

// cancelLiveLevel is the level at which CAN-002 judges a server that dies
// on a stray or malformed cancellation: "Invalid cancellation notifications
// SHOULD be ignored" and receivers "MAY ignore" cancellations for unknown
// or finished requests (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/cancellation);
// no MUST keeps the server alive here but the liveness requirement's
// (RPC-014), which gets the crash's FAIL.
const cancelLiveLevel = catalog.SHOULD

// judgeCancel judges exercise phase D: CAN-001 (legacy: no response) or,
// with all, CAN-003 (2026-07-28 stdio: no message at all for the request
// after the grace window). Only calls of tools that take at least
// slowEnough uncancelled (session A) are judged: for a faster one, a
// response after the cancellation is a race the spec allows.
func judgeCancel(t *c.T, all bool) {
	ex := exerciseFor(t)
	ex.requireTools(t)
	d := ex.cancel
	if d == nil {
		t.Error("the cancellation session was not run")
	}
	if d.err != nil {
		t.Error("the session for the cancellation could not be opened: %v", d.err)
	}
	if len(ex.probes) == 0 {
		t.NA("every call answered within %s, so no request was running long enough to cancel: %d tool(s) called (%s)", cancelAfter, len(d.calls), toolNames(ex.tools))
	}
	judged := 0
	var skipped []string
	for _, pr := range ex.probes {
		if pr.cancelErr != nil {
			t.Error("notifications/cancelled could not be sent: %v", pr.cancelErr)
		}
		if pr.cancelSeq == 0 {
			t.Error("the transcript holds no cancellation frame for %s", describeCall(pr.cl))
		}
		ok, why := judgeProbe(t, ex, pr, all)
		if ok {
			judged++
		} else {
			skipped = append(skipped, why)
		}
	}
	if judged == 0 {
		t.NA("no cancellation could be judged: %s", strings.Join(skipped, "; "))
	}
	for _, why := range skipped {
		t.Note("not judged: %s", why)
	}
}

// judgeProbe judges one cancelled call; it reports false, with the reason,
// when the call says nothing about the server's handling of cancellations.
func judgeProbe(t *c.T, ex *exercise, pr *probe, all bool) (bool, string) {
	d, cl := ex.cancel, pr.cl
	what := describeCall(cl)
	var sent, resp *event
	for i := range d.events {
		e := &d.events[i]
		if e.f.Seq == cl.reqSeq {
			sent = e
		}
		if resp == nil && e.f.Dir == wire.In && e.msg.Kind() == jsonrpc.KindResponse && e.msg.HasID && e.msg.ID.LooseKey() == cl.id.LooseKey() {
			resp = e
		}
	}
	if sent == nil {
		t.Error("the transcript holds no request frame for %s", what)
	}
	if resp != nil && resp.f.Seq < pr.cancelSeq {
		return false, what + " was answered before its cancellation went out"
	}
	graceEnd := pr.cancelAt.Add(cancelGrace)
	settled := settledSeq(d, pr.cancelSeq)
	if all {
		for _, e := range d.events {
			if e.f.Dir != wire.In || e.f.Seq < pr.cancelSeq || !e.f.Time.After(graceEnd) || e.msg.Kind() != jsonrpc.KindNotification {
				continue
			}
			if e.f.Seq < settled {
				continue // the server had not read the cancellation yet: a race
			}
			after := e.f.Time.Sub(pr.cancelAt).Round(time.Millisecond)
			switch e.msg.Method {
			case "notifications/progress":
				if tok, _ := param(e.msg, "progressToken"); jsonrpc.RawID(tok).Key() == jsonrpc.RawID(cl.token).Key() {
					t.Violation("no progress once the request is cancelled", c.Clip(e.f.Raw), "progress for the cancelled %s arrived %s after notifications/cancelled", what, after)
				}
			case "notifications/message":
				if pr.watched {
					t.Violation("no log message once the request is cancelled", c.Clip(e.f.Raw),
						"a log message arrived %s after the cancellation of %s, the only request in progress", after, what)
				}
			}
		}
	}
	natural, known := ex.natural[cl.tool]
	if pr.immediate && (known || resp != nil) {
		return judgeImmediate(t, pr, resp, graceEnd, settled, natural) // a response is judged without natural
	}
	if !known {
		return false, ex.unknownDuration(pr, resp != nil)
	}
	switch {
	case natural < slowEnough:
		return false, fmt.Sprintf("%s takes %s uncancelled: its response may come within the race window (%s after the cancellation at %s) anyway",
			what, natural.Round(time.Millisecond), cancelGrace, cancelAfter)
	}
	if resp != nil {
		after := resp.f.Time.Sub(pr.cancelAt).Round(time.Millisecond)
		elapsed := resp.f.Time.Sub(sent.f.Time)
		switch {
		case resp.f.Time.After(graceEnd) && resp.f.Seq < settled:
			return false, fmt.Sprintf("%s was answered %s after its cancellation, before the server answered a request sent after the cancellation (it had not read it yet): a race", what, after)
		case resp.f.Time.After(graceEnd):
			t.Violation("no response once the request is cancelled (grace window "+cancelGrace.String()+")", c.Clip(resp.f.Raw),
				"the cancelled %s was answered %s after notifications/cancelled", what, after)
		case elapsed < natural*3/4 && sameOutcome(resp.msg, ex.naturalMsg[cl.tool]):
			// The call's own outcome, as uncancelled: the work finished
			// before the server read the cancellation (on a loaded machine
			// a call's duration varies). The clock alone decides nothing.
			return false, fmt.Sprintf("%s was answered %s after its cancellation with the outcome it has uncancelled (%s): its work finished, a race", what, after, outcome(resp.msg))
		case elapsed < natural*3/4:
			msg := fmt.Sprintf("the server answered the cancelled %s %s after notifications/cancelled, long before the %s the call takes uncancelled: a response to the cancellation",
				what, after, natural.Round(time.Millisecond))
			if !all {
				t.Violation("no response to a cancelled request", c.Clip(resp.f.Raw), "%s", msg)
			}
			t.Warn("%s (the cancellation pattern: the server SHOULD NOT send a response)", msg)
			return true, ""
		}
		return false, fmt.Sprintf("%s was answered %s after its cancellation, near the end of its uncancelled %s: a race", what, after, natural.Round(time.Millisecond))
	}
	if natural > cancelAfter+cancelWatch {
		return false, fmt.Sprintf("%s takes %s uncancelled, longer than the %s it was watched after its cancellation", what, natural.Round(time.Millisecond), cancelWatch)
	}
	t.Note("%s (uncancelled: %s) was cancelled after %s and stayed silent for the %s it was watched", what, natural.Round(time.Millisecond), cancelAfter, cancelWatch)
	return true, ""
}

// unknownDuration says why a cancelled call whose uncancelled call in A got
// no response is not judged.
func (ex *exercise) unknownDuration(pr *probe, answered bool) string {
	what := describeCall(pr.cl)
	watch := cancelAfter + cancelWatch
	if pr.immediate {
		watch = cancelWatch
	}
	d, cut := ex.atLeast[pr.cl.tool]
	switch {
	case !cut:
		return what + ": its uncancelled call in session A got no response, so its duration is unknown"
	case !answered && d > watch:
		return fmt.Sprintf("%s takes more than %s uncancelled (session A stopped waiting for it then), longer than the %s it was watched after its cancellation",
			what, d.Round(time.Millisecond), cancelWatch)
	}
	return fmt.Sprintf("%s: session A stopped waiting for its uncancelled call after %s, so its duration is unknown", what, d.Round(time.Millisecond))
}

// settledSeq is the Seq of the first answer to a request sent after the
// cancellation (cancelSeq): from then on the server has read it. With no
// such answer, math.MaxInt64: nothing after the cancellation is judged a
// violation of it.
func settledSeq(d *phase, cancelSeq int64) int64 {
	later := map[string]bool{}
	for _, e := range d.events {
		switch {
		case e.f.Seq <= cancelSeq:
		case e.f.Dir == wire.Out && e.msg.Kind() == jsonrpc.KindRequest:
			later[e.msg.ID.LooseKey()] = true
		case e.f.Dir == wire.In && e.msg.Kind() == jsonrpc.KindResponse && e.msg.HasID && later[e.msg.ID.LooseKey()]:
			return e.f.Seq
		}
	}
	return math.MaxInt64
}

// outcome names a response's kind: a JSON-RPC error with its code, a tool
// execution error (isError) or a result.
func outcome(m *jsonrpc.Message) string {
	if m == nil {
		return "none"
	}
	if code, ok := m.ErrorCode(); ok {
		return fmt.Sprintf("error %d", code)
	}
	var r struct {
		IsError bool `json:"isError"`
	}
	if json.Unmarshal(m.Result, &r) == nil && r.IsError {
		return "an isError result"
	}
	return "a result"
}

// sameOutcome reports whether a cancelled call's response has the kind of
// outcome its uncancelled call had (both results, both isError, or errors
// with one code).
func sameOutcome(m, natural *jsonrpc.Message) bool {
	return natural != nil && outcome(m) == outcome(natural)
}

// judgeImmediate judges a call cancelled right after it was sent: a
// response after the grace window breaks the requirement; one within it is
// the race the spec allows; silence, for a call that answers within the
// watch uncancelled, is the cancellation honoured.
func judgeImmediate(t *c.T, pr *probe, resp *event, graceEnd time.Time, settled int64, natural time.Duration) (bool, string) {
	what := describeCall(pr.cl)
	if resp != nil {
		after := resp.f.Time.Sub(pr.cancelAt).Round(time.Millisecond)
		if resp.f.Time.After(graceEnd) && resp.f.Seq > settled {
			t.Violation("no response once the request is cancelled (grace window "+cancelGrace.String()+")", c.Clip(resp.f.Raw),
				"%s, cancelled right after it was sent, was answered %s after notifications/cancelled", what, after)
		}
		return false, fmt.Sprintf("%s, cancelled right after it was sent, was answered %s later, within the race window", what, after)
	}
	switch {
	case natural > cancelWatch:
		return false, fmt.Sprintf("%s takes %s uncancelled, longer than the %s it was watched after its cancellation", what, natural.Round(time.Millisecond), cancelWatch)
	}
	t.Note("%s (uncancelled: %s) was cancelled right after it was sent and stayed silent for the %s it was watched", what, natural.Round(time.Millisecond), cancelWatch)
	return true, ""
}

// exchangeBody returns the server bytes of HTTP exchange x on conn.
func exchangeBody(t *c.T, conn string, mark, x int64) []byte {
	var out []byte
	for _, f := range t.FramesSince(mark) {
		if f.Conn == conn && f.Exchange == x && f.Dir == wire.In && (f.Kind == wire.KindMessage || f.Kind == wire.KindBody) {
			out = append(out, f.Raw...)
		}
	}
	return out
}

// connEvents decodes the message frames of conn recorded in the run: every
// one the server sent, and the harness's own below bigRequest bytes.
func connEvents(t *c.T, conn string) []event {
	var out []event
	keep := func(f *wire.Frame, size int) bool {
		return f.Kind == wire.KindMessage && (f.Dir == wire.In || size < bigRequest)
	}
	for _, f := range t.Env.Recorder().OnConnWhere(0, conn, keep) {
		if msg, err := c.Decode(f); err == nil {
			out = append(out, event{f: f, msg: msg})
		}
	}
	return out
}

// bigRequest: a message of the harness at least this large is an oversized
// stimulus (the robustness and size checks' payloads), never one of the
// small calls the exercises read back from the shared session (a request
// carrying a progressToken, subscriptions/listen), so connEvents neither
// restores nor decodes it.
const bigRequest = 64 << 10

func idOrNone(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "no requestId"
	}
	return "id " + string(raw)
}
