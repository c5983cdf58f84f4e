package jsonrpc

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/internal/catalog"
	c "github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/jsonrpc"
	"github.com/mcpconform/mcpconform/internal/session"
	"github.com/mcpconform/mcpconform/internal/wire"
)

// freshID returns a string id the session never allocated (it allocates
// integers), unique within the run.
func freshID(s *session.Session, tag string) jsonrpc.ID {
	return jsonrpc.StringID(fmt.Sprintf("mcpconform-%s-%d", tag, s.NewID().Int()))
}

var _ = c.Area("jsonrpc", func() {
	c.It("RPC-004", "notifications, known, unknown or with junk params, get no response", func(t *c.T) {
		s := t.Shared()
		unused := freshID(s, "never-sent")
		type note struct {
			what, method string
			params       any
		}
		notes := []note{
			{"a cancellation for a request id that was never sent", "notifications/cancelled", map[string]any{"requestId": unused, "reason": "mcpconform"}},
			{"an unknown notification", "notifications/x-mcpconform", map[string]any{}},
			{"a notification with junk params", "notifications/cancelled", map[string]any{"requestId": []any{true, nil}, "reason": 42}},
		}
		if !t.Modern() {
			notes = append(notes, note{"roots/list_changed (the harness declared no roots)", "notifications/roots/list_changed", nil})
		}
		mark := t.Mark()
		type sent struct {
			what  string
			reply *wire.Reply
		}
		var replies []sent
		for _, n := range notes {
			t.Step("send " + n.what + ": " + n.method)
			var payload []byte
			if n.params == nil {
				payload = jsonrpc.Notification(n.method, nil)
			} else {
				b, _ := json.Marshal(n.params)
				payload = jsonrpc.Notification(n.method, json.RawMessage(b))
			}
			replies = append(replies, sent{n.what, sendRaw(t, s, payload, n.method)})
		}
		rejected := map[int64]bool{} // HTTP exchanges answered with a 4xx
		for _, r := range replies {
			if r.reply == nil {
				continue
			}
			body := replyBody(s, mark, r.reply.Exchange)
			switch st := r.reply.Status; {
			case st == 202 && len(bytes.TrimSpace(body)) == 0:
			case st >= 400 && st < 500:
				rejected[r.reply.Exchange] = true
				t.Note("%s was rejected with HTTP %d", r.what, st)
			default:
				// HTTP-004 judges the status and body of every POSTed
				// notification; here only a JSON-RPC response is this
				// requirement's deviation (responsesSince, below).
				t.Note("%s got HTTP %d, %s: the status and body of a POSTed notification are judged under HTTP-004", r.what, st, bodyWords(t, s, mark, r.reply.Exchange))
			}
		}
		t.Settle(s)
		t.KeepsAnswering(s, "notifications")
		for _, r := range responsesSince(s, mark) {
			if rejected[r.frame.Exchange] && (!r.msg.HasID || r.msg.ID.IsNull()) && r.msg.HasError && !r.msg.HasResult {
				continue // the error body of a 4xx rejection, addressed to no request
			}
			if c.AddressedToNoRequest(t, r.frame, r.msg, "a notification") {
				continue
			}
			t.Evidence(r.frame)
			t.Violation("no response to any notification", c.Clip(r.msg.Raw), "the server answered a notification")
		}
	})

	c.It("RPC-005", "unparseable input gets -32700 and the server keeps answering", func(t *c.T) {
		s := t.Shared()
		m, _ := t.Probe()
		full := request(freshID(s, "truncated"), m, probeParams(s))
		params := probeParams(s)
		if params == nil {
			params = map[string]any{}
		}
		params["_meta"] = mergeMeta(params["_meta"], map[string]any{"mcpconform/text": "@@BAD@@"})
		badUTF8 := bytes.Replace(request(freshID(s, "utf8"), m, params), []byte("@@BAD@@"), []byte("caf\xc3\x28 \xff\xfe"), 1)
		cases := []parseCase{
			{"truncated JSON", full[:len(full)-7]},
			{"invalid UTF-8 inside a string", badUTF8},
		}
		// First the input at the parser's limits, where only a crash or
		// silence is judged: a wrong parse error code below must not hide
		// it. A crash does not hide the next probe either: the rest go to a
		// fresh connection, each probe's outcome reported on its own.
		var opened []*session.Session // fresh sessions after a crash
		defer func() {
			for _, o := range opened {
				o.Close()
			}
		}()
		barrier(t, s) // the server's latency before any stimulus (it scales the barriers' waits)
		// Where a fresh session costs next to nothing (a stdio server
		// that starts in milliseconds), the unparseable input goes to one
		// of its own while the limits are probed on the shared session:
		// the patience a server that hangs on it costs, and the time the
		// megabytes take, overlap. Elsewhere it follows the limits on the
		// same session, as each fresh process would cost a start-up.
		var early *parseCases
		var wg sync.WaitGroup
		if cheapFresh(t) {
			if fresh, err := t.Env.Target.Open(t.Ctx, t.Rev); err == nil {
				opened = append(opened, fresh)
				early = &parseCases{}
				t.Step("send truncated JSON and invalid UTF-8 on a session of their own, beside the input at the limits")
				wg.Add(1)
				go func() {
					defer wg.Done()
					early.run(t, fresh, m, cases)
				}()
			}
		}
		s, crashes, lostAtLimits := atTheLimits(t, s, m, &opened)
		wg.Wait()
		pc := early
		if pc == nil {
			pc = &parseCases{}
			if s != nil {
				t.Step("send truncated JSON and invalid UTF-8")
				pc.run(t, s, m, cases)
			}
		}
		opened = append(opened, pc.opened...)
		for _, n := range pc.notes {
			t.Note("%s", n)
		}
		if pc.fatal != nil {
			t.Error("%v", pc.fatal)
		}
		crashes = append(crashes, pc.crashes...)
		// a server that missed a barrier is hung only if it is still
		// silent now (it answered later: slow, not hung)
		crashes = append(crashes, stillLost(t, append(lostAtLimits, pc.lost...))...)
		if len(crashes) > 0 {
			for _, g := range pc.graded {
				t.Warn("also: %s: %s", g.what, g.Why)
			}
			t.Crashed("the server keeps answering ("+m+")", strings.Join(crashes, "; "), "the server stopped answering %d time(s)", len(crashes))
		}
		reportGraded(t, "a -32700 parse error", pc.graded)
	})

	c.It("RPC-006", "invalid requests are never executed and get -32600", func(t *c.T) {
		s := t.Shared()
		m, _ := t.Probe()
		params := probeParams(s)
		body := func(members string) []byte {
			var p string
			if params != nil {
				b, _ := json.Marshal(params)
				p = `,"params":` + string(b)
			}
			return []byte("{" + members + p + "}")
		}
		methodJSON, _ := json.Marshal(m)
		id := func(tag string) string { b, _ := json.Marshal(freshID(s, tag)); return string(b) }
		// Each sub-case carries its own level (GradeFaultAnswer): the
		// rules these requests break bind their sender, so a server's
		// leniency is a WARN at most; answering with an id other than the
		// request's breaks the MUST that binds the server.
		cases := []invalidProbe{
			{what: "no method", payload: body(`"jsonrpc":"2.0","id":` + id("no-method"))},
			{what: `"jsonrpc": "1.0"`, payload: body(`"jsonrpc":"1.0","id":` + id("v1") + `,"method":` + string(methodJSON))},
			{what: `"id": null`, payload: body(`"jsonrpc":"2.0","id":null,"method":` + string(methodJSON))},
			{what: `"id": {}`, payload: body(`"jsonrpc":"2.0","id":{},"method":` + string(methodJSON))},
			{what: `"id": 1.5`, payload: body(`"jsonrpc":"2.0","id":1.5,"method":` + string(methodJSON))},
			{what: `"method": 42`, payload: body(`"jsonrpc":"2.0","id":` + id("method-42") + `,"method":42`)},
		}
		for _, k := range []struct{ what, params string }{
			{"params a string", `"mcpconform"`},
			{"params an array", `[1,2]`},
			{"params a number", `7`},
		} {
			cases = append(cases, invalidProbe{what: k.what,
				payload: []byte(`{"jsonrpc":"2.0","id":` + id("params") + `,"method":` + string(methodJSON) + `,"params":` + k.params + `}`)})
		}
		judgeInvalid(t, s, m, cases)
	})

	c.It("RPC-008", "batches: accepted in 2025-03-26, rejected and never executed afterwards", func(t *c.T) {
		s := t.Shared()
		m, _ := t.Probe()
		if t.Rev == catalog.R20250326 && s.Revision() != catalog.R20250326 {
			t.NA("the server negotiated %s instead of 2025-03-26", s.Revision())
		}
		a, b := freshID(s, "batch-a"), freshID(s, "batch-b")
		batch := "[" + string(request(a, m, probeParams(s))) + "," + string(request(b, m, probeParams(s))) + "," +
			string(jsonrpc.Notification("notifications/x-mcpconform", json.RawMessage(`{}`))) + "]"
		mark := t.Mark()
		reply := sendRaw(t, s, []byte(batch), m)
		t.Settle(s)
		rs := responsesSince(s, mark)
		t.ExpectAlive(s, "a batch")
		if t.Rev != catalog.R20250326 {
			// Some servers run a batch only when every element is a
			// request: a request-only batch must be rejected too. It goes
			// on a connection of its own: a server that runs it answers
			// with an array line, which is this requirement's to judge.
			s := t.Open()
			c2, d := freshID(s, "batch-c"), freshID(s, "batch-d")
			only := "[" + string(request(c2, m, probeParams(s))) + "," + string(request(d, m, probeParams(s))) + "]"
			t.Step("send a batch of requests only")
			mark2 := t.Mark()
			reply2 := sendRaw(t, s, []byte(only), m)
			t.Settle(s)
			rs2 := responsesSince(s, mark2)
			t.ExpectAlive(s, "a batch of requests only")
			for _, r := range rs2 {
				if r.msg.HasResult && r.msg.HasID && (r.msg.ID.Key() == c2.Key() || r.msg.ID.Key() == d.Key()) {
					t.Violation("the batch rejected (4xx or -32600) and none of its elements executed", describeReceived(rs2),
						"the server executed an element (%s) of a batch of requests only although %s has no batches", r.msg.ID, t.Rev)
				}
			}
			_ = reply2
		}
		count := map[string]int{}
		success := map[string]bool{}
		for _, r := range rs {
			if r.msg.HasID {
				count[r.msg.ID.Key()]++
				if r.msg.HasResult {
					success[r.msg.ID.Key()] = true
				}
			}
		}
		if t.Rev == catalog.R20250326 {
			for _, id := range []jsonrpc.ID{a, b} {
				t.Check(count[id.Key()] == 1 && success[id.Key()], fmt.Sprintf("one result for %s", id), describeReceived(rs),
					"the batch element %s was not answered exactly once with a result", id)
			}
			return
		}
		for _, id := range []jsonrpc.ID{a, b} {
			if success[id.Key()] {
				t.Violation("the batch rejected (4xx or -32600) and none of its elements executed", describeReceived(rs),
					"the server executed a batch element (%s) although %s has no batches", id, t.Rev)
			}
		}
		switch {
		case reply != nil && reply.Status >= 400 && reply.Status < 500:
		case len(rs) == 1 && rs[0].msg.IsError() && (!rs[0].msg.HasID || rs[0].msg.ID.IsNull()):
			if code, _ := rs[0].msg.ErrorCode(); code != jsonrpc.CodeInvalidRequest {
				t.Warn("the batch was rejected with %d; JSON-RPC suggests -32600 (tolerated: TOL-18)", code)
			}
		case count[a.Key()] == 1 && count[b.Key()] == 1:
			// one error per element
		default:
			actual := describeReceived(rs)
			if reply != nil {
				actual = fmt.Sprintf("HTTP %d; %s", reply.Status, actual)
			}
			t.Violation("a 4xx, a -32600 error, or one error per element", actual, "the batch was not rejected")
		}
	})

	c.It("RPC-010", "the server never sends a request (a message with method and id)", func(t *c.T) {
		s := t.Shared()
		t.Battery(s)
		t.Settle(s)
		for _, f := range t.AllIncoming(s) {
			if f.Kind != wire.KindMessage || f.Truncated {
				continue
			}
			msg, err := c.Decode(f)
			if err != nil {
				continue
			}
			t.Check(!(msg.HasMethod && msg.HasID), "only responses and notifications", c.Clip(f.Raw),
				"the server sent a request (%s) under 2026-07-28", msg.Method)
		}
	})

	c.It("RPC-012", "no removed or spec-reserved error codes", func(t *c.T) {
		s := t.Shared()
		try := func(method string, params any) {
			_, _ = t.TryCall(s, method, params, nil)
		}
		t.Battery(s)
		try("tools/list", map[string]any{"cursor": 42})
		if c.Declared(s, "resources") {
			try("resources/read", map[string]any{"uri": "mcpconform://no-such-resource"})
		}
		if c.Declared(s, "tools") {
			try("tools/call", map[string]any{"name": "mcpconform_no_such_tool", "arguments": map[string]any{}})
		}
		if c.Declared(s, "prompts") {
			try("prompts/get", map[string]any{"name": "mcpconform_no_such_prompt"})
		}
		for _, f := range t.AllIncoming(s) {
			if f.Kind != wire.KindMessage || f.Truncated {
				continue
			}
			msg, err := c.Decode(f)
			if err != nil {
				continue
			}
			code, ok := msg.ErrorCode()
			if !ok {
				continue
			}
			switch {
			case code == jsonrpc.CodeResourceNotFound:
				t.Violation("no -32002 (2026-07-28 answers an unknown resource with -32602)", c.Clip(f.Raw), "the server emitted the removed code -32002")
			case code == jsonrpc.CodeURLElicitation:
				t.Violation("no -32042 (removed in 2026-07-28)", c.Clip(f.Raw), "the server emitted the removed code -32042")
			case code <= -32020 && code >= -32099 && code != jsonrpc.CodeHeaderMismatch && code != jsonrpc.CodeMissingCapability && code != jsonrpc.CodeUnsupportedProtocol:
				t.Violation("codes in -32020..-32099 only as the spec defines them (-32020, -32021, -32022)", c.Clip(f.Raw), "the server emitted the spec-reserved code %d", code)
			case code <= -32000 && code >= -32019:
				t.Warn("the server emitted %d from the legacy implementation-defined range -32000..-32019 (SHOULD NOT): %s", code, c.Clip(f.Raw))
			}
		}
	})
})

