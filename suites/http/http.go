package http

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/internal/catalog"
	c "github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/jsonrpc"
	"github.com/mcpconform/mcpconform/internal/session"
	"github.com/mcpconform/mcpconform/internal/wire"
)

// Foreign values the checks send; none of them resolves anywhere, and no
// traffic ever leaves the target's URL.
const (
	foreignOrigin = "http://evil.example"
	foreignHost   = "evil.example"
)

// streamGrace is how long a stream may stay open after its final response.
func streamGrace(s *session.Session) time.Duration {
	return min(s.Timeout(), 2*time.Second)
}

var _ = c.Area("http", func() {
	c.It("HTTP-001", "a request with a foreign Origin gets 403", func(t *c.T) {
		s := t.Shared()
		m, p := t.Probe()
		hdr := http.Header{}
		hdr.Set("Origin", foreignOrigin)
		resp, err := t.TryCall(s, m, p, &session.CallOptions{Header: hdr})
		replyOf(t, m+" with Origin "+foreignOrigin, resp, err)
		status := resp.Status()
		if status == http.StatusForbidden {
			return
		}
		if status >= 400 && status < 500 && !t.Modern() && t.Rev < catalog.R20251125 {
			t.Warn("the foreign Origin was rejected with HTTP %d; %s only says the Origin must be validated, 403 is explicit from 2025-11-25", status, t.Rev)
			return
		}
		t.Violation("HTTP 403 Forbidden", resp.Describe(), "a request with Origin %s was not rejected with 403", foreignOrigin)
	})

	c.It("HTTP-002", "a localhost server rejects a foreign Host header", func(t *c.T) {
		_, port, ok := loopbackURL(t.Env.Target.URL)
		if !ok {
			t.NA("the endpoint is not on a loopback host; the DNS-rebinding rule is about servers bound to localhost")
		}
		s := t.Shared()
		m, p := t.Probe()
		host := foreignHost
		if port != "" {
			host += ":" + port
		}
		hdr := http.Header{}
		hdr.Set("Host", host)
		resp, err := t.TryCall(s, m, p, &session.CallOptions{Header: hdr})
		replyOf(t, m+" with Host "+host, resp, err)
		status := resp.Status()
		t.Check(status >= 400 && status < 500, "a 4xx rejection (e.g. 403 or 421)", resp.Describe(),
			"a request with the foreign Host header %s was served", host)
	})

	c.It("HTTP-003", "POSTed requests get application/json or text/event-stream", func(t *c.T) {
		s := t.Shared()
		m, p := t.Probe()
		reqs := []struct {
			method string
			params any
		}{{m, p}, {"mcpconform/no-such-method", map[string]any{}}}
		if l := declaredList(s); l != "" {
			reqs = append(reqs, struct {
				method string
				params any
			}{l, map[string]any{}})
		}
		for _, r := range reqs {
			resp, err := t.TryCall(s, r.method, r.params, nil)
			replyOf(t, r.method, resp, err)
			if st := resp.Status(); st < 200 || st > 299 {
				// A refused request (an HTTP error status) is judged by the
				// requirements on its error (RPC-007, HTTP-017, HTTP-018).
				if mt := mediaType(resp.Reply.Header); mt != "application/json" && mt != "text/event-stream" {
					t.Note("%s was refused with HTTP %d and Content-Type %q", r.method, st, resp.Reply.Header.Get("Content-Type"))
				}
				continue
			}
			switch mediaType(resp.Reply.Header) {
			case "text/event-stream":
			case "application/json":
				var msgs int
				for _, f := range resp.Exchange {
					if f.Dir == wire.In && (f.Kind == wire.KindMessage || f.Kind == wire.KindBody) {
						msgs++
						raw := bytes.TrimSpace(f.Raw)
						t.Check(len(raw) > 0 && raw[0] == '{' && json.Valid(raw), "one JSON object", c.Clip(f.Raw),
							"the application/json reply to %s is not one JSON object", r.method)
					}
				}
				t.Check(msgs <= 1, "one JSON object", fmt.Sprintf("%d bodies", msgs), "the application/json reply to %s holds several bodies", r.method)
				t.Check(resp.Msg != nil, "a JSON-RPC response", resp.Describe(), "the application/json reply to %s carries no JSON-RPC response", r.method)
			default:
				t.Violation("Content-Type application/json or text/event-stream", resp.Describe(),
					"the reply to the POSTed %s has Content-Type %q", r.method, resp.Reply.Header.Get("Content-Type"))
			}
		}
	})

	c.It("HTTP-004", "an accepted notification gets 202 with an empty body", func(t *c.T) {
		s := t.Shared()
		params := map[string]any{"requestId": fmt.Sprintf("mcpconform-never-sent-%d", s.NewID().Int()), "reason": "mcpconform: a notification probe"}
		var p any = params
		if t.Modern() {
			pm := maps.Clone(params)
			pm["_meta"] = s.ModernMeta()
			p = pm
		}
		reply, err := s.Notify(t.Ctx, "notifications/cancelled", p)
		if err != nil || reply == nil {
			t.Error("POST notifications/cancelled: %v", err)
		}
		select {
		case <-reply.Done:
		case <-time.After(s.Timeout()):
			t.Violation("HTTP 202 with an empty body", fmt.Sprintf("HTTP %d and a body still open after %s", reply.Status, s.Timeout()),
				"the reply to a notification did not end")
		}
		judgeAccepted(t, "notifications/cancelled", &rawReply{reply: reply, frames: exchangeFrames(t, s, reply.Exchange), ended: true})
		if t.Modern() {
			return // 2026-07-28 clients send no responses
		}
		// A JSON-RPC response (what a client answers a server request with)
		// to an id the server never used.
		payload, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": fmt.Sprintf("mcpconform-never-asked-%d", s.NewID().Int()), "result": map[string]any{}})
		judgeAccepted(t, "a JSON-RPC response", do(t, s, http.MethodPost, payload, legacyHeader(s), s.Timeout()))
	})

	c.It("HTTP-005", "SSE responses end after the final response and carry single messages", func(t *c.T) {
		s := t.Open() // its raw requests' responses are events of this session only
		m, _ := t.Probe()
		methods := []string{m}
		if l := declaredList(s); l != "" {
			methods = append(methods, l)
		}
		seen, sse := false, false
		for _, method := range methods {
			// Sent raw: a session call stops reading its stream once the
			// response came (a 2026-07-28 cancellation), which would hide a
			// stream that stays open.
			st := postRaw(t, s, method)
			if st.reply == nil || mediaType(st.reply.Header) != "text/event-stream" {
				st.close()
				continue
			}
			sse = true
			if !st.waitResponse(t, s) {
				st.close()
				continue // no response on it: another check's verdict (HTTP-003, RPC)
			}
			seen = true
			select {
			case <-st.reply.Done:
			case <-time.After(streamGrace(s)):
				st.close()
				t.Violation("the SSE stream ends after the final response", fmt.Sprintf("still open %s after the response to %s", streamGrace(s), method),
					"the SSE response stream of %s stayed open after its response", method)
			}
			st.close()
			if t.Modern() || t.Rev >= catalog.R20250618 {
				for _, f := range exchangeFrames(t, s, st.reply.Exchange) {
					if f.Kind != wire.KindMessage {
						continue
					}
					raw := bytes.TrimSpace(f.Raw)
					t.Check(len(raw) > 0 && raw[0] == '{', "one JSON-RPC message per data payload", c.Clip(f.Raw),
						"an SSE data payload of the %s reply is not a single JSON-RPC message", method)
				}
			}
		}
		if !seen && sse {
			t.NA("no SSE reply to %s carried its response within %s; nothing to time", strings.Join(methods, ", "), s.Timeout())
		}
		if !seen {
			t.NA("the server answered %s with application/json, not SSE", strings.Join(methods, ", "))
		}
	})

	c.It("HTTP-006", "the GET stream is SSE or 405 and never duplicates messages", func(t *c.T) {
		s := t.Open()
		st := openGET(t, s, legacyHeader(s))
		if st.err != nil && st.reply == nil {
			t.Violation("text/event-stream or HTTP 405", st.err.Error(), "GET on the endpoint got no response")
		}
		defer st.close()
		switch {
		case st.status() == http.StatusMethodNotAllowed:
			t.Note("the server offers no GET stream (405)")
			return
		case st.status() == http.StatusOK && mediaType(st.reply.Header) == "text/event-stream":
		default:
			st.close()
			rr := &rawReply{reply: st.reply, frames: exchangeFrames(t, s, st.reply.Exchange)}
			t.Violation("text/event-stream or HTTP 405", rr.describe(), "GET with Accept: text/event-stream got neither an SSE stream nor 405")
		}
		t.Battery(s)
		t.Settle(s)
		st.close()
		getEx := st.reply.Exchange
		onGET := map[string]bool{}
		for _, f := range t.Incoming(s) {
			if f.Exchange != getEx || f.Kind != wire.KindMessage {
				continue
			}
			msg, err := jsonrpc.Decode(f.Raw)
			if err != nil {
				continue
			}
			t.Check(msg.Kind() != jsonrpc.KindResponse, "no JSON-RPC response on the GET stream (it was not a resumption)", c.Clip(f.Raw),
				"the GET stream carried a JSON-RPC response")
			onGET[string(bytes.TrimSpace(f.Raw))] = true
		}
		for _, f := range t.Incoming(s) {
			if f.Exchange == getEx || f.Kind != wire.KindMessage {
				continue
			}
			t.Check(!onGET[string(bytes.TrimSpace(f.Raw))], "each message on exactly one stream", c.Clip(f.Raw),
				"a message was delivered both on the GET stream and on a POST reply")
		}
	})

	c.It("HTTP-007", "session ids are visible ASCII and sessionless requests get 400", func(t *c.T) {
		a := t.Open()
		sidA := a.SessionID()
		if sidA == "" {
			t.NA("the server issued no Mcp-Session-Id (sessions are optional)")
		}
		b := t.Open()
		for _, sid := range []string{sidA, b.SessionID()} {
			for i := 0; i < len(sid); i++ {
				if sid[i] < 0x21 || sid[i] > 0x7E {
					t.Violation("a session id of visible ASCII only (0x21-0x7E)", fmt.Sprintf("%q (byte 0x%02X at %d)", sid, sid[i], i),
						"the Mcp-Session-Id holds a byte outside 0x21-0x7E")
				}
			}
		}
		sidB := b.SessionID()
		if sidB == sidA {
			t.Warn("two sessions got the same id %q; session ids should be globally unique", sidA)
		} else if len(sidA) < 16 || len(sidB) < 16 {
			t.Warn("session ids %q and %q are short; they should be cryptographically secure (high entropy)", sidA, sidB)
		}
		l := declaredList(a)
		if l == "" {
			t.Note("no list method declared: the sessionless request was not tried")
			return
		}
		resp, err := t.TryCall(a, l, map[string]any{}, &session.CallOptions{Remove: []string{session.HeaderSessionID}})
		replyOf(t, l+" without Mcp-Session-Id", resp, err)
		switch {
		case resp.Status() == http.StatusBadRequest:
		case resp.IsResult():
			t.Note("%s without Mcp-Session-Id was served: the server does not require the session for it", l)
		default:
			t.Warn("%s without Mcp-Session-Id should get HTTP 400 from a server that requires sessions; got %s", l, resp.Describe())
		}
	})

	c.It("HTTP-008", "requests naming a terminated session get 404", func(t *c.T) {
		s := t.Open()
		sid := s.SessionID()
		if sid == "" {
			t.NA("the server issued no Mcp-Session-Id (sessions are optional)")
		}
		del := do(t, s, http.MethodDelete, nil, legacyHeader(s), s.Timeout())
		switch st := del.status(); {
		case st == http.StatusMethodNotAllowed:
			t.NA("the server does not let clients end sessions (DELETE got 405), and none ended on its own")
		case st >= 200 && st < 300:
		default:
			// The spec names 2xx and 405 (MAY) and requires nothing else of
			// DELETE: another answer is noted, and the 404 MUST is judged
			// only if the session did end.
			t.Note("DELETE of the session got %s (the spec names 2xx, or 405 when clients may not end sessions)", del.describe())
			m, p := t.Probe()
			if resp, err := t.TryCall(s, m, p, nil); err == nil && resp.Status() != http.StatusNotFound {
				t.NA("DELETE of the session got %s and the session did not end (%s answered HTTP %d): no terminated session to judge", del.describe(), m, resp.Status())
			}
			return
		}
		m, p := t.Probe()
		resp, err := t.TryCall(s, m, p, nil)
		replyOf(t, m+" in the deleted session", resp, err)
		t.Check(resp.Status() == http.StatusNotFound, "HTTP 404 Not Found", resp.Describe(),
			"a request naming the deleted session %q was not answered 404", sid)
	})

	c.It("HTTP-009", "SSE event ids are unique across streams and resumption stays on its stream", func(t *c.T) {
		s := t.Open()
		mark := t.Mark()
		t.Battery(s)
		t.Settle(s)
		type where struct {
			exchange int64
			raw      string
		}
		ids := map[string]where{}
		var order []string
		for _, f := range t.Incoming(s) {
			if f.Seq <= mark || f.HTTP == nil || !f.HTTP.SSE || f.HTTP.EventID == "" {
				continue
			}
			if f.Kind != wire.KindMessage && f.Kind != wire.KindNote {
				continue
			}
			if prev, dup := ids[f.HTTP.EventID]; dup {
				t.Violation("SSE event ids unique across all streams of the session",
					fmt.Sprintf("id %q on exchange %d and again on exchange %d", f.HTTP.EventID, prev.exchange, f.Exchange),
					"the SSE event id %q was used twice", f.HTTP.EventID)
			}
			ids[f.HTTP.EventID] = where{f.Exchange, string(f.Raw)}
			order = append(order, f.HTTP.EventID)
		}
		if len(ids) == 0 {
			t.NA("the server sends no SSE event ids (they are optional)")
		}
		// Resume the first stream that had an id; nothing from another
		// stream may come back.
		first := order[0]
		stream := ids[first].exchange
		others := map[string]bool{}
		for _, f := range t.Incoming(s) {
			if f.Seq > mark && f.Kind == wire.KindMessage && f.Exchange != stream {
				others[string(bytes.TrimSpace(f.Raw))] = true
			}
		}
		hdr := legacyHeader(s)
		hdr.Set("Last-Event-ID", first)
		st := openGET(t, s, hdr)
		if st.reply == nil || st.status() != http.StatusOK {
			t.Note("GET with Last-Event-ID %q got HTTP %d: no replay", first, st.status())
			st.close()
			return
		}
		select {
		case <-st.reply.Done:
		case <-time.After(streamGrace(s) / 4):
		}
		st.close()
		for _, f := range exchangeFrames(t, s, st.reply.Exchange) {
			if f.Kind == wire.KindMessage && others[string(bytes.TrimSpace(f.Raw))] {
				t.Violation("a replay of the resumed stream only", c.Clip(f.Raw), "resuming after %q replayed a message of another stream", first)
			}
		}
	})

	c.It("HTTP-010", "an invalid MCP-Protocol-Version header gets 400", func(t *c.T) {
		s := t.Shared()
		m, p := t.Probe()
		for _, v := range []string{"1900-01-01", "not-a-version"} {
			hdr := http.Header{}
			hdr.Set(session.HeaderProtocolVersion, v)
			resp, err := t.TryCall(s, m, p, &session.CallOptions{Header: hdr})
			replyOf(t, m+" with MCP-Protocol-Version "+v, resp, err)
			if resp.Status() != http.StatusBadRequest {
				t.StatusClaim(resp, http.StatusBadRequest)
			}
			t.Check(resp.Status() == http.StatusBadRequest, "HTTP 400 Bad Request", resp.Describe(),
				"a request with MCP-Protocol-Version %q was not rejected with 400", v)
		}
		resp, err := t.TryCall(s, m, p, &session.CallOptions{Remove: []string{session.HeaderProtocolVersion}})
		replyOf(t, m+" without MCP-Protocol-Version", resp, err)
		if !resp.IsResult() {
			t.Warn("a request without MCP-Protocol-Version should be served as 2025-03-26; got %s", resp.Describe())
		}
	})

	c.It("HTTP-011", "a request without MCP-Protocol-Version gets 400 / -32020", func(t *c.T) {
		s := t.Shared()
		resp, err := t.TryCall(s, "server/discover", nil, &session.CallOptions{Remove: []string{session.HeaderProtocolVersion}})
		replyOf(t, "server/discover without MCP-Protocol-Version", resp, err)
		if isHeaderMismatch(resp) && resp.Status() == http.StatusBadRequest {
			return
		}
		if t.Env.SupportsLegacy {
			// The server also speaks the initialize era: it MAY treat a
			// request without the header as 2025-03-26, and the MUST to
			// reject binds only a server that does not (TOL-20).
			if !resp.IsResult() {
				t.Note("server/discover without MCP-Protocol-Version got %s: the server also speaks older revisions, and treated the request as a 2025-03-26 one, which it MAY (TOL-20)", resp.Describe())
				return
			}
			t.Warn("server/discover without MCP-Protocol-Version was served with the version its _meta names; a server that also speaks older revisions MAY treat such a request as 2025-03-26 and no sentence covers serving it (TOL-20)")
			return
		}
		if resp.Status() != http.StatusBadRequest {
			t.StatusClaim(resp, http.StatusBadRequest)
		}
		t.Violation("HTTP 400 with JSON-RPC error -32020", resp.Describe(), "a request without MCP-Protocol-Version was not rejected as a header mismatch by a server that speaks no revision older than 2026-07-28")
	})

	c.It("HTTP-012", "a version header differing from _meta gets 400 / -32020", func(t *c.T) {
		s := t.Shared()
		other := "2025-11-25"
		for _, v := range supportedVersions(s) {
			if v != string(catalog.Modern) {
				other = v
				break
			}
		}
		hdr := http.Header{}
		hdr.Set(session.HeaderProtocolVersion, other)
		resp, err := t.TryCall(s, "server/discover", nil, &session.CallOptions{Header: hdr})
		what := fmt.Sprintf("server/discover with MCP-Protocol-Version %s and _meta protocolVersion %s", other, catalog.Modern)
		replyOf(t, what, resp, err)
		if code, _ := resp.ErrorCode(); code == jsonrpc.CodeUnsupportedProtocol && resp.Status() == http.StatusBadRequest {
			t.Warn("%s got -32022 (the header names a version the server does not support); the header/body mismatch should win with -32020 (TOL-1)", what)
			return
		}
		expectHeaderMismatch(t, what, resp, err)
	})

	c.It("HTTP-013", "Mcp-Method must be present and match the body", func(t *c.T) {
		s := t.Shared()
		const m = "server/discover"
		resp, err := t.TryCall(s, m, nil, &session.CallOptions{Remove: []string{session.HeaderMethod}})
		expectHeaderMismatch(t, m+" without Mcp-Method", resp, err)
		resp, err = t.TryCall(s, m, nil, &session.CallOptions{Header: http.Header{session.HeaderMethod: {strings.ToUpper(m)}}})
		expectHeaderMismatch(t, m+" with Mcp-Method "+strings.ToUpper(m), resp, err)
		for _, name := range []string{"mcp-method", "MCP-METHOD"} {
			resp, err = t.TryCall(s, m, nil, &session.CallOptions{Header: http.Header{name: {m}}})
			replyOf(t, m+" with header "+name, resp, err)
			t.Check(resp.IsResult(), "a discover result (header names are case-insensitive)", resp.Describe(),
				"%s with the header spelled %s was not processed", m, name)
		}
	})

	c.It("HTTP-014", "Mcp-Name must be present and match params.name or params.uri", func(t *c.T) {
		s := t.Shared()
		reqs := namedRequests(t, s)
		if len(reqs) == 0 {
			t.NA("the server lists no resource, prompt, or tool the call policy allows to call")
		}
		for _, r := range reqs {
			t.Step(r.method)
			resp, err := t.TryCall(s, r.method, r.params, &session.CallOptions{Header: r.extra, Remove: []string{session.HeaderName}})
			expectHeaderMismatch(t, r.method+" without Mcp-Name", resp, err)
			hdr := r.extra.Clone()
			if hdr == nil {
				hdr = http.Header{}
			}
			hdr.Set(session.HeaderName, r.other)
			resp, err = t.TryCall(s, r.method, r.params, &session.CallOptions{Header: hdr})
			expectHeaderMismatch(t, fmt.Sprintf("%s of %q with Mcp-Name %q", r.method, r.name, r.other), resp, err)
		}
	})

	c.It("HTTP-015", "Base64-encoded Mcp-Name values are decoded", func(t *c.T) {
		s := t.Shared()
		reqs := namedRequests(t, s)
		if len(reqs) == 0 {
			t.NA("the server lists no resource, prompt, or tool the call policy allows to call")
		}
		r := reqs[0]
		with := func(v string) http.Header {
			h := r.extra.Clone()
			if h == nil {
				h = http.Header{}
			}
			h.Set(session.HeaderName, v)
			return h
		}
		b64 := base64.StdEncoding.EncodeToString([]byte(r.name))
		control, err := t.TryCall(s, r.method, r.params, &session.CallOptions{Header: r.extra})
		expectAccepted(t, r.method+" with the plain Mcp-Name", control, err)
		enc := "=?base64?" + b64 + "?="
		resp, err := t.TryCall(s, r.method, r.params, &session.CallOptions{Header: with(enc)})
		expectAccepted(t, fmt.Sprintf("%s with Mcp-Name %s (the Base64 form of %q)", r.method, enc, r.name), resp, err)
		t.Check(resp.IsResult() == control.IsResult(), "the same outcome as with the plain name", resp.Describe(),
			"%s with the Base64-encoded Mcp-Name was not handled like the plain name (%s)", r.method, control.Describe())
		bad := "=?base64?" + "%%not*base64%%" + "?="
		resp, err = t.TryCall(s, r.method, r.params, &session.CallOptions{Header: with(bad)})
		expectHeaderMismatch(t, r.method+" with Mcp-Name "+bad+" (malformed Base64)", resp, err)
		upper := "=?BASE64?" + b64 + "?="
		resp, err = t.TryCall(s, r.method, r.params, &session.CallOptions{Header: with(upper)})
		expectHeaderMismatch(t, r.method+" with Mcp-Name "+upper+" (uppercase markers are literal)", resp, err)
	})

	c.It("HTTP-016", "Mcp-Param-* headers are validated against x-mcp-header arguments", func(t *c.T) {
		s := t.Shared()
		if !c.Declared(s, "tools") {
			t.NA("the server does not declare tools")
		}
		walk := t.Listing(s, "tools/list")
		tools := walk.Items
		var tool json.RawMessage
		var prop headerProp
		blocked := ""
		for _, tl := range tools {
			props := headerProps(tl)
			if len(props) == 0 {
				continue
			}
			if ok, why := t.MayCall(tl); !ok {
				blocked = why
				continue
			}
			for _, p := range props {
				if p.typ == "string" || p.typ == "integer" || p.typ == "boolean" {
					tool, prop = tl, p
					break
				}
			}
			if tool != nil {
				break
			}
		}
		if tool == nil {
			if blocked != "" {
				t.PolicyNA("the tools with an x-mcp-header argument may not be called: %s", blocked)
			}
			if !walk.Complete() {
				t.NA("no tool listed before the walk stopped (%s) has a root string, integer or boolean argument carrying x-mcp-header", walk.Problem)
			}
			t.NA("no listed tool has a root string, integer or boolean argument carrying x-mcp-header")
		}
		name := c.ItemKey(tool, "name")
		base, _, ok := t.ArgsFor(tool)
		if !ok {
			t.NA("no arguments could be derived for %s", name)
		}
		value, ok := base[prop.prop]
		if !ok || value == nil {
			if value, ok = sampleValue(prop); !ok {
				t.NA("no value could be chosen for %s.%s", name, prop.prop)
			}
		}
		header := "Mcp-Param-" + prop.header
		call := func(args map[string]any, set map[string]string) (*session.Response, error) {
			hdr := paramHeaders(tool, args)
			hdr.Del(header)
			for k, v := range set {
				hdr.Set(k, v)
			}
			return t.TryCall(s, "tools/call", map[string]any{"name": name, "arguments": args}, &session.CallOptions{Header: hdr})
		}
		args := maps.Clone(base)
		args[prop.prop] = value
		good, _ := headerValue(value)
		what := fmt.Sprintf("tools/call %s with %s=%v", name, prop.prop, value)

		resp, err := call(args, map[string]string{header: good})
		expectAccepted(t, what+" and "+header+": "+good, resp, err)
		resp, err = call(args, nil)
		expectHeaderMismatch(t, what+" and no "+header, resp, err)
		resp, err = call(args, map[string]string{header: differentValue(value)})
		expectHeaderMismatch(t, what+" and "+header+": "+differentValue(value), resp, err)
		absent := maps.Clone(base)
		delete(absent, prop.prop)
		resp, err = call(absent, nil)
		expectAccepted(t, fmt.Sprintf("tools/call %s without %s and no %s", name, prop.prop, header), resp, err)
		null := maps.Clone(base)
		null[prop.prop] = nil
		resp, err = call(null, nil)
		expectAccepted(t, fmt.Sprintf("tools/call %s with %s=null and no %s", name, prop.prop, header), resp, err)
		if prop.typ == "integer" {
			n, _ := headerValue(value)
			resp, err = call(args, map[string]string{header: n + ".0"})
			replyOf(t, what+" and "+header+": "+n+".0", resp, err)
			if isHeaderMismatch(resp) {
				t.Warn("%s: %s %s.0 was rejected; integers should be compared as numbers", what, header, n)
			}
		}
	})

	c.It("HTTP-017", "unknown and removed methods get 404 with a -32601 body carrying the id", func(t *c.T) {
		s := t.Shared()
		// One fault at a time: the HTTP layer is judged here (404, a
		// JSON-RPC error body answering the request); the error code is
		// RPC-007's concern and the id's JSON type RPC-002's.
		expect := func(what string, resp *session.Response, err error) {
			replyOf(t, what, resp, err)
			if err != nil && resp.Msg == nil {
				t.Violation("HTTP 404 with a JSON-RPC -32601 error carrying the request id", resp.Describe(), "%s got no JSON-RPC error body", what)
			}
			t.ExpectStatus(what, resp, http.StatusNotFound)
			if code, ok := resp.ErrorCode(); !ok {
				t.Violation("HTTP 404 with a JSON-RPC -32601 error carrying the request id", resp.Describe(), "%s: the 404 body is not a JSON-RPC error", what)
			} else if code != jsonrpc.CodeMethodNotFound {
				t.Note("%s: HTTP 404 with error code %d instead of -32601 (RPC-007 judges the code)", what, code)
			}
			checkErrorID(t, what, resp)
		}
		resp, err := t.TryCall(s, "mcpconform/no-such-method", map[string]any{}, nil)
		expect("the unknown method mcpconform/no-such-method", resp, err)
		resp, err = t.TryCall(s, "initialize", session.InitializeParams(string(catalog.LatestLegacy)), nil)
		replyOf(t, "initialize (removed in 2026-07-28) with 2026-07-28 headers and _meta", resp, err)
		if t.Env.SupportsLegacy && (resp.IsResult() || (resp.Msg != nil && !resp.IsError())) {
			t.Note("initialize with 2026-07-28 headers and _meta was served by this dual-era server as a legacy handshake")
			return
		}
		expect("initialize (removed in 2026-07-28) with 2026-07-28 headers and _meta", resp, err)
	})

	c.It("HTTP-018", "protocol errors use 400 with a JSON-RPC body carrying the id", func(t *c.T) {
		s := t.Shared()
		// One fault at a time: whether the request is refused, and with
		// which code, is LIFE-010's and LIFE-008's concern; here an error
		// answer must use 400 and carry the request id (its JSON type is
		// RPC-002's concern).
		expect := func(what string, resp *session.Response, err error, codes ...int64) {
			replyOf(t, what, resp, err)
			if resp.Msg == nil {
				t.Violation("HTTP 400 with a JSON-RPC error body", resp.Describe(), "%s got no JSON-RPC error body", what)
			}
			code, ok := resp.ErrorCode()
			if !ok {
				t.Note("%s was served, not refused (LIFE-008 and LIFE-010 judge that); nothing to judge here", what)
				return
			}
			if !slices.Contains(codes, code) {
				// the sentence is about the status of those codes' answers:
				// another code's (-32601's 404: HTTP-017) is not this one's,
				// and the code itself is LIFE-008's and LIFE-010's
				t.Note("%s: error code %d, not %v: LIFE-008 and LIFE-010 judge the code, and the status of a %d answer is not this requirement's", what, code, codes, code)
				return
			}
			if code == jsonrpc.CodeHeaderMismatch {
				t.Warn("%s: answered -32020 (header mismatch) rather than -32602; the spec does not order the two checks (TOL-1)", what)
			}
			t.ExpectStatus(what, resp, http.StatusBadRequest)
			checkErrorID(t, what, resp)
		}
		const bogus = "1900-01-01"
		meta := s.ModernMeta()
		meta[session.MetaProtocolVersion] = bogus
		resp, err := t.TryCall(s, "server/discover", nil, &session.CallOptions{Meta: meta, Header: http.Header{session.HeaderProtocolVersion: {bogus}}})
		expect("server/discover with protocolVersion "+bogus, resp, err, jsonrpc.CodeUnsupportedProtocol)
		method := declaredList(s)
		if method == "" {
			method = "server/discover"
		}
		resp, err = t.TryCall(s, method, map[string]any{}, &session.CallOptions{NoMeta: true})
		expect(method+" without _meta", resp, err, jsonrpc.CodeInvalidParams, jsonrpc.CodeHeaderMismatch)
		t.Note("-32021 (missing client capability) was not provoked: no request is known to need one")
	})

	c.It("HTTP-019", "legacy HTTP features are ignored or refused", func(t *c.T) {
		if t.Env.SupportsLegacy {
			// "Earlier Streamable HTTP Revisions": these rules bind a server
			// that supports only 2026-07-28; on a dual-era server GET,
			// DELETE, Mcp-Session-Id and Last-Event-ID belong to its legacy
			// sessions.
			t.NA("applies to a server that supports only 2026-07-28; this server also serves the legacy era, where GET, DELETE, Mcp-Session-Id and Last-Event-ID have their meaning")
		}
		s := t.Shared()
		m, p := t.Probe()
		for _, method := range []string{http.MethodGet, http.MethodDelete} {
			r := do(t, s, method, nil, nil, streamGrace(s)/4)
			t.Check(r.status() == http.StatusMethodNotAllowed, "HTTP 405 Method Not Allowed", r.describe(),
				"%s on the endpoint of a 2026-07-28 server should get 405", method)
		}
		check := func(what string, o *session.CallOptions) {
			resp, err := t.TryCall(s, m, p, o)
			replyOf(t, what, resp, err)
			t.Check(resp.IsResult(), "the request served as if the header were absent", resp.Describe(), "%s was not served normally", what)
			t.Check(resp.Reply.Header.Get(session.HeaderSessionID) == "", "no Mcp-Session-Id in the response", resp.Reply.Header.Get(session.HeaderSessionID),
				"the reply to %s sets Mcp-Session-Id", what)
		}
		check(m, nil)
		check(m+" with Mcp-Session-Id", &session.CallOptions{Header: http.Header{session.HeaderSessionID: {"mcpconform-no-such-session"}}})
		check(m+" with Last-Event-ID", &session.CallOptions{Header: http.Header{"Last-Event-ID": {"mcpconform-0"}}})
	})

	c.It("HTTP-020", "SSE responses carry X-Accel-Buffering: no", func(t *c.T) {
		s := t.Shared()
		m, p := t.Probe()
		methods := []string{m}
		if l := declaredList(s); l != "" {
			methods = append(methods, l)
		}
		for _, method := range methods {
			var params any = map[string]any{}
			if method == m {
				params = p
			}
			resp, err := t.TryCall(s, method, params, nil)
			replyOf(t, method, resp, err)
			if !isSSE(resp) {
				continue
			}
			v := resp.Reply.Header.Get("X-Accel-Buffering")
			t.Check(strings.EqualFold(strings.TrimSpace(v), "no"), "X-Accel-Buffering: no", fmt.Sprintf("X-Accel-Buffering: %q", v),
				"the SSE response to %s does not disable proxy buffering", method)
			return
		}
		t.NA("the server answered %s with application/json, not SSE", strings.Join(methods, ", "))
	})
})

