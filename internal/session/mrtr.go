package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/internal/jsonrpc"
	"github.com/mcpconform/mcpconform/internal/wire"
)

// Multi round-trip requests (2026-07-28, SEP-2322): a tools/call,
// prompts/get or resources/read may be answered with an interim result
// {resultType: "input_required", inputRequests?, requestState?}; the client
// answers each input request and retries the original request with a new
// id, the original params, inputResponses and the requestState echoed byte
// for byte. This file is the harness's retry driver.

// ResultTypeInputRequired is the resultType of an interim MRTR result.
const ResultTypeInputRequired = "input_required"

// MRTRMethods are the only methods that may answer input_required.
var MRTRMethods = []string{"tools/call", "prompts/get", "resources/read"}

// DefaultMaxRounds caps a round-trip when MRTROptions.MaxRounds is 0: the
// spec sets no limit on rounds (the mrtr page's server requirements).
const DefaultMaxRounds = 8

// AllClientCapabilities declares every capability an input request can
// need: form and URL elicitation, sampling with tools and context, roots.
func AllClientCapabilities() map[string]any {
	return map[string]any{
		"elicitation": map[string]any{"form": map[string]any{}, "url": map[string]any{}},
		"sampling":    map[string]any{"tools": map[string]any{}, "context": map[string]any{}},
		"roots":       map[string]any{"listChanged": true},
	}
}

// MetaWithCapabilities returns the modern _meta of s declaring caps as this
// request's clientCapabilities (nil: {}).
func (s *Session) MetaWithCapabilities(caps map[string]any) map[string]any {
	meta := s.ModernMeta()
	if caps == nil {
		caps = map[string]any{}
	}
	meta[MetaClientCapabilities] = caps
	return meta
}

// Interim is a decoded input_required result.
type Interim struct {
	// Raw is the result object as received.
	Raw json.RawMessage
	// Requests holds inputRequests (nil when absent or not an object);
	// RequestsRaw is the member as received (nil when absent).
	Requests    map[string]json.RawMessage
	RequestsRaw json.RawMessage
	// State is the requestState member as received: the raw JSON token,
	// echoed verbatim on the retry (nil when absent). StateString is its
	// value when it is a string.
	State       json.RawMessage
	StateString string
	StateIsStr  bool
}