// Input at a parser's limits: a request of 1.5 MiB (past the 64 KiB of a
// default line scanner, the 100 kB of common body parsers and the 1 MiB of
// common proxies and readers; TOOL-014 sends a 1 MiB tool argument) and
// JSON nested deeper than common parsers allow. The spec sets no size or
// depth, so any answer is right — a result, a JSON-RPC error, an HTTP 4xx. A crash, or a
// server that stops answering, is a FAIL (RPC-005's "the server keeps
// running"); input dropped silently by a server that answers the barrier
// request after it is a WARN.
const (
	oversizedBytes = 3 << 19
	deepLevels     = 20000
	// limitWait is the least time a server gets to answer the request of
	// megabytes (parsing it takes a loaded machine a while; the
	// per-response timeout applies when it is longer); the nested ones,
	// kilobytes, get the run's adaptive patience like any barrier.
	limitWait = 10 * time.Second
)

// stray reports a response whose id matches no request the session sent
// (nor one it gave up on): an answer to the input with a broken id.
func stray(e session.Event) bool {
	return e.Msg != nil && e.Msg.Kind() == jsonrpc.KindResponse && e.Unsolicited && !e.Late
}

// firstEvent is the first event of s after mark that pred accepts.
func firstEvent(s *session.Session, mark int64, pred func(session.Event) bool) (session.Event, bool) {
	for _, e := range s.Events(mark) {
		if pred(e) {
			return e, true
		}
	}
	return session.Event{}, false
}

