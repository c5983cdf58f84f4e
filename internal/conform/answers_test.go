package conform

import (
	"testing"

	"github.com/mcpconform/mcpconform/internal/session"
	"github.com/mcpconform/mcpconform/internal/wire"
)

// ErrorAnswer finds the well-formed error that answered a request even
// when the session could not match it (HTTP: "id": null, the server could
// not read the id of a body it refused at its size limit, whatever the
// status), and only then.
func TestErrorAnswerOfAnExchange(t *testing.T) {
	frame := func(status int, raw string) wire.Frame {
		return wire.Frame{Dir: wire.In, Kind: wire.KindMessage, HTTP: &wire.HTTPInfo{Status: status}, Raw: []byte(raw)}
	}
	nullID := `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Request body too large"},"id":null}`
	for _, c := range []struct {
		name   string
		frames []wire.Frame
		want   bool
	}{
		{"413 with an id-null error", []wire.Frame{frame(413, nullID)}, true},
		{"500 with an id-null error", []wire.Frame{frame(500, nullID)}, true},
		{"an error without id", []wire.Frame{frame(400, `{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}`)}, true},
		{"an error for another id", []wire.Frame{frame(200, `{"jsonrpc":"2.0","id":99,"error":{"code":-32600,"message":"x"}}`)}, false},
		{"two id-null errors", []wire.Frame{frame(200, nullID), frame(200, nullID)}, false},
		{"a body that is no JSON-RPC message", []wire.Frame{frame(413, `{"error":"Payload Too Large"}`)}, false},
		{"an error without a string message", []wire.Frame{frame(413, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600}}`)}, false},
	} {
		_, got := ErrorAnswer(&session.Response{Exchange: c.frames})
		if got != c.want {
			t.Errorf("%s: ErrorAnswer = %v, want %v", c.name, got, c.want)
		}
	}
}
