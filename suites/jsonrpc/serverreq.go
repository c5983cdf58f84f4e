package jsonrpc

import (
	"encoding/json"
	"fmt"
	"strings"

	c "github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/session"
	"github.com/mcpconform/mcpconform/internal/wire"
)

// maxProvokingCalls bounds the tool calls RPC-009 makes to give the server
// a reason to send requests.
const maxProvokingCalls = 5

var _ = c.Area("jsonrpc", func() {
	c.It("RPC-009", "requests the server sends use string or integer ids, never null, never reused", func(t *c.T) {
		mark := t.Mark() // the whole session, from its handshake on
		s := t.Open()
		t.Battery(s)
		called, refused := provoke(t, s)
		t.Settle(s)
		seen := map[string]string{} // id key → first frame
		requests := 0
		for _, f := range t.FramesSince(mark) {
			if f.Conn != s.Conn().Name() || f.Dir != wire.In || f.Kind != wire.KindMessage || f.Truncated {
				continue
			}
			msg, err := c.Decode(f)
			if err != nil || !msg.HasMethod || !msg.HasID {
				continue
			}
			requests++
			if !msg.ID.Valid() {
				t.Violation("a string or integer id", c.Clip(f.Raw), "the server sent a %s request whose id is %s", msg.Method, idKind(msg.ID.Key()))
				continue
			}
			if first, dup := seen[msg.ID.Key()]; dup {
				t.Violation("a fresh id for every request of the session", fmt.Sprintf("%s\nafter\n%s", c.Clip(f.Raw), first),
					"the server reused request id %s within the session", msg.ID.Key())
				continue
			}
			seen[msg.ID.Key()] = c.Clip(f.Raw)
		}
		if requests == 0 {
			why := fmt.Sprintf("the server sent no request during a session (handshake, list battery, %d tool call(s)); nothing to judge", called)
			if called == 0 && refused != "" {
				t.PolicyNA("%s; %s", why, refused)
			}
			t.NA("%s", why)
		}
		t.Note("judged %d server request(s), %d distinct id(s)", requests, len(seen))
	})
})

// provoke calls up to maxProvokingCalls tools the call policy allows, with
// configured or derived arguments: servers send requests (ping, sampling,
// roots) mostly while serving a call. It returns how many calls were made
// and, when the policy refused tools, one refusal reason.
func provoke(t *c.T, s *session.Session) (called int, refused string) {
	if !c.Declared(s, "tools") {
		return 0, ""
	}
	w := t.Listing(s, "tools/list")
	for _, tool := range w.Items {
		if called == maxProvokingCalls {
			break
		}
		if ok, why := t.MayCall(tool); !ok {
			refused = why
			continue
		}
		args, _, ok := t.ArgsFor(tool)
		if !ok {
			continue
		}
		_, _ = t.TryCall(s, "tools/call", map[string]any{"name": c.ItemKey(tool, "name"), "arguments": args}, nil)
		called++
	}
	return called, refused
}

func idKind(raw string) string {
	raw = strings.TrimSpace(raw)
	switch {
	case raw == "null":
		return "null"
	case strings.HasPrefix(raw, "{"), strings.HasPrefix(raw, "["):
		return "not a string or integer (" + raw + ")"
	}
	var f float64
	if json.Unmarshal([]byte(raw), &f) == nil {
		return "a non-integer number (" + raw + ")"
	}
	return raw
}
