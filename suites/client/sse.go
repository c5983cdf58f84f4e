package client

import (
	"fmt"
	"strings"
	"time"

	c "github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/scenario"
	"github.com/mcpconform/mcpconform/internal/wire"
)

// closedStream is a POST stream the scenario server closed after its
// priming event: when, and the event id a resumption names.
type closedStream struct {
	at      time.Time
	eventID string
	note    wire.Frame
}

// closedStreams finds the closures the sse-retry scenario recorded.
func closedStreams(t *c.T, r *scenario.Run) []closedStream {
	var out []closedStream
	for _, f := range t.Env.Recorder().OnConn(r.From, r.Conn) {
		if f.Seq > r.To || f.Kind != wire.KindNote || !strings.HasPrefix(f.Note, scenario.StreamClosedNote) {
			continue
		}
		id := ""
		if _, rest, ok := strings.Cut(f.Note, "(id "); ok {
			id, _, _ = strings.Cut(rest, ",")
		}
		out = append(out, closedStream{at: f.Time, eventID: id, note: f})
	}
	return out
}

// reconnects are the client's requests after the closure (any GET, and
// the POSTs naming the session), the first one first.
func reconnects(ms []msg, cs closedStream) []msg {
	var out []msg
	for _, m := range ms {
		if m.client() && m.F.Seq > cs.note.Seq && m.httpMethod() == "GET" {
			out = append(out, m)
		}
	}
	return out
}

var _ = c.ClientArea("client", func() {
	c.It("CLI-016", "the client waits the SSE retry time before it reconnects", func(t *c.T) {
		var bad findings
		judged := 0
		for _, r := range t.Runs(func(s *scenario.Scenario) bool { return s.Name == "sse-retry" }) {
			ms := traffic(t, r)
			for _, cs := range closedStreams(t, r) {
				for _, g := range reconnects(ms, cs) {
					if g.header("Last-Event-ID") == "" {
						continue // the client's own listening stream, not a reconnection
					}
					judged++
					t.Judged(r)
					wait := g.F.Time.Sub(cs.at)
					if min := time.Duration(scenario.RetryMillis-50) * time.Millisecond; wait < min {
						bad.add(g, fmt.Sprintf("the client reconnected %s after the stream closed; retry was %d ms", wait.Round(time.Millisecond), scenario.RetryMillis))
					}
					break
				}
			}
		}
		if judged == 0 {
			t.NA("the client did not reconnect to a stream the scenario server closed (CLI-017 judges that)")
		}
		bad.report(t, fmt.Sprintf("a reconnection no earlier than retry (%d ms) after the stream closed", scenario.RetryMillis))
	})

	c.It("CLI-017", "the client resumes a closed stream with GET and Last-Event-ID", func(t *c.T) {
		closed, resumed := 0, 0
		var other []string
		for _, r := range t.Runs(func(s *scenario.Scenario) bool { return s.Name == "sse-retry" }) {
			ms := traffic(t, r)
			for _, cs := range closedStreams(t, r) {
				closed++
				t.Judged(r)
				for _, g := range reconnects(ms, cs) {
					switch id := g.header("Last-Event-ID"); {
					case id == cs.eventID:
						resumed++
					case id != "":
						other = append(other, id)
					default:
						continue
					}
					break
				}
			}
		}
		if closed == 0 {
			t.NA("the client never called test_reconnection, the tool whose stream the scenario server closes")
		}
		if resumed < closed {
			t.Violation("GET with Last-Event-ID: the id of the priming event", fmt.Sprintf("%d of %d closed streams resumed (other Last-Event-ID values: %q)", resumed, closed, other),
				"the client did not resume the stream the server closed before its response")
		}
	})
})
