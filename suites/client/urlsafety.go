package client

import (
	"fmt"

	c "github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/jsonrpc"
	"github.com/mcpconform/mcpconform/internal/scenario"
	"github.com/mcpconform/mcpconform/internal/wire"
)

// What the client does with the URLs a server hands it to show the user:
// a URL-mode elicitation's page (internal/scenario/urlelicit.go) and
// icons (internal/scenario/icons.go).

// urlElicitations are the URL-mode elicitation/create requests of the
// run's traffic.
func urlElicitations(ms []msg) []msg {
	var out []msg
	for _, m := range ms {
		if !m.client() && m.M != nil && m.M.Kind() == jsonrpc.KindRequest && m.M.Method == "elicitation/create" && elicitMode(m.M.Params) == "url" {
			out = append(out, m)
		}
	}
	return out
}

// afterCompletions is the scenario server's first request to the client
// after the completions of a URL-mode elicitation (CompleteNote): whether
// it is answered is CLI-034's, which CLI-010 and CLI-022 leave to it.
func afterCompletions(t *c.T, r *scenario.Run, ms []msg) (msg, bool) {
	sent := notes(t, r, r.Conn, scenario.CompleteNote)
	if len(sent) == 0 {
		return msg{}, false // no URL-mode elicitation answered, or none asked
	}
	for _, m := range ms {
		if m.F.Seq > sent[0].Seq && !m.client() && m.M != nil && m.M.Kind() == jsonrpc.KindRequest {
			return m, true
		}
	}
	return msg{}, false
}

// unansweredAfterCompletions reports whether m is afterCompletions'
// request, unanswered: CLI-034's.
func unansweredAfterCompletions(t *c.T, r *scenario.Run, ms []msg, m msg) bool {
	b, ok := afterCompletions(t, r, ms)
	return ok && b.F.Seq == m.F.Seq
}

var _ = c.ClientArea("client", func() {
	c.It("CLI-033", "the client never fetches a URL-mode elicitation's URL itself: only the user's browser opens it", func(t *c.T) {
		var fetched []wire.Frame
		asked := 0
		for _, r := range t.Runs(nil) {
			if len(urlElicitations(traffic(t, r))) == 0 {
				continue
			}
			asked++
			t.Judged(r)
			fetched = append(fetched, notes(t, r, r.Conn, scenario.ElicitFetchNote)...)
		}
		if len(fetched) > 0 {
			t.Evidence(fetched...)
			t.Violation("every request for the page from the user's browser", fetched[0].Note,
				"the client fetched a URL-mode elicitation's page itself (%d request(s) without the mark of the user's browser): a client must not pre-fetch the URL or its metadata, nor open it in a way that lets it inspect the content", len(fetched))
		}
		if asked == 0 {
			t.NA("no scenario server sent the client a URL-mode elicitation (elicitation-url and the black-box server ask a client that declared elicitation.url; elicitation-url-undeclared one that did not, 2025-11-25)")
		}
	})

	c.It("CLI-034", "notifications/elicitation/complete for an unknown or already-completed id is ignored: the client answers the next request", func(t *c.T) {
		var bad findings
		judged := 0
		for _, r := range t.Runs(nil) {
			ms := traffic(t, r)
			m, ok := afterCompletions(t, r, ms)
			if !ok {
				continue // the server sent nothing after them
			}
			judged++
			t.Judged(r)
			if _, ok := answer(ms, m); !ok {
				bad.add(m, fmt.Sprintf("%s: after notifications/elicitation/complete for an already-completed id and for %q, an id it never saw, the client left the server's next request (%s) unanswered (it answered the URL-mode elicitation before them)",
					describeRunOf(r), scenario.UnknownElicitationID, m.M.Method))
			}
		}
		if judged == 0 {
			t.NA("no client answered a URL-mode elicitation, so no completion for an unknown or completed id was sent (elicitation-url and the black-box server ask a client that declared elicitation.url, 2025-11-25)")
		}
		bad.report(t, "the request after the completions answered: a completion for an unknown or already-completed elicitation is ignored")
	})

	c.It("CLI-035", "the client never fetches an icon whose URI scheme is unsafe (file:, ws:, javascript:)", func(t *c.T) {
		var fetched []wire.Frame
		shown, witnessed := 0, 0
		for _, r := range t.Runs(func(s *scenario.Scenario) bool { return s.Name == "icons" || s.BlackBox }) {
			bad := notes(t, r, r.Conn, scenario.IconFetchNote)
			tried := notes(t, r, r.Conn, scenario.IconWitnessNote)
			listed := false
			for _, m := range requests(traffic(t, r)) {
				listed = listed || m.M.Method == "tools/list" || m.M.Method == "initialize" || m.M.Method == "server/discover"
			}
			if listed {
				shown++
			}
			if len(bad) == 0 && len(tried) == 0 {
				continue
			}
			witnessed++
			t.Judged(r)
			fetched = append(fetched, bad...)
		}
		if len(fetched) > 0 {
			t.Evidence(fetched...)
			t.Violation("no fetch of a file:, ws: or javascript: icon", fetched[0].Note, "the client fetched %d icon(s) of an unsafe URI scheme: a client must reject icon URIs that use unsafe schemes", len(fetched))
		}
		switch {
		case shown == 0:
			t.NA("no scenario with icons reached the client (the icons scenario and the black-box server give the server and add_numbers icons)")
		case witnessed == 0:
			t.NA("the client fetched no icon, not even the https: one beside the unsafe ones (%d run(s)): a client that renders no icons cannot be judged on which it rejects", shown)
		}
	})
})
