package serverrequests

import (
	"fmt"

	c "github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/jsonrpc"
)

var _ = c.Area("jsonrpc", func() {
	// The stimulus is the server-request exercise of the LEG checks
	// (sessions that declare roots, sampling and elicitation call every
	// callable tool): a server sends requests mostly while serving a call,
	// and only the capabilities a client declared let it send most of
	// them. The ids are judged by the run-wide observer (internal/observe,
	// rule RPC-009), on these sessions as on every other of the run: one
	// place decides a null or reused id, and its violation makes this
	// result a FAIL (observe.Apply). The check provides the stimulus and
	// says whether there was anything to judge.
	c.It("RPC-009", "requests the server sends use string or integer ids, never null, never reused", func(t *c.T) {
		sessions, called, refused, problem := requestsSeen(t)
		if problem != "" {
			t.Error("%s", problem)
		}
		requests := 0
		for _, ss := range sessions {
			for _, raw := range ss.Frames {
				if msg, err := jsonrpc.Decode(raw); err == nil && msg.HasMethod && msg.HasID {
					requests++
				}
			}
		}
		if requests == 0 {
			why := fmt.Sprintf("the server sent no request to %d sessions declaring client capabilities (%d tool call(s)); nothing to judge", len(sessions), called)
			if called == 0 && refused != "" {
				t.PolicyNA("%s; %s", why, refused)
			}
			t.NA("%s", why)
		}
		t.Note("the server sent %d request(s) to the sessions of the server-request exercise; their ids are judged with every other server request of the run", requests)
	})
})
