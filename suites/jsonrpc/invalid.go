package jsonrpc

import (
	"fmt"
	"strings"

	c "github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/jsonrpc"
	"github.com/mcpconform/mcpconform/internal/session"
)

// invalidProbe is one invalid request of RPC-006.
type invalidProbe struct {
	what    string
	payload []byte
	// idRule: executing it breaks an MCP MUST (a request id must be a
	// string or an integer, never null); otherwise the rule it breaks is
	// JSON-RPC 2.0's, which binds the sender, and the server's leniency is
	// a WARN at most.
	idRule bool
	// params: the params are not an object (-32602 is as right as -32600).
	params bool
}

// judgeInvalid sends each probe on its own, followed by a barrier request,
// and judges what came back by the barrier's answer plus the grace window
// (never a per-response timeout for a message a server drops). Each
// probe's outcome is its own: when the server dies or stops answering,
// that probe is reported as the crash and the remaining probes go on a
// fresh connection, so one fault does not hide the next.
func judgeInvalid(t *c.T, s *session.Session, method string, cases []invalidProbe) {
	var crashes, mustBroken, silent []string
	rejected, nullIDs := 0, 0
	for i, k := range cases {
		t.Step("send a request with " + k.what)
		mark := t.Mark()
		reply, err := trySendRaw(t, s, k.payload, method)
		alive := err == nil && barrier(t, s)
		rs := responsesSince(s, mark)
		for _, r := range rs {
			if r.msg.HasID && r.msg.ID.IsNull() {
				nullIDs++
			}
			switch {
			case r.msg.HasResult && k.idRule:
				mustBroken = append(mustBroken, fmt.Sprintf("a request with %s was executed: %s", k.what, c.Clip(r.msg.Raw)))
			case r.msg.HasResult:
				t.Warn("a request with %s was executed (JSON-RPC 2.0 calls it invalid; that rule binds the sender, MCP sets none for the server): %s", k.what, c.Clip(r.msg.Raw))
			default:
				code, _ := r.msg.ErrorCode()
				if code != jsonrpc.CodeInvalidRequest && !(k.params && code == jsonrpc.CodeInvalidParams) {
					want := "-32600"
					if k.params {
						want = "-32602 or -32600"
					}
					t.Warn("a request with %s got error %d instead of %s (JSON-RPC 2.0 SHOULD): %s", k.what, code, want, c.Clip(r.msg.Raw))
				}
			}
		}
		if !alive {
			crashes = append(crashes, fmt.Sprintf("after a request with %s: %s", k.what, lostHow(s, method, err)))
			if i == len(cases)-1 {
				break
			}
			fresh, oerr := t.Env.Target.Open(t.Ctx, t.Rev)
			if oerr != nil {
				crashes = append(crashes, fmt.Sprintf("no fresh session for the %d remaining request(s): %v", len(cases)-1-i, oerr))
				break
			}
			defer fresh.Close()
			s = fresh
			continue
		}
		if len(rs) > 0 {
			continue
		}
		switch {
		case reply != nil && reply.Status >= 400 && reply.Status < 500:
			rejected++
		case dropped(reply):
			silent = append(silent, k.what+" (the server dropped the connection without an HTTP response)")
		case reply != nil:
			silent = append(silent, fmt.Sprintf("%s (HTTP %d and no JSON-RPC response)", k.what, reply.Status))
		default:
			silent = append(silent, k.what)
		}
	}
	if rejected > 0 {
		t.Note("%d of %d invalid requests were rejected with an HTTP 4xx and no JSON-RPC error", rejected, len(cases))
	}
	if len(silent) > 0 {
		t.Warn("%d of %d invalid requests got no JSON-RPC error (JSON-RPC 2.0 SHOULD: -32600), the server answering the next request: %s",
			len(silent), len(cases), strings.Join(silent, "; "))
	}
	if nullIDs > 0 {
		t.Warn(`%d invalid-request error(s) carry "id": null; the MCP schema wants the id omitted (tolerated: §17.14)`, nullIDs)
	}
	if len(crashes) > 0 {
		if len(mustBroken) > 0 {
			t.Warn("also: %s", strings.Join(mustBroken, "; "))
		}
		t.Crashed("the server keeps answering after invalid requests ("+method+")", strings.Join(crashes, "; "),
			"the server stopped answering %d time(s) in %d invalid requests", len(crashes), len(cases))
	}
	if len(mustBroken) > 0 {
		t.Violation("no execution of a request whose id is null or not a string or an integer (MCP MUST)", strings.Join(mustBroken, "; "),
			"the server executed %d request(s) with an invalid id", len(mustBroken))
	}
}

// lostHow says how the server was lost: the connection ended, or it stopped
// answering the barrier.
func lostHow(s *session.Session, method string, sendErr error) string {
	if closed, cerr := s.Closed(); closed {
		return fmt.Sprintf("the connection ended (%v)", cerr)
	}
	if sendErr != nil {
		return "the connection ended: " + sendErr.Error()
	}
	return "no answer to the " + method + " that followed"
}
