package client

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	c "github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/jsonrpc"
)

// The elicitation checks: what the client answers to the server's
// elicitation/create (the elicitation-sep1034-client-defaults scenario
// asks for a form whose fields all have defaults).

// formDefaults are the properties of a form elicitation's requestedSchema
// that have a default ("form" mode: the mode absent or "form").
func formDefaults(params json.RawMessage) []string {
	var p struct {
		Mode   string `json:"mode"`
		Schema struct {
			Properties map[string]map[string]json.RawMessage `json:"properties"`
		} `json:"requestedSchema"`
	}
	if json.Unmarshal(params, &p) != nil || p.Mode != "" && p.Mode != "form" {
		return nil
	}
	var out []string
	for name, prop := range p.Schema.Properties {
		if _, ok := prop["default"]; ok {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

var _ = c.ClientArea("client", func() {
	c.It("CLI-023", "an accepted form elicitation carries the defaults of the fields left unchanged", func(t *c.T) {
		var bad findings
		asked, accepted := 0, 0
		for _, r := range t.Runs(nil) {
			ms := traffic(t, r)
			for _, m := range ms {
				if m.client() || m.M == nil || m.M.Kind() != jsonrpc.KindRequest || m.M.Method != "elicitation/create" {
					continue
				}
				defaults := formDefaults(m.M.Params)
				if len(defaults) == 0 {
					continue
				}
				asked++
				a, ok := answer(ms, m)
				if !ok || !a.M.HasResult {
					continue // no answer, or an error: CLI-022's
				}
				var res struct {
					Action  string                     `json:"action"`
					Content map[string]json.RawMessage `json:"content"`
				}
				if json.Unmarshal(a.M.Result, &res) != nil || res.Action != "accept" {
					continue
				}
				accepted++
				t.Judged(r)
				var missing []string
				for _, name := range defaults {
					if _, ok := res.Content[name]; !ok {
						missing = append(missing, name)
					}
				}
				if len(missing) > 0 {
					bad.add(a, fmt.Sprintf("%s: the client accepted a form whose fields %s have defaults, and its content has no %s (a client that supports defaults pre-populates the fields with them)",
						describeRunOf(r), strings.Join(defaults, ", "), strings.Join(missing, ", ")))
				}
			}
		}
		switch {
		case asked == 0:
			t.NA("no scenario server sent the client a form elicitation with defaults (elicitation/create goes to a client that declared elicitation, from test_client_elicitation_defaults, 2025-11-25)")
		case accepted == 0:
			t.NA("the client declined, cancelled or did not answer every form elicitation with defaults (%d): only an accepted form's content can be judged", asked)
		}
		bad.report(t, "every field with a default present in the accepted content")
	})
})

// elicitMode is an elicitation/create's mode ("form" when absent).
func elicitMode(params json.RawMessage) string {
	var p struct {
		Mode string `json:"mode"`
	}
	_ = json.Unmarshal(params, &p)
	if p.Mode == "" {
		return "form"
	}
	return p.Mode
}

// clientCaps returns the capabilities the client's last initialize on
// m's connection before m declared (ok false: no initialize).
func clientCaps(ms []msg, m msg) (caps map[string]json.RawMessage, ok bool) {
	var last *msg
	for _, x := range initializes(ms) {
		if x.F.Conn == m.F.Conn && x.F.Seq < m.F.Seq {
			last = &x
		}
	}
	if last == nil {
		return nil, false
	}
	var p struct {
		Capabilities map[string]json.RawMessage `json:"capabilities"`
	}
	if json.Unmarshal(last.M.Params, &p) != nil {
		return nil, false
	}
	return p.Capabilities, true
}

// declaredElicitation returns the elicitation capability the client
// declared before m (ok false: none, or no initialize).
func declaredElicitation(ms []msg, m msg) (modes map[string]json.RawMessage, ok bool) {
	caps, _ := clientCaps(ms, m)
	raw, ok := caps["elicitation"]
	if !ok || json.Unmarshal(raw, &modes) != nil {
		return nil, false
	}
	return modes, true
}

var _ = c.ClientArea("client", func() {
	c.It("CLI-028", "an elicitation in a mode the client did not declare gets -32602", func(t *c.T) {
		var bad findings
		judged := 0
		for _, r := range t.Runs(nil) {
			ms := traffic(t, r)
			for _, m := range ms {
				if m.client() || m.M == nil || m.M.Kind() != jsonrpc.KindRequest || m.M.Method != "elicitation/create" {
					continue
				}
				mode := elicitMode(m.M.Params)
				modes, declared := declaredElicitation(ms, m)
				if !declared || mode == "form" && (len(modes) == 0 || modes["form"] != nil) || modes[mode] != nil {
					continue // no elicitation at all (CLI-022's answer), or a declared mode
				}
				a, ok := answer(ms, m)
				if !ok {
					continue // CLI-022's
				}
				judged++
				t.Judged(r)
				switch {
				case !a.M.HasError:
					bad.add(a, fmt.Sprintf("%s: the client declared elicitation %s and answered an elicitation/create in mode %q with a result, not error -32602", describeRunOf(r), c.Clip(mustJSON(modes)), mode))
				case a.M.Error == nil || a.M.Error.Code != -32602:
					bad.add(a, fmt.Sprintf("%s: the client answered an elicitation/create in the undeclared mode %q with error %s, not -32602 (Invalid params)", describeRunOf(r), mode, rawOr(a.M.Members["error"], "?")))
				}
			}
		}
		if judged == 0 {
			t.NA("no scenario server sent the client an elicitation in a mode it did not declare (the elicitation-url-undeclared scenario asks a client that declared elicitation without url for a URL-mode one, 2025-11-25)")
		}
		bad.report(t, "error -32602 (Invalid params) for an elicitation/create in a mode the client did not declare")
	})
})

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}
