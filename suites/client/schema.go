package client

import (
	c "github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/scenario"
	"github.com/mcpconform/mcpconform/internal/wire"
)

var _ = c.ClientArea("client", func() {
	c.It("CLI-018", "the client never fetches a network $ref of a schema it was given", func(t *c.T) {
		var fetched []wire.Frame
		listed := 0
		for _, r := range t.Runs(func(s *scenario.Scenario) bool { return s.Name == "json-schema-ref-no-deref" }) {
			for _, m := range requests(traffic(t, r)) {
				if m.M.Method == "tools/list" {
					listed++
					t.Judged(r)
				}
			}
			fetched = append(fetched, notes(t, r, r.Conn, scenario.CanaryNote)...)
		}
		if len(fetched) > 0 {
			t.Evidence(fetched...)
			t.Violation("no fetch of "+scenario.CanaryPath, fetched[0].Note, "the client fetched the network $ref of a tool's inputSchema (%d time(s))", len(fetched))
		}
		if listed == 0 {
			t.NA("the client never listed the tools, so it never saw the schema with the network $ref")
		}
	})
})
