package conform

import (
	"errors"
	"fmt"

	"github.com/mcpconform/mcpconform/internal/jsonrpc"
	"github.com/mcpconform/mcpconform/internal/judge"
	"github.com/mcpconform/mcpconform/internal/session"
	"github.com/mcpconform/mcpconform/internal/wire"
)

// The answers a check accepts (internal/judge answers.go): a well-formed
// JSON-RPC error is an answer, never a malformed result; an error or a
// stall from the server's own backend is the environment, never a FAIL of
// a MUST. Every check that judges a successful result routes a response
// that is not one through ErrorAnswer / NoResult / Environment.

// EnvironmentPrefix starts the message of every NA verdict (and of every
// note) an environment-dependent outcome caused: the server's backend
// failed, or a tool stalled while the server kept answering.
const EnvironmentPrefix = "environment: "

// ErrorAnswer returns the well-formed JSON-RPC error that answered resp's
// request (nil, false when none did). On Streamable HTTP it also finds an
// error the session could not attribute to the request because its id is
// null or absent (the server could not read the request's id: a body
// refused at its size limit, TOL-14): the one JSON-RPC response of the
// request's own exchange.
func ErrorAnswer(resp *session.Response) (*jsonrpc.Message, bool) {
	if resp == nil {
		return nil, false
	}
	if resp.Msg != nil {
		return resp.Msg, judge.ErrorAnswer(resp.Msg)
	}
	var found *jsonrpc.Message
	for _, f := range resp.Exchange {
		if f.Dir != wire.In || f.Kind != wire.KindMessage || f.Truncated {
			continue
		}
		m, ok := f.Decoded.(*jsonrpc.Message)
		if !ok {
			var err error
			if m, err = jsonrpc.Decode(f.Raw); err != nil {
				continue
			}
		}
		if m.Kind() != jsonrpc.KindResponse {
			continue
		}
		if found != nil || !judge.ErrorAnswer(m) || m.HasID && !m.ID.IsNull() {
			return nil, false
		}
		found = m
	}
	return found, found != nil
}

// NoResult ends the check when resp, the answer to what (a request whose
// successful result the check's requirement judges), is a well-formed
// JSON-RPC error: there is nothing for the requirement to judge. An error
// naming a failure of the server's backend is the environment
// (Environment); any other is NA with the error as the reason. It returns
// when resp is no such error (a result, or an answer the caller judges).
func (t *T) NoResult(what string, resp *session.Response) {
	m, ok := ErrorAnswer(resp)
	if !ok {
		return
	}
	if why, backend := judge.Backend(m); backend {
		t.Environment("%s was answered with %s: no result to judge (a well-formed JSON-RPC error is a conforming answer)", what, why)
	}
	t.NA("%s was answered with %s, a well-formed JSON-RPC error: no result for %s to judge", what, judge.DescribeError(m), t.Req.ID)
}

// Environment ends the check for an outcome the server's environment
// caused (its backend unreachable or refusing it, a tool stalled in its
// own work while the server kept answering): NA with the reason; under
// --strict a WARN citing judge.EnvironmentTolerance, so that a strict run
// still shows it.
func (t *T) Environment(format string, args ...any) {
	msg := EnvironmentPrefix + fmt.Sprintf(format, args...)
	if t.Env.Strict {
		t.Deviation(judge.Judgement{Requirement: t.Req.ID, Verdict: judge.WARN,
			Note: "tolerated: " + judge.EnvironmentTolerance + " (an outcome of the server's environment, shown under --strict)"},
			"an answer from the server itself", msg, "%s", msg)
	}
	t.NA("%s", msg)
}

// EnvironmentNote records an environment-dependent outcome without ending
// the check (the protocol part of what it judges may still pass): a note;
// under --strict a warning citing judge.EnvironmentTolerance.
func (t *T) EnvironmentNote(format string, args ...any) {
	msg := EnvironmentPrefix + fmt.Sprintf(format, args...)
	if t.Env.Strict {
		t.Warn("%s (tolerated: %s, shown under --strict)", msg, judge.EnvironmentTolerance)
		return
	}
	t.Note("%s", msg)
}

// BackendAnswer says whether resp is the server's report that its own
// backend failed (judge.Backend), and why.
func BackendAnswer(resp *session.Response) (string, bool) {
	m, ok := ErrorAnswer(resp)
	if !ok {
		if resp == nil || resp.Msg == nil {
			return "", false
		}
		m = resp.Msg
	}
	return judge.Backend(m)
}

// ToolStall decides a tools/call of tool name that got no answer within
// the timeout: when the server still answers its probe request and the
// same tool, called again with its ordinary arguments (args: the ones the
// checks call it with), stalls too, the tool is slow at its own work (a
// network step, a backend that does not answer): the environment, and why
// says so. It returns "", false when the server does not answer its probe
// (the caller's crash verdict), when args is nil, and when the ordinary
// call is answered (the silence is the input's). A tool found stalling is
// remembered for the run's revision: it is not asked again.
func (t *T) ToolStall(s *session.Session, name string, args map[string]any, o *session.CallOptions) (why string, stalled bool) {
	m, p := t.Probe()
	if resp, err := s.Call(t.Ctx, m, p, nil); err != nil || resp.Msg == nil {
		return "", false
	}
	if args == nil {
		return "", false
	}
	key := string(t.Rev) + "\x00" + name
	if v, ok := t.Env.stalledTools.Load(key); ok {
		return v.(string), true
	}
	resp, err := s.Call(t.Ctx, "tools/call", map[string]any{"name": name, "arguments": args}, o)
	if err == nil && resp.Msg != nil || !errors.Is(err, wire.ErrTimeout) {
		return "", false
	}
	why = fmt.Sprintf("tools/call %s stalls on its ordinary arguments too (no answer within %s) while the server answers %s at once: a slow tool (its own work, such as a network step), not a hang the input caused", name, s.Timeout(), m)
	t.Env.stalledTools.Store(key, why)
	return why, true
}

// AddressedToNoRequest decides an error addressed to no request (id null or
// omitted) that came after notifications the check sent (after what): the
// server could not process one (a malformed cancellation) and answered it
// like unreadable input. Over HTTP the reply to a POSTed notification is
// HTTP-004's, which judges its status and body (a note here); on stdio it
// is a WARN citing TOL-14, not the FAIL of an answered notification. It reports
// whether m was such an error (the caller goes on to the next message).
//
// On stdio only the codes of input that could not be processed qualify
// (-32700, -32600, -32602): -32601 or -32603 to a notification answers it.
func AddressedToNoRequest(t *T, f wire.Frame, m *jsonrpc.Message, after string) bool {
	if m == nil || !m.IsError() || m.HasID && !m.ID.IsNull() {
		return false
	}
	code, _ := m.ErrorCode()
	if !t.HTTP() && code != jsonrpc.CodeParseError && code != jsonrpc.CodeInvalidRequest && code != jsonrpc.CodeInvalidParams {
		return false
	}
	if t.HTTP() {
		t.Note("an error addressed to no request answered %s (%s): the reply's HTTP status is judged under HTTP-004", after, Clip(f.Raw))
		return true
	}
	t.Evidence(f)
	t.Warn("an error addressed to no request answered %s (%s): a notification gets no response, but a server that could not process one answered it like unreadable input (TOL-14)", after, Clip(f.Raw))
	return true
}
