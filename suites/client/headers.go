package client

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	c "github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/jsonrpc"
)

// headerMark is one x-mcp-header mark of a tool's inputSchema: the
// property path (properties keys) and the header name.
type headerMark struct {
	path []string
	name string
}

// headerMarks reads a tool's x-mcp-header marks; problem says why the
// definition is invalid ("" when it is valid), per the constraints of
// 2026-07-28's Schema Extension.
func headerMarks(schema json.RawMessage) (marks []headerMark, problem string) {
	seen := map[string]bool{}
	var walk func(node any, path []string, viaProperties bool)
	walk = func(node any, path []string, viaProperties bool) {
		switch n := node.(type) {
		case map[string]any:
			if raw, ok := n["x-mcp-header"]; ok {
				name, isString := raw.(string)
				typ, _ := n["type"].(string)
				switch {
				case !viaProperties || len(path) == 0:
					problem = fmt.Sprintf("x-mcp-header at %s is not reached through properties alone", pathString(path))
				case !isString || name == "":
					problem = fmt.Sprintf("x-mcp-header at %s is empty or not a string", pathString(path))
				case !isToken(name):
					problem = fmt.Sprintf("x-mcp-header %q at %s is not an RFC 9110 token", name, pathString(path))
				case seen[strings.ToLower(name)]:
					problem = fmt.Sprintf("x-mcp-header %q at %s is a duplicate (ignoring case)", name, pathString(path))
				case typ != "string" && typ != "integer" && typ != "boolean":
					problem = fmt.Sprintf("x-mcp-header %q at %s is on a %q property (string, integer or boolean only)", name, pathString(path), typ)
				default:
					seen[strings.ToLower(name)] = true
					marks = append(marks, headerMark{path: append([]string(nil), path...), name: name})
				}
			}
			for k, v := range n {
				if k == "properties" {
					if props, ok := v.(map[string]any); ok {
						for pk, pv := range props {
							walk(pv, append(append([]string(nil), path...), pk), viaProperties)
						}
						continue
					}
				}
				walk(v, append(append([]string(nil), path...), "("+k+")"), false)
			}
		case []any:
			for _, v := range n {
				walk(v, path, false)
			}
		}
	}
	var root any
	if json.Unmarshal(schema, &root) != nil {
		return nil, ""
	}
	walk(root, nil, true)
	return marks, problem
}

func pathString(path []string) string {
	if len(path) == 0 {
		return "the root"
	}
	return strings.Join(path, ".")
}

// isToken reports whether s is an RFC 9110 token (tchar only).
func isToken(s string) bool {
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", ch) >= 0 {
			continue
		}
		return false
	}
	return s != ""
}

// listedTools are the tools of the scenario server's tools/list results
// of the run, by name (the latest definition).
func listedTools(ms []msg) map[string]json.RawMessage {
	out := map[string]json.RawMessage{}
	for _, m := range ms {
		if m.client() || m.M == nil || m.M.Kind() != jsonrpc.KindResponse || !m.M.HasResult {
			continue
		}
		var r struct {
			Tools []struct {
				Name        string          `json:"name"`
				InputSchema json.RawMessage `json:"inputSchema"`
			} `json:"tools"`
		}
		if json.Unmarshal(m.M.Result, &r) != nil {
			continue
		}
		for _, tl := range r.Tools {
			out[tl.Name] = tl.InputSchema
		}
	}
	return out
}

// headerValue is what Mcp-Param carries for an argument value: its string
// form, whether it must be sent as a Base64 sentinel, and ok false for a
// value no header carries (absent, null, another type).
func headerValue(raw json.RawMessage) (s string, sentinel, ok bool) {
	var v any
	if raw == nil || json.Unmarshal(raw, &v) != nil || v == nil {
		return "", false, false
	}
	switch x := v.(type) {
	case string:
		return x, needsSentinel(x), true
	case bool:
		return strconv.FormatBool(x), false, true
	case float64:
		if x != float64(int64(x)) {
			return "", false, false
		}
		return strconv.FormatInt(int64(x), 10), false, true
	}
	return "", false, false
}

