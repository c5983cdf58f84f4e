package conform

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/mcpconform/mcpconform/internal/jsonrpc"
	"github.com/mcpconform/mcpconform/internal/result"
	"github.com/mcpconform/mcpconform/internal/session"
	"github.com/mcpconform/mcpconform/internal/wire"
)

// Incoming returns the server→harness frames of session s recorded since
// the check started.
func (t *T) Incoming(s *session.Session) []wire.Frame {
	var out []wire.Frame
	name := s.Conn().Name()
	for _, f := range t.Since() {
		if f.Conn == name && f.Dir == wire.In {
			out = append(out, f)
		}
	}
	return out
}

// AllIncoming returns every server→harness frame of session s recorded in
// the run, from the connection's start.
func (t *T) AllIncoming(s *session.Session) []wire.Frame {
	return t.Env.Recorder().OnConnWhere(0, s.Conn().Name(), func(f *wire.Frame, _ int) bool { return f.Dir == wire.In })
}

// Declared reports whether the server declared capability name (e.g.
// "tools") in the session's initialize or discover result.
func Declared(s *session.Session, name string) bool {
	caps := s.Capabilities()
	v, ok := caps[name]
	return ok && string(v) != "null"
}

// SubCapability reports capabilities[name][sub] == true.
func SubCapability(s *session.Session, name, sub string) bool {
	var obj map[string]json.RawMessage
	if json.Unmarshal(s.Capabilities()[name], &obj) != nil {
		return false
	}
	return string(obj[sub]) == "true"
}

// ExpectErrorCode asserts resp is a JSON-RPC error with one of the codes.
func (t *T) ExpectErrorCode(what string, resp *session.Response, codes ...int64) int64 {
	code, ok := resp.ErrorCode()
	want := fmt.Sprintf("JSON-RPC error %v", codes)
	if !ok || !slices.Contains(codes, code) {
		t.recordClaim(resp, result.Claim{Kind: result.ClaimError, Codes: codes, OrResult: t.orResult})
	}
	if !ok {
		t.Violation(want, resp.Describe(), "%s: expected a JSON-RPC error", what)
	}
	for _, c := range codes {
		if c == code {
			return code
		}
	}
	t.Violation(want, resp.Describe(), "%s: wrong error code %d", what, code)
	return 0
}

// ClaimsUndeclared says that the claims the check records next hold for
// a server that does not declare capability (its methods must be
// refused): a script run against one that declares it cannot tell.
func (t *T) ClaimsUndeclared(capability string) { t.undeclared = capability }

// ExpectErrorCodeIfError is ExpectErrorCode for an answer that was an
// error where a result would have been as good (its claim says so).
func (t *T) ExpectErrorCodeIfError(what string, resp *session.Response, codes ...int64) int64 {
	t.orResult = true
	defer func() { t.orResult = false }()
	return t.ExpectErrorCode(what, resp, codes...)
}

// ExpectStatus asserts the HTTP status of resp (no-op on stdio).
func (t *T) ExpectStatus(what string, resp *session.Response, statuses ...int) {
	if resp == nil || resp.Reply == nil {
		return
	}
	for _, s := range statuses {
		if resp.Reply.Status == s {
			return
		}
	}
	t.recordClaim(resp, result.Claim{Kind: result.ClaimStatus, Statuses: statuses})
	t.Violation(fmt.Sprintf("HTTP status %v", statuses), resp.Describe(), "%s: wrong HTTP status %d", what, resp.Reply.Status)
}

// Refused ends the check with a violation whose claim is that resp had
// to be a JSON-RPC error (any code): mcpconform repro replays its request
// and judges the answer the same way.
func (t *T) Refused(resp *session.Response, expected, actual, format string, args ...any) {
	t.recordClaim(resp, result.Claim{Kind: result.ClaimError})
	t.Violation(expected, actual, format, args...)
}

// RefusedWith is Refused for a check that goes on to require one of
// codes (ExpectErrorCode): the claim carries them, so a script does not
// take an error with another code for a conforming answer.
func (t *T) RefusedWith(resp *session.Response, codes []int64, expected, actual, format string, args ...any) {
	t.recordClaim(resp, result.Claim{Kind: result.ClaimError, Codes: codes})
	t.Violation(expected, actual, format, args...)
}

