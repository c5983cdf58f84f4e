package tools

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	c "github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/jsonrpc"
	"github.com/mcpconform/mcpconform/internal/judge"
	"github.com/mcpconform/mcpconform/internal/session"
	"github.com/mcpconform/mcpconform/internal/wire"
)

// maxInvalidArgTools bounds the tools TOOL-012 calls with broken arguments.
const maxInvalidArgTools = 4

func errorChecks() {
	c.It("TOOL-010", "tools/call naming an unknown tool gets a JSON-RPC error (-32602), not a result", func(t *c.T) {
		s := t.Shared()
		if !c.Declared(s, "tools") {
			t.NA("the server does not declare the tools capability (TOOL-002 checks the undeclared case)")
		}
		listed := map[string]bool{}
		w := t.WalkList(s, "tools/list")
		for _, k := range w.Keys() {
			listed[k] = true
		}
		name := "mcpconform_no_such_tool"
		for i := 2; listed[name]; i++ {
			name = fmt.Sprintf("mcpconform_no_such_tool_%d", i)
		}
		resp := mustAnswer(t, s, callParams(name, map[string]any{}), nil, "tools/call of the unknown tool "+name)
		if resp.IsResult() {
			kind := "a result"
			if r := resp.Msg.ResultObject(); r != nil && string(r["isError"]) == "true" {
				kind = "an isError result (a tool execution error, for a tool that does not exist)"
			}
			t.Violation("JSON-RPC error -32602 (unknown tool)", resp.Describe(), "the call of the unknown tool %q got %s instead of a JSON-RPC error", name, kind)
		}
		t.ExpectErrorCode("tools/call of the unknown tool "+name, resp, jsonrpc.CodeInvalidParams)
		if st := resp.Status(); st >= 500 {
			t.Note("the -32602 error came with HTTP %d", st)
		}
	})

	c.It("TOOL-011", "tools/call with name missing, name not a string or arguments not an object gets -32602", func(t *c.T) {
		s := t.Shared()
		if !c.Declared(s, "tools") {
			t.NA("the server does not declare the tools capability (TOOL-002 checks the undeclared case)")
		}
		type tc struct {
			what     string
			params   map[string]any
			nameCase bool
		}
		cases := []tc{
			{what: "name missing", params: map[string]any{"arguments": map[string]any{}}, nameCase: true},
			{what: "name not a string (42)", params: map[string]any{"name": 42, "arguments": map[string]any{}}, nameCase: true},
		}
		// arguments of the wrong type go to a real tool (a server that does
		// not validate them may execute it): only one the policy allows.
		w := t.Listing(s, "tools/list")
		listed := parseTools(w.Items)
		var target *tool
		why := ""
		for i := range listed {
			if listed[i].Name == "" {
				continue
			}
			ok, reason := t.MayCall(listed[i].Raw)
			if ok {
				target = &listed[i]
				break
			}
			if why == "" {
				why = reason
			}
		}
		if target != nil {
			cases = append(cases,
				tc{what: fmt.Sprintf("arguments a string (tool %q)", target.Name), params: map[string]any{"name": target.Name, "arguments": "mcpconform"}},
				tc{what: fmt.Sprintf("arguments an array (tool %q)", target.Name), params: map[string]any{"name": target.Name, "arguments": []any{1}}})
		} else {
			switch {
			case len(listed) == 0:
				why = "tools/list gave no tools (" + w.Problem + ")"
			case why == "":
				why = "no listed tool has a string name"
			}
			t.Note("the cases with arguments of the wrong type were not sent: %s", why)
		}
		for _, k := range cases {
			t.Step("tools/call with " + k.what)
			resp := mustAnswer(t, s, k.params, nil, "tools/call with "+k.what)
			if resp.IsResult() {
				t.Refused(resp, "JSON-RPC error -32602 (invalid params)", resp.Describe(), "tools/call with %s got a result: a malformed request was answered as a tool call", k.what)
			}
			code, _ := resp.ErrorCode()
			if code == jsonrpc.CodeHeaderMismatch && k.nameCase && t.Modern() && t.HTTP() {
				t.Note("tools/call with %s got -32020: without a string name there is no Mcp-Name header to send, and the spec does not order the two validations (TOL-1)", k.what)
				continue
			}
			t.ExpectErrorCode("tools/call with "+k.what, resp, jsonrpc.CodeInvalidParams)
		}
	})

	c.It("TOOL-012", "arguments that break the inputSchema get an isError result with an explanation", func(t *c.T) {
		s := t.Shared()
		tools := listTools(t, s)
		suitable := func(tl tool) bool {
			_, ok := requiredTyped(tl.schema("inputSchema"))
			return ok
		}
		cands := selectCallable(t, tools, suitable, true, maxInvalidArgTools, "tool with a required property of a declared type")
		var bad problems
		sent := 0
		for _, cd := range cands {
			sch, err := compileSchema(cd.schema("inputSchema"))
			if err != nil {
				t.Note("the inputSchema of %s does not compile (TOOL-004): not used", cd.label())
				continue
			}
			if err := validate(sch, cd.Args); err != nil {
				t.Note("the %s arguments of %s do not satisfy its inputSchema (%s): not used", cd.Source, cd.label(), oneLine(err))
				continue
			}
			prop, _ := requiredTyped(cd.schema("inputSchema"))
			wrong := cloneArgs(cd.Args)
			wrong[prop.name] = wrongValue(prop.typ)
			missing := cloneArgs(cd.Args)
			delete(missing, prop.name)
			variants := []struct {
				what string
				args map[string]any
			}{
				{fmt.Sprintf("%q given %s where the schema wants %s", prop.name, jsonText(wrong[prop.name]), prop.typ), wrong},
				{fmt.Sprintf("the required %q left out", prop.name), missing},
			}
			for _, v := range variants {
				if validate(sch, v.args) == nil {
					t.Note("tool %s: arguments with %s still satisfy the inputSchema; not sent", cd.label(), v.what)
					continue
				}
				sent++
				what := fmt.Sprintf("tools/call %s with %s", cd.Name, v.what)
				t.Step(what)
				resp := answerOrStall(t, s, cd, v.args, what)
				if resp == nil {
					sent--
					break // the tool stalls whatever its arguments: the environment (noted)
				}
				// Classified by the rules the fuzzer shares (internal/judge).
				switch judge.BadArguments(t.Modern(), resp.Msg) {
				case judge.ArgsInvalidParams:
					t.Warn("%s got JSON-RPC error -32602 instead of an isError result the model can read (tolerated: the 2026 schema's example shows -32602, TOL-3)", what)
				case judge.ArgsWrongError, judge.ArgsNoCode, judge.ArgsHeaderMismatch:
					code, _ := resp.ErrorCode()
					bad.add("%s got JSON-RPC error %d: %s", what, code, c.Clip(resp.Msg.Raw))
				case judge.ArgsNotObject:
					bad.add("%s: the result is not an object", what)
				case judge.ArgsInputRequired:
					t.Note("%s asked for more input (input_required) instead of rejecting the arguments", what)
				case judge.ArgsExecuted:
					bad.add("%s was executed: a result without isError: %s", what, c.Clip(resp.Msg.Result))
				case judge.ArgsToolError:
					if !explains(resp.Msg.ResultObject()) {
						bad.add("%s: the isError result has no explanatory content: %s", what, c.Clip(resp.Msg.Result))
					}
				}
			}
		}
		if sent == 0 && len(bad) == 0 {
			t.NA("no schema-violating arguments could be built for the callable tools (see the notes)")
		}
		bad.report(t, `{"isError": true, "content": [an explanation]} (or, tolerated, JSON-RPC error -32602)`,
			"%d of %d calls with schema-violating arguments were not rejected as tool errors", len(bad), sent)
	})
}

