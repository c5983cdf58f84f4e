package mrtr

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/internal/catalog"
	c "github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/msgcheck"
	"github.com/mcpconform/mcpconform/internal/session"
)

// Multi round-trip requests (2026-07-28, SEP-2322, https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr): the
// shape of input_required results, capability gating per request, the
// retry workflow, error handling of inputResponses, and requestState as
// attacker input. The targets are the prompts/get, resources/read and
// tools/call requests (tools only as the call policy allows) that the
// server answers input_required when the harness declares every client
// capability (helpers.go).

const junkState = "mcpconform-junk-state"

var _ = c.Area("mrtr", func() {
	c.It("MRTR-001", "input_required comes only from tools/call, prompts/get and resources/read", func(t *c.T) {
		s := t.Shared()
		junk := map[string]any{
			"inputResponses": map[string]any{"mcpconform": map[string]any{"action": "accept", "content": map[string]any{"mcpconform": "x"}}},
			"requestState":   junkState,
		}
		type probe struct {
			method string
			params map[string]any
		}
		probes := []probe{{"server/discover", map[string]any{}}}
		for _, k := range c.ListKinds {
			if c.Declared(s, k.Capability) {
				probes = append(probes, probe{k.Method, map[string]any{}})
			}
		}
		if c.Declared(s, "completions") && c.Declared(s, "prompts") {
			if ref, arg, ok := promptWithArgument(t, s); ok {
				probes = append(probes, probe{"completion/complete", map[string]any{
					"ref": map[string]any{"type": "ref/prompt", "name": ref}, "argument": map[string]any{"name": arg, "value": ""}}})
			}
		}
		for _, p := range probes {
			for k, v := range junk {
				p.params[k] = v
			}
			raw, _ := json.Marshal(p.params)
			var params map[string]any
			_ = json.Unmarshal(raw, &params)
			t.Step(p.method + " with every capability declared and junk inputResponses")
			resp, err := send(t, s, p.method, params, nil, session.Retry{})
			if outcome(resp, err) == "input_required" {
				t.Violation("a complete result or a JSON-RPC error (input_required only for tools/call, prompts/get, resources/read)",
					resp.Describe(), "%s answered input_required", p.method)
			}
		}
		t.Note("subscriptions/listen was not probed (its stream stays open)")
	})

	c.It("MRTR-002", "input_required results carry inputRequests (an object), requestState (a string), or both", func(t *c.T) {
		s := t.Shared()
		judged := 0
		for _, tg := range c.MRTRTargets(t) {
			tr := s.RoundTrip(t.Ctx, tg.Method, tg.Params, &session.MRTROptions{})
			for i, in := range append([]*session.Interim{tg.Interim}, tr.Interims()...) {
				judged++
				what := fmt.Sprintf("%s (interim result %d)", tg.What(), i)
				switch {
				case in.RequestsRaw == nil && in.State == nil:
					t.Violation("inputRequests, requestState or both", c.Clip(in.Raw), "%s: an input_required result with neither inputRequests nor requestState", what)
				case in.RequestsRaw != nil && in.Requests == nil:
					t.Violation("inputRequests: an object", c.Clip(in.RequestsRaw), "%s: inputRequests is not an object", what)
				case in.State != nil && !in.StateIsStr:
					t.Violation("requestState: a string", c.Clip(in.State), "%s: requestState is not a string", what)
				}
			}
		}
		t.Note("%d input_required results judged", judged)
	})

	c.It("MRTR-003", "input requests use elicitation/create, sampling/createMessage or roots/list with valid params and unique keys", func(t *c.T) {
		s := t.Shared()
		for _, tg := range c.MRTRTargets(t) {
			tr := s.RoundTrip(t.Ctx, tg.Method, tg.Params, nil)
			resps := []*session.Response{tg.First}
			for _, r := range tr.Rounds {
				if r.Interim != nil {
					resps = append(resps, r.Resp)
				}
			}
			for i, resp := range resps {
				what := fmt.Sprintf("%s (interim result %d)", tg.What(), i)
				if d := duplicateKeys(resp.Msg.Raw); len(d) > 0 {
					t.Violation("no repeated member in the raw JSON", strings.Join(d, ", "), "%s: the response repeats object members (%s)", what, strings.Join(d, ", "))
				}
				in, _ := session.ParseInterim(resp)
				if in == nil || in.Requests == nil {
					continue // MRTR-002 judges the shape
				}
				for _, r := range decodeRequests(in) {
					judgeInputRequest(t, what, r)
				}
			}
		}
	})

	c.It("MRTR-004", "no input request for a capability this request did not declare", func(t *c.T) {
		tgs := c.MRTRTargets(t)
		s := t.Open() // a connection that never declared anything (LIFE-012 is another check)
		scenarios := []struct {
			name string
			caps map[string]any
		}{
			// Scenarios without elicitation come first: whether a server
			// wrongly keeps an earlier request's capabilities is LIFE-012's
			// verdict, not this one's.
			{"{}", map[string]any{}},
			{`{"sampling":{}}`, map[string]any{"sampling": map[string]any{}}},
			{`{"roots":{"listChanged":true}}`, map[string]any{"roots": map[string]any{"listChanged": true}}},
			{`{"elicitation":{"form":{}}}`, map[string]any{"elicitation": map[string]any{"form": map[string]any{}}}},
			{`{"elicitation":{}}`, map[string]any{"elicitation": map[string]any{}}},
		}
		for _, sc := range scenarios {
			for _, tg := range tgs {
				t.Step(tg.What() + " declaring " + sc.name)
				resp, err := send(t, s, tg.Method, tg.Params, sc.caps, session.Retry{})
				in, ok := session.ParseInterim(resp)
				if err != nil || !ok || in.Requests == nil {
					continue // errors (-32021: LIFE-011) and complete results are fine here
				}
				for _, r := range decodeRequests(in) {
					judgeGating(t, fmt.Sprintf("%s declaring %s", tg.What(), sc.name), sc.caps, r)
				}
			}
		}
	})

	c.It("MRTR-005", "a retry with a new id, the original params, correct inputResponses and the exact requestState completes", func(t *c.T) {
		s := t.Shared()
		for _, tg := range c.MRTRTargets(t) {
			t.Step("round-trip " + tg.What())
			tr := s.RoundTrip(t.Ctx, tg.Method, tg.Params, nil)
			switch {
			case tr.Malformed:
				t.Note("%s: the flow could not be followed (%s); MRTR-002/003 judge it", tg.What(), tr.Problem)
			case tr.Err != nil:
				t.Violation("an answer to every retry", tr.Problem, "%s: round %d got no answer", tg.What(), len(tr.Rounds))
			case !tr.Complete && tr.Final != nil && tr.Final.IsError():
				t.Violation(`a result with resultType "complete"`, tr.Final.Describe(),
					"%s: the retry %d carrying the harness's answers (scripted from each input request) and the echoed requestState got an error", tg.What(), len(tr.Rounds)-1)
			case !tr.Complete:
				t.Violation(fmt.Sprintf("a complete result within %d requests", session.DefaultMaxRounds), c.Clip(tr.Final.Msg.Raw),
					"%s: %s", tg.What(), tr.Problem)
			case session.ResultTypeOf(tr.Final) != "complete":
				t.Violation(`resultType "complete"`, tr.Final.Describe(), "%s: the final result's resultType is not \"complete\"", tg.What())
			default:
				t.Note("%s completed after %d requests", tg.What(), len(tr.Rounds))
			}
		}
	})

	c.It("MRTR-006", "a tampered requestState gets a JSON-RPC error", func(t *c.T) {
		s := t.Shared()
		judged := 0
		var findings []string
		actual := ""
		for _, f := range completedFlows(t, s, hasState) {
			tg, retry := f.tg, f.retry
			if retry.RequestState == nil || !dependsOnState(t, s, tg, retry) {
				continue
			}
			judged++
			state := tg.Interim.StateString
			for _, m := range []struct{ name, state string }{
				{`"-TAMPERED" appended`, state + "-TAMPERED"},
				{"one character changed", flipMiddle(state)},
			} {
				t.Step(tg.What() + ": requestState with " + m.name)
				if f, a := judgeTampered(t, s, tg, retry, m.name, m.state); f != "" {
					findings = append(findings, f)
					if actual == "" {
						actual = a
					}
				}
			}
			t.Step(tg.What() + ": rapid mutations of requestState")
			if f := tamperProperty(t, s, tg, retry); f != nil {
				findings = append(findings, fmt.Sprintf("%s: an altered requestState was not rejected; shrunk mutation: %s (requestState %s)", tg.What(), f.mutation, clipState(f.state)))
				if actual == "" {
					actual = f.actual
				}
			}
		}
		if judged == 0 {
			t.NA("no MRTR flow depends on its requestState (none issued one, none completed with correct answers, or every one also completed without its state)")
		}
		if len(findings) > 0 {
			t.Violation("a JSON-RPC error for every altered requestState", actual, "%s", strings.Join(findings, "; "))
		}
		t.Note("%d flows that depend on their requestState judged (2 fixed alterations and %d rapid mutations each)", judged, tamperCases)
	})

	c.It("MRTR-007", "a replayed requestState is rejected for another request, other arguments or another principal", func(t *c.T) {
		s := t.Shared()
		type stateFlow struct {
			tg    *c.MRTRTarget
			retry session.Retry
			final session.Retry
		}
		var flows []stateFlow
		for _, f := range completedFlows(t, s, hasState) {
			last, _ := f.tr.LastRetry()
			if f.retry.RequestState != nil && dependsOnState(t, s, f.tg, f.retry) {
				flows = append(flows, stateFlow{f.tg, f.retry, last})
			}
		}
		if len(flows) == 0 {
			t.NA("no MRTR flow depends on its requestState (none issued one, none completed with correct answers, or every one also completed without its state)")
		}
		tested := 0
		var findings []string
		actual := ""
		replay := func(what string, ss *session.Session, method string, params map[string]any, r session.Retry) {
			tested++
			t.Step(what)
			resp, err := send(t, ss, method, params, nil, r)
			switch outcome(resp, err) {
			case "complete":
				findings = append(findings, what+": the replayed requestState was accepted")
				if actual == "" {
					actual = resp.Describe()
				}
			case "input_required":
				t.Note("%s: answered with a fresh input_required result (the state was not honoured)", what)
			}
		}
		for _, a := range flows {
			// (a) the same request with other arguments.
			if params, changed, ok := otherArguments(a.tg); ok {
				replay(fmt.Sprintf("%s with %s: replaying its requestState", a.tg.What(), changed), s, a.tg.Method, params, a.retry)
			}
			// (b) another request: b's own answers, a's state.
			for _, b := range flows {
				if b.tg == a.tg {
					continue
				}
				replay(fmt.Sprintf("%s's requestState replayed into %s", a.tg.What(), b.tg.What()), s, b.tg.Method, b.tg.Params,
					session.Retry{InputResponses: b.retry.InputResponses, RequestState: a.retry.RequestState})
			}
		}
		// (c) another principal.
		if t.Env.Target.HasSecondPrincipal() {
			s2 := t.OpenSecond()
			for _, a := range flows {
				replay(a.tg.What()+": replaying the requestState as the second principal", s2, a.tg.Method, a.tg.Params, a.retry)
			}
		} else {
			t.Note("another principal: not tested (give a second credential with --second-bearer-env over HTTP)")
		}
		t.Note("expiry: not tested (it would mean waiting for the state's lifetime)")
		// After completion: single use is the server's choice (MUST only when
		// the state must be used once); observed, not judged.
		for _, a := range flows {
			resp, err := send(t, s, a.tg.Method, a.tg.Params, nil, a.final)
			if outcome(resp, err) == "complete" {
				t.Note("%s: the final retry replayed after completion completed again", a.tg.What())
			}
		}
		if len(findings) > 0 {
			t.Violation("a JSON-RPC error (or a fresh input_required result that ignores the state)", actual, "%s", strings.Join(findings, "; "))
		}
		if tested == 0 {
			t.NA("no replay could be built: one flow with state and no argument to vary (replay into another request needs two such flows; another principal needs --second-bearer-env)")
		}
	})

	c.It("MRTR-008", "a retry missing needed inputResponses gets input_required again, not an error", func(t *c.T) {
		s := t.Shared()
		judged := 0
		for _, f := range completedFlows(t, s, asksInput) {
			tg, retry := f.tg, f.retry
			judged++
			for _, v := range []struct {
				name string
				r    session.Retry
			}{
				{"without inputResponses", session.Retry{RequestState: retry.RequestState}},
				{"with inputResponses {}", session.Retry{RequestState: retry.RequestState, InputResponses: json.RawMessage(`{}`)}},
			} {
				what := tg.What() + " retried " + v.name
				t.Step(what)
				resp, err := send(t, s, tg.Method, tg.Params, nil, v.r)
				switch outcome(resp, err) {
				case "error":
					t.Violation("a new input_required result asking again", resp.Describe(), "%s: the missing answers got an error", what)
				case "complete":
					t.Note("%s: completed without the answers (they were not needed)", what)
				case "input_required":
					if in, _ := session.ParseInterim(resp); in.Requests == nil || len(in.Requests) == 0 {
						t.Violation("a new input_required result asking again", resp.Describe(), "%s: the interim result asks for nothing", what)
					}
				}
			}
		}
		if judged == 0 {
			t.NA("no MRTR flow with input requests completed with correct answers")
		}
	})

	c.It("MRTR-009", "unrecognised inputResponses keys are ignored", func(t *c.T) {
		s := t.Shared()
		judged := 0
		for _, f := range completedFlows(t, s, asksInput) {
			tg := f.tg
			judged++
			t.Step(tg.What() + " with an extra inputResponses key in every retry")
			tr := s.RoundTrip(t.Ctx, tg.Method, tg.Params, &session.MRTROptions{Extra: map[string]json.RawMessage{extraKey: json.RawMessage(`{"action":"decline"}`)}})
			if !tr.Complete {
				t.Violation("the same complete result as without the extra key", c.Clip([]byte(c.Describe(tr.Final, tr.Err))),
					"%s: with an unrecognised key %q in inputResponses the flow did not complete", tg.What(), extraKey)
			}
		}
		if judged == 0 {
			t.NA("no MRTR flow with input requests completed with correct answers")
		}
	})

	c.It("MRTR-010", "structurally invalid inputResponses never produce a complete result", func(t *c.T) {
		s := t.Shared()
		judged := 0
		for _, f := range completedFlows(t, s, asksInput) {
			tg, retry := f.tg, f.retry
			judged++
			var good map[string]json.RawMessage
			_ = json.Unmarshal(retry.InputResponses, &good)
			reqs := decodeRequests(tg.Interim)
			first := reqs[0]
			variants := []struct{ name, body string }{{"inputResponses: 5", "5"}}
			for _, b := range bogusAnswers(first.Method) {
				m := map[string]json.RawMessage{}
				for k, v := range good {
					m[k] = v
				}
				m[first.Key] = json.RawMessage(b.body)
				raw, _ := json.Marshal(m)
				variants = append(variants, struct{ name, body string }{fmt.Sprintf("inputResponses[%q] %s", first.Key, b.name), string(raw)})
			}
			for _, v := range variants {
				what := tg.What() + " retried with " + v.name
				t.Step(what)
				resp, err := send(t, s, tg.Method, tg.Params, nil, session.Retry{RequestState: retry.RequestState, InputResponses: json.RawMessage(v.body)})
				if outcome(resp, err) == "complete" {
					t.Violation("a JSON-RPC error (e.g. -32602) or a new input_required result", resp.Describe(), "%s: completed on bogus input", what)
				}
			}
		}
		if judged == 0 {
			t.NA("no MRTR flow with input requests completed with correct answers")
		}
	})

	c.It("MRTR-011", "elicitation input requests have valid form or URL payloads", func(t *c.T) {
		s := t.Shared()
		judged := 0
		for _, tg := range c.MRTRTargets(t) {
			tr := s.RoundTrip(t.Ctx, tg.Method, tg.Params, nil)
			for i, in := range append([]*session.Interim{tg.Interim}, tr.Interims()...) {
				if in.Requests == nil {
					continue
				}
				for _, r := range decodeRequests(in) {
					if r.Method != "elicitation/create" || r.Params == nil {
						continue
					}
					judged++
					judgeElicitation(t, fmt.Sprintf("%s (interim result %d) inputRequests[%q]", tg.What(), i, r.Key), r)
				}
			}
		}
		if judged == 0 {
			t.NA("no input request was an elicitation")
		}
	})
})

