// Package prompts checks prompts/list and prompts/get (PRM);
// completion/complete (CMP) is suites/completion.
//
// Inputs come from what the server declares: prompts from prompts/list
// (c.ListedPrompts),
// argument values from completion/complete when the server offers it (else
// a plain string). Getting a prompt has no side effects, so every listed
// prompt may be got (at most maxGets per check).
package prompts

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	c "github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/jsonrpc"
	"github.com/mcpconform/mcpconform/internal/session"
)

var _ = c.Area("prompts", func() {
	c.It("PRM-001", "listed prompts have a string name and well-formed arguments", func(t *c.T) {
		s := t.Shared()
		if !c.Declared(s, "prompts") {
			t.NA("the server does not declare the prompts capability")
		}
		w := t.WalkList(s, "prompts/list")
		if len(w.Pages) == 0 {
			// a well-formed error is an answer: PRM-001 judges the items
			// of a successful list, and none came
			t.NoResult("prompts/list (the server declares prompts)", w.Failed)
			actual := w.Problem
			if w.Failed != nil {
				actual = w.Failed.Describe()
			}
			t.Violation("a prompts/list result", actual, "the server declares prompts but prompts/list failed")
		}
		if w.Problem != "" {
			t.Note("the listing stopped early (%s; pagination checks judge it): the %d prompts listed before are judged", w.Problem, len(w.Items))
		}
		for i, p := range w.Pages {
			if p.Items == nil {
				t.Note("page %d: prompts is %s, not an array (PAG-001 judges it)", i+1, c.OrAbsent(p.Result["prompts"]))
			}
		}
		var problems []string
		for i, it := range w.Items {
			for _, p := range itemProblems(it) {
				problems = append(problems, fmt.Sprintf("prompts[%d]: %s: %s", i, p, c.Clip(it)))
				if r := w.PageOf(i); r != nil {
					t.ModelClaim(r)
				}
			}
		}
		t.Check(len(problems) == 0, "every prompt {name: string, arguments?: [{name: string, required?: boolean}]}",
			firstN(problems, 5), "%d problems in the listed prompts", len(problems))
	})

	c.It("PRM-002", "prompts/get returns messages with a user or assistant role and one content block each", func(t *c.T) {
		s := t.Shared()
		ps := requirePrompts(t, s)
		oks, skipped := getAll(t, s, ps)
		if len(oks) == 0 {
			t.NA("no listed prompt could be got with plausible arguments: %s", firstN(skipped, 3))
		}
		if len(skipped) > 0 {
			t.Note("not judged: %s", firstN(skipped, 3))
		}
		var problems []string
		for _, g := range oks {
			ms, ok := messages(g.Result)
			if !ok {
				problems = append(problems, fmt.Sprintf("%s: messages is %s, not an array", g.Name, c.OrAbsent(g.Result["messages"])))
				continue
			}
			for j, m := range ms {
				if p := messageProblem(s.Revision(), m); p != "" {
					problems = append(problems, fmt.Sprintf("%s: messages[%d]: %s: %s", g.Name, j, p, c.Clip(m)))
					t.ModelClaim(g.Resp)
				}
			}
		}
		t.Check(len(problems) == 0, `messages: [{role: "user"|"assistant", content: one content block object}]`,
			firstN(problems, 5), "%d problems in the messages of %d prompts", len(problems), len(oks))
	})

	c.It("PRM-003", "prompts/get of an unknown prompt gets -32602", func(t *c.T) {
		s := t.Shared()
		if !c.Declared(s, "prompts") {
			t.NA("the server does not declare the prompts capability (PRM-006 covers prompt methods without it)")
		}
		_, ps := c.ListedPrompts(t, s)
		name := c.UnknownPromptName(ps)
		resp := t.Call(s, "prompts/get", map[string]any{"name": name}, nil)
		if resp.IsResult() {
			t.RefusedWith(resp, []int64{jsonrpc.CodeInvalidParams}, "JSON-RPC error -32602", resp.Describe(), "prompts/get of the unlisted prompt %q succeeded", name)
		}
		t.ExpectErrorCode(fmt.Sprintf("prompts/get of the unlisted prompt %q", name), resp, jsonrpc.CodeInvalidParams)
	})

	c.It("PRM-004", "prompts/get without a required argument, or with a non-string value, gets -32602", func(t *c.T) {
		s := t.Shared()
		ps := requirePrompts(t, s)
		p, args, why := baseline(t, s, ps)
		if p == nil {
			t.NA("%s", why)
		}
		type fault struct {
			what string
			args map[string]any
		}
		var faults []fault
		if req := p.Required(); len(req) > 0 {
			a := map[string]any{}
			for k, v := range args {
				if k != req[0] {
					a[k] = v
				}
			}
			faults = append(faults, fault{fmt.Sprintf("without its required argument %q", req[0]), a})
		} else {
			t.Note("prompt %q declares no required argument: only the non-string value is tried", p.Name)
		}
		target := p.Args[0].Name
		if req := p.Required(); len(req) > 0 {
			target = req[0]
		}
		a := map[string]any{}
		for k, v := range args {
			a[k] = v
		}
		a[target] = 42
		faults = append(faults, fault{fmt.Sprintf("with the number 42 as argument %q", target), a})

		var problems []string
		for _, f := range faults {
			t.Step("prompts/get " + p.Name + " " + f.what)
			params := map[string]any{"name": p.Name, "arguments": f.args}
			resp := t.Call(s, "prompts/get", params, nil)
			code, isErr := resp.ErrorCode()
			switch {
			case resp.IsResult():
				problems = append(problems, fmt.Sprintf("%s %s was served: %s", p.Name, f.what, resp.Describe()))
			case !isErr || code != jsonrpc.CodeInvalidParams:
				problems = append(problems, fmt.Sprintf("%s %s: %s", p.Name, f.what, resp.Describe()))
			}
		}
		t.Check(len(problems) == 0, fmt.Sprintf("JSON-RPC error -32602 (prompt %q is got with %s)", p.Name, argsString(args)),
			firstN(problems, 2), "prompts/get accepted or misreported invalid arguments")
	})

	c.It("PRM-005", "image and audio prompt content is base64 with a mimeType; embedded resources have a uri and text or blob", func(t *c.T) {
		s := t.Shared()
		ps := requirePrompts(t, s)
		oks, skipped := getAll(t, s, ps)
		if len(oks) == 0 {
			t.NA("no listed prompt could be got with plausible arguments: %s", firstN(skipped, 3))
		}
		judged := 0
		var problems []string
		for _, g := range oks {
			ms, _ := messages(g.Result)
			for j, m := range ms {
				var msg struct {
					Content json.RawMessage `json:"content"`
				}
				if json.Unmarshal(m, &msg) != nil {
					continue
				}
				ok, p := binaryProblem(msg.Content)
				if !ok {
					continue
				}
				judged++
				if strings.Contains(p, "uri") && reflectsInput(msg.Content, g.Args) {
					// the harness's own input reflected back: not the server's fault
					t.Note("%s: messages[%d]: %s — the value is the argument the harness sent, echoed back; not judged", g.Name, j, p)
					continue
				}
				if p != "" {
					problems = append(problems, fmt.Sprintf("%s: messages[%d]: %s", g.Name, j, p))
					t.ModelClaim(g.Resp)
				}
			}
		}
		if judged == 0 {
			reason := fmt.Sprintf("none of the %d prompts got carries image, audio or embedded resource content", len(oks))
			if len(skipped) > 0 {
				reason += "; not got: " + firstN(skipped, 3)
			}
			t.NA("%s", reason)
		}
		if len(skipped) > 0 {
			t.Note("not judged: %s", firstN(skipped, 3))
		}
		t.Check(len(problems) == 0, "image/audio {data: base64, mimeType: non-empty}; resource {uri, text | base64 blob}",
			firstN(problems, 5), "%d of %d binary or embedded content blocks are malformed", len(problems), judged)
	})

	c.It("PRM-006", "without the prompts capability, prompts/list and prompts/get get -32601", func(t *c.T) {
		s := t.Shared()
		if c.Declared(s, "prompts") {
			t.NA("the server declares the prompts capability")
		}
		for _, r := range []struct {
			method string
			params map[string]any
		}{
			{"prompts/list", map[string]any{}},
			{"prompts/get", map[string]any{"name": "mcpconform-no-such-prompt"}},
		} {
			what := r.method + " (prompts is not declared)"
			resp := t.Call(s, r.method, r.params, nil)
			t.ClaimsUndeclared("prompts")
			if resp.IsResult() {
				t.RefusedWith(resp, []int64{jsonrpc.CodeMethodNotFound}, "JSON-RPC error -32601", resp.Describe(), "%s was served although the server does not declare prompts", r.method)
			}
			t.ExpectErrorCode(what, resp, jsonrpc.CodeMethodNotFound)
			if t.Modern() && t.HTTP() {
				t.ExpectStatus(what, resp, http.StatusNotFound)
			}
		}
	})
})

