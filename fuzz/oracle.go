package fuzz

import (
	"encoding/json"
	"fmt"

	"github.com/mcpconform/mcpconform/internal/catalog"
	"github.com/mcpconform/mcpconform/internal/jsonrpc"
	"github.com/mcpconform/mcpconform/internal/judge"
	"github.com/mcpconform/mcpconform/internal/msgcheck"
	"github.com/mcpconform/mcpconform/internal/toolschema"
	"github.com/mcpconform/mcpconform/internal/wire"
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

// judgeFault judges reply, the answer to raw, a message with fault f,
// with the suite's rules (judge.FaultAnswer, as RPC-005 and RPC-006 grade
// it): each deviation a problem whose code names the judge's rule
// (faultRule).
func judgeFault(raw []byte, f judge.Fault, reply judge.Reply) []problem {
	var out []problem
	for _, d := range judge.FaultAnswer(f, judge.SentID(raw), reply) {
		code := d.Kind + "-" + string(f)
		switch d.Kind {
		case "executed":
			code = "executed-" + string(f)
		case "other-id":
			code = "executed-invalid-id-other-id"
		case "wrong-code":
			code = "wrong-error-code-" + string(f)
		}
		detail := d.Why
		if reply.Msg != nil {
			detail += ": " + clip(reply.Msg.Raw)
		}
		out = append(out, problem{"fault", code, detail + " (sent: " + clip(raw) + ")"})
	}
	return out
}

// faultRule returns the rule judge.FaultAnswer named for a problem
// judgeFault reported (false: code is no such problem's).
func faultRule(code string) (judge.Rule, bool) {
	if code == "executed-invalid-id-other-id" {
		return judge.ExecutedInvalidID, true
	}
	for _, f := range judge.Faults() {
		switch code {
		case "executed-" + string(f):
			r, _ := judge.Executed(f)
			return r, true
		case "wrong-error-code-" + string(f):
			return judge.WrongCode(f), true
		case "unanswered-" + string(f):
			return judge.Silence(f), true
		case "null-id-" + string(f):
			return judge.NullID(f), true
		}
	}
	return judge.Rule{}, false
}

// jsonDepth returns the deepest nesting of arrays and objects in raw
// (judge.Depth).
func jsonDepth(raw []byte) int { return judge.Depth(raw) }

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

// gradeFaultAnswer is how the oracle grades reply, what came back for raw
// (a message of a case) on transport in revision rev, the server having
// answered the probe after the case: the fault judge.Classify's, the
// problems judgeFault's, their rules ruleFor's and the verdicts
// Finding.grade's — the path every finding of a fault takes. The
// agreement test holds it to the suite's grading (GradeFaultAnswer in
// suites/jsonrpc).
func gradeFaultAnswer(raw []byte, reply judge.Reply, rev catalog.Revision, transport string) []Finding {
	var out []Finding
	for _, p := range judgeFault(raw, judge.Classify(raw, transport == wire.Stdio), reply) {
		f := Finding{Property: PropRaw, Layer: p.Layer, Code: p.Code, Detail: p.Detail, Revision: string(rev), Transport: transport,
			rule: ruleFor(PropRaw, transport, "ping", p, [][]byte{raw}, nil)}
		f.grade(false)
		out = append(out, f)
	}
	return out
}
