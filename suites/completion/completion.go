// Package completion holds the completion/complete checks (CMP-xxx).
package completion

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	c "github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/jsonrpc"
	"github.com/mcpconform/mcpconform/internal/judge"
	"github.com/mcpconform/mcpconform/internal/session"
)

// maxCompletionValues is the spec's cap on completion.values.
const maxCompletionValues = 100

var _ = c.Area("completion", func() {
	c.It("CMP-001", "completion/complete for a prompt argument and a template variable returns at most 100 string values", func(t *c.T) {
		s := t.Shared()
		if !c.Declared(s, "completions") {
			t.NA("the server does not declare the completions capability")
		}
		var probes []completionProbe
		if p, ok := promptProbe(t, s); ok {
			probes = append(probes, p)
		} else {
			t.Note("no ref/prompt probe: %s", p.what)
		}
		if p, ok := templateProbe(t, s); ok {
			probes = append(probes, p)
		} else {
			t.Note("no ref/resource probe: %s", p.what)
		}
		if len(probes) == 0 {
			t.NA("nothing to complete: no listed prompt declares an argument and no listed resource template has a variable")
		}
		var errored []*session.Response
		judged := 0
		for _, p := range probes {
			t.Step("completion/complete for " + p.what)
			resp := t.Call(s, "completion/complete", p.params(), nil)
			if m, ok := c.ErrorAnswer(resp); ok {
				// an error is an answer the completion page lists (-32602
				// for an argument without completer, -32603 …): CMP-001
				// judges completions, and none came
				t.Note("completion/complete for %s was answered with %s: no completion to judge", p.what, judge.DescribeError(m))
				errored = append(errored, resp)
				continue
			}
			res := t.ResultObject("completion/complete for "+p.what, resp)
			if problem := completionProblem(res); problem != "" {
				t.Violation("completion {values: string[] (at most 100), total?: integer, hasMore?: boolean}", resp.Describe(),
					"completion/complete for %s: %s", p.what, problem)
			}
			judged++
		}
		if judged == 0 {
			t.NoResult("completion/complete for "+probes[0].what, errored[0])
		}
	})

	c.It("CMP-002", "completion/complete gets -32601 without completions and -32602 for an unknown prompt", func(t *c.T) {
		s := t.Shared()
		var ps []c.Prompt
		if c.Declared(s, "prompts") {
			_, ps = c.ListedPrompts(t, s)
		}
		if !c.Declared(s, "completions") {
			// One fault: a well-formed request about a listed prompt
			// argument when there is one.
			p, ok := promptProbe(t, s)
			if !ok {
				p = completionProbe{what: "a made-up prompt", ref: map[string]any{"type": "ref/prompt", "name": c.UnknownPromptName(ps)}, arg: "mcpconform"}
			}
			what := "completion/complete (completions is not declared) for " + p.what
			resp := t.Call(s, "completion/complete", p.params(), nil)
			t.ClaimsUndeclared("completions")
			if resp.IsResult() {
				t.RefusedWith(resp, []int64{jsonrpc.CodeMethodNotFound}, "JSON-RPC error -32601", resp.Describe(), "%s was served", what)
			}
			t.ExpectErrorCode(what, resp, jsonrpc.CodeMethodNotFound)
			if t.Modern() && t.HTTP() && resp.Status() != http.StatusNotFound {
				t.Note("-32601 came with HTTP %d; 2026-07-28 pairs it with 404", resp.Status())
			}
			return
		}
		name := c.UnknownPromptName(ps)
		p := completionProbe{what: fmt.Sprintf("the unlisted prompt %q", name), ref: map[string]any{"type": "ref/prompt", "name": name}, arg: "mcpconform"}
		resp := t.Call(s, "completion/complete", p.params(), nil)
		if resp.IsResult() {
			t.RefusedWith(resp, []int64{jsonrpc.CodeInvalidParams}, "JSON-RPC error -32602", resp.Describe(), "completion/complete for %s succeeded", p.what)
		}
		t.ExpectErrorCode("completion/complete for "+p.what, resp, jsonrpc.CodeInvalidParams)
	})
})

// completionProbe is one completion/complete request; what describes it
// (or, for a probe that could not be built, why).
type completionProbe struct {
	what string
	ref  map[string]any
	arg  string
}

func (p completionProbe) params() map[string]any {
	return map[string]any{"ref": p.ref, "argument": map[string]any{"name": p.arg, "value": ""}}
}