// itemProblems lists why one prompts/list item breaks PRM-001.
func itemProblems(raw json.RawMessage) []string {
	var o map[string]json.RawMessage
	if json.Unmarshal(raw, &o) != nil || o == nil {
		return []string{"the item is not an object"}
	}
	var out []string
	if !c.IsString(o["name"]) {
		out = append(out, fmt.Sprintf("name is %s, not a string", c.OrAbsent(o["name"])))
	}
	rawArgs, present := o["arguments"]
	if !present {
		return out
	}
	var args []json.RawMessage
	if json.Unmarshal(rawArgs, &args) != nil || args == nil {
		return append(out, fmt.Sprintf("arguments is %s, not an array", c.OrAbsent(rawArgs)))
	}
	for i, a := range args {
		var ao map[string]json.RawMessage
		if json.Unmarshal(a, &ao) != nil || ao == nil {
			out = append(out, fmt.Sprintf("arguments[%d] is not an object", i))
			continue
		}
		if !c.IsString(ao["name"]) {
			out = append(out, fmt.Sprintf("arguments[%d].name is %s, not a string", i, c.OrAbsent(ao["name"])))
		}
		if r, ok := ao["required"]; ok && string(r) != "true" && string(r) != "false" {
			out = append(out, fmt.Sprintf("arguments[%d].required is %s, not a boolean", i, c.OrAbsent(r)))
		}
	}
	return out
}

