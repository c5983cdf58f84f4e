package observe

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/mcpconform/mcpconform/internal/catalog"
	"github.com/mcpconform/mcpconform/internal/jsonobj"
	"github.com/mcpconform/mcpconform/internal/jsonrpc"
	"github.com/mcpconform/mcpconform/internal/wire"
)

// The run-wide HTTP rules: the status and stream rules of Streamable HTTP
// judged on every exchange of the run, whichever check made it.

// maxEventIDs bounds the SSE event ids kept per session (HTTP-009).
const maxEventIDs = 1 << 16

// exchange records an MCP exchange the harness opened: its event stream's
// session and, for a GET, whether it resumes a stream.
//
// HTTP-006 (a GET stream carries no response unless resuming) is not judged
// here: no check but HTTP-006's own opens a GET that does not resume, so an
// observer would see nothing its probe does not.
func (o *Observer) exchange(c *conn, f wire.Frame) {
	if c.streams == nil || len(c.streams) >= maxPending {
		c.streams, c.posted = map[int64]*stream{}, map[int64]*request{}
	}
	st := &stream{session: f.HTTP.Header.Get("Mcp-Session-Id")}
	if f.HTTP.Method == http.MethodGet {
		st.resuming = f.HTTP.Header.Get("Last-Event-ID") != ""
	}
	c.streams[f.Exchange] = st
}

// posting records a POST that carries one well-formed notification, or a
// legacy response (a client's answer), so that its reply is judged
// (HTTP-004). A payload the harness malformed (framing, envelope, params
// that are not an object) is a probe: its reply is not judged here.
func (o *Observer) posting(c *conn, f wire.Frame, m *jsonrpc.Message) {
	if f.HTTP == nil || f.Exchange == 0 || f.HTTP.Method != http.MethodPost || f.Truncated {
		return
	}
	raw := f.Raw
	if len(raw) == 0 || raw[0] != '{' || len(bytes.TrimSpace(raw)) != len(raw) || bytes.ContainsAny(raw, "\r\n") ||
		!m.HasJSONRPC || m.JSONRPC != "2.0" {
		return
	}
	r := &request{check: o.checkOn(c), frame: keep(f, keepRequest), seq: f.Seq}
	switch {
	case m.HasMethod && !m.HasID && m.MethodIsString && m.Method != "" && !m.HasResult && !m.HasError:
		if m.HasParams && !isObject(m.Params) {
			return
		}
		r.method = "notification " + m.Method
		var p struct {
			Meta map[string]metaMember `json:"_meta"`
		}
		_ = json.Unmarshal(m.Params, &p)
		var pv string
		if json.Unmarshal(p.Meta[metaProtocolVersion], &pv) == nil && catalog.Revision(pv) == catalog.Modern {
			r.rev = catalog.Modern
		} else if c.legacy != "" {
			r.rev = c.legacy
		} else {
			r.rev = c.era
		}
	case !m.HasMethod && m.HasID && m.ID.Valid() && m.HasResult != m.HasError:
		r.method, r.rev = "JSON-RPC response", c.legacy
		if r.rev == "" {
			r.rev = c.era
		}
		if r.rev == "" || !r.rev.IsLegacy() {
			return // 2026-07-28 clients send no responses: a probe
		}
	default:
		return
	}
	if c.posted == nil || len(c.posted) >= maxPending {
		c.posted = map[int64]*request{}
	}
	c.posted[f.Exchange] = r
}

// standardHeaders reports whether an HTTP request carried the headers a
// client must send with a POST (Content-Type JSON, Accept both media
// types) and no foreign Origin: a refusal of a request the harness sent
// with faulty headers is judged by that header's own check.
func standardHeaders(h http.Header) bool {
	ct := strings.ToLower(h.Get("Content-Type"))
	acc := strings.ToLower(h.Get("Accept"))
	origin := h.Get("Origin")
	return strings.HasPrefix(ct, "application/json") && strings.Contains(acc, "application/json") && strings.Contains(acc, "text/event-stream") &&
		(origin == "" || strings.HasPrefix(origin, "http://localhost") || strings.HasPrefix(origin, "http://127.0.0.1") || strings.HasPrefix(origin, "http://[::1]"))
}

// HTTP-004: a POSTed notification (legacy: or response) that is accepted
// gets 202 with an empty body; one not accepted gets a 4xx (whose JSON
// body, if any, is an id-less JSON-RPC error). Judged on the reply's first
// frame.
func http004(e *event) {
	r := e.posted
	if r == nil || e.f.HTTP == nil {
		return
	}
	raw := bytes.TrimSpace(e.f.Raw)
	st := e.f.HTTP.Status
	switch {
	case st == http.StatusAccepted:
		if len(raw) > 0 {
			e.violate("HTTP-004", false, "the 202 reply to a POSTed %s has a body (%s)", r.method, bodyOf(e.f))
		}
	case st >= 400 && st < 500:
		// The spec's words: "MUST return an HTTP error status code … The
		// HTTP response body MAY comprise a JSON-RPC error response that
		// has no id." A body that is not JSON (a plain-text reason, as the
		// go-sdk writes) breaks no MUST and is not judged here; a JSON body
		// must be that id-less error (an id, or a result, would answer a
		// request that was never made).
		if len(raw) == 0 || e.f.Truncated || !jsonobj.Valid(raw) || !standardHeaders(r.frame.HTTP.Header) {
			return
		}
		m, err := jsonrpc.Decode(raw)
		if err == nil && !m.IsJSONRPC() {
			return // a JSON body that is no JSON-RPC message ({"error":"invalid_token"}): the MAY does not bind it
		}
		if err != nil || !m.IsError() || m.HasMethod || m.HasID && !m.ID.IsNull() {
			e.violate("HTTP-004", false, "a POSTed %s refused with HTTP %d got a body that is not an id-less JSON-RPC error: %s", r.method, st, clip(e.f.Raw))
		}
	default:
		e.violate("HTTP-004", false, "a POSTed %s got HTTP %d, not 202 (accepted) or a 4xx (refused); body %s", r.method, st, bodyOf(e.f))
	}
}

