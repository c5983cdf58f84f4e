package jsonrpc

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/internal/catalog"
	c "github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/judge"
	"github.com/mcpconform/mcpconform/internal/session"
)

// invalidProbe is one invalid request of RPC-006 (its fault is
// judge.Classify's).
type invalidProbe struct {
	what    string
	payload []byte
}

// judgeInvalid sends each probe on its own, followed by a barrier request,
// and judges what came back by the barrier's answer plus the grace window
// (never a per-response timeout for a message a server drops). Each
// probe's outcome is its own: when the server dies or stops answering,
// that probe is reported as the crash and the remaining probes go on a
// fresh connection, so one fault does not hide the next.
func judgeInvalid(t *c.T, s *session.Session, method string, cases []invalidProbe) {
	var crashes []string
	var graded []gradedProbe
	var lost []lostServer
	rejected := 0
	barrier(t, s) // the server's latency before any stimulus (it scales the barriers' waits)
	for i, k := range cases {
		t.Step("send a request with " + k.what)
		mark := t.Mark()
		reply, err := trySendRaw(t, s, k.payload, method)
		alive := err == nil && barrier(t, s)
		rs := ownResponses(responsesSince(s, mark), k.payload)
		for _, r := range rs {
			for _, g := range GradeFaultAnswer(k.payload, replyOf(&r, reply), t.Rev, t.Transport) {
				graded = append(graded, gradedProbe{g, "a request with " + k.what, c.Clip(r.msg.Raw)})
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
		actual := "silence (the server answered the " + method + " sent after it)"
		switch {
		case reply != nil && reply.Status >= 400 && reply.Status < 500:
			rejected++
		case dropped(reply):
			actual = "the server dropped the connection without an HTTP response"
		case reply != nil:
			actual = fmt.Sprintf("HTTP %d and no JSON-RPC response", reply.Status)
		}
		for _, g := range GradeFaultAnswer(k.payload, replyOf(nil, reply), t.Rev, t.Transport) {
			graded = append(graded, gradedProbe{g, "a request with " + k.what, actual})
		}
	}
	crashes = append(stillLost(t, lost), crashes...)
	if rejected > 0 {
		t.Note("%d of %d invalid requests were rejected with an HTTP 4xx and no JSON-RPC error", rejected, len(cases))
	}
	// A crash breaks the liveness requirement (RPC-014's FAIL, recorded
	// run-wide); here it means the invalid requests got no -32600, which
	// JSON-RPC asks only as a SHOULD of the server: a WARN, unless the
	// grader found an id rule (MUST) broken too.
	if len(crashes) > 0 {
		crashed := fmt.Sprintf("the server stopped answering %d time(s) in %d invalid requests", len(crashes), len(cases))
		if !slices.ContainsFunc(graded, func(g gradedProbe) bool { return g.Verdict == judge.FAIL }) {
			for _, g := range graded {
				t.Warn("also: %s: %s", g.what, g.Why)
			}
			t.CrashedAt(catalog.SHOULD, "the server keeps answering after invalid requests ("+method+")", strings.Join(crashes, "; "), "%s", crashed)
		}
		t.RecordCrash("%s: %s", crashed, strings.Join(crashes, "; "))
		t.Warn("%s: %s", crashed, strings.Join(crashes, "; "))
	}
	slices.SortStableFunc(graded, func(a, b gradedProbe) int { return failFirst(a.Verdict, b.Verdict) })
	reportGraded(t, "-32600 and no execution; a response carries the id of the request it answers (MCP MUST)", graded)
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
		if id := judge.RawID(r.msg); strings.HasPrefix(id, `"mcpconform-`) && id != own {
			continue
		}
		out = append(out, r)
	}
	return out
}