// judgeAccepted grades the reply to a POSTed notification or response:
// 202 with an empty body when accepted, else a 4xx with an empty body or
// an id-less JSON-RPC error.
func judgeAccepted(t *c.T, what string, rr *rawReply) {
	body := bytes.TrimSpace(rr.body())
	switch st := rr.status(); {
	case !rr.ended:
		t.Violation("HTTP 202 with an empty body", rr.describe()+", still open", "the reply to a POSTed %s did not end", what)
	case st == http.StatusAccepted:
		t.Check(len(body) == 0, "HTTP 202 with an empty body", rr.describe(), "the 202 reply to a POSTed %s has a body", what)
	case st >= 400 && st < 500:
		// The body MAY be an id-less JSON-RPC error: a JSON body is judged
		// as one, other text only noted (as the run-wide HTTP-004 does).
		if len(body) > 0 && json.Valid(body) {
			msg, derr := jsonrpc.Decode(body)
			t.Check(derr == nil && msg.IsError() && (!msg.HasID || msg.ID.IsNull()), "an empty body or a JSON-RPC error without id", rr.describe(),
				"a refused %s got a JSON body that is not an id-less JSON-RPC error", what)
		} else if len(body) > 0 {
			t.Note("the refusal of the POSTed %s has a body that is not JSON (the spec allows an id-less JSON-RPC error, MAY): %s", what, c.Clip(body))
		}
		t.Note("the server did not accept the POSTed %s (HTTP %d)", what, st)
	default:
		t.Violation("HTTP 202 with an empty body (or a 4xx when not accepted)", rr.describe(), "a POSTed %s got HTTP %d", what, st)
	}
}

// checkErrorID asserts that an error answers the request by its id; a
// changed JSON type of the id is RPC-002's concern, not counted here.
func checkErrorID(t *c.T, what string, resp *session.Response) {
	if resp.IDTypeMismatch {
		t.Note("%s: the error carries the request id with another JSON type (RPC-002 judges that)", what)
		return
	}
	t.Check(resp.Msg.HasID && resp.Msg.ID.Key() == resp.ID.Key(), "the request id "+resp.ID.String(), c.Clip(resp.Msg.Raw),
		"the error of %s does not carry the request id", what)
}
