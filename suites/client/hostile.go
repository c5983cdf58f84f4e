package client

import (
	"fmt"

	c "github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/jsonrpc"
	"github.com/mcpconform/mcpconform/internal/scenario"
)

// The hostile scenario servers' checks (internal/scenario/hostile.go):
// what a client makes of messages a well-behaved server never sends.

var _ = c.ClientArea("client", func() {
	c.It("CLI-030", "after junk from the server the client goes on: it answers the next ping", func(t *c.T) {
		var bad findings
		judged := 0
		for _, r := range t.Runs(func(s *scenario.Scenario) bool { return s.Name == "hostile-messages" }) {
			ms := traffic(t, r)
			junk := notes(t, r, r.Conn, scenario.JunkNote)
			if len(junk) == 0 {
				continue // the client never called add_numbers, or answered no first ping
			}
			junkAt := junk[0].Seq
			for _, m := range ms {
				if m.F.Seq < junkAt || m.client() || m.M == nil || m.M.Kind() != jsonrpc.KindRequest || m.M.Method != "ping" {
					continue
				}
				judged++
				t.Judged(r)
				if _, ok := answer(ms, m); !ok {
					bad.add(m, fmt.Sprintf("%s: after a message that is not JSON and a response to an id it never sent, the client left the server's ping unanswered (it answered the ping before them)", describeRunOf(r)))
				}
				break
			}
		}
		if judged == 0 {
			t.NA("the hostile-messages scenario's junk and second ping never reached the client (it never called add_numbers, or did not answer the first ping, which CLI-010 judges elsewhere)")
		}
		bad.report(t, "the ping after the junk answered: a message that is not JSON-RPC, or a response to no request of the client's, is ignored")
	})
})
