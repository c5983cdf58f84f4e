package jsonrpc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/internal/catalog"
	c "github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/jsonrpc"
	"github.com/mcpconform/mcpconform/internal/session"
	"github.com/mcpconform/mcpconform/internal/wire"
)

// Raw sends: the checks in this package that inject malformed or unusual
// bytes send them through the session's connection directly, with the
// headers a well-formed message of the same method would carry, and read
// what came back from the session's events.

// rawHeaders returns the HTTP headers the session would send with a message
// for method ("" for none) on the current era.
func rawHeaders(s *session.Session, method string) http.Header {
	h := http.Header{}
	if s.Transport() != wire.HTTP {
		return h
	}
	if s.Modern() {
		h.Set(session.HeaderProtocolVersion, string(catalog.Modern))
		if method != "" {
			h.Set(session.HeaderMethod, method)
		}
		return h
	}
	if sid := s.SessionID(); sid != "" {
		h.Set(session.HeaderSessionID, sid)
	}
	if rev := s.Revision(); rev >= catalog.R20250618 {
		h.Set(session.HeaderProtocolVersion, string(rev))
	}
	return h
}

// sendRaw writes payload as is (stdio: plus one newline; HTTP: as the POST
// body) and, on HTTP, waits until the whole reply was read (bounded by the
// session's timeout, or limitWait for a payload of megabytes). It returns
// the HTTP reply head (nil on stdio).
func sendRaw(t *c.T, s *session.Session, payload []byte, method string) *wire.Reply {
	reply, err := trySendRaw(t, s, payload, method)
	if err != nil {
		t.Crashed("the server keeps serving", "the connection ended: "+err.Error(), "the server went away before or while receiving %s", c.Clip(payload))
	}
	return reply
}

// trySendRaw is sendRaw that returns the error of a connection that had
// ended (the server went away) instead of ending the check.
func trySendRaw(t *c.T, s *session.Session, payload []byte, method string) (*wire.Reply, error) {
	reply, err, fatal := sendRawOrFatal(t, s, payload, method)
	if fatal != nil {
		t.Error("%v", fatal)
	}
	return reply, err
}

// sendRawOrFatal is trySendRaw that returns the harness failure (fatal)
// instead of ending the check with it: it may run beside the check's own
// goroutine, which alone may end the check.
func sendRawOrFatal(t *c.T, s *session.Session, payload []byte, method string) (*wire.Reply, error, error) {
	wait := s.Timeout()
	if len(payload) > 1<<20 {
		wait = max(wait, limitWait) // megabytes take a loaded machine a while to send
	}
	ctx, cancel := context.WithTimeout(t.Ctx, wait)
	defer cancel()
	mark := t.Mark()
	if s.Transport() != wire.HTTP {
		payload = append(append([]byte(nil), payload...), '\n')
	}
	// the answers to requests sent before the server's next message
	// measure this input, not the server's pace: no latency samples
	s.MarkRaw()
	reply, err := s.Conn().Send(ctx, payload, &wire.SendOptions{Raw: true, Header: rawHeaders(s, method)})
	if err != nil {
		if closed, _ := s.Closed(); closed || errors.Is(err, wire.ErrClosed) {
			return nil, err, nil
		}
		if s.Transport() == wire.HTTP && t.Ctx.Err() == nil && !errors.Is(err, context.DeadlineExceeded) {
			// The server received the POST and dropped the connection
			// without an HTTP response: its fault (a response MUST be
			// JSON or SSE), judged by the caller as "no answer"; the next
			// request goes out on a fresh connection.
			t.Env.Recorder().Note(s.Conn().Name(), "the server dropped the connection without an HTTP response: "+err.Error())
			return &wire.Reply{Status: 0, Header: http.Header{}, Done: closedChan}, nil, nil
		}
		return nil, err, fmt.Errorf("sending %s: %v", c.Clip(payload), err)
	}
	if reply != nil {
		select {
		case <-reply.Done:
		case <-ctx.Done():
			unreadOf(t).Store(unreadKey(s, reply.Exchange), wait)
			t.Env.Recorder().Note(s.Conn().Name(), fmt.Sprintf("the reply (HTTP %d) did not end within %s: the harness stopped reading its body", reply.Status, wait))
		}
		// Done means the frames were queued, not that the session has
		// seen them: wait until it has (every reply yields a frame).
		s.WaitEvent(ctx, mark, func(e session.Event) bool { return e.Frame.Exchange == reply.Exchange })
	}
	return reply, nil, nil
}

// unread holds, per run, revision and transport, the HTTP exchanges whose
// body sendRaw stopped reading before it ended (connection name and
// exchange → the wait).
var unread = c.NewMemo[*sync.Map]("the unread replies")

func unreadOf(t *c.T) *sync.Map { return unread.Get(t, func() *sync.Map { return &sync.Map{} }) }

func unreadKey(s *session.Session, ex int64) string { return fmt.Sprintf("%s/%d", s.Conn().Name(), ex) }

