package client

import (
	"encoding/json"
	"fmt"
	"strings"

	c "github.com/mcpconform/mcpconform/internal/conform"
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