// promptWithArgument returns a prompt and one of its arguments.
func promptWithArgument(t *c.T, s *session.Session) (string, string, bool) {
	w := t.WalkList(s, "prompts/list")
	for _, p := range w.Items {
		var pr struct {
			Name      string `json:"name"`
			Arguments []struct {
				Name string `json:"name"`
			} `json:"arguments"`
		}
		if json.Unmarshal(p, &pr) == nil && pr.Name != "" && len(pr.Arguments) > 0 && pr.Arguments[0].Name != "" {
			return pr.Name, pr.Arguments[0].Name, true
		}
	}
	return "", "", false
}

var allowedMethods = []string{"elicitation/create", "sampling/createMessage", "roots/list"}

func judgeInputRequest(t *c.T, what string, r inputRequest) {
	what = fmt.Sprintf("%s inputRequests[%q]", what, r.Key)
	if r.Obj == nil {
		t.Violation("an input request object {method, params}", c.Clip(r.Raw), "%s is not an object", what)
	}
	if !slices.Contains(allowedMethods, r.Method) {
		t.Violation("method elicitation/create, sampling/createMessage or roots/list", c.Clip(r.Raw), "%s: method %s is not allowed in inputRequests", what, c.Clip(r.Obj["method"]))
	}
	for _, k := range []string{"jsonrpc", "id"} {
		if _, ok := r.Obj[k]; ok {
			t.Warn("%s carries %q: input requests are plain {method, params} objects, not JSON-RPC requests", what, k)
		}
	}
	rawParams, hasParams := r.Obj["params"]
	if hasParams && r.Params == nil {
		t.Violation("params: an object", c.Clip(rawParams), "%s: params is not an object", what)
	}
	switch r.Method {
	case "elicitation/create":
		if !hasParams {
			t.Violation("params with message (and requestedSchema or url)", c.Clip(r.Raw), "%s: elicitation/create without params", what)
		}
		if _, ok := r.str("message"); !ok {
			t.Violation("params.message: a string", c.Clip(rawParams), "%s: elicitation/create without a string message", what)
		}
		mode, hasMode := r.str("mode")
		_, modeMember := r.Params["mode"]
		switch {
		case modeMember && !hasMode:
			t.Violation(`params.mode: "form" or "url"`, c.Clip(r.Params["mode"]), "%s: mode is not a string", what)
		case !hasMode || mode == "form":
			if !strings.HasPrefix(strings.TrimSpace(string(r.Params["requestedSchema"])), "{") {
				t.Violation("params.requestedSchema: an object", c.Clip(rawParams), "%s: a form elicitation without a requestedSchema object", what)
			}
		case mode == "url":
			if _, ok := r.str("url"); !ok {
				t.Violation("params.url: a string", c.Clip(rawParams), "%s: a URL elicitation without url", what)
			}
		default:
			t.Violation(`params.mode: "form" or "url"`, c.Clip(rawParams), "%s: unknown elicitation mode %q", what, mode)
		}
	case "sampling/createMessage":
		if !hasParams {
			t.Violation("params with messages and maxTokens", c.Clip(r.Raw), "%s: sampling/createMessage without params", what)
		}
		if ps := msgcheck.ValidateAs(string(catalog.Modern), "CreateMessageRequestParams", rawParams); len(ps) > 0 {
			t.Violation("params valid as CreateMessageRequestParams", ps[0].String(), "%s: invalid sampling params: %s", what, ps[0].String())
		}
	}
}