// CheckRefused is Check whose claim, when ok is false, is that resp had
// to be a JSON-RPC error (Refused).
func (t *T) CheckRefused(ok bool, resp *session.Response, expected, actual, format string, args ...any) {
	if !ok {
		t.Refused(resp, expected, actual, format, args...)
	}
}

// ModelClaim records, for a check that judges members of answers against
// the message model, the first answer it found wrong (or the one answer
// it judges): mcpconform repro replays its request and judges the member
// the verdict names, where the model finds that member wrong (nothing
// else: a verdict about another member gets no judgement from it). A
// claim is no evidence: it claims no frame for the requirement.
func (t *T) ModelClaim(resp *session.Response) {
	if t.out.Claim == nil {
		t.recordClaim(resp, result.Claim{Kind: result.ClaimModel})
	}
}

// StatusClaim records, before a violation about resp's HTTP status, that
// its status had to be one of statuses (for repro).
func (t *T) StatusClaim(resp *session.Response, statuses ...int) {
	t.recordClaim(resp, result.Claim{Kind: result.ClaimStatus, Statuses: statuses})
}

// recordClaim records what a violation about resp asserts (for repro), when
// resp carried an answer (its frame).
func (t *T) recordClaim(resp *session.Response, c result.Claim) {
	if resp == nil {
		return
	}
	c.Answer = resp.Frame.Seq
	c.Undeclared = t.undeclared
	if c.Answer == 0 && c.Kind == result.ClaimStatus {
		// no JSON-RPC answer (a 401 or 405 without a body): the
		// exchange's first frame the server sent
		for _, f := range resp.Exchange {
			if f.Dir == wire.In {
				c.Answer = f.Seq
				break
			}
		}
	}
	if c.Answer == 0 {
		return
	}
	t.out.Claim = &c
}

// ResultObject returns the result of resp as an object, or a violation.
func (t *T) ResultObject(what string, resp *session.Response) map[string]json.RawMessage {
	if !resp.IsResult() {
		t.recordClaim(resp, result.Claim{Kind: result.ClaimResult})
		t.Violation("a result", resp.Describe(), "%s: expected a result", what)
	}
	obj := resp.Msg.ResultObject()
	if obj == nil {
		t.Violation("a JSON object result", resp.Describe(), "%s: result is not an object", what)
	}
	return obj
}

// Probe returns a cheap request every server of the revision must answer
// with a result: ping (legacy) or server/discover (modern).
func (t *T) Probe() (method string, params any) {
	if t.Modern() {
		return "server/discover", nil
	}
	return "ping", nil
}

// Battery sends a small set of ordinary requests on s: the probe, the
// declared list methods, and an unknown method. It returns the responses
// that came; a missing one is not judged here (it is another requirement's
// verdict, e.g. RPC-007 for the unknown method), so one defect does not
// fail several checks.
func (t *T) Battery(s *session.Session) []*session.Response {
	var out []*session.Response
	try := func(method string, params any) {
		if resp, err := t.TryCall(s, method, params, nil); err == nil && resp.Msg != nil {
			out = append(out, resp)
		}
	}
	m, p := t.Probe()
	try(m, p)
	for _, l := range []struct{ capability, method string }{{"tools", "tools/list"}, {"prompts", "prompts/list"}, {"resources", "resources/list"}} {
		if Declared(s, l.capability) {
			try(l.method, map[string]any{})
		}
	}
	try("mcpconform/no-such-method", map[string]any{})
	if len(out) == 0 {
		t.Error("none of the ordinary requests (%s, lists, an unknown method) got a JSON-RPC response; nothing to judge", m)
	}
	return out
}

// Decode is jsonrpc.Decode for frames.
func Decode(f wire.Frame) (*jsonrpc.Message, error) { return jsonrpc.Decode(f.Raw) }

// Clip renders server bytes for a verdict message: at most 400 bytes,
// "(empty)" for nothing. Reports escape it; it is never trusted.
func Clip(b []byte) string {
	if len(b) == 0 {
		return "(empty)"
	}
	if len(b) > 400 {
		return string(b[:400]) + "…"
	}
	return string(b)
}