// mustAnswer sends tools/call and returns the JSON-RPC response. A server
// that goes away or never answers fails the check whatever its level: it
// was input the server must survive. An HTTP reply without a JSON-RPC
// response is a violation.
func mustAnswer(t *c.T, s *session.Session, params map[string]any, o *session.CallOptions, what string) *session.Response {
	resp, err := t.TryCall(s, "tools/call", params, o)
	return answered(t, s, resp, err, what)
}

// answered is mustAnswer's verdict on the outcome of a call.
func answered(t *c.T, s *session.Session, resp *session.Response, err error, what string) *session.Response {
	if err == nil {
		return resp
	}
	switch closed, cerr := s.Closed(); {
	case closed || errors.Is(err, wire.ErrClosed):
		t.Crashed("a JSON-RPC response", fmt.Sprintf("the connection ended (%v)", cerr), "the server went away after %s", what)
	case errors.Is(err, wire.ErrTimeout):
		t.NoAnswer(s, "a JSON-RPC response within "+s.Timeout().String(), "the server did not answer %s", what)
	case errors.Is(err, session.ErrNoResponse):
		t.Violation("a JSON-RPC response", resp.Describe(), "%s got no JSON-RPC response", what)
	}
	t.Error("%s: %v", what, err)
	return nil
}

