package fuzz

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/internal/catalog"
	"github.com/mcpconform/mcpconform/internal/jsonrpc"
	"github.com/mcpconform/mcpconform/internal/judge"
	"pgregory.net/rapid"
)

// Requests the server must refuse, mixed into the ids property: an
// unknown method (-32601, RPC-007) and the declared methods with params
// their schemas forbid (-32602): prompts/get, resources/read,
// completion/complete, logging/setLevel. A result is a finding at the
// requirement's level; another error code is a WARN (the JSON-RPC code is
// a SHOULD), RPC-007's -32601 too before 2026-07-28
// (judge.UnknownMethodCode).

// invalidReq is one kind of request to refuse.
type invalidReq struct {
	method string // "" for an unknown method (a generated name)
	req    string // the requirement
	codes  []int64
	params func(t *rapid.T) map[string]any
}

// unknownMethodPrefix starts the generated unknown method names.
const unknownMethodPrefix = "mcpconform/x-"

// invalidRequests lists the requests to refuse that apply to the
// session: an unknown method always, the others when declared.
func (h *harness) invalidRequests() []invalidReq {
	out := []invalidReq{{req: "RPC-007", codes: []int64{jsonrpc.CodeMethodNotFound}}}
	caps := h.s.Capabilities()
	has := func(c string) bool { _, ok := caps[c]; return ok }
	notString := func(t *rapid.T, l string) any {
		return rapid.SampledFrom([]any{42, true, nil, []any{"x"}, map[string]any{}}).Draw(t, l)
	}
	missingOr := func(key string) func(t *rapid.T) map[string]any {
		return func(t *rapid.T) map[string]any {
			if rapid.Bool().Draw(t, key+"-missing") {
				return map[string]any{}
			}
			return map[string]any{key: notString(t, key)}
		}
	}
	if has("prompts") {
		out = append(out, invalidReq{method: "prompts/get", req: "PRM-003", codes: []int64{jsonrpc.CodeInvalidParams}, params: missingOr("name")})
	}
	if has("resources") {
		out = append(out, invalidReq{method: "resources/read", req: "RES-004", codes: []int64{jsonrpc.CodeInvalidParams, jsonrpc.CodeResourceNotFound}, params: missingOr("uri")})
	}
	if has("completions") && h.rev >= catalog.R20250326 {
		out = append(out, invalidReq{method: "completion/complete", req: "CMP-002", codes: []int64{jsonrpc.CodeInvalidParams}, params: func(t *rapid.T) map[string]any {
			return map[string]any{"ref": notString(t, "ref"), "argument": map[string]any{"name": "x", "value": ""}}
		}})
	}
	if has("logging") && !h.s.Modern() {
		out = append(out, invalidReq{method: "logging/setLevel", req: "LOG-002", codes: []int64{jsonrpc.CodeInvalidParams}, params: func(t *rapid.T) map[string]any {
			return map[string]any{"level": rapid.SampledFrom([]any{"verbose", "LOUD", "", 3, nil}).Draw(t, "level")}
		}})
	}
	return out
}

// genInvalid draws a request to refuse.
func (h *harness) genInvalid(t *rapid.T, id jsonrpc.ID) []byte {
	k := rapid.SampledFrom(h.invalid).Draw(t, "invalid")
	if k.method == "" {
		// short names, and long ones (routers that match by prefix or
		// buffer the name)
		name := unknownMethodPrefix + rapid.OneOf(rapid.StringMatching(`[a-z][a-z0-9_/]{0,8}`), rapid.StringMatching(`[a-z][a-z0-9_/]{20,80}`)).Draw(t, "unknown-method")
		return request(id, name, h.params(t, nil))
	}
	return request(id, k.method, h.params(t, k.params(t)))
}

// refusal returns the kind of request to refuse that a request with
// method and params is (nil: none), from its bytes alone, so that a saved
// case replays without its generator.
func (h *harness) refusal(method string, params json.RawMessage) *invalidReq {
	var p map[string]json.RawMessage
	_ = json.Unmarshal(params, &p)
	notString := func(key string) bool {
		v, ok := p[key]
		return !ok || len(v) == 0 || v[0] != '"'
	}
	for i, k := range h.invalid {
		var bad bool
		switch k.method {
		case "":
			bad = strings.HasPrefix(method, unknownMethodPrefix)
		case "prompts/get":
			bad = method == k.method && notString("name")
		case "resources/read":
			bad = method == k.method && notString("uri")
		case "completion/complete":
			v, ok := p["ref"]
			bad = method == k.method && (!ok || len(v) == 0 || v[0] != '{')
		case "logging/setLevel":
			var level string
			bad = method == k.method && (json.Unmarshal(p["level"], &level) != nil ||
				!slices.Contains([]string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}, level))
		}
		if bad {
			return &h.invalid[i]
		}
	}
	return nil
}

// judgeRefusal judges the answer to a request the server must refuse.
func judgeRefusal(modern bool, k *invalidReq, r *sent, resp *jsonrpc.Message) []problem {
	what, kind := fmt.Sprintf("%s (id %s) with invalid params", r.method, clip([]byte(r.id.String()))), k.method
	if k.method == "" {
		what, kind = fmt.Sprintf("the unknown method %s (id %s)", clip([]byte(r.method)), clip([]byte(r.id.String()))), "unknown-method"
	}
	if !resp.IsError() {
		if resp.HasResult {
			return []problem{{"params", "executed-" + kind, what + " got a result: " + clip(resp.Raw)}}
		}
		return nil // judged by the message model
	}
	code, ok := resp.ErrorCode()
	if !ok || slices.Contains(k.codes, code) {
		return nil
	}
	if code == jsonrpc.CodeHeaderMismatch && modern && k.method != "" {
		// 2026 HTTP: without a string name or uri there is no Mcp-Name
		// header to send, and the spec does not order the two
		// validations (TOL-1)
		return nil
	}
	return []problem{{"params", "wrong-error-" + kind, fmt.Sprintf("%s got error %d; expected %v: %s", what, code, k.codes, clip(resp.Raw))}}
}

// refusalRule is the rule of a params/… problem.
func refusalRule(code string) judge.Rule {
	kind := code
	for _, p := range []string{"executed-", "wrong-error-"} {
		kind = strings.TrimPrefix(kind, p)
	}
	req := map[string]string{"unknown-method": "RPC-007", "prompts/get": "PRM-003", "resources/read": "RES-004",
		"completion/complete": "CMP-002", "logging/setLevel": "LOG-002"}[kind]
	if strings.HasPrefix(code, "wrong-error-") {
		if req == "RPC-007" {
			return judge.UnknownMethodCode
		}
		return judge.Rule{Requirement: req, Level: catalog.SHOULD, Ref: "the JSON-RPC error code is a SHOULD"}
	}
	return judge.Rule{Requirement: req}
}
