package session

import (
	"bytes"
	"sync"

	"github.com/mcpconform/mcpconform/internal/jsonrpc"
	"github.com/mcpconform/mcpconform/internal/wire"
)

// Faults collects systematic faults the session layer recognised while
// matching responses, for the requirement they break, so the run reports
// them once instead of every later check paying a timeout for them. It is
// shared by every session of a target and safe for concurrent use.
type Faults struct {
	mu   sync.Mutex
	list []Fault
	n    map[string]int
}

// Fault is one recognised occurrence.
type Fault struct {
	// Requirement broken (e.g. RPC-002).
	Requirement string
	// Revision the session spoke.
	Revision string
	// Method of the request, and the request and response frames.
	Method            string
	Request, Response wire.Frame
}

// maxFaultsKept bounds the occurrences kept per requirement (the rest are
// counted).
const maxFaultsKept = 3

func (f *Faults) add(x Fault) {
	if f == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n == nil {
		f.n = map[string]int{}
	}
	f.n[x.Requirement]++
	if f.n[x.Requirement] <= maxFaultsKept {
		f.list = append(f.list, x)
	}
}

// For returns the kept occurrences for requirement id and how many there
// were in all.
func (f *Faults) For(id string) (kept []Fault, total int) {
	if f == nil {
		return nil, 0
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, x := range f.list {
		if x.Requirement == id {
			kept = append(kept, x)
		}
	}
	return kept, f.n[id]
}

// nullIDTargetLocked returns the call an error response with "id": null
// answers, when that is certain: on stdio, a well-formed request (one line,
// JSON-RPC 2.0, a string or integer id, object params or none) is the only
// one in flight, and nothing else was written to the
// server since the server's previous message (so no invalid input the
// null id could be for). Otherwise nil: the response stays an unsolicited
// event. s.mu is held.
func (s *Session) nullIDTargetLocked(msg *jsonrpc.Message) *call {
	if s.conn.Transport() != wire.Stdio || !msg.IsError() || len(s.pending) != 1 || s.rec == nil {
		return nil
	}
	if s.junk.Load() {
		// A parse error or an invalid-request error with id null may be
		// the late answer to junk written earlier on this connection (a
		// blank line, an invalid request); any other code answers a
		// request the server parsed, and the only one in flight is ours.
		if code, ok := msg.ErrorCode(); !ok || code == jsonrpc.CodeParseError || code == jsonrpc.CodeInvalidRequest {
			return nil
		}
	}
	var c *call
	for _, x := range s.pending {
		c = x
	}
	if !c.wellFormed {
		return nil // an invalid request may legitimately get id null
	}
	out := 0
	for _, f := range s.rec.Since(c.lastIn, 0) {
		if f.Conn != s.conn.Name() || f.Dir != wire.Out || f.Kind == wire.KindNote {
			continue
		}
		out++
		if f.Seq <= c.mark || out > 1 {
			return nil
		}
	}
	if out != 1 {
		return nil
	}
	return c
}

// wellFormedMethod returns the method of payload when it is one valid
// JSON-RPC 2.0 request (a string or integer id, a non-empty string method,
// object params or none) framed as one line (a raw payload may end with
// its newline), with nothing around it (no blank line a server may answer
// on its own), else "".
func wellFormedMethod(payload []byte) string {
	if len(payload) == 0 || len(bytes.TrimSpace(payload)) != len(payload) || bytes.ContainsAny(payload, "\r\n") {
		return ""
	}
	m, err := jsonrpc.Decode(payload)
	if err != nil || m.JSONRPC != "2.0" || !m.HasID || !m.ID.Valid() || !m.MethodIsString || m.Method == "" {
		return ""
	}
	if m.HasParams && (len(m.Params) == 0 || m.Params[0] != '{') {
		return ""
	}
	return m.Method
}

// wellFormedNotification reports whether payload is one valid JSON-RPC 2.0
// notification (a non-empty string method, no id, object params or none)
// framed as one line with nothing around it.
func wellFormedNotification(payload []byte) bool {
	if len(payload) == 0 || len(bytes.TrimSpace(payload)) != len(payload) || bytes.ContainsAny(payload, "\r\n") {
		return false
	}
	m, err := jsonrpc.Decode(payload)
	if err != nil || m.JSONRPC != "2.0" || m.HasID || !m.MethodIsString || m.Method == "" {
		return false
	}
	return !m.HasParams || (len(m.Params) > 0 && m.Params[0] == '{')
}

// requestFrame returns the recorded request frame of c (zero when not found).
func (s *Session) requestFrame(c *call) wire.Frame {
	for _, f := range s.rec.Since(c.mark, 0) {
		if f.Conn == s.conn.Name() && f.Dir == wire.Out && f.Kind == wire.KindMessage {
			return f
		}
	}
	return wire.Frame{}
}

// Stalled reports whether the server has sent nothing at all on this
// connection since a request that timed out was sent: it may have stopped
// answering (or be busy with that request).
func (s *Session) Stalled() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.timedOutAt.IsZero() && !s.lastInAt.After(s.timedOutAt)
}

// methodOf names the method of c's request.
func methodOf(c *call) string {
	if c.method != "" {
		return c.method
	}
	return wellFormedMethod(bytes.TrimSuffix(c.payload, []byte("\n")))
}