// judgeGating fails when an input request needs a capability the request
// did not declare.
func judgeGating(t *c.T, what string, caps map[string]any, r inputRequest) {
	need := capabilityFor(r.Method)
	declared, ok := caps[need].(map[string]any)
	if need != "" && !ok {
		t.Violation(fmt.Sprintf("no %s input request (the request did not declare %s)", r.Method, need), c.Clip(r.Raw),
			"%s: inputRequests[%q] is %s, which needs the undeclared capability %s", what, r.Key, r.Method, need)
	}
	switch r.Method {
	case "elicitation/create":
		if mode, _ := r.str("mode"); mode == "url" {
			if _, url := declared["url"]; !url {
				t.Violation("no URL-mode elicitation (elicitation.url was not declared)", c.Clip(r.Raw), "%s: inputRequests[%q] is a URL elicitation", what, r.Key)
			}
		}
	case "sampling/createMessage":
		_, tools := declared["tools"]
		for _, k := range []string{"tools", "toolChoice"} {
			if _, ok := r.Params[k]; ok && !tools {
				t.Violation("no tools/toolChoice in sampling (sampling.tools was not declared)", c.Clip(r.Raw), "%s: inputRequests[%q] carries %s", what, r.Key, k)
			}
		}
		if ic, ok := r.str("includeContext"); ok && ic != "none" {
			if _, ctx := declared["context"]; !ctx {
				t.Warn("%s: inputRequests[%q] has includeContext %q without sampling.context declared (SHOULD NOT)", what, r.Key, ic)
			}
		}
	}
}