// Keys returns the input request keys in order.
func (in *Interim) Keys() []string {
	keys := make([]string, 0, len(in.Requests))
	for k := range in.Requests {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// RequestMethod returns the method of input request key ("" when absent).
func (in *Interim) RequestMethod(key string) string {
	var r struct {
		Method string `json:"method"`
	}
	_ = json.Unmarshal(in.Requests[key], &r)
	return r.Method
}

// ResultTypeOf returns result.resultType of a response ("" when absent).
func ResultTypeOf(resp *Response) string {
	if !resp.IsResult() {
		return ""
	}
	var r struct {
		ResultType string `json:"resultType"`
	}
	_ = json.Unmarshal(resp.Msg.Result, &r)
	return r.ResultType
}

// ParseInterim decodes resp as an input_required result; ok is false for
// anything else (an error, a complete result).
func ParseInterim(resp *Response) (*Interim, bool) {
	if ResultTypeOf(resp) != ResultTypeInputRequired {
		return nil, false
	}
	obj := resp.Msg.ResultObject()
	in := &Interim{Raw: resp.Msg.Result}
	if raw, ok := obj["inputRequests"]; ok {
		in.RequestsRaw = raw
		var m map[string]json.RawMessage
		if strings.HasPrefix(strings.TrimSpace(string(raw)), "{") && json.Unmarshal(raw, &m) == nil {
			in.Requests = m
		}
	}
	if raw, ok := obj["requestState"]; ok {
		in.State = raw
		if json.Unmarshal(raw, &in.StateString) == nil && strings.HasPrefix(strings.TrimSpace(string(raw)), `"`) {
			in.StateIsStr = true
		}
	}
	return in, true
}

// Retry carries what a retry adds to the original params. Raw members are
// sent verbatim (so a check can send malformed values and the driver can
// echo requestState byte for byte); nil members are left out.
type Retry struct {
	InputResponses json.RawMessage
	RequestState   json.RawMessage
}

// CallMRTR sends method with params (an object without _meta, inputResponses
// and requestState), declaring caps as this request's clientCapabilities in
// the modern era, and the members of r spliced in verbatim. Every call gets
// a new id.
func (s *Session) CallMRTR(ctx context.Context, method string, params map[string]any, caps map[string]any, r Retry, timeout time.Duration) (*Response, error) {
	var p json.RawMessage
	var err error
	if s.Modern() {
		p, err = withMeta(params, s.MetaWithCapabilities(caps))
	} else {
		if params == nil {
			params = map[string]any{}
		}
		p, err = json.Marshal(params)
	}
	if err != nil {
		return nil, fmt.Errorf("params: %w", err)
	}
	p = splice(p, "inputResponses", r.InputResponses)
	p = splice(p, "requestState", r.RequestState)
	id := s.NewID()
	payload := jsonrpc.Request(id, method, p)
	return s.CallRaw(ctx, id, payload, &wire.SendOptions{Header: s.headersFor(method, p)}, timeout)
}

// splice appends "key":raw to the JSON object obj (nothing when raw is nil).
func splice(obj json.RawMessage, key string, raw json.RawMessage) json.RawMessage {
	if raw == nil {
		return obj
	}
	trimmed := strings.TrimSpace(string(obj))
	body := strings.TrimSuffix(trimmed, "}")
	kb, _ := json.Marshal(key)
	sep := ","
	if strings.TrimSpace(body) == "{" {
		sep = ""
	}
	return json.RawMessage(body + sep + string(kb) + ":" + string(raw) + "}")
}

// Answerer answers one input request (its raw {method, params} object):
// the InputResponse to send.
type Answerer func(key string, request json.RawMessage) (json.RawMessage, error)

// MRTROptions tune a round-trip.
type MRTROptions struct {
	// Caps are the clientCapabilities of every round (nil: AllClientCapabilities).
	Caps map[string]any
	// MaxRounds caps the requests sent (0: DefaultMaxRounds).
	MaxRounds int
	// Answer answers the input requests (nil: ScriptedAnswer).
	Answer Answerer
	// Timeout bounds each request (0: the session's).
	Timeout time.Duration
	// Extra answers are added to every retry's inputResponses (keys the
	// server never asked for).
	Extra map[string]json.RawMessage
	// Stop, when set, is called after each interim result; returning true
	// ends the round-trip there (the trace is then not Complete).
	Stop func(round int, in *Interim) bool
}

// Round is one request of a round-trip and its answer.
type Round struct {
	Retry   Retry
	Resp    *Response
	Interim *Interim // nil unless the answer was input_required
}

// Trace is the outcome of a round-trip.
type Trace struct {
	Method string
	Params map[string]any
	Rounds []Round
	// Final is the last response (nil when none came).
	Final *Response
	// Complete is set when the last answer is a result that is not
	// input_required.
	Complete bool
	// Problem says why the round-trip stopped without a final answer ("" when
	// it got one: a result or a JSON-RPC error). Malformed is set when the
	// reason is an interim result the driver cannot follow (no inputRequests
	// and no requestState, an inputRequests that is not an object, a
	// requestState that is not a string, an input request it cannot answer).
	Problem   string
	Malformed bool
	// Err is the transport error of the last request, if any.
	Err error
}

// Interims returns the interim results of the trace in order.
func (tr *Trace) Interims() []*Interim {
	var out []*Interim
	for _, r := range tr.Rounds {
		if r.Interim != nil {
			out = append(out, r.Interim)
		}
	}
	return out
}

// LastRetry returns the retry members of the last round that carried some
// (the answers that completed the flow), and whether there was one.
func (tr *Trace) LastRetry() (Retry, bool) {
	for i := len(tr.Rounds) - 1; i >= 0; i-- {
		r := tr.Rounds[i].Retry
		if r.InputResponses != nil || r.RequestState != nil {
			return r, true
		}
	}
	return Retry{}, false
}

// RoundTrip sends method with params and follows input_required results:
// it answers every input request (ScriptedAnswer by default) and retries
// with a new id, the original params, inputResponses and the requestState
// echoed byte for byte, until a complete result, an error, or the round
// cap.
func (s *Session) RoundTrip(ctx context.Context, method string, params map[string]any, o *MRTROptions) *Trace {
	if o == nil {
		o = &MRTROptions{}
	}
	caps := o.Caps
	if caps == nil {
		caps = AllClientCapabilities()
	}
	maxRounds := o.MaxRounds
	if maxRounds <= 0 {
		maxRounds = DefaultMaxRounds
	}
	answer := o.Answer
	if answer == nil {
		answer = ScriptedAnswer
	}
	tr := &Trace{Method: method, Params: params}
	var next Retry
	for round := 0; ; round++ {
		if round == maxRounds {
			tr.Problem = fmt.Sprintf("still input_required after %d requests (the driver's cap)", maxRounds)
			return tr
		}
		resp, err := s.CallMRTR(ctx, method, params, caps, next, o.Timeout)
		tr.Rounds = append(tr.Rounds, Round{Retry: next, Resp: resp})
		tr.Final, tr.Err = resp, err
		if err != nil {
			tr.Problem = err.Error()
			return tr
		}
		in, ok := ParseInterim(resp)
		if !ok {
			tr.Complete = resp.IsResult()
			return tr
		}
		tr.Rounds[len(tr.Rounds)-1].Interim = in
		if o.Stop != nil && o.Stop(round, in) {
			tr.Problem = "stopped by the caller"
			return tr
		}
		switch {
		case in.RequestsRaw != nil && in.Requests == nil:
			tr.Problem, tr.Malformed = "inputRequests is not an object", true
			return tr
		case in.State != nil && !in.StateIsStr:
			tr.Problem, tr.Malformed = "requestState is not a string", true
			return tr
		case in.RequestsRaw == nil && in.State == nil:
			tr.Problem, tr.Malformed = "an input_required result with neither inputRequests nor requestState", true
			return tr
		}
		next = Retry{RequestState: in.State}
		if in.Requests != nil {
			answers := map[string]json.RawMessage{}
			for _, k := range in.Keys() {
				a, err := answer(k, in.Requests[k])
				if err != nil {
					tr.Problem, tr.Malformed = fmt.Sprintf("input request %q: %v", k, err), true
					return tr
				}
				answers[k] = a
			}
			for k, v := range o.Extra {
				if _, asked := answers[k]; !asked {
					answers[k] = v
				}
			}
			b, _ := json.Marshal(answers)
			next.InputResponses = b
		}
	}
}

// ErrUnanswerable is returned by ScriptedAnswer for an input request it
// cannot answer (an unknown method, params that are not an object).
var ErrUnanswerable = errors.New("no scripted answer")

// ScriptedAnswer answers an input request the way a cooperative user and
// host would: an accepted form with a value for every field it can fill
// from requestedSchema, an accepted URL elicitation, a short assistant
// text for sampling, one root for roots/list.
func ScriptedAnswer(_ string, request json.RawMessage) (json.RawMessage, error) {
	var r struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal(request, &r); err != nil {
		return nil, fmt.Errorf("%w: the input request is not an object", ErrUnanswerable)
	}
	switch r.Method {
	case "elicitation/create":
		var p struct {
			Mode            string          `json:"mode"`
			RequestedSchema json.RawMessage `json:"requestedSchema"`
		}
		if json.Unmarshal(r.Params, &p) != nil {
			return nil, fmt.Errorf("%w: elicitation params are not an object", ErrUnanswerable)
		}
		if p.Mode == "url" {
			return json.RawMessage(`{"action":"accept"}`), nil
		}
		content := FormAnswer(p.RequestedSchema)
		b, _ := json.Marshal(map[string]any{"action": "accept", "content": content})
		return b, nil
	case "sampling/createMessage":
		return json.RawMessage(`{"role":"assistant","content":{"type":"text","text":"mcpconform"},"model":"mcpconform","stopReason":"endTurn"}`), nil
	case "roots/list":
		return json.RawMessage(`{"roots":[{"uri":"file:///tmp/mcpconform","name":"mcpconform"}]}`), nil
	}
	return nil, fmt.Errorf("%w for method %q", ErrUnanswerable, r.Method)
}

// FormAnswer fills a form-mode requestedSchema: for each primitive property
// its default, its first enum (or oneOf const) value, or a plain value of
// its type that meets its bounds. Properties that are not primitive are
// left out.
func FormAnswer(schema json.RawMessage) map[string]any {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	out := map[string]any{}
	if json.Unmarshal(schema, &s) != nil {
		return out
	}
	for name, ps := range s.Properties {
		if v, ok := primitiveValue(ps); ok {
			out[name] = v
		}
	}
	return out
}

func primitiveValue(schema json.RawMessage) (any, bool) {
	var p struct {
		Type      string            `json:"type"`
		Default   json.RawMessage   `json:"default"`
		Enum      []json.RawMessage `json:"enum"`
		OneOf     []json.RawMessage `json:"oneOf"`
		Items     json.RawMessage   `json:"items"`
		Format    string            `json:"format"`
		MinLength int               `json:"minLength"`
		Minimum   *float64          `json:"minimum"`
	}
	if json.Unmarshal(schema, &p) != nil {
		return nil, false
	}
	if len(p.Default) > 0 {
		var v any
		if json.Unmarshal(p.Default, &v) == nil {
			return v, true
		}
	}
	if len(p.Enum) > 0 {
		var v any
		if json.Unmarshal(p.Enum[0], &v) == nil {
			return v, true
		}
	}
	if len(p.OneOf) > 0 {
		var c struct {
			Const json.RawMessage `json:"const"`
		}
		var v any
		if json.Unmarshal(p.OneOf[0], &c) == nil && json.Unmarshal(c.Const, &v) == nil {
			return v, true
		}
	}
	switch p.Type {
	case "string":
		v := "mcpconform"
		switch p.Format {
		case "email":
			v = "mcpconform@example.com"
		case "uri":
			v = "https://example.com/mcpconform"
		case "date":
			v = "2026-01-01"
		case "date-time":
			v = "2026-01-01T00:00:00Z"
		}
		for len(v) < p.MinLength {
			v += "x"
		}
		return v, true
	case "number", "integer":
		if p.Minimum != nil {
			return *p.Minimum, true
		}
		return 1, true
	case "boolean":
		return true, true
	case "array":
		if v, ok := primitiveValue(p.Items); ok {
			return []any{v}, true
		}
		var items struct {
			AnyOf []struct {
				Const json.RawMessage `json:"const"`
			} `json:"anyOf"`
		}
		var v any
		if json.Unmarshal(p.Items, &items) == nil && len(items.AnyOf) > 0 && json.Unmarshal(items.AnyOf[0].Const, &v) == nil {
			return []any{v}, true
		}
	}
	return nil, false
}
