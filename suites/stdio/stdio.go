// Package stdio checks the stdio transport's framing rules.
package stdio

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/mcpconform/mcpconform/internal/catalog"
	c "github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/jsonrpc"
	"github.com/mcpconform/mcpconform/internal/session"
	"github.com/mcpconform/mcpconform/internal/wire"
)

var _ = c.Area("stdio", func() {
	c.It("STD-001", "every stdout line is exactly one JSON-RPC message", func(t *c.T) {
		// The shared session's process has run since the era probe: judge
		// everything it ever wrote (startup banners included) plus a battery.
		s := t.Shared()
		t.Battery(s)
		t.Settle(s)
		for _, f := range t.AllIncoming(s) {
			if f.Kind != wire.KindMessage || f.Truncated {
				continue // a cut frame cannot be judged (size caps)
			}
			raw := bytes.TrimSuffix(f.Raw, []byte{'\r'})
			if len(bytes.TrimSpace(raw)) == 0 {
				t.Violation("one JSON-RPC message per line", "a blank line", "the server wrote a blank line to stdout")
			}
			if t.Rev == catalog.R20250326 && bytes.HasPrefix(bytes.TrimSpace(raw), []byte("[")) {
				// 2025-03-26 has batches: a line may be one batch reply
				var elems []json.RawMessage
				ok := json.Unmarshal(raw, &elems) == nil && len(elems) > 0
				for _, el := range elems {
					if m, err := jsonrpc.Decode(el); err != nil || m.Kind() == jsonrpc.KindInvalid {
						ok = false
					}
				}
				t.Check(ok, "one JSON-RPC message or (2025-03-26) one batch of messages per line", c.Clip(f.Raw),
					"a stdout line is a JSON array but not a batch of JSON-RPC messages")
				continue
			}
			if !utf8.Valid(raw) {
				t.Violation("one complete UTF-8 JSON-RPC message per line", c.Clip(f.Raw),
					"invalid UTF-8 in server output: a stdout line is not valid UTF-8")
			}
			m, err := jsonrpc.Decode(raw)
			if err != nil {
				t.Violation("one complete JSON-RPC message per line (logs belong on stderr)", c.Clip(f.Raw),
					"the server wrote a line to stdout that is not a JSON-RPC message: %v", err)
			}
			if m.Kind() == jsonrpc.KindInvalid {
				t.Violation("a JSON-RPC request, notification or response", c.Clip(f.Raw), "a stdout line is a JSON object but not a JSON-RPC message")
			}
		}
	})

	c.It("STD-004", "escaped newlines, U+2028, CRLF and blank lines do not break stdio framing", std004)

	c.It("STD-003", "server/discover as the first message gets a result or a modern error", func(t *c.T) {
		s := t.Fresh()
		// the first answer includes the process's start-up: wait longer
		resp, err := t.TryCall(s, "server/discover", nil, &session.CallOptions{Timeout: 3 * t.Env.Target.Timeout})
		if err != nil {
			t.Violation("a DiscoverResult or a -32022/-32602 error", err.Error(), "no answer to server/discover as the first message")
		}
		if resp.IsResult() {
			var res map[string]json.RawMessage
			t.Check(resp.Result(&res) == nil && res["supportedVersions"] != nil, "a DiscoverResult", c.Clip(resp.Msg.Raw), "the answer is not a DiscoverResult")
			return
		}
		t.ExpectErrorCodeIfError("server/discover as the first message", resp, jsonrpc.CodeUnsupportedProtocol, jsonrpc.CodeInvalidParams)
	})
})