// atTheLimits returns the session to go on with (a fresh one when the
// server was lost; nil when none could be opened), the crashes seen, and
// the sessions that missed a barrier (stillLost decides, at the end,
// whether they were hung or only slow).
func atTheLimits(t *c.T, s *session.Session, method string, opened *[]*session.Session) (*session.Session, []string, []lostServer) {
	withParam := func(tag string, value json.RawMessage) (jsonrpc.ID, []byte) {
		id := freshID(s, tag)
		params := probeParams(s)
		if params == nil {
			params = map[string]any{}
		}
		params["_meta"] = mergeMeta(params["_meta"], map[string]any{"mcpconform/" + tag: value})
		return id, request(id, method, params)
	}
	// The megabytes go in as text too, in one allocation of the final
	// size: through json.Marshal they cost several copies of themselves,
	// the peak of a run's memory.
	bigID, big := withParam("oversized", json.RawMessage(`"@@BIG@@"`))
	big = withLongString(big, `"@@BIG@@"`, oversizedBytes)
	// encoding/json refuses to write JSON deeper than 10000 levels: the
	// nesting goes in as text, in place of a marker.
	deepID, deep := withParam("deep", json.RawMessage(`"@@DEEP@@"`))
	deep = bytes.Replace(deep, []byte(`"@@DEEP@@"`), []byte(strings.Repeat("[", deepLevels)+strings.Repeat("]", deepLevels)), 1)
	// 2000 levels: past the 1000 some JSON readers stop at, within the
	// 10000 of others.
	midID, mid := withParam("deep2k", json.RawMessage(`"@@DEEP@@"`))
	mid = bytes.Replace(mid, []byte(`"@@DEEP@@"`), []byte(strings.Repeat("[", 2000)+strings.Repeat("]", 2000)), 1)
	cases := []struct {
		what    string
		id      jsonrpc.ID
		payload []byte
	}{
		{fmt.Sprintf("a %.1f MiB request", float64(oversizedBytes)/(1<<20)), bigID, big},
		{"a request nested 2000 levels deep", midID, mid},
		{fmt.Sprintf("a request nested %d levels deep", deepLevels), deepID, deep},
	}
	var crashes []string
	var lost []lostServer
	for _, k := range cases {
		t.Step("send " + k.what)
		mark := t.Mark()
		began := time.Now() // the input's transfer counts: the server reads it as it arrives
		reply, err := trySendRaw(t, s, k.payload, method)
		answer := func(e session.Event) bool {
			return e.Msg != nil && e.Msg.Kind() == jsonrpc.KindResponse && !e.Late &&
				(!e.Msg.HasID || e.Msg.ID.IsNull() || e.Msg.ID.Key() == k.id.Key())
		}
		// The input's own answer first, for at most the patience: a server
		// may lose what came in the same read as input it fails on
		// (Effect's stdio reader drops the rest of the chunk), so a barrier
		// sent with the input would make the verdict a matter of timing.
		if err == nil && !s.Idle() {
			ctx, cancel := context.WithTimeout(t.Ctx, t.Patience())
			_, _ = s.WaitEvent(ctx, mark, func(e session.Event) bool { return answer(e) || stray(e) })
			cancel()
		}
		// A barrier request after the input: answered, the server is
		// alive, and a server that reads in order has answered the input
		// too. One that parses concurrently gets as long again as the
		// input and the barrier took (at most limitWait) to answer it.
		wait := t.Patience() // kilobytes: parsed as fast as anything else
		if len(k.payload) > 1<<20 {
			wait = max(s.Timeout(), limitWait)
		}
		alive := err == nil && barrierWithin(t, s, wait)
		if !alive {
			actual := lostHow(s, method, err)
			if dropped(reply) {
				actual = "the server dropped the connection, then " + actual
			}
			if closed, _ := s.Closed(); err == nil && !closed && s.Stalled() {
				// the barrier went unanswered: hung, unless it answers
				// before the check ends (a loaded machine, a server that
				// serialises its work)
				lost = append(lost, lostServer{fmt.Sprintf("after %s: %s", k.what, actual), s})
			} else {
				crashes = append(crashes, fmt.Sprintf("after %s: %s", k.what, actual))
			}
			// the remaining probes go to a fresh connection: one fault
			// must not hide the next
			fresh, oerr := t.Env.Target.Open(t.Ctx, t.Rev)
			if oerr != nil {
				crashes = append(crashes, fmt.Sprintf("no fresh session for the remaining probes: %v", oerr))
				return nil, crashes, lost
			}
			*opened = append(*opened, fresh)
			s = fresh
			// handshaken just now: nothing of earlier traffic to settle
			continue
		}
		if reply != nil && reply.Status >= 400 && reply.Status < 500 {
			t.Note("%s was rejected with HTTP %d", k.what, reply.Status)
			continue
		}
		// A server that parses concurrently may answer the barrier first:
		// the input gets as long again as it and the barrier took, and at
		// least the patience the server's observed latency earns. Unless
		// nothing more can arrive (Streamable HTTP: the input's own
		// exchange has ended, and its answer could come on no other).
		wait = min(limitWait, max(time.Since(began), t.Window(), t.Patience()))
		if s.Idle() {
			wait = 0
		}
		ctx, cancel := context.WithTimeout(t.Ctx, wait)
		ev, ok := s.WaitEvent(ctx, mark, answer)
		cancel()
		if !ok {
			what := "silence"
			if e, ok := firstEvent(s, mark, stray); ok {
				what = "only a response with an id it was not sent with: " + c.Clip(e.Frame.Raw)
			} else if dropped(reply) {
				what = "a dropped connection (no HTTP response)"
			} else if reply != nil {
				what = fmt.Sprintf("HTTP %d, %s", reply.Status, bodyWords(t, s, mark, reply.Exchange))
			}
			t.Warn("%s got no answer (%s) although the server stays alive and answered the %s after it: the input was dropped silently; an error (or a 4xx) would tell the client", k.what, what, method)
			continue
		}
		what := "a result"
		if code, isErr := ev.Msg.ErrorCode(); isErr {
			what = fmt.Sprintf("error %d", code)
		}
		t.Note("%s got %s", k.what, what)
	}
	return s, crashes, lost
}

