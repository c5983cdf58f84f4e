package observe

import (
	"net/http"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/internal/wire"
)

// hfeed feeds HTTP exchanges of one connection to an observer.
type hfeed struct {
	o   *Observer
	seq int64
	x   int64
}

var stdHeader = http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"}, "Mcp-Session-Id": {"s1"}}

// post opens an exchange POSTing raw with the standard headers (plus
// extra) and returns its number.
func (h *hfeed) post(raw string, extra ...string) int64 {
	h.seq++
	h.x++
	hd := stdHeader.Clone()
	for i := 0; i+1 < len(extra); i += 2 {
		hd.Set(extra[i], extra[i+1])
	}
	h.o.Frame(wire.Frame{Seq: h.seq, Conn: "http#1", Dir: wire.Out, Kind: wire.KindMessage, Exchange: h.x, HTTP: &wire.HTTPInfo{Method: "POST", Header: hd}, Raw: []byte(raw)})
	return h.x
}

// get opens a GET listening for an event stream (resuming when lastID is set).
func (h *hfeed) get(lastID string) int64 {
	h.seq++
	h.x++
	hd := http.Header{"Accept": {"text/event-stream"}, "Mcp-Session-Id": {"s1"}}
	if lastID != "" {
		hd.Set("Last-Event-ID", lastID)
	}
	h.o.Frame(wire.Frame{Seq: h.seq, Conn: "http#1", Dir: wire.Out, Kind: wire.KindBody, Exchange: h.x, HTTP: &wire.HTTPInfo{Method: "GET", Header: hd}})
	return h.x
}

// reply delivers a frame of exchange x: a whole body (kind body or
// message), or an SSE event when id is not "-".
func (h *hfeed) reply(x int64, status int, kind wire.Kind, raw string, sseID string) {
	h.seq++
	info := &wire.HTTPInfo{Status: status, Header: http.Header{"Content-Type": {"application/json"}}}
	if sseID != "-" {
		info.SSE, info.EventID = true, sseID
		info.Header = http.Header{"Content-Type": {"text/event-stream"}, "X-Accel-Buffering": {"no"}}
	}
	h.o.Frame(wire.Frame{Seq: h.seq, Conn: "http#1", Dir: wire.In, Kind: kind, Exchange: x, HTTP: info, Raw: []byte(raw)})
}

// initialize negotiates 2025-11-25 on the connection.
func (h *hfeed) initialize() {
	x := h.post(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	h.reply(x, 200, wire.KindMessage, `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"logging":{},"tools":{"listChanged":true}},"serverInfo":{"name":"s","version":"1"}}}`, "-")
	x = h.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	h.reply(x, 202, wire.KindBody, ``, "-")
}

// HTTP-004 judges the reply to every well-formed POSTed notification or
// legacy response, whichever check sent it; never one the harness
// malformed, nor a refusal of a request sent with faulty headers.
func TestPostedNotificationsAndResponses(t *testing.T) {
	h := &hfeed{o: New()}
	h.o.SetCheck("LIFE-003 [2025-11-25] (lifecycle)")
	h.initialize()
	// refused, with an id-less error or an empty body: fine
	x := h.post(`{"jsonrpc":"2.0","method":"notifications/x-unknown"}`)
	h.reply(x, 400, wire.KindMessage, `{"jsonrpc":"2.0","id":null,"error":{"code":-32601,"message":"no"}}`, "-")
	x = h.post(`{"jsonrpc":"2.0","id":"srv-1","result":{}}`)
	h.reply(x, 404, wire.KindBody, ``, "-")
	// a plain-text reason: the spec only allows a JSON-RPC error body (MAY)
	x = h.post(`{"jsonrpc":"2.0","method":"notifications/x-unknown"}`)
	h.reply(x, 400, wire.KindBody, `JSON RPC not handled: "notifications/x-unknown" unsupported`, "-")
	// malformed by the harness, or sent with a foreign Origin: not judged
	x = h.post(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":[1]}`)
	h.reply(x, 200, wire.KindMessage, `{"jsonrpc":"2.0","result":{}}`, "-")
	x = h.post("{\"jsonrpc\":\"2.0\",\n\"method\":\"notifications/initialized\"}")
	h.reply(x, 200, wire.KindMessage, `{"jsonrpc":"2.0","result":{}}`, "-")
	x = h.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, "Origin", "https://evil.example")
	h.reply(x, 403, wire.KindBody, `Forbidden`, "-")
	exactly(t, h.o)

	h.o.SetCheck("RPC-004 [2025-11-25] (notifications)")
	x = h.post(`{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`)
	h.reply(x, 200, wire.KindMessage, `{"jsonrpc":"2.0","id":null,"result":{}}`, "-")
	h.o.SetCheck("HTTP-004 [2025-11-25] (its own probe)")
	vs := exactly(t, h.o, "HTTP-004")
	v := vs[0]
	if !strings.Contains(v.Check, "RPC-004") || !strings.Contains(v.Message, "HTTP 200") || !strings.Contains(v.Message, "roots/list_changed") ||
		len(v.Frames) != 2 || v.Revision != "2025-11-25" || v.Transport != "http" {
		t.Errorf("HTTP-004: %+v", v)
	}

	for _, c := range []struct {
		status int
		kind   wire.Kind
		body   string
		want   string
	}{
		{202, wire.KindMessage, `{"jsonrpc":"2.0","result":{}}`, "has a body"},
		{400, wire.KindMessage, `{"jsonrpc":"2.0","id":"srv-1","error":{"code":-32600,"message":"x"}}`, "not an id-less JSON-RPC error"},
		{400, wire.KindMessage, `{"jsonrpc":"2.0","result":{}}`, "not an id-less JSON-RPC error"},
		{500, wire.KindBody, ``, "HTTP 500"},
	} {
		g := &hfeed{o: New()}
		g.initialize()
		x := g.post(`{"jsonrpc":"2.0","id":"srv-1","result":{}}`)
		g.reply(x, c.status, c.kind, c.body, "-")
		if vs := exactly(t, g.o, "HTTP-004"); !strings.Contains(vs[0].Message, c.want) || !strings.Contains(vs[0].Message, "JSON-RPC response") {
			t.Errorf("HTTP %d %q: %q, want %q", c.status, c.body, vs[0].Message, c.want)
		}
	}

	// a body whose read the harness stopped is not described as empty
	g := &hfeed{o: New()}
	g.initialize()
	x = g.post(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"r"}}`)
	g.seq++
	g.o.Frame(wire.Frame{Seq: g.seq, Conn: "http#1", Dir: wire.In, Kind: wire.KindBody, Exchange: x, Truncated: true,
		HTTP: &wire.HTTPInfo{Status: 200, Header: http.Header{"Content-Type": {"application/json"}}}})
	if vs := exactly(t, g.o, "HTTP-004"); !strings.Contains(vs[0].Message, "not read") || strings.Contains(vs[0].Message, "(empty)") {
		t.Errorf("HTTP-004 on a cut body: %q", vs[0].Message)
	}

	// a 2026-07-28 client sends no responses: such a POST is a probe
	g = &hfeed{o: New()}
	x = g.post(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + modernMeta + `}}`)
	g.reply(x, 200, wire.KindMessage, `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete"}}`, "-")
	x = g.post(`{"jsonrpc":"2.0","id":"srv-1","result":{}}`)
	g.reply(x, 200, wire.KindMessage, `{"jsonrpc":"2.0","result":{}}`, "-")
	only(t, g.o)
}

