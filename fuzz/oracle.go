package fuzz

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpconform/mcpconform/internal/catalog"
	"github.com/mcpconform/mcpconform/internal/jsonrpc"
	"github.com/mcpconform/mcpconform/internal/judge"
	"github.com/mcpconform/mcpconform/internal/msgcheck"
	"github.com/mcpconform/mcpconform/internal/toolschema"
)

// argumentFault returns the tool a tools/call names and, when its
// arguments break that tool's inputSchema, the validator's reason ("" when
// they conform, the tool is not one the harness listed, or its schema does
// not compile).
func (h *harness) argumentFault(params json.RawMessage) (tool, reason string) {
	var p struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if json.Unmarshal(params, &p) != nil {
		return "", ""
	}
	for _, t := range h.tools {
		if t.name != p.Name || t.schema == nil {
			continue
		}
		args := p.Arguments
		if len(args) == 0 || string(args) == "null" {
			// Absent arguments are no arguments; null is read as absent
			// by common servers (go-sdk among them), a leniency the
			// oracle tolerates (TOOL-011 judges non-object arguments).
			args = json.RawMessage(`{}`)
		}
		if err := toolschema.Validate(t.schema, args); err != nil {
			return p.Name, toolschema.OneLine(err)
		}
	}
	return p.Name, ""
}

// judgeBadArgs judges the answer to a tools/call whose arguments break the
// inputSchema with the suite's TOOL-012 classification (judge.BadArguments):
// a tool execution error (isError) or, tolerated (TOL-3),
// JSON-RPC -32602. A result without isError means the tool ran on input it
// declared invalid; another error code puts the rejection in the wrong
// layer (an internal error is not a validation error).
func judgeBadArgs(modern bool, r *sent, resp *jsonrpc.Message) []problem {
	what := fmt.Sprintf("tools/call %s (id %s) with arguments that break its inputSchema (%s)", clip([]byte(r.tool)), clip([]byte(r.id.String())), r.badArgs)
	switch judge.BadArguments(modern, resp) {
	case judge.ArgsExecuted:
		return []problem{{"tools", "executed-invalid-arguments", what + " was executed: a result without isError: " + clip(resp.Raw)}}
	case judge.ArgsWrongError:
		code, _ := resp.ErrorCode()
		return []problem{{"tools", "invalid-arguments-wrong-error", fmt.Sprintf("%s got JSON-RPC error %d; the answer is an isError result (or -32602): %s", what, code, clip(resp.Raw))}}
	}
	return nil // a fair answer, or one the message model judges
}

// judgeFault judges the answer to a malformed message with the suite's
// rules (judge.FaultAnswer): fault names the fault of the message whose id
// it carries (judge.FaultUnparseable for an error addressed to no request).
func judgeFault(fault judge.Fault, resp *jsonrpc.Message) (problem, bool) {
	_, why, bad := judge.FaultAnswer(fault, resp)
	if !bad {
		return problem{}, false
	}
	if resp.HasResult {
		return problem{"fault", "executed-" + string(fault), fmt.Sprintf("a message with %s (id %s) was %s: %s",
			strings.ReplaceAll(string(fault), "-", " "), clip([]byte(resp.ID.String())), why, clip(resp.Raw))}, true
	}
	what := "an error addressed to no request"
	if fault != judge.FaultUnparseable {
		what = fmt.Sprintf("the error answering a message with %s (id %s)", strings.ReplaceAll(string(fault), "-", " "), clip([]byte(resp.ID.String())))
	}
	return problem{"fault", "wrong-error-code", fmt.Sprintf("%s was %s: %s", what, why, clip(resp.Raw))}, true
}

// jsonDepth returns the deepest nesting of arrays and objects in raw
// (strings skipped; raw need not be valid).
func jsonDepth(raw []byte) int {
	depth, deepest, inString, escaped := 0, 0, false, false
	for _, c := range raw {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '[' || c == '{':
			depth++
			deepest = max(deepest, depth)
		case c == ']' || c == '}':
			depth--
		}
	}
	return deepest
}

// crossedWith returns the other request in flight whose method's result
// the response resp (invalid for its own method) has the shape of: the
// server answered one request with another's result.
func crossedWith(rev catalog.Revision, resp *jsonrpc.Message, method string, order []*sent) *sent {
	if method == "" || !resp.HasResult {
		return nil
	}
	for _, o := range order {
		if o.method == method || o.id.Key() == resp.ID.Key() {
			continue
		}
		if len(msgcheck.ValidateServerMessage(string(rev), resp.Raw, o.method)) == 0 {
			return o
		}
	}
	return nil
}
