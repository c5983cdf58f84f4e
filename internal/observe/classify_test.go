package observe

import (
	"net/http"
	"testing"

	"github.com/mcpconform/mcpconform/internal/jsonrpc"
	"github.com/mcpconform/mcpconform/internal/wire"
)

// What is an MCP message (jsonrpc.Message.IsJSONRPC): only JSON-RPC
// objects; the one classification every run-wide rule sees.
func TestIsJSONRPC(t *testing.T) {
	for _, c := range []struct {
		raw  string
		want bool
	}{
		{`{"jsonrpc":"2.0","id":1,"result":{}}`, true},
		{`{"jsonrpc":"1.0","id":1,"result":{}}`, true}, // a fault RPC-001 judges
		{`{"jsonrpc":"2.0"}`, true},                    // an envelope with nothing in it: RPC-001/STD-001
		{`{"id":1,"result":{}}`, true},                 // a response lacking "jsonrpc": RPC-001
		{`{"id":null,"error":{"code":-32700,"message":"x"}}`, true},
		{`{"method":"notifications/message","params":{}}`, true},
		{`{"id":1,"method":"ping"}`, true},
		{`{"error":"Forbidden","message":"Origin http://evil.example is not allowed"}`, false},
		{`{"error":"invalid_token","error_description":"The access token expired"}`, false},
		{`{"error":{"code":-32600,"message":"no id"}}`, false}, // no id, no jsonrpc: not a response either
		{`{"result":{}}`, false},
		{`{"resource":"http://x/mcp"}`, false},
		{`{}`, false},
	} {
		m, err := jsonrpc.Decode([]byte(c.raw))
		if err != nil {
			t.Fatalf("%s: %v", c.raw, err)
		}
		if got := m.IsJSONRPC(); got != c.want {
			t.Errorf("IsJSONRPC(%s) = %v, want %v", c.raw, got, c.want)
		}
	}
	var none *jsonrpc.Message
	if none.IsJSONRPC() {
		t.Error("a nil message is no JSON-RPC message")
	}
}

// An HTTP rejection body that is not JSON-RPC (a 403 to a foreign Origin,
// RFC 6750's body of a 401) is judged by the HTTP rules alone: no message
// rule (RPC-001, RPC-003, RPC-013 …) and not HTTP-004's JSON-RPC clause.
// A rejection body that is JSON-RPC stays judged.
func TestHTTPRejectionBodiesThatAreNotJSONRPC(t *testing.T) {
	const (
		forbidden = `{"error":"Forbidden","message":"Origin http://evil.example is not allowed"}`
		rfc6750   = `{"error":"invalid_token","error_description":"The access token expired"}`
		challenge = `Bearer resource_metadata="http://127.0.0.1:1/.well-known/oauth-protected-resource/mcp", scope="hints", error="invalid_token"`
	)
	for _, rev := range []string{"2025-11-25", "2026-07-28"} {
		h := &hfeed{o: New()}
		if rev == "2026-07-28" {
			x := h.post(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{`+modernMeta+`}}`, "Origin", "http://evil.example")
			h.reply(x, http.StatusForbidden, wire.KindMessage, forbidden, "-")
			x = h.post(`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{` + modernMeta + `}}`)
			h.seq++
			h.o.Frame(wire.Frame{Seq: h.seq, Conn: "http#1", Dir: wire.In, Kind: wire.KindMessage, Exchange: x,
				HTTP: &wire.HTTPInfo{Status: 401, Header: http.Header{"Content-Type": {"application/json"}, "Www-Authenticate": {challenge}}}, Raw: []byte(rfc6750)})
		} else {
			h.initialize()
			x := h.post(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, "Origin", "http://evil.example")
			h.reply(x, http.StatusForbidden, wire.KindMessage, forbidden, "-")
			// a POSTed notification refused with RFC 6750's body: HTTP-004's
			// "MAY comprise a JSON-RPC error" does not bind other bodies
			x = h.post(`{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`)
			h.seq++
			h.o.Frame(wire.Frame{Seq: h.seq, Conn: "http#1", Dir: wire.In, Kind: wire.KindMessage, Exchange: x,
				HTTP: &wire.HTTPInfo{Status: 401, Header: http.Header{"Content-Type": {"application/json"}, "Www-Authenticate": {challenge}}}, Raw: []byte(rfc6750)})
		}
		if vs := h.o.Violations(); len(vs) > 0 {
			t.Errorf("%s: a rejection body that is not JSON-RPC was judged: %+v", rev, vs)
		}
	}
	// a rejection body that is a JSON-RPC message is an MCP message: its faults are judged
	h := &hfeed{o: New()}
	x := h.post(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{`+modernMeta+`}}`, "Origin", "http://evil.example")
	h.reply(x, http.StatusForbidden, wire.KindMessage, `{"jsonrpc":"1.0","id":null,"error":{"code":-32600,"message":"Forbidden"}}`, "-")
	only(t, h.o, "RPC-001")
	// and a refused notification's JSON-RPC body that answers a request (an id) breaks HTTP-004
	h = &hfeed{o: New()}
	h.initialize()
	x = h.post(`{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`)
	h.reply(x, http.StatusBadRequest, wire.KindMessage, `{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"no"}}`, "-")
	only(t, h.o, "HTTP-004")
}

// On stdio a JSON line that is not JSON-RPC is a framing fault (STD-001:
// stdout carries only MCP messages), not RPC-001's as well; a JSON-RPC
// message with a wrong or missing "jsonrpc" is RPC-001's.
func TestStdoutJSONThatIsNotJSONRPC(t *testing.T) {
	f := &feed{o: New()}
	f.send("stdio#1", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}`)
	f.recv("stdio#1", `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}`)
	f.recv("stdio#1", `{"level":"info","error":"backend down","message":"retrying"}`)
	if vs := only(t, f.o, "STD-001"); vs[0].Count != 1 {
		t.Errorf("STD-001: %+v", vs[0])
	}
	for _, raw := range []string{`{"jsonrpc":"1.0","id":"s1","method":"ping"}`, `{"id":"s2","method":"ping"}`} {
		f := &feed{o: New()}
		f.send("stdio#1", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}`)
		f.recv("stdio#1", `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}`)
		f.recv("stdio#1", raw)
		only(t, f.o, "RPC-001")
	}
}
