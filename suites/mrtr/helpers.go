package mrtr

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	c "github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/session"
)

// Caps on the requests the discovery of MRTR targets makes.
const (
	maxPrompts   = 20
	maxResources = 20
	maxTools     = 30
)

// target is a tools/call, prompts/get or resources/read request that the
// server answered with input_required when the harness declared every
// client capability.
type target struct {
	Method string
	Name   string         // tool or prompt name, resource uri
	Params map[string]any // the original params (no _meta)
	Source string         // where tool arguments came from ("config", "derived")
	Tool   json.RawMessage
	First  *session.Response
	// Interim is the first answer (input_required).
	Interim *session.Interim
}

func (tg *target) what() string { return tg.Method + " " + tg.Name }

// hasState reports whether the first interim carries a string requestState.
func (tg *target) hasState() bool { return tg.Interim.StateIsStr }

// asksFor reports whether the first interim asks for an input request of
// method m.
func (tg *target) asksFor(m string) bool {
	for _, k := range tg.Interim.Keys() {
		if tg.Interim.RequestMethod(k) == m {
			return true
		}
	}
	return false
}

// discovery is what the probing of one revision found.
type discovery struct {
	targets []*target
	tried   []string // what was asked
	policy  []string // tools the call policy kept from being called
	noArgs  []string // tools without usable arguments
}

var discoveries = c.NewMemo[*discovery]("the MRTR target discovery")

// discover finds the MRTR targets of the server (once per revision and
// run, on the shared session).
func discover(t *c.T) *discovery {
	return discoveries.Get(t, func() *discovery { return findTargets(t) })
}

func findTargets(t *c.T) *discovery {
	d := &discovery{}
	s := t.Shared()
	try := func(method, name string, params map[string]any, tool json.RawMessage, source string) {
		d.tried = append(d.tried, method+" "+name)
		resp, err := s.CallMRTR(t.Ctx, method, params, session.AllClientCapabilities(), session.Retry{}, 0)
		if err != nil {
			return
		}
		if in, ok := session.ParseInterim(resp); ok {
			d.targets = append(d.targets, &target{Method: method, Name: name, Params: params, Tool: tool, Source: source, First: resp, Interim: in})
		}
	}
	if c.Declared(s, "prompts") {
		w := t.WalkList(s, "prompts/list")
		for i, p := range w.Items {
			name := c.ItemKey(p, "name")
			if name == "" || i >= maxPrompts {
				continue
			}
			try("prompts/get", name, map[string]any{"name": name, "arguments": c.RequiredPromptArgs(p)}, nil, "")
		}
	}
	if c.Declared(s, "resources") {
		w := t.WalkList(s, "resources/list")
		for i, r := range w.Items {
			uri := c.ItemKey(r, "uri")
			if uri == "" || i >= maxResources {
				continue
			}
			try("resources/read", uri, map[string]any{"uri": uri}, nil, "")
		}
	}
	if c.Declared(s, "tools") {
		w := t.WalkList(s, "tools/list")
		called := 0
		for _, tool := range w.Items {
			name := c.ItemKey(tool, "name")
			if name == "" {
				continue
			}
			if ok, why := t.MayCall(tool); !ok {
				d.policy = append(d.policy, why)
				continue
			}
			args, source, ok := t.PacedArgs(tool, c.QuickWork)
			if !ok {
				d.noArgs = append(d.noArgs, name)
				continue
			}
			if called == maxTools {
				break
			}
			called++
			try("tools/call", name, map[string]any{"name": name, "arguments": args}, tool, source)
		}
	}
	return d
}

// targets returns the MRTR targets or ends the check NA with a reason that
// tells the user how to name an MRTR tool.
func targets(t *c.T) []*target {
	d := discover(t)
	if len(d.targets) > 0 {
		return d.targets
	}
	why := fmt.Sprintf("no tools/call, prompts/get or resources/read request was answered input_required by a client declaring elicitation, sampling and roots (%d asked)", len(d.tried))
	if len(d.policy) > 0 {
		why += fmt.Sprintf("; %d tools were not called: %s", len(d.policy), d.policy[0])
		if len(d.policy) > 1 {
			why += " (and others)"
		}
	}
	if len(d.noArgs) > 0 {
		why += fmt.Sprintf("; no arguments could be derived for %s", strings.Join(d.noArgs, ", "))
	}
	why += ". To check a tool that asks for input, allow it (--call-tools all, or call_tools in --config) and give its arguments under sample_arguments in --config"
	if len(d.policy) > 0 && strings.HasPrefix(d.policy[0], "tool ") {
		t.PolicyNA("%s", why)
	}
	t.NA("%s", why)
	return nil
}