func judgeElicitation(t *c.T, what string, r inputRequest) {
	if _, ok := r.Params["elicitationId"]; ok {
		t.Violation("no elicitationId (removed in 2026-07-28)", c.Clip(r.Raw), "%s carries elicitationId", what)
	}
	mode, _ := r.str("mode")
	if mode == "url" {
		u, _ := r.str("url")
		pu, err := url.Parse(u)
		if err != nil || !pu.IsAbs() || pu.Host == "" {
			t.Violation("params.url: a valid absolute URL", c.Clip(r.Params["url"]), "%s: the URL is not a valid absolute URL", what)
		}
		if ps := msgcheck.ValidateAs(string(catalog.Modern), "ElicitRequestURLParams", elicitNoID(r)); len(ps) > 0 {
			t.Violation("params valid as ElicitRequestURLParams", ps[0].String(), "%s: %s", what, ps[0].String())
		}
		return
	}
	var schema struct {
		Type       string                     `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	_ = json.Unmarshal(r.Params["requestedSchema"], &schema)
	if schema.Type != "object" || schema.Properties == nil {
		t.Violation(`requestedSchema {"type":"object","properties":{...}}`, c.Clip(r.Params["requestedSchema"]), "%s: requestedSchema is not an object schema with properties", what)
	}
	for name, ps := range schema.Properties {
		var p struct {
			Type string `json:"type"`
		}
		_ = json.Unmarshal(ps, &p)
		if !slices.Contains([]string{"string", "number", "integer", "boolean", "array"}, p.Type) {
			t.Violation("a flat schema of primitive or enum properties", fmt.Sprintf("%s: %s", name, c.Clip(ps)), "%s: property %q is not a primitive or enum schema", what, name)
		}
	}
	if ps := msgcheck.ValidateAs(string(catalog.Modern), "ElicitRequestFormParams", elicitNoID(r)); len(ps) > 0 {
		t.Violation("params valid as ElicitRequestFormParams", ps[0].String(), "%s: %s", what, ps[0].String())
	}
}

// elicitNoID returns the elicitation params without elicitationId (judged
// on its own).
func elicitNoID(r inputRequest) json.RawMessage {
	m := map[string]json.RawMessage{}
	for k, v := range r.Params {
		if k != "elicitationId" {
			m[k] = v
		}
	}
	b, _ := json.Marshal(m)
	return b
}

// dependsOnState reports whether tg's flow needs its requestState: the
// first retry without it must not complete. A flow that completes without
// its state cannot be harmed by a tampered one (integrity protection MAY be
// skipped then).
func dependsOnState(t *c.T, s *session.Session, tg *c.MRTRTarget, retry session.Retry) bool {
	resp, err := send(t, s, tg.Method, tg.Params, nil, session.Retry{InputResponses: retry.InputResponses})
	if outcome(resp, err) == "complete" {
		t.Note("%s: the retry completed without its requestState too: the state does not guard the flow; tampering is not judged", tg.What())
		return false
	}
	return true
}

// judgeTampered sends tg's first retry with an altered state; it returns a
// finding ("" when the state was rejected) and the answer.
func judgeTampered(t *c.T, s *session.Session, tg *c.MRTRTarget, retry session.Retry, name, state string) (string, string) {
	raw, _ := json.Marshal(state)
	resp, err := send(t, s, tg.Method, tg.Params, nil, session.Retry{InputResponses: retry.InputResponses, RequestState: raw})
	switch outcome(resp, err) {
	case "complete":
		return fmt.Sprintf("%s: a requestState with %s was accepted and the request completed", tg.What(), name), resp.Describe()
	case "input_required":
		return fmt.Sprintf("%s: a requestState with %s got an input_required result instead of an error (the state was not rejected)", tg.What(), name), resp.Describe()
	case "none":
		t.Note("%s: a requestState with %s got no JSON-RPC response (%s)", tg.What(), name, c.Clip([]byte(c.Describe(resp, err))))
	}
	return "", ""
}

// flipMiddle changes the middle character of s to another printable one.
func flipMiddle(s string) string {
	if s == "" {
		return "x"
	}
	b := []byte(s)
	i := len(b) / 2
	if b[i] == 'A' {
		b[i] = 'B'
	} else {
		b[i] = 'A'
	}
	return string(b)
}

func clipState(s string) string {
	if len(s) > 120 {
		return fmt.Sprintf("%q… (%d bytes)", s[:120], len(s))
	}
	return fmt.Sprintf("%q", s)
}

// otherArguments returns tg's params with one argument changed to another
// value its schema offers (a second enum or example value), or a prompt's
// argument changed.
func otherArguments(tg *c.MRTRTarget) (map[string]any, string, bool) {
	args, _ := tg.Params["arguments"].(map[string]any)
	sargs, _ := tg.Params["arguments"].(map[string]string)
	switch {
	case tg.Method == "tools/call" && len(args) > 0:
		var schema struct {
			InputSchema struct {
				Properties map[string]struct {
					Enum     []any `json:"enum"`
					Examples []any `json:"examples"`
				} `json:"properties"`
			} `json:"inputSchema"`
		}
		_ = json.Unmarshal(tg.Tool, &schema)
		for _, name := range sortedKeys(args) {
			p := schema.InputSchema.Properties[name]
			for _, alt := range append(p.Enum, p.Examples...) {
				if fmt.Sprint(alt) != fmt.Sprint(args[name]) {
					na := map[string]any{}
					for k, v := range args {
						na[k] = v
					}
					na[name] = alt
					return map[string]any{"name": tg.Name, "arguments": na}, fmt.Sprintf("%s=%v instead of %v", name, alt, args[name]), true
				}
			}
		}
	case tg.Method == "prompts/get" && len(sargs) > 0:
		for _, name := range sortedKeys(sargs) {
			na := map[string]string{}
			for k, v := range sargs {
				na[k] = v
			}
			na[name] = sargs[name] + "-other"
			return map[string]any{"name": tg.Name, "arguments": na}, fmt.Sprintf("%s=%q", name, na[name]), true
		}
	}
	return nil, "", false
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

const extraKey = "mcpconform-unrecognised"

// bogusAnswers are structurally wrong answers for an input request method.
func bogusAnswers(method string) []struct{ name, body string } {
	switch method {
	case "elicitation/create":
		return []struct{ name, body string }{
			{"without action", `{"content":{}}`},
			{"of the wrong kind (a roots/list result)", `{"roots":[]}`},
		}
	case "sampling/createMessage":
		return []struct{ name, body string }{
			{"without role and content", `{"model":"mcpconform"}`},
			{"of the wrong kind (an elicitation result)", `{"action":"accept","content":{}}`},
		}
	}
	return []struct{ name, body string }{
		{"without roots", `{}`},
		{"of the wrong kind (an elicitation result)", `{"action":"accept","content":{}}`},
	}
}
