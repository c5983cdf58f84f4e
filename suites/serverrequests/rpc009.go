package serverrequests

import (
	"encoding/json"
	"fmt"
	"strings"

	c "github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/jsonrpc"
)

var _ = c.Area("jsonrpc", func() {
	// The stimulus is the server-request exercise of the LEG checks
	// (sessions that declare roots, sampling and elicitation call every
	// callable tool): a server sends requests mostly while serving a call,
	// and only the capabilities a client declared let it send most of
	// them. Every other request the server sends in the run is judged by
	// the run-wide observer (internal/observe, RPC-009).
	c.It("RPC-009", "requests the server sends use string or integer ids, never null, never reused", func(t *c.T) {
		sessions, called, refused, problem := requestsSeen(t)
		if problem != "" {
			t.Error("%s", problem)
		}
		requests, distinct := 0, 0
		for _, ss := range sessions {
			seen := map[string]string{} // id key → first frame
			for _, raw := range ss.Frames {
				msg, err := jsonrpc.Decode(raw)
				if err != nil || !msg.HasMethod || !msg.HasID {
					continue
				}
				requests++
				if !msg.ID.Valid() {
					t.Violation("a string or integer id", c.Clip(raw), "the server sent a %s request whose id is %s (to %s)", msg.Method, idKind(msg.ID.Key()), ss.Label)
				}
				if first, dup := seen[msg.ID.Key()]; dup {
					t.Violation("a fresh id for every request of the session", fmt.Sprintf("%s\nafter\n%s", c.Clip(raw), first),
						"the server reused request id %s within the session of %s", msg.ID.Key(), ss.Label)
				}
				seen[msg.ID.Key()] = c.Clip(raw)
			}
			distinct += len(seen)
		}
		if requests == 0 {
			why := fmt.Sprintf("the server sent no request to %d sessions declaring client capabilities (%d tool call(s)); nothing to judge", len(sessions), called)
			if called == 0 && refused != "" {
				t.PolicyNA("%s; %s", why, refused)
			}
			t.NA("%s", why)
		}
		t.Note("judged %d server request(s), %d distinct id(s) within their sessions", requests, distinct)
	})
})

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