// complete runs the round-trip of tg with every capability declared; it
// returns the trace, or nil (with a note) when the flow does not complete
// with correct answers: negative checks need that baseline (MRTR-005
// judges it).
func complete(t *c.T, s *session.Session, tg *target) *session.Trace {
	tr := s.RoundTrip(t.Ctx, tg.Method, tg.Params, nil)
	if tr.Complete && session.ResultTypeOf(tr.Final) == "complete" {
		return tr
	}
	why := tr.Problem
	if why == "" && tr.Final != nil {
		why = tr.Final.Describe()
	}
	t.Note("%s: the flow did not complete with correct answers (%s); not judged here (MRTR-002/003/005 judge the flow)", tg.what(), c.Clip([]byte(why)))
	return nil
}

// flow is a target whose round trip completed with correct answers: its
// trace and first retry.
type flow struct {
	tg    *target
	tr    *session.Trace
	retry session.Retry
}

// completedFlows runs each target keep selects to completion (see
// complete) and returns those that completed after at least one retry.
func completedFlows(t *c.T, s *session.Session, keep func(*target) bool) []flow {
	var out []flow
	for _, tg := range targets(t) {
		if !keep(tg) {
			continue
		}
		tr := complete(t, s, tg)
		if tr == nil {
			continue
		}
		if retry, ok := firstRetry(tr); ok {
			out = append(out, flow{tg, tr, retry})
		}
	}
	return out
}

// asksInput tells whether the target's first answer holds input requests.
func (tg *target) asksInput() bool { return len(tg.Interim.Requests) > 0 }

// firstRetry returns the state and answers sent with the second request of
// a completed trace (the answers to the first interim result).
func firstRetry(tr *session.Trace) (session.Retry, bool) {
	if len(tr.Rounds) < 2 {
		return session.Retry{}, false
	}
	return tr.Rounds[1].Retry, true
}

// capabilityFor names the client capability an input request needs.
func capabilityFor(method string) string {
	switch method {
	case "elicitation/create":
		return "elicitation"
	case "sampling/createMessage":
		return "sampling"
	case "roots/list":
		return "roots"
	}
	return ""
}

// inputRequest is one decoded entry of inputRequests.
type inputRequest struct {
	Key    string
	Raw    json.RawMessage
	Obj    map[string]json.RawMessage
	Method string
	Params map[string]json.RawMessage
}

func decodeRequests(in *session.Interim) []inputRequest {
	var out []inputRequest
	for _, k := range in.Keys() {
		r := inputRequest{Key: k, Raw: in.Requests[k]}
		_ = json.Unmarshal(r.Raw, &r.Obj)
		_ = json.Unmarshal(r.Obj["method"], &r.Method)
		_ = json.Unmarshal(r.Obj["params"], &r.Params)
		out = append(out, r)
	}
	return out
}

func (r inputRequest) str(key string) (string, bool) {
	var s string
	raw := r.Params[key]
	if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// duplicateKeys returns the paths of object members that appear more than
// once in raw JSON.
func duplicateKeys(raw []byte) []string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var dups []string
	var walk func(path string) error
	walk = func(path string) error {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch d := tok.(type) {
		case json.Delim:
			switch d {
			case '{':
				seen := map[string]bool{}
				for dec.More() {
					kt, err := dec.Token()
					if err != nil {
						return err
					}
					k, _ := kt.(string)
					if seen[k] {
						dups = append(dups, path+"/"+k)
					}
					seen[k] = true
					if err := walk(path + "/" + k); err != nil {
						return err
					}
				}
				_, err = dec.Token()
				return err
			case '[':
				for i := 0; dec.More(); i++ {
					if err := walk(fmt.Sprintf("%s/%d", path, i)); err != nil {
						return err
					}
				}
				_, err = dec.Token()
				return err
			}
		}
		return nil
	}
	if err := walk(""); err != nil && err != io.EOF {
		return dups
	}
	sort.Strings(dups)
	return dups
}

// withRetry sends tg's original request (params may replace them) with
// caps and the retry members.
func send(t *c.T, s *session.Session, method string, params map[string]any, caps map[string]any, r session.Retry) (*session.Response, error) {
	if caps == nil {
		caps = session.AllClientCapabilities()
	}
	return s.CallMRTR(t.Ctx, method, params, caps, r, 0)
}

// outcome classifies an answer: "error", "input_required", "complete"
// (any other result), or "none" (no JSON-RPC response).
func outcome(resp *session.Response, err error) string {
	switch {
	case err != nil || resp == nil || resp.Msg == nil:
		return "none"
	case resp.IsError():
		return "error"
	case session.ResultTypeOf(resp) == session.ResultTypeInputRequired:
		return "input_required"
	case resp.IsResult():
		return "complete"
	}
	return "none"
}
