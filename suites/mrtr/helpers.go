package mrtr

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"

	c "github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/session"
)

// hasState reports whether the first interim carries a string requestState.
func hasState(tg *c.MRTRTarget) bool { return tg.Interim.StateIsStr }

// complete runs the round-trip of tg with every capability declared; it
// returns the trace, or nil (with a note) when the flow does not complete
// with correct answers: negative checks need that baseline (MRTR-005
// judges it).
func complete(t *c.T, s *session.Session, tg *c.MRTRTarget) *session.Trace {
	tr := s.RoundTrip(t.Ctx, tg.Method, tg.Params, nil)
	if tr.Complete && session.ResultTypeOf(tr.Final) == "complete" {
		return tr
	}
	why := tr.Problem
	if why == "" && tr.Final != nil {
		why = tr.Final.Describe()
	}
	t.Note("%s: the flow did not complete with correct answers (%s); not judged here (MRTR-002/003/005 judge the flow)", tg.What(), c.Clip([]byte(why)))
	return nil
}

// flow is a target whose round trip completed with correct answers: its
// trace and first retry.
type flow struct {
	tg    *c.MRTRTarget
	tr    *session.Trace
	retry session.Retry
}

// completedFlows runs each target keep selects to completion (see
// complete) and returns those that completed after at least one retry.
func completedFlows(t *c.T, s *session.Session, keep func(*c.MRTRTarget) bool) []flow {
	var out []flow
	for _, tg := range c.MRTRTargets(t) {
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
func asksInput(tg *c.MRTRTarget) bool { return len(tg.Interim.Requests) > 0 }

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