// bodyWords describes the body of HTTP exchange ex as it came: its bytes,
// empty, or not read to its end (evidence must state the wire truly).
func bodyWords(t *c.T, s *session.Session, mark, ex int64) string {
	b := replyBody(s, mark, ex)
	if w, ok := unreadOf(t).Load(unreadKey(s, ex)); ok {
		if len(b) == 0 {
			return fmt.Sprintf("no body read within %s (the reply did not end)", w)
		}
		return fmt.Sprintf("body (read for %s, the reply did not end) %s", w, c.Clip(b))
	}
	if len(b) == 0 {
		return "an empty body"
	}
	return fmt.Sprintf("a %d-byte body %s", len(b), c.Clip(b))
}

// closedChan is the Done of a reply that never came (a dropped connection).
var closedChan = func() chan struct{} { ch := make(chan struct{}); close(ch); return ch }()

// dropped reports a reply sendRaw made up for a connection the server
// dropped without an HTTP response.
func dropped(r *wire.Reply) bool { return r != nil && r.Status == 0 }

// barrier sends the probe request on s and, when it is answered, waits the
// grace window: a server that handles its input in order has by then
// answered (or decided not to answer) everything sent before it. It reports
// whether the server answered: false means it died or stopped answering.
// The barrier is waited for the run's adaptive patience (conform's
// T.Patience: a multiple of the server's observed p99 latency, with a
// floor), not the per-response timeout: a hung server is recognised in the
// server's own measure. A server that is merely slow and answers after
// that still answers before the check ends: stillLost tells them apart.
func barrier(t *c.T, s *session.Session) bool {
	return barrierWithin(t, s, t.Patience())
}

// lostServer is a session whose barrier went unanswered after a probe
// (what: the crash as reported).
type lostServer struct {
	what string
	s    *session.Session
}

// stillLost returns the crashes of lost whose session is still silent (or
// closed) now, when the check has done its other probes: a server that
// answered after the patience ran out (a loaded machine) was slow, not
// hung, and gets a note instead.
func stillLost(t *c.T, lost []lostServer) []string {
	var out []string
	for _, l := range lost {
		if closed, _ := l.s.Closed(); closed || l.s.Stalled() {
			out = append(out, l.what)
			continue
		}
		t.Note("%s — but the server answered later (after the %s patience): slow, not hung", l.what, t.Patience())
	}
	return out
}

// barrierWithin is barrier with the wait for the barrier's answer (input of
// megabytes takes a loaded machine a while to get through before it).
func barrierWithin(t *c.T, s *session.Session, wait time.Duration) bool {
	m, p := t.Probe()
	resp, err := s.Call(t.Ctx, m, p, &session.CallOptions{Timeout: wait})
	if err != nil || resp == nil || resp.Msg == nil {
		return false
	}
	t.Quiet(s)
	return true
}

// probeParams returns the params the probe request needs in this era (the
// 2026-07-28 _meta for server/discover, none for ping).
func probeParams(s *session.Session) map[string]any {
	if s.Modern() {
		return map[string]any{"_meta": s.ModernMeta()}
	}
	return nil
}

// request encodes a request with params (nil: none).
func request(id jsonrpc.ID, method string, params map[string]any) []byte {
	if params == nil {
		return jsonrpc.Request(id, method, nil)
	}
	b, _ := json.Marshal(params)
	return jsonrpc.Request(id, method, json.RawMessage(b))
}

// received is one JSON-RPC message the server sent outside a call's
// matching: an element of a batch reply counts as its own message.
type received struct {
	msg   *jsonrpc.Message
	frame wire.Frame
}

// messagesSince returns the server messages among s's events after mark,
// with batch (array) replies expanded, leaving out late answers to calls
// that timed out earlier (they answer nothing a check sent since).
func messagesSince(s *session.Session, mark int64) []received {
	var out []received
	for _, e := range s.Events(mark) {
		if e.Late {
			continue // the late answer to an earlier call that timed out
		}
		if e.Msg != nil {
			out = append(out, received{e.Msg, e.Frame})
			continue
		}
		if e.Frame.Kind != wire.KindMessage {
			continue
		}
		var elems []json.RawMessage
		if json.Unmarshal(bytes.TrimSpace(e.Frame.Raw), &elems) != nil {
			continue
		}
		for _, el := range elems {
			if m, err := jsonrpc.Decode(el); err == nil {
				out = append(out, received{m, e.Frame})
			}
		}
	}
	return out
}

// responsesSince is messagesSince restricted to responses.
func responsesSince(s *session.Session, mark int64) []received {
	var out []received
	for _, r := range messagesSince(s, mark) {
		if r.msg.Kind() == jsonrpc.KindResponse {
			out = append(out, r)
		}
	}
	return out
}

// replyBody returns the body bytes of HTTP exchange ex on s since mark.
func replyBody(s *session.Session, mark int64, ex int64) []byte {
	for _, e := range s.Events(mark) {
		if e.Frame.Exchange == ex && e.Frame.Dir == wire.In && (e.Frame.Kind == wire.KindBody || e.Frame.Kind == wire.KindMessage) && len(e.Frame.Raw) > 0 {
			return e.Frame.Raw
		}
	}
	return nil
}
