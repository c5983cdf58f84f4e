package jsonrpc

import (
	"fmt"
	"strings"

	c "github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/jsonrpc"
	"github.com/mcpconform/mcpconform/internal/msgcheck"
	"github.com/mcpconform/mcpconform/internal/wire"
)

// RPC-013: every message the server sent on the shared session — from its
// handshake on, plus a battery of the declared list methods — is valid for
// the revision under the project's own message model (internal/msgcheck,
// which a differential test keeps in agreement with the official schemas).
var _ = c.Area("jsonrpc", func() {
	c.It("RPC-013", "every server message is valid for the revision's message model", func(t *c.T) {
		s := t.Shared()
		t.Battery(s)
		for _, l := range []struct{ capability, method string }{{"resources", "resources/templates/list"}} {
			if c.Declared(s, l.capability) {
				_, _ = t.TryCall(s, l.method, map[string]any{}, nil)
			}
		}
		t.Settle(s)
		var problems []string
		checked := 0
		// Judge the handshake (the connection's first exchange) and this
		// check's own battery, not what other checks provoked on the shared
		// session: each check stays bound to its own reason. Walk the traffic
		// in order, so that a response is judged against the latest request
		// sent with its id before it.
		methods := map[string]string{}
		start := t.Since()
		// Other checks' large requests (oversized stimuli) are not needed:
		// neither restored nor decoded.
		frames := t.Env.Recorder().OnConnWhere(0, s.Conn().Name(), func(f *wire.Frame, size int) bool {
			return f.Dir == wire.In || size < 64<<10 || (len(start) > 0 && f.Seq >= start[0].Seq)
		})
		handshakeDone := false
		for _, f := range frames {
			if f.Conn != s.Conn().Name() || f.Kind != wire.KindMessage || f.Truncated {
				continue
			}
			mine := len(start) > 0 && f.Seq >= start[0].Seq
			if !mine && handshakeDone {
				continue
			}
			m, err := jsonrpc.Decode(f.Raw)
			if err != nil || f.Dir == wire.In && !m.IsJSONRPC() {
				continue // not JSON-RPC at all: framing checks judge it
			}
			if f.Dir == wire.Out {
				if m.Kind() == jsonrpc.KindRequest {
					methods[m.ID.Key()] = m.Method
				}
				continue
			}
			method := ""
			if m.Kind() == jsonrpc.KindResponse && m.HasID {
				method = methods[m.ID.Key()]
				if !mine && (method == "initialize" || method == "server/discover") {
					handshakeDone = true
				}
			}
			checked++
			for _, p := range msgcheck.ValidateServerMessage(string(t.Rev), f.Raw, method) {
				problems = append(problems, fmt.Sprintf("%s (answer to %s): %s", p.String(), orUnknown(method), c.Clip(f.Raw)))
			}
			if t.Env.Schema != nil && (t.Env.Schema.Revision() == "" || t.Env.Schema.Revision() == string(t.Rev)) {
				for _, p := range t.Env.Schema.ValidateServerMessage(f.Raw, method) {
					problems = append(problems, fmt.Sprintf("schema %s: %s (answer to %s): %s", t.Env.SchemaFile, p.String(), orUnknown(method), c.Clip(f.Raw)))
				}
			}
		}
		if checked == 0 {
			t.Error("no server message to validate")
		}
		t.Check(len(problems) == 0, "every message valid for "+string(t.Rev),
			strings.Join(first(problems, 5), "\n"), "%d of the server's messages break the %s message model", len(problems), t.Rev)
	})
})

func orUnknown(s string) string {
	if s == "" {
		return "an unknown request"
	}
	return s
}

func first(ss []string, n int) []string {
	if len(ss) > n {
		return append(ss[:n:n], fmt.Sprintf("… and %d more", len(ss)-n))
	}
	return ss
}