// promptProbe completes an argument of a listed prompt (a required one
// when there is one).
func promptProbe(t *c.T, s *session.Session) (completionProbe, bool) {
	if !c.Declared(s, "prompts") {
		return completionProbe{what: "the server does not declare prompts"}, false
	}
	_, ps := c.ListedPrompts(t, s)
	var pick *c.Prompt
	for i := range ps {
		if len(ps[i].Required()) > 0 {
			pick = &ps[i]
			break
		}
		if pick == nil && len(ps[i].Args) > 0 {
			pick = &ps[i]
		}
	}
	if pick == nil {
		return completionProbe{what: "no listed prompt declares an argument"}, false
	}
	arg := pick.Args[0].Name
	if req := pick.Required(); len(req) > 0 {
		arg = req[0]
	}
	return completionProbe{
		what: fmt.Sprintf("argument %q of prompt %q", arg, pick.Name),
		ref:  map[string]any{"type": "ref/prompt", "name": pick.Name},
		arg:  arg,
	}, true
}

// templateProbe completes the first variable of the first listed resource
// template that has one.
func templateProbe(t *c.T, s *session.Session) (completionProbe, bool) {
	if !c.Declared(s, "resources") {
		return completionProbe{what: "the server does not declare resources"}, false
	}
	w := t.Listing(s, "resources/templates/list")
	for _, it := range w.Items {
		tpl := c.ItemKey(it, "uriTemplate")
		if vars := templateVars(tpl); len(vars) > 0 {
			return completionProbe{
				what: fmt.Sprintf("variable %q of template %q", vars[0], tpl),
				ref:  map[string]any{"type": "ref/resource", "uri": tpl},
				arg:  vars[0],
			}, true
		}
	}
	if w.Problem != "" {
		return completionProbe{what: "resources/templates/list: " + w.Problem}, false
	}
	return completionProbe{what: "no listed resource template has a variable"}, false
}

// templateVars returns the variable names of an RFC 6570 URI template, in
// order ("{+path}", "{?q,lang}", "{id:3}" and "{list*}" included).
func templateVars(tpl string) []string {
	var out []string
	for {
		open := strings.IndexByte(tpl, '{')
		if open < 0 {
			return out
		}
		end := strings.IndexByte(tpl[open:], '}')
		if end < 0 {
			return out
		}
		expr := tpl[open+1 : open+end]
		tpl = tpl[open+end+1:]
		expr = strings.TrimLeft(expr, "+#./;?&=,!@|")
		for _, spec := range strings.Split(expr, ",") {
			if i := strings.IndexAny(spec, ":*"); i >= 0 {
				spec = spec[:i]
			}
			if spec = strings.TrimSpace(spec); spec != "" {
				out = append(out, spec)
			}
		}
	}
}

// completionProblem says why a completion/complete result breaks CMP-001
// ("" if it does not).
func completionProblem(res map[string]json.RawMessage) string {
	var comp map[string]json.RawMessage
	if json.Unmarshal(res["completion"], &comp) != nil || comp == nil {
		return fmt.Sprintf("completion is %s, not an object", c.OrAbsent(res["completion"]))
	}
	var values []json.RawMessage
	if json.Unmarshal(comp["values"], &values) != nil || values == nil {
		return fmt.Sprintf("completion.values is %s, not an array", c.OrAbsent(comp["values"]))
	}
	for i, v := range values {
		if !c.IsString(v) {
			return fmt.Sprintf("completion.values[%d] is %s, not a string", i, c.OrAbsent(v))
		}
	}
	if len(values) > maxCompletionValues {
		return fmt.Sprintf("completion.values has %d items; at most %d are allowed", len(values), maxCompletionValues)
	}
	if total, ok := comp["total"]; ok && !isInteger(total) {
		return fmt.Sprintf("completion.total is %s, not an integer", c.OrAbsent(total))
	}
	if more, ok := comp["hasMore"]; ok && string(more) != "true" && string(more) != "false" {
		return fmt.Sprintf("completion.hasMore is %s, not a boolean", c.OrAbsent(more))
	}
	return ""
}

// isInteger accepts a JSON number with an integral value (1, 1.0, 1e2).
func isInteger(raw json.RawMessage) bool {
	if t := strings.TrimSpace(string(raw)); t == "" || t[0] == '"' {
		return false // encoding/json would read "5" into a json.Number
	}
	var n json.Number
	if json.Unmarshal(raw, &n) != nil {
		return false
	}
	if _, err := n.Int64(); err == nil {
		return true
	}
	f, err := n.Float64()
	return err == nil && f == float64(int64(f))
}
