package client

import (
	"encoding/base64"
	"fmt"
	"mime"
	"strings"

	c "github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/jsonrpc"
)

var _ = c.ClientArea("client", func() {
	c.It("CLI-006", "the client echoes Mcp-Session-Id on every request of the session", func(t *c.T) {
		var bad []msg
		sessions := 0
		for _, r := range t.Runs(nil) {
			ms := traffic(t, r)
			for _, s := range legacySessions(ms) {
				sessions++
				t.Judged(r)
				for _, m := range s.later {
					if sessionOf(m) != s.id {
						bad = append(bad, m)
					}
				}
			}
		}
		if sessions == 0 {
			t.NA("no scenario server issued an Mcp-Session-Id to the client")
		}
		if len(bad) > 0 {
			evidence(t, bad)
			t.Violation("Mcp-Session-Id on every request after the initialize that issued it", describe(bad),
				"%d request(s) of a session came without its Mcp-Session-Id (%q instead)", len(bad), sessionOf(bad[0]))
		}
	})

	c.It("CLI-007", "MCP-Protocol-Version on every HTTP request after initialize", func(t *c.T) {
		var missing, other []msg
		sessions := 0
		for _, r := range t.Runs(nil) {
			ms := traffic(t, r)
			for _, s := range legacySessions(ms) {
				sessions++
				t.Judged(r)
				for _, m := range s.later {
					switch v := m.header("MCP-Protocol-Version"); {
					case v == "":
						missing = append(missing, m)
					case v != s.version:
						other = append(other, m)
					}
				}
			}
		}
		if sessions == 0 {
			t.NA("no initialize of the client got a result over HTTP")
		}
		if len(missing) > 0 {
			evidence(t, missing)
			t.Violation("MCP-Protocol-Version: <the negotiated version> on every request after initialize", describe(missing),
				"%d request(s) after initialize came without the MCP-Protocol-Version header", len(missing))
		}
		if len(other) > 0 {
			evidence(t, other)
			t.Warn("%d request(s) carried MCP-Protocol-Version %q, not the negotiated version (it should be the one negotiated)", len(other), other[0].header("MCP-Protocol-Version"))
		}
	})

	c.It("CLI-008", "every POST accepts application/json and text/event-stream", func(t *c.T) {
		var bad, wild []msg
		posts := 0
		for _, r := range t.Runs(nil) {
			for _, m := range traffic(t, r) {
				if !m.client() || m.httpMethod() != "POST" {
					continue
				}
				posts++
				t.Judged(r)
				json, sse, anyType := accepts(m)
				switch {
				case json && sse:
				case anyType:
					wild = append(wild, m)
				default:
					bad = append(bad, m)
				}
			}
		}
		if posts == 0 {
			t.NA("the client sent no POST")
		}
		if len(bad) > 0 {
			evidence(t, bad)
			t.Violation("Accept: application/json, text/event-stream", fmt.Sprintf("Accept: %q (%s)", bad[0].header("Accept"), describe(bad)),
				"%d POST(s) did not list both application/json and text/event-stream in Accept", len(bad))
		}
		if len(wild) > 0 {
			evidence(t, wild)
			t.Warn("%d POST(s) accepted %q: a wildcard, not the two content types listed", len(wild), wild[0].header("Accept"))
		}
	})

	c.It("CLI-009", "after HTTP 404 for its session the client initializes a new session", func(t *c.T) {
		var bad []msg
		ended := 0
		for _, r := range t.Runs(nil) {
			ms := traffic(t, r)
			for i, m := range ms {
				if m.client() || m.F.HTTP == nil || m.F.HTTP.Status != 404 {
					continue
				}
				req, ok := requestOf(ms, m)
				if !ok || sessionOf(req) == "" {
					continue
				}
				ended++
				t.Judged(r)
				renewed := false
				for _, x := range ms[i+1:] {
					if x.client() && x.M != nil && x.M.Method == "initialize" && sessionOf(x) == "" {
						renewed = true
						break
					}
				}
				if !renewed {
					bad = append(bad, m)
				}
			}
		}
		if ended == 0 {
			t.NA("no request of the client that named a session got HTTP 404 (it never called the tool whose call ends the session)")
		}
		if len(bad) > 0 {
			evidence(t, bad)
			t.Violation("a new initialize without Mcp-Session-Id after the 404", describe(bad)+"; then no new initialize",
				"the client did not start a new session after its session's request got HTTP 404")
		}
	})

	c.It("CLI-013", "MCP-Protocol-Version on every POST equals the _meta protocolVersion", func(t *c.T) {
		var bad []msg
		posts := 0
		for _, r := range t.Runs(nil) {
			for _, m := range modernTraffic(t, r) {
				if !m.client() || m.httpMethod() != "POST" || m.M == nil {
					continue
				}
				posts++
				t.Judged(r)
				h := m.header("MCP-Protocol-Version")
				want := metaString(m.M, MetaProtocolVersion)
				if h == "" || (want != "" && h != want) {
					bad = append(bad, m)
				}
			}
		}
		if posts == 0 {
			t.NA("the client sent no POST")
		}
		if len(bad) > 0 {
			evidence(t, bad)
			t.Violation("MCP-Protocol-Version equal to params._meta[\""+MetaProtocolVersion+"\"]",
				fmt.Sprintf("MCP-Protocol-Version: %q for _meta %q (%s)", bad[0].header("MCP-Protocol-Version"), metaString(bad[0].M, MetaProtocolVersion), describe(bad)),
				"%d POST(s) without the MCP-Protocol-Version header or with another version than their _meta", len(bad))
		}
	})

	c.It("CLI-014", "Mcp-Method on every POST, Mcp-Name on tools/call, resources/read, prompts/get", func(t *c.T) {
		var bad findings
		posts := 0
		for _, r := range t.Runs(nil) {
			for _, m := range modernTraffic(t, r) {
				if !m.client() || m.httpMethod() != "POST" || m.M == nil || !m.M.HasMethod {
					continue
				}
				posts++
				t.Judged(r)
				if got := m.header("Mcp-Method"); got != m.M.Method {
					bad.add(m, fmt.Sprintf("Mcp-Method %q for %s", got, m.M.Method))
					continue
				}
				if want, named := nameOf(m.M); named {
					if got := decodeHeader(m.header("Mcp-Name")); got != want {
						bad.add(m, fmt.Sprintf("Mcp-Name %q for %s of %q", m.header("Mcp-Name"), m.M.Method, want))
					}
				}
			}
		}
		if posts == 0 {
			t.NA("the client sent no POST")
		}
		bad.report(t, "Mcp-Method: <method>; Mcp-Name: <name or uri> on tools/call, resources/read, prompts/get")
	})
})

