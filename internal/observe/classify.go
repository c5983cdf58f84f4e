package observe

import (
	"errors"

	"github.com/mcpconform/mcpconform/internal/jsonrpc"
	"github.com/mcpconform/mcpconform/internal/wire"
)

var errNotMessage = errors.New("an HTTP body that is not a JSON payload")

// errNotJSONRPC marks a JSON object that is not a JSON-RPC message
// (jsonrpc.Message.IsJSONRPC): no rule judges it as an MCP message.
var errNotJSONRPC = errors.New(`a JSON object that is not a JSON-RPC message (no "jsonrpc" member, no method, no id with a result or an error)`)

// classify decodes the event's frame and decides what it is, once, for
// every rule: e.m is the JSON-RPC message it carries (nil when none, with
// e.err saying why). What is an MCP message: only JSON-RPC on the MCP
// channel (jsonrpc.Message.IsJSONRPC). Any other JSON object — an HTTP
// rejection body such as {"error":"Forbidden"} or RFC 6750's
// {"error":"invalid_token"}, a stray log object on stdout — is judged by
// the framing and HTTP rules alone (STD-001, HTTP-*), never by the message
// rules (RPC-001, RPC-003, RPC-013 …), which see it through e.m and
// e.msg(). It returns what was decoded, JSON-RPC or not, for the frame's
// reader.
func (e *event) classify() *jsonrpc.Message {
	switch {
	case e.f.Kind == wire.KindBody:
		e.err = errNotMessage
	case !e.f.Truncated:
		e.m, e.err = jsonrpc.Decode(e.f.Raw)
	}
	decoded := e.m
	if e.m != nil && !e.m.IsJSONRPC() {
		e.m, e.err = nil, errNotJSONRPC
	}
	return decoded
}
