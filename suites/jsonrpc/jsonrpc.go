// Package jsonrpc checks JSON-RPC 2.0 framing as MCP applies it: message
// shape, id correlation with the JSON type kept, result/error exclusivity,
// method-not-found and resultType.
package jsonrpc

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	c "github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/jsonrpc"
	"github.com/mcpconform/mcpconform/internal/judge"
	"github.com/mcpconform/mcpconform/internal/session"
	"github.com/mcpconform/mcpconform/internal/wire"
)

var _ = c.Area("jsonrpc", func() {
	c.It("RPC-001", "every server message is a JSON-RPC 2.0 object and every error has an integer code and a string message", func(t *c.T) {
		s := t.Shared()
		t.Battery(s)
		t.Settle(s)
		for _, f := range t.Incoming(s) {
			if f.Kind != wire.KindMessage || f.Truncated {
				continue // a cut frame cannot be judged (size caps)
			}
			m, err := c.Decode(f)
			if err != nil || !m.IsJSONRPC() {
				continue // not a JSON-RPC object at all (an HTTP rejection body, a log line): framing, judged by STD-001 / the HTTP checks
			}
			t.Check(m.HasJSONRPC && m.JSONRPC == "2.0", `"jsonrpc": "2.0"`, c.Clip(f.Raw), "a server message does not declare JSON-RPC 2.0")
			if m.HasError {
				t.Check(m.Error != nil && m.Error.CodeIsInt, "error.code: an integer", c.Clip(f.Raw), "an error code is not an integer")
				t.Check(m.Error.MessageIsString, "error.message: a string", c.Clip(f.Raw), "an error message is not a string")
			}
		}
	})

	c.It("RPC-002", "the response id equals the request id with the same JSON type", func(t *c.T) {
		s := t.Shared()
		m, p := t.Probe()
		// n and "n" with digits the session never used, so no id is reused.
		n := s.NewID()
		var latency time.Duration // the slowest single answer: the server's normal latency
		for _, id := range []jsonrpc.ID{jsonrpc.StringID(n.String()), n, jsonrpc.StringID("mcpconform-ключ-🔑-" + n.String()), jsonrpc.IntID(9007199254740991 - s.NewID().Int())} {
			id := id
			t.Step(fmt.Sprintf("%s with id %s (%s)", m, id, id.TypeName()))
			began := time.Now()
			resp := t.Call(s, m, p, &session.CallOptions{ID: &id})
			latency = max(latency, time.Since(began))
			if resp.IDTypeMismatch {
				t.Evidence(resp.Frame)
			}
			t.Check(!resp.IDTypeMismatch, fmt.Sprintf("id %s (%s)", id, id.TypeName()),
				fmt.Sprintf("id %s (%s)", resp.Msg.ID, resp.Msg.ID.TypeName()), "the response id changed its JSON type")
		}
		concurrentIDs(t, s, latency)
	})

	c.It("RPC-003", "every response has exactly one of result and error", func(t *c.T) {
		s := t.Shared()
		for _, r := range t.Battery(s) {
			t.Check(r.Msg.HasResult != r.Msg.HasError, "exactly one of result and error", c.Clip(r.Msg.Raw),
				"a response carries both or neither of result and error")
		}
	})

	c.It("RPC-007", "an unknown method gets -32601", func(t *c.T) {
		s := t.Shared()
		resp := t.Call(s, "mcpconform/no-such-method", map[string]any{}, nil)
		if code, isErr := resp.ErrorCode(); isErr && code != jsonrpc.CodeMethodNotFound {
			// the one grader's rule: a SHOULD before 2026-07-28
			t.Deviation(judge.UnknownMethodCode.Judge(t.Rev, false, false), "JSON-RPC error -32601", resp.Describe(),
				"unknown method: error code %d, not -32601", code)
		}
		t.ExpectErrorCode("unknown method", resp, jsonrpc.CodeMethodNotFound)
		if t.HTTP() && t.Modern() {
			t.ExpectStatus("unknown method under 2026-07-28", resp, http.StatusNotFound)
		}
	})

	c.It("RPC-011", "every result carries a known resultType", func(t *c.T) {
		s := t.Shared()
		allowed := map[string]bool{"complete": true, "input_required": true}
		var ext struct {
			Extensions map[string]json.RawMessage `json:"extensions"`
		}
		if b, err := json.Marshal(s.Capabilities()); err == nil {
			_ = json.Unmarshal(b, &ext)
		}
		if _, ok := ext.Extensions["io.modelcontextprotocol/tasks"]; ok {
			allowed["task"] = true
		}
		resps := []*session.Response{t.Call(s, "server/discover", nil, nil)}
		for _, l := range []struct{ capability, method string }{{"tools", "tools/list"}, {"prompts", "prompts/list"}, {"resources", "resources/list"}, {"resources", "resources/templates/list"}} {
			if c.Declared(s, l.capability) {
				resps = append(resps, t.Call(s, l.method, map[string]any{}, nil))
			}
		}
		for _, r := range resps {
			if !r.IsResult() {
				continue
			}
			var rt string
			raw := r.Msg.ResultObject()["resultType"]
			t.Check(json.Unmarshal(raw, &rt) == nil && allowed[rt], fmt.Sprintf("resultType one of %v", keys(allowed)),
				c.Clip(r.Msg.Raw), "a result lacks a known resultType")
		}
	})
})

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// concurrentIDs sends 64 probe requests at once on s: integer and string
// ids interleaved, twenty 1-style / "1"-style pairs in flight together
// (values the session never allocated), a 1 KiB string id and a unicode
// one. Every response must match exactly one request with the same id and
// JSON type; none may be missing or come twice.
func concurrentIDs(t *c.T, s *session.Session, latency time.Duration) {
	m, p := t.Probe()
	const pairs, total = 20, 64
	base := 4_000_000_000_000 + s.NewID().Int()*1000
	var ids []jsonrpc.ID
	for i := int64(0); i < pairs; i++ {
		n := base + i
		ids = append(ids, jsonrpc.IntID(n), jsonrpc.StringID(fmt.Sprint(n)))
	}
	ids = append(ids, jsonrpc.StringID(strings.Repeat("k", 1024-len(fmt.Sprint(base)))+fmt.Sprint(base)),
		jsonrpc.StringID(fmt.Sprintf("mcpconform-並行-🧵-%d", base)))
	for i := int64(pairs); len(ids) < total; i++ {
		if i%2 == 0 {
			ids = append(ids, jsonrpc.IntID(base+i))
		} else {
			ids = append(ids, jsonrpc.StringID(fmt.Sprintf("mcpconform-%d", base+i)))
		}
	}
	// Slowness is not a correlation failure: the wait scales with the
	// latency observed above (a server that handles one request at a time
	// answers the last of 64 after 64 latencies), within the check's budget.
	wait := min(max(s.Timeout(), 2*time.Duration(len(ids))*latency), max(s.Timeout(), t.Env.SpecBudget/3))
	t.Step(fmt.Sprintf("%d %s requests in flight at once (each waited for up to %s)", len(ids), m, wait))
	mark := t.Mark()
	type outcome struct {
		resp *session.Response
		err  error
	}
	results := make([]outcome, len(ids))
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range ids {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			<-start
			id := ids[i]
			resp, err := t.TryCall(s, m, p, &session.CallOptions{ID: &id, Timeout: wait})
			results[i] = outcome{resp, err}
		}(i)
	}
	close(start)
	wg.Wait()
	var missing []jsonrpc.ID
	for i, r := range results {
		id := ids[i]
		want := fmt.Sprintf("a response with id %s (%s)", c.Clip([]byte(id.String())), id.TypeName())
		if r.err != nil || r.resp == nil || r.resp.Msg == nil {
			if r.err == nil || errors.Is(r.err, wire.ErrTimeout) {
				missing = append(missing, id)
				continue
			}
			t.Violation(want, r.err.Error(), "with %d requests in flight, the request with id %s got no response with its id", len(ids), c.Clip([]byte(id.String())))
		}
		got := r.resp.Msg.ID
		t.Check(!r.resp.IDTypeMismatch && got.Key() == id.Key(), want,
			fmt.Sprintf("id %s (%s)", c.Clip([]byte(got.String())), got.TypeName()),
			"with %d requests in flight, a response id does not match its request", len(ids))
	}
	if len(missing) > 0 {
		// A barrier decides between slow and lost: answered, the server
		// has had its turn at everything sent before it. While late
		// answers to the burst keep arriving, the server is working
		// through it (slow, not lost): another barrier follows, within
		// the check's budget. Progress decides, not a clock.
		budget := time.Now().Add(t.Env.SpecBudget / 3)
		lateSeen := lateAnswers(s, mark)
		resp, err := t.TryCall(s, m, p, &session.CallOptions{Timeout: wait})
		for (err != nil || resp == nil || resp.Msg == nil) && time.Now().Before(budget) && t.Ctx.Err() == nil {
			n := lateAnswers(s, mark)
			if n == lateSeen {
				break
			}
			lateSeen = n
			resp, err = t.TryCall(s, m, p, &session.CallOptions{Timeout: wait})
		}
		if err != nil || resp == nil || resp.Msg == nil {
			t.Error("the server is too slow to judge: %d of %d concurrent requests got no response within %s (a single request took %s), and neither did the %s sent after them; id correlation could not be judged (a longer --timeout may help)",
				len(missing), len(ids), wait, latency.Round(time.Millisecond), m)
		}
		t.Quiet(s)
		if t.HTTP() {
			// Each request had its own POST, abandoned at the wait: what
			// the server would have answered is not known, and the barrier
			// was served on its own exchange. Slow, not uncorrelated.
			t.Note("the server is slow: %d of %d concurrent requests got no response within %s (a single request took %s); their HTTP exchanges were abandoned, so their ids could not be judged",
				len(missing), len(ids), wait, latency.Round(time.Millisecond))
			missing = nil
		}
		late := map[string]bool{}
		for _, e := range s.Events(mark) {
			if e.Late && e.Msg != nil && e.Msg.HasID {
				late[e.Msg.ID.Key()] = true
			}
		}
		var lost []string
		for _, id := range missing {
			if !late[id.Key()] {
				lost = append(lost, c.Clip([]byte(id.String())))
			}
		}
		if len(lost) > 0 {
			t.Violation("a response with the id of every request", fmt.Sprintf("no response with the id %s, although the %s sent after them was answered", strings.Join(lost, ", "), m),
				"with %d requests in flight, %d request(s) got no response with their id", len(ids), len(lost))
		}
		if len(missing) > 0 {
			t.Note("the server is slow: %d of %d concurrent requests were answered, with their ids, only after %s (a single request took %s)",
				len(missing), len(ids), wait, latency.Round(time.Millisecond))
		}
	}
	t.Settle(s)
	for _, e := range s.Events(mark) {
		if e.Unsolicited && !e.Late {
			t.Violation("exactly one response per request", c.Clip(e.Frame.Raw),
				"with %d requests in flight, a response matched no request in flight (duplicated or cross-wired id)", len(ids))
		}
	}
}

// lateAnswers counts the responses that arrived on s after mark for
// requests whose wait had ended (late answers).
func lateAnswers(s *session.Session, mark int64) int {
	n := 0
	for _, e := range s.Events(mark) {
		if e.Late && e.Msg != nil && e.Msg.HasID {
			n++
		}
	}
	return n
}