// withLongString returns payload with marker replaced by a JSON string of n
// letters x, built in one allocation of the size it needs.
func withLongString(payload []byte, marker string, n int) []byte {
	i := bytes.Index(payload, []byte(marker))
	if i < 0 {
		return payload
	}
	out := make([]byte, len(payload)-len(marker)+n+2)
	k := copy(out, payload[:i])
	out[k] = '"'
	for j := k + 1; j <= k+n; j++ {
		out[j] = 'x'
	}
	out[k+n+1] = '"'
	copy(out[k+n+2:], payload[i+len(marker):])
	return out
}

func mergeMeta(old any, extra map[string]any) map[string]any {
	out := map[string]any{}
	if m, ok := old.(map[string]any); ok {
		for k, v := range m {
			out[k] = v
		}
	}
	for k, v := range extra {
		out[k] = v
	}
	return out
}

func describeReceived(rs []received) string {
	if len(rs) == 0 {
		return "no JSON-RPC response"
	}
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = c.Clip(r.msg.Raw)
	}
	return strings.Join(parts, " | ")
}

// parseCase is an unparseable input of RPC-005.
type parseCase struct {
	what    string
	payload []byte
}

// cheapFreshHandshake: a stdio target whose handshakes (start-up
// included) took less than this on average gets fresh sessions where they
// save waiting (cheapFresh).
const cheapFreshHandshake = 50 * time.Millisecond