// baseline finds a prompt with at least one argument that can be got with
// plausible values for its required arguments (preferring prompts with a
// required argument), so that a -32602 for a faulty variant of the same
// request is bound to the fault. It returns why there is none otherwise.
func baseline(t *c.T, s *session.Session, ps []c.Prompt) (*c.Prompt, map[string]string, string) {
	var withReq, withArgs []c.Prompt
	for _, p := range ps {
		switch {
		case len(p.Required()) > 0:
			withReq = append(withReq, p)
		case len(p.Args) > 0:
			withArgs = append(withArgs, p)
		}
	}
	candidates := append(withReq, withArgs...)
	if len(candidates) == 0 {
		return nil, nil, "no listed prompt declares an argument"
	}
	var failed []string
	for i, p := range candidates {
		if i == maxGets {
			break
		}
		args := argsFor(t, s, p)
		resp, err := t.TryCall(s, "prompts/get", getParams(p.Name, args), nil)
		if err != nil {
			failed = append(failed, fmt.Sprintf("%s: %v", p.Name, err))
			continue
		}
		if resp.IsResult() {
			if res := resp.Msg.ResultObject(); res != nil && string(res["resultType"]) != `"input_required"` {
				return &p, args, ""
			}
		}
		failed = append(failed, fmt.Sprintf("%s with %s: %s", p.Name, argsString(args), resp.Describe()))
	}
	return nil, nil, "no prompt with an argument could be got with plausible values, so a -32602 for a faulty variant would prove nothing: " + firstN(failed, 3)
}