// std004 sends, on a fresh handshaken process, requests framed in the ways
// real clients produce: strings with escaped \n and \u2028 (and a raw
// U+2028), a CRLF line ending, stray blank lines around a message, and an
// unknown method whose name holds an escaped newline (its error message
// usually quotes the name: the server must escape it on output). Each
// request must get exactly one response the harness can match by id, and
// every line the server writes must be one complete message.
func std004(t *c.T) {
	s := t.Open()
	mark := t.Mark()
	method, _ := t.Probe()
	params := func(text string) json.RawMessage {
		meta := map[string]any{"mcpconform/text": text}
		if t.Modern() {
			for k, v := range s.ModernMeta() {
				meta[k] = v
			}
		}
		b, _ := json.Marshal(map[string]any{"_meta": meta})
		return b
	}
	n := s.NewID().Int()
	id := func(i int) jsonrpc.ID { return jsonrpc.StringID(fmt.Sprintf("mcpconform-framing-%d-%d", n, i)) }
	// framing: the harness's own framing choice (CRLF, blank lines), which
	// the spec neither requires a server to accept nor forbids it to
	// answer (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/stdio: a client MUST NOT write non-messages):
	// extra answers to the blank lines are acceptable and the request's own
	// response is awaited; a CRLF request not served is a WARN (TOL-19),
	// a blank-line one a note.
	cases := []struct {
		what     string
		id       jsonrpc.ID
		method   string
		build    func(req []byte) []byte
		text     string
		wantsErr bool
		framing  bool
		crlf     bool
	}{
		{"a string with escaped \\n and \\u2028", id(1), method, nil, "line one\nline two\u2028end", false, false, false},
		{"a string with a raw U+2028 and U+2029", id(2), method, nil, "para\u2028graph\u2029end", false, false, false},
		{"a CRLF line ending", id(3), method, func(req []byte) []byte { return append(req, '\r', '\n') }, "crlf", false, true, true},
		{"blank lines before and after the message", id(4), method, func(req []byte) []byte {
			return append(append([]byte("\n\r\n\n"), req...), '\n', '\n', '\r', '\n')
		}, "blank", false, true, false},
		{"an unknown method whose name holds an escaped newline", id(5), "mcpconform/no-such\nmethod\u2028", nil, "", true, false, false},
	}
	sessions := []*session.Session{s}
	for _, k := range cases {
		if closed, _ := s.Closed(); closed {
			// the framing of the previous request ended the process: the
			// rest goes to a fresh one (each case is judged on its own)
			s = t.Open()
			sessions = append(sessions, s)
		}
		t.Step("send a request with " + k.what)
		var p json.RawMessage
		if !k.wantsErr || t.Modern() {
			p = params(k.text)
		}
		var req []byte
		if p != nil {
			req = jsonrpc.Request(k.id, k.method, p)
		} else {
			req = jsonrpc.Request(k.id, k.method, nil)
		}
		if k.text == "para\u2028graph\u2029end" {
			// put the separators into the line unescaped (valid JSON)
			req = bytes.ReplaceAll(req, []byte(`\u2028`), []byte("\u2028"))
			req = bytes.ReplaceAll(req, []byte(`\u2029`), []byte("\u2029"))
		}
		payload := append(req, '\n')
		if k.build != nil {
			payload = k.build(req)
		}
		if k.framing {
			resp, err := s.CallRaw(t.Ctx, k.id, payload, &wire.SendOptions{Raw: true}, 0)
			// CRLF: an open question of the spec, tolerated with a WARN
			// (TOL-19). Blank lines: the harness's own framing (a client
			// MUST NOT write them), noted and never graded.
			report := t.Note
			why := "a client MUST NOT write blank lines, so what the server does with them is noted, not graded"
			if k.crlf {
				report = t.Warn
				why = "the line is a valid JSON text followed by a newline; the stdio transport says nothing of a carriage return (TOL-19)"
			}
			switch {
			case err != nil && errors.Is(err, wire.ErrClosed):
				report("a request with %s ended the server process (%v); %s", k.what, err, why)
			case err != nil:
				report("a request with %s got no response the harness could match (%v); %s", k.what, err, why)
			case !resp.IsResult():
				report("a request with %s was not served: %s; %s", k.what, c.Clip(resp.Msg.Raw), why)
			}
			// answers to the blank lines after the request come after its
			// response: let them arrive before the next case's mark, or
			// they read as that case's framing error
			if closed, _ := s.Closed(); !closed {
				t.Settle(s)
			}
			continue
		}
		resp, err := callOrFramingError(t, s, k.id, payload)
		if err != nil {
			t.Violation("one response with id "+k.id.String(), err.Error(), "a request with %s got no response the harness could match", k.what)
		}
		if k.wantsErr {
			code, _ := resp.ErrorCode()
			t.Check(resp.IsError() && code != jsonrpc.CodeParseError && code != jsonrpc.CodeInvalidRequest, "an error for the unknown method (not a framing error)",
				c.Clip(resp.Msg.Raw), "a request with %s was not understood as one message", k.what)
			continue
		}
		t.Check(resp.IsResult(), "the result of "+method, c.Clip(resp.Msg.Raw), "a request with %s was not served", k.what)
	}
	framing := 0
	for _, s := range sessions {
		if closed, _ := s.Closed(); !closed {
			t.Settle(s)
		}
		framing += framingErrors(s, mark)
		for _, e := range s.Events(mark) {
			if e.Unsolicited && !e.Late && e.Msg != nil && e.Msg.HasID && !e.Msg.ID.IsNull() {
				t.Violation("exactly one response per request", c.Clip(e.Frame.Raw), "a request was answered twice, or a response matched no request")
			}
		}
		for _, f := range t.Incoming(s) {
			if f.Seq <= mark || f.Kind != wire.KindMessage || f.Truncated {
				continue
			}
			if _, err := jsonrpc.Decode(bytes.TrimSuffix(f.Raw, []byte{'\r'})); err != nil {
				t.Violation("every output line one complete message (no raw newline inside a message)", c.Clip(f.Raw),
					"a line the server wrote is not a complete JSON message: %v", err)
			}
		}
	}
	if framing > 0 {
		t.Note("%d error(s) addressed to no request came besides the answers (the server's answers to blank lines or a CRLF; acceptable)", framing)
	}
}