// cheapFresh reports whether a fresh session costs next to nothing: a
// stdio target whose handshakes so far (start-up included) took less than
// cheapFreshHandshake on average.
func cheapFresh(t *c.T) bool {
	if t.HTTP() {
		return false
	}
	st := t.Env.Target.Stats()
	return st.Handshakes > 0 && st.HandshakeMs/float64(st.Handshakes) < float64(cheapFreshHandshake.Milliseconds())
}

// parseCases is what RPC-005's unparseable inputs brought: the check's
// goroutine reports it (run may run beside it, and so must not).
type parseCases struct {
	notes, crashes []string
	graded         []gradedProbe
	lost           []lostServer
	opened         []*session.Session
	fatal          error
}

// gradedProbe is a deviation in the answer to one probe of a check.
type gradedProbe struct {
	GradedAnswer
	what, actual string
}

// reportGraded reports the graded deviations of a check's probes (FAILs
// first, see GradeFaultAnswer): a tolerance is a WARN note; the first other
// one ends the check with the grader's verdict, the rest of them noted.
func reportGraded(t *c.T, expected string, gs []gradedProbe) {
	var rest []gradedProbe
	for _, g := range gs {
		if strings.HasPrefix(g.Note, "tolerated: ") {
			t.Warn("%s (%s %s)", g.Why, g.Requirement, g.Note)
			continue
		}
		rest = append(rest, g)
	}
	if len(rest) == 0 {
		return
	}
	for _, g := range rest[1:] {
		t.Warn("also: %s: %s (%s %s %s)", g.what, g.Why, g.Verdict, g.Requirement, g.Level)
	}
	g := rest[0]
	t.Deviation(g.Judgement, expected, g.actual, "%s: %s", g.what, g.Why)
}

