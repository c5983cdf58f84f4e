package client

import (
	"encoding/json"
	"fmt"
	"strings"

	c "github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/jsonrpc"
)

// capabilityOf is the server capability a client request needs ("" for
// one that needs none), and the sub-capability when one is needed.
func capabilityOf(method string) (capability, sub string) {
	switch {
	case method == "resources/subscribe" || method == "resources/unsubscribe":
		return "resources", "subscribe"
	case method == "logging/setLevel":
		return "logging", ""
	case method == "completion/complete":
		return "completions", ""
	}
	if area, _, ok := strings.Cut(method, "/"); ok {
		switch area {
		case "tools", "resources", "prompts", "tasks":
			return area, ""
		}
	}
	return "", ""
}

var _ = c.ClientArea("client", func() {
	c.It("CLI-019", "the client uses only the capabilities the server declared", func(t *c.T) {
		var bad findings
		sessions := 0
		for _, r := range t.Runs(nil) {
			for _, s := range capSessions(traffic(t, r)) {
				sessions++
				t.Judged(r)
				for _, m := range s.later {
					cp, sub := capabilityOf(m.M.Method)
					if cp == "" {
						continue
					}
					raw, declared := s.caps[cp]
					if declared && sub != "" {
						var o map[string]json.RawMessage
						_ = json.Unmarshal(raw, &o)
						declared = string(o[sub]) == "true"
					}
					if !declared {
						name := cp
						if sub != "" {
							name += "." + sub
						}
						bad.add(m, fmt.Sprintf("%s: %s although the server declared no %s capability", describeRunOf(r), m.M.Method, name))
					}
				}
			}
		}
		if sessions == 0 {
			t.NA("no initialize of the client got a result")
		}
		bad.report(t, "requests only of the capabilities the initialize result declared")
	})
})

// serverRequestCapability is the client capability a server request
// needs ("" for ping and the like).
var serverRequestCapability = map[string]string{
	"roots/list": "roots", "sampling/createMessage": "sampling", "elicitation/create": "elicitation",
}

var _ = c.ClientArea("client", func() {
	c.It("CLI-029", "a request for a capability the client did not declare gets an error", func(t *c.T) {
		var bad findings
		judged := 0
		for _, r := range t.Runs(nil) {
			ms := traffic(t, r)
			for _, m := range ms {
				if m.client() || m.M == nil || m.M.Kind() != jsonrpc.KindRequest {
					continue
				}
				cp := serverRequestCapability[m.M.Method]
				caps, ok := clientCaps(ms, m)
				if cp == "" || !ok {
					continue
				}
				if _, declared := caps[cp]; declared {
					continue
				}
				a, answered := answer(ms, m)
				if !answered {
					continue // CLI-022's
				}
				judged++
				t.Judged(r)
				if !a.M.HasError {
					bad.add(a, fmt.Sprintf("%s: the client declared no %s capability and answered %s with a result", describeRunOf(r), cp, m.M.Method))
				}
			}
		}
		if judged == 0 {
			t.NA("no scenario server's request for a capability the client did not declare was answered (the undeclared-requests scenario sends roots/list, sampling/createMessage and elicitation/create for each one it did not declare)")
		}
		bad.report(t, "an error for a roots/list, sampling/createMessage or elicitation/create the client's capabilities do not cover (a client that supports the feature declares it)")
	})
})

// capSession is a legacy session of the client (either transport): the
// capabilities the server's initialize result declared, and the client's
// requests after that result on the connection (in the session it
// issued, over HTTP) up to the connection's next initialize.
type capSession struct {
	caps  map[string]json.RawMessage
	later []msg
}

func capSessions(ms []msg) []capSession {
	var out []capSession
	inits := initializes(ms)
	for i, init := range inits {
		a, ok := answer(ms, init)
		if !ok || !a.M.HasResult {
			continue
		}
		var res struct {
			Capabilities map[string]json.RawMessage `json:"capabilities"`
		}
		if json.Unmarshal(a.M.Result, &res) != nil {
			continue
		}
		s := capSession{caps: res.Capabilities}
		sid := issuedSession(ms, init)
		end := int64(1 << 62)
		for _, next := range inits[i+1:] {
			if next.F.Conn == init.F.Conn {
				end = next.F.Seq
				break
			}
		}
		for _, m := range requests(ms) {
			if m.F.Seq > a.F.Seq && m.F.Seq < end && m.F.Conn == init.F.Conn && (sid == "" || sessionOf(m) == sid) && !modernShaped(m.M) {
				s.later = append(s.later, m)
			}
		}
		out = append(out, s)
	}
	return out
}