// needsSentinel: a value that is not plain visible ASCII (non-ASCII,
// control characters, surrounding whitespace) or that looks like a
// sentinel.
func needsSentinel(s string) bool {
	if strings.TrimSpace(s) != s || strings.HasPrefix(s, "=?base64?") {
		return true
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7E {
			return true
		}
	}
	return false
}

// argumentAt returns the argument at path ("" path parts) of a call's
// arguments.
func argumentAt(args json.RawMessage, path []string) json.RawMessage {
	cur := args
	for _, p := range path {
		var o map[string]json.RawMessage
		if json.Unmarshal(cur, &o) != nil {
			return nil
		}
		cur = o[p]
		if cur == nil {
			return nil
		}
	}
	return cur
}

var _ = c.ClientArea("client", func() {
	c.It("CLI-020", "tools/call mirrors x-mcp-header arguments into Mcp-Param headers", func(t *c.T) {
		var bad findings
		calls := 0
		for _, r := range t.Runs(nil) {
			ms := modernTraffic(t, r)
			tools := listedTools(ms)
			for _, m := range requests(ms) {
				if m.M.Method != "tools/call" || m.httpMethod() != "POST" {
					continue
				}
				var p struct {
					Name      string          `json:"name"`
					Arguments json.RawMessage `json:"arguments"`
				}
				_ = json.Unmarshal(m.M.Params, &p)
				marks, problem := headerMarks(tools[p.Name])
				if len(marks) == 0 || problem != "" {
					continue // no marks, or an invalid tool (CLI-021)
				}
				calls++
				t.Judged(r)
				for _, mk := range marks {
					got, has := m.F.HTTP.Header["Mcp-Param-"+canonical(mk.name)], false
					has = len(got) > 0
					want, sentinel, present := headerValue(argumentAt(p.Arguments, mk.path))
					switch {
					case !present && has:
						bad.add(m, fmt.Sprintf("%s: Mcp-Param-%s %q sent for an argument that is absent or null", p.Name, mk.name, got[0]))
					case present && !has:
						bad.add(m, fmt.Sprintf("%s: no Mcp-Param-%s for the argument %s = %q", p.Name, mk.name, strings.Join(mk.path, "."), want))
					case present && decodeHeader(got[0]) != want:
						bad.add(m, fmt.Sprintf("%s: Mcp-Param-%s is %q for the argument %q", p.Name, mk.name, got[0], want))
					case present && sentinel && !strings.HasPrefix(got[0], "=?base64?"):
						bad.add(m, fmt.Sprintf("%s: Mcp-Param-%s carries %q as it is, not as a =?base64?…?= sentinel", p.Name, mk.name, got[0]))
					}
				}
			}
		}
		if calls == 0 {
			t.NA("the client called no tool whose inputSchema marks properties with x-mcp-header")
		}
		bad.report(t, "Mcp-Param-{Name}: each present, non-null marked argument, encoded")
	})

	c.It("CLI-021", "a tool whose x-mcp-header marks are invalid is never called", func(t *c.T) {
		var bad findings
		invalid := 0
		for _, r := range t.Runs(nil) {
			ms := modernTraffic(t, r)
			tools := listedTools(ms)
			bads := map[string]string{}
			for name, schema := range tools {
				if _, problem := headerMarks(schema); problem != "" {
					bads[name] = problem
				}
			}
			invalid += len(bads)
			if len(bads) > 0 {
				t.Judged(r)
			}
			for _, m := range requests(ms) {
				if m.M.Method != "tools/call" {
					continue
				}
				if name, _ := nameOf(m.M); bads[name] != "" {
					bad.add(m, fmt.Sprintf("%s: the client called %s, whose definition is invalid (%s)", describeRunOf(r), name, bads[name]))
				}
			}
		}
		if invalid == 0 {
			t.NA("no scenario server listed a tool with invalid x-mcp-header marks to the client")
		}
		bad.report(t, "no tools/call of a tool with invalid x-mcp-header marks (it is dropped from the list)")
	})
})

// canonical is the canonical form of a header name's suffix.
func canonical(name string) string {
	return strings.TrimPrefix(httpCanonical("Mcp-Param-"+name), "Mcp-Param-")
}