// run sends each case on s, a barrier request after it, and judges the
// answer; a server lost after one gets a fresh session for the next.
func (pc *parseCases) run(t *c.T, s *session.Session, m string, cases []parseCase) {
	for _, k := range cases {
		mark := t.Mark()
		reply, err, fatal := sendRawOrFatal(t, s, k.payload, m)
		if fatal != nil {
			pc.fatal = fatal
			return
		}
		// The barrier decides: a server that drops the input silently
		// has answered the request after it by then.
		if err != nil || !barrier(t, s) {
			pc.lost = append(pc.lost, lostServer{fmt.Sprintf("after %s: %s", k.what, lostHow(s, m, err)), s})
			fresh, oerr := t.Env.Target.Open(t.Ctx, t.Rev)
			if oerr != nil {
				pc.crashes = append(pc.crashes, fmt.Sprintf("no fresh session for the remaining probes: %v", oerr))
				return
			}
			pc.opened = append(pc.opened, fresh)
			s = fresh
			// handshaken just now: nothing of earlier traffic to settle
			continue
		}
		var got *received
		if rs := ownResponses(responsesSince(s, mark), k.payload); len(rs) > 0 {
			got = &rs[0]
		}
		actual := "silence (the server answered the " + m + " sent after it)"
		switch {
		case got != nil:
			actual = c.Clip(got.msg.Raw)
		case dropped(reply):
			actual = "the server dropped the connection without an HTTP response"
		case reply != nil && reply.Status >= 400 && reply.Status < 500:
			// Streamable HTTP: invalid input gets 400, whose body MAY
			// carry a JSON-RPC error (the transport's rule, not a miss)
			pc.notes = append(pc.notes, fmt.Sprintf("%s was rejected with HTTP %d and no JSON-RPC error (%s)", k.what, reply.Status, bodyWords(t, s, mark, reply.Exchange)))
		case reply != nil:
			actual = fmt.Sprintf("HTTP %d, %s", reply.Status, bodyWords(t, s, mark, reply.Exchange))
		}
		for _, g := range GradeFaultAnswer(k.payload, replyOf(got, reply), t.Rev, t.Transport) {
			pc.graded = append(pc.graded, gradedProbe{g, k.what, actual})
		}
	}
}