// bodyOf describes a reply body as far as it was read: a body whose read
// stopped early is not called empty.
func bodyOf(f wire.Frame) string {
	switch {
	case !f.Truncated:
		return clip(f.Raw)
	case len(f.Raw) == 0:
		return "(not read: the read stopped before its first byte)"
	}
	return clip(f.Raw) + fmt.Sprintf(" (the read stopped after %d bytes)", len(f.Raw))
}

// HTTP-005: an SSE data payload is a single JSON-RPC message (from
// 2025-06-18: never an array), and a POST's event stream ends after the
// response to its request (a message after it shows it did not).
func http005(e *event) {
	f := e.f
	if f.HTTP == nil || !f.HTTP.SSE || f.Kind != wire.KindMessage || f.Truncated || e.rev == "" {
		return
	}
	if t := bytes.TrimSpace(f.Raw); len(t) > 0 && t[0] != '{' && e.rev != catalog.R20250326 && !e.c.sentBatch {
		e.violate("HTTP-005", false, "an SSE data payload is not a single JSON-RPC message: %s", clip(f.Raw))
	} else if len(t) > 0 && t[0] == '{' && e.err == errNotJSONRPC {
		// a JSON object that is no JSON-RPC message (a resumed stream
		// replaying {} for its priming event): not an MCP message, so not
		// the message rules' (classify); the stream's payload rule's
		e.violate("HTTP-005", false, "an SSE data payload is a JSON object but not a JSON-RPC message: %s", clip(f.Raw))
	}
	if st := e.c.streams[f.Exchange]; st != nil && st.answered && e.req != nil && e.c.exchanges[f.Exchange] != nil {
		what := "a message"
		if e.m != nil && e.m.HasMethod {
			what = e.m.Method
		}
		e.violate("HTTP-005", false, "the SSE stream of the POSTed %s went on after its response (it carried %s)", e.c.exchanges[f.Exchange].method, what)
	}
}

// streamAnswered marks an exchange's stream once the response to the
// exchange's own request arrived on it (HTTP-005).
func streamAnswered(c *conn, e *event) {
	if e.f.Exchange == 0 || c.exchanges[e.f.Exchange] != e.req {
		return
	}
	if st := c.streams[e.f.Exchange]; st != nil {
		st.answered = true
	}
}

// HTTP-009: SSE event ids are unique across all streams of a session
// (legacy revisions). A resumed stream may replay its events with their
// ids: it is neither judged nor recorded.
func http009(e *event) {
	f := e.f
	st := e.c.streams[f.Exchange]
	if f.HTTP == nil || !f.HTTP.SSE || f.HTTP.EventID == "" || st == nil || st.resuming {
		return
	}
	sess := st.session
	if sess == "" {
		sess = f.HTTP.Header.Get("Mcp-Session-Id")
	}
	if sess == "" {
		return // no session: nothing binds the ids of separate streams
	}
	if e.c.eventIDs == nil {
		e.c.eventIDs = map[string]map[string]int64{}
	}
	ids := e.c.eventIDs[sess]
	if ids == nil || len(ids) >= maxEventIDs {
		if len(e.c.eventIDs) >= maxPending {
			clear(e.c.eventIDs)
		}
		ids = map[string]int64{}
		e.c.eventIDs[sess] = ids
	}
	if first, ok := ids[f.HTTP.EventID]; ok {
		where := "another stream"
		if first == f.Exchange {
			where = "the same stream"
		}
		e.violate("HTTP-009", false, "the SSE event id %q was used again (first on %s of the session)", f.HTTP.EventID, where)
		return
	}
	ids[f.HTTP.EventID] = f.Exchange
}

// modernOnly are the requirements that bind only a server supporting
// 2026-07-28 alone ("Earlier Streamable HTTP Revisions"): their violations
// are dropped when the run saw the server serve a legacy initialize.
var modernOnly = map[string]bool{"HTTP-019": true}

// HTTP-019: a server that supports only 2026-07-28 never sets
// Mcp-Session-Id on a response (SHOULD). Judged once per exchange, on the
// replies to 2026-07-28 requests that carried no Mcp-Session-Id (one that
// did is HTTP-019's own probe: the server may be echoing the harness).
func http019(e *event) {
	f := e.f
	st := e.c.streams[f.Exchange]
	if !modern(e) || f.HTTP == nil || e.req == nil || e.req.rev != catalog.Modern || st == nil || st.session != "" || st.headJudged {
		return
	}
	st.headJudged = true
	if sid := f.HTTP.Header.Get("Mcp-Session-Id"); sid != "" {
		e.violate("HTTP-019", false, "the reply to the 2026-07-28 %s sets Mcp-Session-Id %q", e.req.method, clip([]byte(sid)))
	}
}