// HTTP-005: a data payload that is an array (from 2025-06-18), and a
// message on a POST's stream after the response to its request.
func TestSSEStreamsOfEveryExchange(t *testing.T) {
	h := &hfeed{o: New()}
	h.initialize()
	x := h.post(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	h.reply(x, 200, wire.KindMessage, `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`, "")
	h.reply(x, 200, wire.KindMessage, `{"jsonrpc":"2.0","id":1,"result":{}}`, "")
	exactly(t, h.o)
	h.reply(x, 200, wire.KindMessage, `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"late"}}`, "")
	vs := exactly(t, h.o, "HTTP-005")
	if !strings.Contains(vs[0].Message, "ping went on after its response") {
		t.Errorf("HTTP-005: %+v", vs[0])
	}

	g := &hfeed{o: New()}
	g.initialize()
	x = g.post(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	g.reply(x, 200, wire.KindMessage, `[{"jsonrpc":"2.0","id":1,"result":{}}]`, "")
	vs = only(t, g.o, "HTTP-005")
	if !strings.Contains(vs[0].Message, "not a single JSON-RPC message") {
		t.Errorf("HTTP-005: %+v", vs[0])
	}
}

// HTTP-009: event ids are unique across the streams of a session; a
// resumed stream replays its events with their ids.
func TestEventIDsUniqueAcrossStreams(t *testing.T) {
	h := &hfeed{o: New()}
	h.initialize()
	x := h.post(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	h.reply(x, 200, wire.KindMessage, `{"jsonrpc":"2.0","id":1,"result":{}}`, "e1")
	r := h.get("e0")
	h.reply(r, 200, wire.KindMessage, `{"jsonrpc":"2.0","id":1,"result":{}}`, "e1")
	exactly(t, h.o)
	y := h.post(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	h.reply(y, 200, wire.KindMessage, `{"jsonrpc":"2.0","id":2,"result":{}}`, "e1")
	vs := exactly(t, h.o, "HTTP-009")
	if !strings.Contains(vs[0].Message, `"e1"`) || !strings.Contains(vs[0].Message, "another stream") {
		t.Errorf("HTTP-009: %+v", vs[0])
	}
}

// HTTP-019 binds a server that supports only 2026-07-28: a reply that sets
// Mcp-Session-Id is reported unless the run saw the server serve a legacy
// initialize; a request that carried the header (the probe) is not judged.
func TestSessionIDOnAModernOnlyServer(t *testing.T) {
	run := func(legacy bool) []Violation {
		h := &hfeed{o: New()}
		if legacy {
			h.initialize()
		}
		h.o.SetCheck("TOOL-001 [2026-07-28] (tools)")
		x := h.post(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{`+modernMeta+`}}`, "Mcp-Session-Id", "")
		h.seq++
		h.o.Frame(wire.Frame{Seq: h.seq, Conn: "http#1", Dir: wire.In, Kind: wire.KindMessage, Exchange: x,
			HTTP: &wire.HTTPInfo{Status: 200, Header: http.Header{"Content-Type": {"application/json"}, "Mcp-Session-Id": {"abc"}}},
			Raw:  []byte(`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete"}}`)})
		x = h.post(`{"jsonrpc":"2.0","id":2,"method":"server/discover","params":{`+modernMeta+`}}`, "Mcp-Session-Id", "mcpconform-no-such-session")
		h.seq++
		h.o.Frame(wire.Frame{Seq: h.seq, Conn: "http#1", Dir: wire.In, Kind: wire.KindMessage, Exchange: x,
			HTTP: &wire.HTTPInfo{Status: 200, Header: http.Header{"Content-Type": {"application/json"}, "Mcp-Session-Id": {"mcpconform-no-such-session"}}},
			Raw:  []byte(`{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete"}}`)})
		return only(t, h.o, map[bool][]string{false: {"HTTP-019"}, true: nil}[legacy]...)
	}
	if vs := run(false); vs[0].Count != 1 || !strings.Contains(vs[0].Message, `"abc"`) || !strings.Contains(vs[0].Check, "TOOL-001") {
		t.Errorf("HTTP-019: %+v", vs[0])
	}
	run(true)
}

// The AUTH rules judge every 401/403 challenge of an MCP exchange.
func TestChallengesOfEveryRefusal(t *testing.T) {
	chs := bearerParams([]string{`Basic realm="x", Bearer resource_metadata="https://h/.well-known/oauth-protected-resource/mcp", scope="a b", error="invalid_token"`, `Bearer scope=c`})
	if len(chs) != 2 || chs[0]["scope"] != "a b" || chs[0]["error"] != "invalid_token" || chs[1]["scope"] != "c" || chs[0]["realm"] != "" {
		t.Fatalf("bearerParams: %v", chs)
	}
	refuse := func(rev, www string, status int) []Violation {
		h := &hfeed{o: New()}
		h.o.SetCheck("AUTH-002 [" + rev + "] (bad tokens)")
		x := h.post(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + rev + `","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
		h.seq++
		h.o.Frame(wire.Frame{Seq: h.seq, Conn: "http#1", Dir: wire.In, Kind: wire.KindBody, Exchange: x,
			HTTP: &wire.HTTPInfo{Status: status, Header: http.Header{"Www-Authenticate": {www}}}, Raw: []byte("Unauthorized\n")})
		return h.o.Violations()
	}
	ids := func(vs []Violation) string {
		var out []string
		for _, v := range vs {
			out = append(out, v.Requirement)
		}
		return strings.Join(out, ",")
	}
	good := `Bearer resource_metadata="http://127.0.0.1:1/.well-known/oauth-protected-resource/mcp", scope="hints", error="invalid_token"`
	for _, c := range []struct {
		rev, www string
		status   int
		want     string
	}{
		{"2025-11-25", good, 401, ""},
		{"2025-11-25", `Bearer resource_metadata="/.well-known/oauth-protected-resource", scope="hints"`, 401, "AUTH-003"},
		{"2025-06-18", `Bearer scope="hints"`, 401, "AUTH-003"},
		{"2025-11-25", `Bearer scope="hints"`, 401, ""}, // the well-known URI may serve it
		{"2025-11-25", `Bearer resource_metadata="http://h/x"`, 401, "AUTH-004"},
		{"2025-06-18", `Bearer resource_metadata="http://h/x"`, 401, ""},                           // AUTH-004 is 2025-11-25+
		{"2025-11-25", `Bearer error="insufficient_scope", scope="hints offline_access"`, 403, ""}, // AUTH-009 is 2026-07-28
	} {
		if got := ids(refuse(c.rev, c.www, c.status)); got != c.want {
			t.Errorf("%s %d %s: %s, want %q", c.rev, c.status, c.www, got, c.want)
		}
	}
	// 2026-07-28: offline_access in a 403's scope
	h := &hfeed{o: New()}
	x := h.post(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t",` + modernMeta + `}}`)
	h.seq++
	h.o.Frame(wire.Frame{Seq: h.seq, Conn: "http#1", Dir: wire.In, Kind: wire.KindBody, Exchange: x,
		HTTP: &wire.HTTPInfo{Status: 403, Header: http.Header{"Www-Authenticate": {`Bearer error="insufficient_scope", scope="steps offline_access"`}}}})
	if vs := only(t, h.o, "AUTH-009"); !strings.Contains(vs[0].Message, "403") || !strings.Contains(vs[0].Message, "tools/call") {
		t.Errorf("AUTH-009: %+v", vs[0])
	}
}