// session is a legacy HTTP session the client opened: its id, the
// negotiated version, and the client's requests after the initialize
// result up to the next initialize (those that must carry the session
// and the version).
type session struct {
	id, version string
	later       []msg
}

// legacySessions finds the sessions the scenario server issued with an
// initialize result.
func legacySessions(ms []msg) []session {
	var out []session
	inits := initializes(ms)
	for i, init := range inits {
		if init.F.HTTP == nil {
			continue
		}
		a, ok := answer(ms, init)
		if !ok || !a.M.HasResult {
			continue
		}
		s := session{id: a.F.HTTP.Header.Get("Mcp-Session-Id"), version: resultString(a.M, "protocolVersion")}
		end := int64(1 << 62)
		if i+1 < len(inits) {
			end = inits[i+1].F.Seq
		}
		for _, m := range ms {
			if m.client() && m.F.HTTP != nil && m.F.Seq > a.F.Seq && m.F.Seq < end && (m.M == nil || !modernShaped(m.M)) {
				s.later = append(s.later, m)
			}
		}
		// a GET the client opened before it read the result (its listening
		// stream, started with the transport) came before the session
		// existed for it: the session's requests begin with its first POST
		for len(s.later) > 0 && s.later[0].httpMethod() == "GET" && sessionOf(s.later[0]) == "" {
			s.later = s.later[1:]
		}
		if s.id != "" || s.version != "" {
			out = append(out, s)
		}
	}
	return out
}

// requestOf returns the client's request of the exchange of reply m.
func requestOf(ms []msg, reply msg) (msg, bool) {
	for _, x := range ms {
		if x.client() && x.F.Exchange == reply.F.Exchange && x.F.Conn == reply.F.Conn {
			return x, true
		}
	}
	return msg{}, false
}

// accepts reads a POST's Accept header: whether it lists application/json
// and text/event-stream, and whether a wildcard covers a missing one.
func accepts(m msg) (json, sse, wildcard bool) {
	for _, v := range headerValues(m.F.HTTP.Header, "Accept") {
		mt, _, err := mime.ParseMediaType(v)
		if err != nil {
			continue
		}
		switch mt {
		case "application/json":
			json = true
		case "text/event-stream":
			sse = true
		case "*/*", "application/*", "text/*":
			wildcard = true
		}
	}
	return json, sse, wildcard
}

// metaString is params._meta[key] of m as a string ("" when absent).
func metaString(m *jsonrpc.Message, key string) string {
	raw, ok := metaOf(m)[key]
	if !ok {
		return ""
	}
	var s string
	_ = jsonUnmarshal(raw, &s)
	return s
}

// resultString is result[key] of a response as a string.
func resultString(m *jsonrpc.Message, key string) string {
	raw, ok := m.ResultObject()[key]
	if !ok {
		return ""
	}
	var s string
	_ = jsonUnmarshal(raw, &s)
	return s
}

// nameOf is what Mcp-Name must carry for m: params.name of tools/call and
// prompts/get, params.uri of resources/read.
func nameOf(m *jsonrpc.Message) (string, bool) {
	var p struct {
		Name string `json:"name"`
		URI  string `json:"uri"`
	}
	_ = jsonUnmarshal(m.Params, &p)
	switch m.Method {
	case "tools/call", "prompts/get":
		return p.Name, true
	case "resources/read":
		return p.URI, true
	}
	return "", false
}

// decodeHeader undoes the Base64 sentinel form =?base64?…?= of a header
// value carrying what a header cannot.
func decodeHeader(v string) string {
	if strings.HasPrefix(v, "=?base64?") && strings.HasSuffix(v, "?=") {
		if b, err := base64.StdEncoding.DecodeString(strings.TrimSuffix(strings.TrimPrefix(v, "=?base64?"), "?=")); err == nil {
			return string(b)
		}
	}
	return v
}