// answerOrStall is mustAnswer for a call of a candidate tool with args: a
// call left unanswered while the server answers, by a tool that stalls on
// its ordinary arguments too, is the environment (T.ToolStall): noted, and
// nil returned.
func answerOrStall(t *c.T, s *session.Session, cd candidate, args map[string]any, what string) *session.Response {
	o := callOptions(t, cd.tool, args)
	resp, err := t.TryCall(s, "tools/call", callParams(cd.Name, args), o)
	if err == nil {
		return resp
	}
	if errors.Is(err, wire.ErrTimeout) {
		if closed, _ := s.Closed(); !closed {
			if why, stalled := t.ToolStall(s, cd.Name, cd.Args, callOptions(t, cd.tool, cd.Args)); stalled {
				t.EnvironmentNote("%s got no answer: %s", what, why)
				return nil
			}
		}
	}
	return answered(t, s, resp, err, what)
}

// typedProp is a required property with a declared type.
type typedProp struct{ name, typ string }

// requiredTyped returns the first required property (by name) whose schema
// declares a type and carries no x-mcp-header.
func requiredTyped(schema json.RawMessage) (typedProp, bool) {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return typedProp{}, false
	}
	req := append([]string(nil), s.Required...)
	sort.Strings(req)
	for _, name := range req {
		var p map[string]json.RawMessage
		if json.Unmarshal(s.Properties[name], &p) != nil {
			continue
		}
		if _, hdr := p["x-mcp-header"]; hdr {
			continue
		}
		if typ := firstType(p["type"]); typ != "" {
			return typedProp{name, typ}, true
		}
	}
	return typedProp{}, false
}

// firstType returns a schema type: the string, or the first non-null member
// of a type array.
func firstType(raw json.RawMessage) string {
	if s, ok := str(raw); ok {
		return s
	}
	var many []string
	if json.Unmarshal(raw, &many) == nil {
		for _, x := range many {
			if x != "null" {
				return x
			}
		}
	}
	return ""
}

// wrongValue returns a value of another JSON type than typ.
func wrongValue(typ string) any {
	if typ == "string" {
		return 12345
	}
	return "mcpconform-not-a-" + typ
}

func cloneArgs(a map[string]any) map[string]any {
	out := make(map[string]any, len(a))
	for k, v := range a {
		out[k] = v
	}
	return out
}

// explains reports a non-empty content array with something to read.
func explains(res map[string]json.RawMessage) bool {
	bs := blocks(res)
	for _, b := range bs {
		if typ, _ := str(b["type"]); typ != "text" {
			return true
		}
		if text, _ := str(b["text"]); strings.TrimSpace(text) != "" {
			return true
		}
	}
	return false
}
