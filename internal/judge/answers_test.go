package judge

import (
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/internal/jsonrpc"
)

func decoded(t *testing.T, raw string) *jsonrpc.Message {
	t.Helper()
	m, err := jsonrpc.Decode([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestErrorAnswer(t *testing.T) {
	for raw, want := range map[string]bool{
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"no completer for prompt argument"}}`: true,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Request body too large"}}`:        true, // id not judged here (TOL-14)
		`{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"}}`:                        true,
		`{"jsonrpc":"2.0","id":1,"error":{"code":"x","message":"m"}}`:                                   false, // RPC-001's
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32603}}`:                                              false,
		`{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":-32603,"message":"m"}}`:                    false, // RPC-003's
		`{"jsonrpc":"2.0","id":1,"result":{}}`:                                                          false,
		`{"error":"Forbidden","message":"Origin not allowed"}`:                                          false, // no JSON-RPC message
	} {
		if got := ErrorAnswer(decoded(t, raw)); got != want {
			t.Errorf("ErrorAnswer(%s) = %v, want %v", raw, got, want)
		}
	}
	if ErrorAnswer(nil) {
		t.Error("nil is no answer")
	}
}

// Backend recognises the server's report that its own backend failed: an
// error or an isError result naming a connection failure; not a business
// error, not a protocol error about the request.
func TestBackend(t *testing.T) {
	for _, c := range []struct {
		raw  string
		want bool
	}{
		{`{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"connect ECONNREFUSED 127.0.0.1:5432"}}`, true},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"getaddrinfo ENOTFOUND api.example.com"}}`, true},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error","data":"TypeError: fetch failed"}}`, true},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"dial tcp 10.0.0.7:6443: i/o timeout"}}`, true},
		{`{"jsonrpc":"2.0","id":1,"result":{"isError":true,"content":[{"type":"text","text":"Request failed with status code 401: Unauthorized"}]}}`, true},
		{`{"jsonrpc":"2.0","id":1,"result":{"isError":true,"content":[{"type":"text","text":"Error: Invalid API key provided"}]}}`, true},
		{`{"jsonrpc":"2.0","id":1,"result":{"isError":true,"content":[{"type":"text","text":"order A9 not eligible for a refund"}]}}`, false},
		{`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"connection refused"}]}}`, false}, // a success is no failure
		{`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Unknown resource: policy://x"}}`, false},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error"}}`, false},
	} {
		why, got := Backend(decoded(t, c.raw))
		if got != c.want || got && !strings.Contains(why, "backend") {
			t.Errorf("Backend(%s) = %q, %v; want %v", c.raw, why, got, c.want)
		}
	}
}
