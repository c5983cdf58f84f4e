// Package stdio checks the stdio transport's framing rules.
package stdio

import (
	"bytes"
	"encoding/json"

	c "github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/jsonrpc"
	"github.com/mcpconform/mcpconform/internal/wire"
)

var _ = c.Area("stdio", func() {
	c.It("STD-001", "every stdout line is exactly one JSON-RPC message", func(t *c.T) {
		// The shared session's process has run since the era probe: judge
		// everything it ever wrote (startup banners included) plus a battery.
		s := t.Shared()
		t.Battery(s)
		t.Settle(s)
		for _, f := range t.AllIncoming(s) {
			if f.Kind != wire.KindMessage || f.Truncated {
				continue // a cut frame cannot be judged (size caps)
			}
			raw := bytes.TrimSuffix(f.Raw, []byte{'\r'})
			if len(bytes.TrimSpace(raw)) == 0 {
				t.Violation("one JSON-RPC message per line", "a blank line", "the server wrote a blank line to stdout")
			}
			m, err := jsonrpc.Decode(raw)
			if err != nil {
				t.Violation("one complete JSON-RPC message per line (logs belong on stderr)", clip(f.Raw),
					"the server wrote a line to stdout that is not a JSON-RPC message: %v", err)
			}
			if m.Kind() == jsonrpc.KindInvalid {
				t.Violation("a JSON-RPC request, notification or response", clip(f.Raw), "a stdout line is a JSON object but not a JSON-RPC message")
			}
		}
	})

	c.It("STD-003", "server/discover as the first message gets a result or a modern error", func(t *c.T) {
		s := t.Fresh()
		resp, err := t.TryCall(s, "server/discover", nil, nil)
		if err != nil {
			t.Violation("a DiscoverResult or a -32022/-32602 error", err.Error(), "no answer to server/discover as the first message")
		}
		if resp.IsResult() {
			var res map[string]json.RawMessage
			t.Check(resp.Result(&res) == nil && res["supportedVersions"] != nil, "a DiscoverResult", clip(resp.Msg.Raw), "the answer is not a DiscoverResult")
			return
		}
		t.ExpectErrorCode("server/discover as the first message", resp, jsonrpc.CodeUnsupportedProtocol, jsonrpc.CodeInvalidParams)
	})
})

func clip(b []byte) string {
	if len(b) > 400 {
		return string(b[:400]) + "…"
	}
	if len(b) == 0 {
		return "(empty)"
	}
	return string(b)
}
