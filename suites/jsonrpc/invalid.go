package jsonrpc

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpconform/mcpconform/internal/catalog"
	c "github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/jsonrpc"
	"github.com/mcpconform/mcpconform/internal/session"
)

// invalidProbe is one invalid request of RPC-006.
type invalidProbe struct {
	what    string
	payload []byte
	// sentID is the raw id of a request whose id breaks MCP's id rules
	// (null, {}, 1.5): those rules bind the sender, so a server that runs
	// the request and answers it with that very id is lenient (a WARN);
	// one that answers with another id (1.5 read as 1) breaks the MUST that
	// binds it: a response carries the id of the request it answers.
	// Empty for the other probes, whose rules are JSON-RPC 2.0's (also the
	// sender's): a WARN at most.
	sentID string
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
	var lost []lostServer
	rejected, nullIDs := 0, 0
	barrier(t, s) // the server's latency before any stimulus (it scales the barriers' waits)
	for i, k := range cases {
		t.Step("send a request with " + k.what)
		mark := t.Mark()
		reply, err := trySendRaw(t, s, k.payload, method)
		alive := err == nil && barrier(t, s)
		rs := ownResponses(responsesSince(s, mark), k.payload)
		for _, r := range rs {
			if r.msg.HasID && r.msg.ID.IsNull() {
				nullIDs++
			}
			switch {
			case r.msg.HasResult && k.sentID != "" && idText(r.msg) != k.sentID:
				mustBroken = append(mustBroken, fmt.Sprintf("a request with %s was executed and answered with id %s: %s", k.what, idText(r.msg), c.Clip(r.msg.Raw)))
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
			lost = append(lost, lostServer{fmt.Sprintf("after a request with %s: %s", k.what, lostHow(s, method, err)), s})
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
			// handshaken just now: nothing of earlier traffic to settle
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
	crashes = append(stillLost(t, lost), crashes...)
	if rejected > 0 {
		t.Note("%d of %d invalid requests were rejected with an HTTP 4xx and no JSON-RPC error", rejected, len(cases))
	}
	if len(silent) > 0 {
		t.Warn("%d of %d invalid requests got no JSON-RPC error (JSON-RPC 2.0 SHOULD: -32600), the server answering the next request: %s",
			len(silent), len(cases), strings.Join(silent, "; "))
	}
	if nullIDs > 0 {
		t.Warn(`%d invalid-request error(s) carry "id": null; the MCP schema wants the id omitted (tolerated: TOL-14)`, nullIDs)
	}
	// A crash breaks the liveness requirement (RPC-014's FAIL); here it
	// means the invalid requests got no -32600, which JSON-RPC asks only as
	// a SHOULD of the server: a WARN, unless an id rule (MUST) broke too.
	if len(crashes) > 0 {
		crashed := fmt.Sprintf("the server stopped answering %d time(s) in %d invalid requests", len(crashes), len(cases))
		if len(mustBroken) == 0 {
			t.CrashedAt(catalog.SHOULD, "the server keeps answering after invalid requests ("+method+")", strings.Join(crashes, "; "), "%s", crashed)
		}
		t.RecordCrash("%s: %s", crashed, strings.Join(crashes, "; "))
		t.Warn("%s: %s", crashed, strings.Join(crashes, "; "))
	}
	if len(mustBroken) > 0 {
		t.Violation("a response carries the id of the request it answers (MCP MUST); better, -32600 and no execution", strings.Join(mustBroken, "; "),
			"the server executed %d request(s) with an invalid id and answered them with another id", len(mustBroken))
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

// idText is a message's id as sent on the wire, without white space
// ("absent" when it has none).
func idText(m *jsonrpc.Message) string {
	if !m.HasID {
		return "absent"
	}
	var raw struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(m.Raw, &raw) != nil {
		return m.ID.String()
	}
	return strings.Join(strings.Fields(string(raw.ID)), "")
}

// ownResponses leaves out responses that carry an id the harness gave an
// earlier message (a late answer to another check's probe) rather than
// this probe's id or one derived from its invalid id.
func ownResponses(rs []received, payload []byte) []received {
	var sent struct {
		ID json.RawMessage `json:"id"`
	}
	_ = json.Unmarshal(payload, &sent)
	own := strings.Join(strings.Fields(string(sent.ID)), "")
	var out []received
	for _, r := range rs {
		if id := idText(r.msg); strings.HasPrefix(id, `"mcpconform-`) && id != own {
			continue
		}
		out = append(out, r)
	}
	return out
}
