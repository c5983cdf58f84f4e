package utilities

import (
	"encoding/json"
	"fmt"
	"strings"

	c "github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/jsonrpc"
	"github.com/mcpconform/mcpconform/internal/wire"
)

// unrelatedNotes are notifications that never belong to a request: on a
// request's SSE stream they are unrelated to it (PROG-003).
var unrelatedNotes = map[string]bool{
	"notifications/tools/list_changed":         true,
	"notifications/prompts/list_changed":       true,
	"notifications/resources/list_changed":     true,
	"notifications/resources/updated":          true,
	"notifications/subscriptions/acknowledged": true,
	"notifications/roots/list_changed":         true,
}

var _ = c.Area("progress", func() {
	// PROG-001 judges the token itself: that the client supplied it, with
	// the same JSON type, and that requests without a token get none.
	// Whether the request was still running is PROG-002's "no progress after
	// the response", so one defect fails one check.
	c.It("PROG-001", "notifications/progress carry a progressToken the client supplied, with its JSON type", func(t *c.T) {
		ex := exerciseFor(t)
		n := 0
		phases := []*phase{sharedPhase(t)}
		if len(ex.tools) > 0 {
			phases = append(phases, ex.usable(t)...)
		}
		for _, ph := range phases {
			for _, e := range ph.notes("notifications/progress") {
				n++
				tok, ok := param(e.msg, "progressToken")
				switch {
				case !ok:
					t.Violation("a progressToken", c.Clip(e.f.Raw), "a progress notification carries no progressToken")
				case ph.callByToken(tok, false) != nil:
				case ph.callByToken(tok, true) != nil:
					cl := ph.callByToken(tok, true)
					t.Violation("progressToken "+string(cl.token)+" as sent ("+jsonrpc.RawID(cl.token).TypeName()+")", c.Clip(e.f.Raw),
						"the progress token of %s came back as %s, another JSON type", describeCall(cl), jsonrpc.RawID(tok).TypeName())
				case !ph.tokens:
					t.Violation("no notifications/progress for requests without a progressToken", c.Clip(e.f.Raw),
						"progress arrived in a session whose requests carried no progressToken (requests %s)", ph.what)
				default:
					t.Violation("a progressToken the client supplied", c.Clip(e.f.Raw), "progress for token %s, which the client never sent", tok)
				}
			}
		}
		if n == 0 {
			ex.requireTools(t)
			t.NA("no notifications/progress arrived, neither in the shared session nor in the exercise: %s", ex.tried())
		}
		t.Note("judged %d progress notification(s)", n)
	})

	c.It("PROG-002", "progress strictly increases per token and stops at the response", func(t *c.T) {
		ex := exerciseFor(t)
		ex.requireTools(t)
		n := 0
		for _, ph := range ex.usable(t) {
			last := map[*call]float64{}
			for _, e := range ph.notes("notifications/progress") {
				tok, ok := param(e.msg, "progressToken")
				if !ok {
					continue
				}
				cl := ph.callByToken(tok, false)
				if cl == nil {
					continue // not a token of ours: PROG-001
				}
				n++
				raw, _ := param(e.msg, "progress")
				var p float64
				if json.Unmarshal(raw, &p) != nil {
					t.Violation("a number in progress", c.Clip(e.f.Raw), "progress for %s is not a number", describeCall(cl))
				}
				if cl.respSeq != 0 && e.f.Seq > cl.respSeq {
					t.Violation("no progress after the response", c.Clip(e.f.Raw), "progress for %s arrived after its response", describeCall(cl))
				}
				if prev, seen := last[cl]; seen && !(p > prev) {
					t.Violation(fmt.Sprintf("progress greater than %v", prev), c.Clip(e.f.Raw),
						"progress for %s did not increase: %v after %v", describeCall(cl), p, prev)
				}
				last[cl] = p
			}
		}
		if n == 0 {
			t.NA("no notifications/progress for a progress token of the harness arrived: %s", ex.tried())
		}
		t.Note("judged %d progress notification(s)", n)
	})

	c.It("PROG-003", "progress and request-scoped notifications stay on their request's SSE stream, before its response", func(t *c.T) {
		ex := exerciseFor(t)
		ex.requireTools(t)
		n := 0
		for _, ph := range ex.usable(t) {
			respSeq := map[int64]int64{} // exchange → its response frame
			for _, e := range ph.events {
				if e.f.Dir == wire.In && e.msg.Kind() == jsonrpc.KindResponse && e.f.Exchange != 0 && respSeq[e.f.Exchange] == 0 {
					respSeq[e.f.Exchange] = e.f.Seq
				}
			}
			for _, e := range ph.events {
				if e.f.Dir != wire.In || e.msg.Kind() != jsonrpc.KindNotification {
					continue
				}
				method := e.msg.Method
				if method != "notifications/progress" && !unrelatedNotes[method] {
					continue
				}
				n++
				req := ph.requestOfExchange(e.f.Exchange)
				if req == nil {
					t.Violation("progress only on the SSE stream of the request it belongs to", c.Clip(e.f.Raw),
						"%s arrived outside any POST response stream", method)
				}
				on := req.Method
				if unrelatedNotes[method] {
					t.Violation("only notifications related to the request on its stream (progress, log messages)", c.Clip(e.f.Raw),
						"%s arrived on the response stream of %s (id %s), to which it is unrelated", method, on, req.ID)
				}
				tok, _ := param(e.msg, "progressToken")
				cl := ph.callOfExchange(e.f.Exchange)
				if cl == nil || cl.token == nil || jsonrpc.RawID(cl.token).Key() != jsonrpc.RawID(tok).Key() {
					t.Violation("progress only on the stream of the request that carried its token", c.Clip(e.f.Raw),
						"progress for token %s arrived on the response stream of %s (id %s)%s", tok, on, req.ID, tokenOf(cl))
				}
				if r := respSeq[e.f.Exchange]; r != 0 && e.f.Seq > r {
					t.Violation("progress before the response on the stream", c.Clip(e.f.Raw), "progress for %s followed the response on its stream", describeCall(cl))
				}
			}
		}
		if n == 0 {
			t.NA("no notifications/progress (nor any other notification tied to no request) arrived on a response stream: %s", ex.tried())
		}
		t.Note("judged %d notification(s) on response streams", n)
	})
})

func tokenOf(cl *call) string {
	if cl == nil || cl.token == nil {
		return ", which carried no progressToken"
	}
	return ", whose progressToken is " + strings.TrimSpace(string(cl.token))
}
