package client

import (
	"fmt"

	c "github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/jsonrpc"
	"github.com/mcpconform/mcpconform/internal/scenario"
)

// The hostile scenario servers' checks (internal/scenario/hostile.go):
// what a client makes of messages a well-behaved server never sends, or
// seldom does.

// pingAfter judges the runs of the scenario named name: after the note
// (what the server sent, after a first ping the client answered), the
// server's next ping is answered. what says what the server sent, for the
// finding; na is the check's NA reason; expected its expectation.
func pingAfter(t *c.T, name, note, what, na, expected string) {
	var bad findings
	judged := 0
	for _, r := range t.Runs(func(s *scenario.Scenario) bool { return s.Name == name }) {
		ms := traffic(t, r)
		sent := notes(t, r, r.Conn, note)
		if len(sent) == 0 {
			continue // the client never called add_numbers, or answered no first ping
		}
		for _, m := range ms {
			if m.F.Seq < sent[0].Seq || m.client() || m.M == nil || m.M.Kind() != jsonrpc.KindRequest || m.M.Method != "ping" {
				continue
			}
			judged++
			t.Judged(r)
			if _, ok := answer(ms, m); !ok {
				bad.add(m, fmt.Sprintf("%s: after %s, the client left the server's ping unanswered (it answered the ping before)", describeRunOf(r), what))
			}
			break
		}
	}
	if judged == 0 {
		t.NA("%s", na)
	}
	bad.report(t, expected)
}

var _ = c.ClientArea("client", func() {
	c.It("CLI-030", "after junk from the server the client goes on: it answers the next ping", func(t *c.T) {
		pingAfter(t, "hostile-messages", scenario.JunkNote, "a message that is not JSON and a response to an id it never sent",
			"the hostile-messages scenario's junk and second ping never reached the client (it never called add_numbers, or did not answer the first ping, which CLI-010 judges elsewhere)",
			"the ping after the junk answered: a message that is not JSON-RPC, or a response to no request of the client's, is ignored")
	})

	c.It("CLI-037", "after a large message the client goes on: it answers the next ping", func(t *c.T) {
		pingAfter(t, "large-message", scenario.LargeNote, fmt.Sprintf("a log message of %d KiB", scenario.LargeMessageBytes>>10),
			"the large-message scenario's log message and second ping never reached the client (it never called add_numbers, or did not answer the first ping, which CLI-010 judges elsewhere)",
			"the ping after the large message answered: a message of a few MiB is read whole, not the end of the session")
	})
})