// framingErrors counts the errors addressed to no request (id omitted or
// null) among s's events after mark.
func framingErrors(s *session.Session, mark int64) int {
	n := 0
	for _, e := range s.Events(mark) {
		if e.Msg != nil && e.Msg.IsError() && (!e.Msg.HasID || e.Msg.ID.IsNull()) {
			n++
		}
	}
	return n
}

// callOrFramingError is CallRaw that also ends early when, instead of the
// answer, an error addressed to no request (a parse or invalid-request
// error: the line was not understood as the message it is) arrives.
func callOrFramingError(t *c.T, s *session.Session, id jsonrpc.ID, payload []byte) (*session.Response, error) {
	mark := t.Mark()
	type result struct {
		resp *session.Response
		err  error
	}
	done := make(chan result, 1)
	go func() {
		resp, err := s.CallRaw(t.Ctx, id, payload, &wire.SendOptions{Raw: true}, 0)
		done <- result{resp, err}
	}()
	ctx, cancel := context.WithCancel(t.Ctx)
	defer cancel()
	framing := make(chan session.Event, 1)
	go func() {
		if ev, ok := s.WaitEvent(ctx, mark, func(e session.Event) bool {
			if e.Msg == nil || (e.Msg.HasID && !e.Msg.ID.IsNull()) {
				return false
			}
			code, _ := e.Msg.ErrorCode()
			return code == jsonrpc.CodeParseError || code == jsonrpc.CodeInvalidRequest
		}); ok {
			framing <- ev
		}
	}()
	select {
	case r := <-done:
		return r.resp, r.err
	case ev := <-framing:
		return nil, fmt.Errorf("instead of an answer, the error %s", c.Clip(ev.Frame.Raw))
	}
}
