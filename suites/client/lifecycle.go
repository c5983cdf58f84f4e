package client

import (
	"encoding/json"
	"fmt"
	"slices"

	c "github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/jsonrpc"
	"github.com/mcpconform/mcpconform/internal/scenario"
	"github.com/mcpconform/mcpconform/internal/wire"
)

var _ = c.ClientArea("client", func() {
	c.It("CLI-001", "the client opens a legacy session with a well-formed initialize", func(t *c.T) {
		var bad findings
		opened := 0
		for _, r := range t.Runs(nil) {
			ms := traffic(t, r)
			for _, conn := range r.Conns {
				// the first request of the connection that is not a
				// 2026-07-28 probe (a dual-era client may try
				// server/discover first)
				for _, m := range requests(ms) {
					if m.F.Conn != conn || modernShaped(m.M) {
						continue
					}
					opened++
					t.Judged(r)
					if m.M.Method != "initialize" {
						bad.add(m, fmt.Sprintf("%s: the first request is %s, not initialize", describeRunOf(r), m.M.Method))
					} else if p := initializeFault(m.M); p != "" {
						bad.add(m, fmt.Sprintf("%s: initialize %s", describeRunOf(r), p))
					}
					break
				}
			}
		}
		if opened == 0 {
			t.NA("the client sent no legacy request in any scenario (it did not fall back to initialize)")
		}
		bad.report(t, "initialize first, with protocolVersion (string), capabilities (object) and clientInfo {name, version}")
	})

	c.It("CLI-002", "after the initialize result the client sends notifications/initialized first", func(t *c.T) {
		var bad findings
		judged := 0
		for _, r := range t.Runs(nil) {
			ms := traffic(t, r)
			for _, init := range initializes(ms) {
				a, ok := answer(ms, init)
				if !ok || !a.M.HasResult || a.M.HasError {
					continue // no successful initialize: nothing is owed
				}
				sid := issuedSession(ms, init)
				var next *msg
				sent := false
				for _, m := range ms {
					if m.F.Seq <= a.F.Seq || !m.client() || m.M == nil || m.F.Conn != init.F.Conn || (sid != "" && sessionOf(m) != sid) {
						continue
					}
					if m.M.Kind() == jsonrpc.KindNotification && m.M.Method == "notifications/initialized" {
						sent = true
						break
					}
					if m.M.Kind() == jsonrpc.KindRequest && m.M.Method != "ping" {
						next = &m
						break
					}
				}
				switch {
				case sent:
					judged++
					t.Judged(r)
				case next != nil:
					judged++
					t.Judged(r)
					bad.add(*next, fmt.Sprintf("%s: %s came before notifications/initialized", describeRunOf(r), next.M.Method))
				default:
					t.Note("%s: the client sent neither notifications/initialized nor another request after the initialize result", describeRunOf(r))
				}
			}
		}
		bad.report(t, "notifications/initialized before any other request (pings aside)")
		if judged == 0 {
			t.NA("no initialize of the client got a result that it followed with other traffic")
		}
	})

	c.It("CLI-003", "no request but ping while initialize is unanswered", func(t *c.T) {
		var bad []msg
		judged := 0
		for _, r := range t.Runs(nil) {
			ms := traffic(t, r)
			for _, init := range initializes(ms) {
				a, ok := answer(ms, init)
				if !ok {
					continue
				}
				judged++
				t.Judged(r)
				for _, m := range requests(ms) {
					if m.F.Seq > init.F.Seq && m.F.Seq < a.F.Seq && m.F.Conn == init.F.Conn && m.M.Method != "ping" && !modernShaped(m.M) {
						bad = append(bad, m)
					}
				}
			}
		}
		if judged == 0 {
			t.NA("no initialize of the client was answered")
		}
		if len(bad) > 0 {
			evidence(t, bad)
			t.Violation("only ping until initialize is answered", describe(bad), "the client sent %s before the server answered initialize", bad[0].M.Method)
		}
	})

	c.It("CLI-004", "request ids are strings or integers, unique as the revision requires", func(t *c.T) {
		var bad findings
		n := 0
		for _, r := range t.Runs(nil) {
			ms := traffic(t, r)
			reqs := requests(ms)
			seen := map[string]msg{} // legacy: id → request, per session
			for i, m := range reqs {
				n++
				t.Judged(r)
				if !m.M.ID.Valid() {
					bad.add(m, fmt.Sprintf("%s: id %s is %s, not a string or an integer", describeRunOf(r), m.M.ID, m.M.ID.TypeName()))
					continue
				}
				// never the id of a request of the client's still awaiting
				// its response (every revision)
				for _, p := range reqs[:i] {
					if p.F.Conn != m.F.Conn || p.M.ID.Key() != m.M.ID.Key() {
						continue
					}
					if !settledBefore(ms, p, m.F.Seq) {
						bad.add(m, fmt.Sprintf("%s: id %s is that of the %s still awaiting its response", describeRunOf(r), m.M.ID, p.M.Method))
						break
					}
				}
				if !t.Rev.IsLegacy() || modernShaped(m.M) {
					continue
				}
				// legacy: never reused within the session
				scope := m.F.Conn + "|" + sessionOf(m)
				if m.M.Method == "initialize" {
					scope = m.F.Conn + "|" + issuedSession(ms, m)
				} else if sessionOf(m) == "" && m.F.HTTP != nil {
					continue // a request outside any session
				}
				key := scope + "|" + m.M.ID.Key()
				if p, dup := seen[key]; dup {
					bad.add(m, fmt.Sprintf("%s: id %s was used before in the session (by %s)", describeRunOf(r), m.M.ID, p.M.Method))
				}
				seen[key] = m
			}
		}
		if n == 0 {
			t.NA("the client sent no request")
		}
		bad.report(t, "string or integer ids, none reused")
	})

	c.It("CLI-005", "every message of the client is JSON-RPC 2.0 of the right shape", func(t *c.T) {
		var bad findings
		n := 0
		for _, r := range t.Runs(nil) {
			ms := traffic(t, r)
			asked := map[string]bool{} // the scenario server's request ids, by connection
			for _, m := range ms {
				if !m.client() {
					if m.M != nil && m.M.Kind() == jsonrpc.KindRequest {
						asked[m.F.Conn+"|"+m.M.ID.Key()] = true
					}
					continue
				}
				if m.F.Kind != wire.KindMessage || len(m.F.Raw) == 0 {
					continue // an HTTP request without a body (GET, DELETE)
				}
				n++
				t.Judged(r)
				if p := messageFault(m, asked); p != "" {
					bad.add(m, describeRunOf(r)+": "+p)
				}
			}
		}
		if n == 0 {
			t.NA("the client sent no message")
		}
		bad.report(t, `{"jsonrpc":"2.0", …}: requests with a method and an id, notifications without an id, responses to the server's requests`)
	})

	c.It("CLI-010", "the client answers the server's ping with an empty result", func(t *c.T) {
		var bad findings
		pings := 0
		// the ping after hostile-messages' junk is CLI-030's, after
		// large-message's message CLI-037's
		for _, r := range t.Runs(func(s *scenario.Scenario) bool { return !s.Junk() }) {
			ms := traffic(t, r)
			for _, m := range ms {
				if m.client() || m.M == nil || m.M.Kind() != jsonrpc.KindRequest || m.M.Method != "ping" {
					continue
				}
				a, ok := answer(ms, m)
				if !ok && unansweredAfterCompletions(t, r, ms, m) {
					continue // CLI-034's
				}
				pings++
				t.Judged(r)
				switch {
				case !ok:
					bad.add(m, fmt.Sprintf("%s: the client did not answer the ping %s", describeRunOf(r), m.M.ID))
				case a.M.IsError() || !a.M.HasResult:
					bad.add(a, fmt.Sprintf("%s: the client answered the ping with an error", describeRunOf(r)))
				case !isObject(a.M.Result):
					bad.add(a, fmt.Sprintf("%s: the ping's result is not an object", describeRunOf(r)))
				}
			}
		}
		if pings == 0 {
			t.NA("no scenario server's ping reached the client (it never called the tool that pings)")
		}
		bad.report(t, "a response with the ping's id and the result {}")
	})
})

// settledBefore reports whether request p no longer awaited its response
// at seq: it was answered, or (HTTP) its exchange was refused without a
// JSON-RPC response (a 404 for an ended session, a 4xx or 5xx).
func settledBefore(ms []msg, p msg, seq int64) bool {
	if a, ok := answer(ms, p); ok && a.F.Seq < seq {
		return true
	}
	for _, x := range ms {
		if x.F.Seq >= seq {
			break
		}
		if !x.client() && p.F.HTTP != nil && x.F.Exchange == p.F.Exchange && x.F.Conn == p.F.Conn && x.F.HTTP != nil && x.F.HTTP.Status >= 300 {
			return true
		}
	}
	return false
}

// initializeFault says what is wrong with an initialize request's params
// ("" when nothing).
func initializeFault(m *jsonrpc.Message) string {
	var p struct {
		ProtocolVersion json.RawMessage `json:"protocolVersion"`
		Capabilities    json.RawMessage `json:"capabilities"`
		ClientInfo      *struct {
			Name    json.RawMessage `json:"name"`
			Version json.RawMessage `json:"version"`
		} `json:"clientInfo"`
	}
	if !m.HasParams || json.Unmarshal(m.Params, &p) != nil {
		return "has no params object"
	}
	var v string
	switch {
	case json.Unmarshal(p.ProtocolVersion, &v) != nil || v == "":
		return "has no protocolVersion string"
	case !isObject(p.Capabilities):
		return "has no capabilities object"
	case p.ClientInfo == nil || !isString(p.ClientInfo.Name) || !isString(p.ClientInfo.Version):
		return "has no clientInfo with a name and a version"
	}
	return ""
}

// messageFault says what is wrong with a client message ("" when nothing);
// asked holds the ids of the server's requests on each connection.
func messageFault(m msg, asked map[string]bool) string {
	if m.M == nil {
		return fmt.Sprintf("not a JSON object (%v)", m.Err)
	}
	switch {
	case !m.M.HasJSONRPC || m.M.JSONRPC != "2.0":
		return fmt.Sprintf(`"jsonrpc" is %s, not "2.0"`, rawOr(m.M.Members["jsonrpc"], "absent"))
	case m.M.HasMethod && !m.M.MethodIsString:
		return "the method is not a string"
	case m.M.HasMethod && m.M.HasID && !m.M.ID.Valid():
		return "" // CLI-004 judges request ids
	case m.M.HasMethod && (m.M.HasResult || m.M.HasError):
		return "a request or notification also carries result or error"
	case m.M.HasMethod:
		return ""
	case !m.M.HasID:
		return "neither a request, a notification nor a response (no method, no id)"
	case m.M.HasResult == m.M.HasError:
		return "a response must carry exactly one of result and error"
	case !asked[m.F.Conn+"|"+m.M.ID.Key()]:
		return fmt.Sprintf("a response with id %s, which no request of the server's had", m.M.ID)
	case m.M.HasError && (m.M.Error == nil || !m.M.Error.CodeIsInt || !m.M.Error.MessageIsString):
		return "an error response whose error has no integer code and string message"
	}
	return ""
}

func isObject(raw json.RawMessage) bool {
	var o map[string]json.RawMessage
	return json.Unmarshal(raw, &o) == nil && o != nil
}

func isString(raw json.RawMessage) bool {
	var s string
	return json.Unmarshal(raw, &s) == nil
}

func rawOr(raw json.RawMessage, none string) string {
	if raw == nil {
		return none
	}
	return string(raw)
}

// joinFirst renders the first reasons (and how many there were).
func joinFirst(why []string) string {
	slices.Sort(why)
	why = slices.Compact(why)
	if len(why) <= 2 {
		return joinSemi(why)
	}
	return fmt.Sprintf("%s (and %d more)", joinSemi(why[:2]), len(why)-2)
}

func joinSemi(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += "; "
		}
		out += x
	}
	return out
}

var _ = c.ClientArea("client", func() {
	c.It("CLI-022", "the client answers every request of the server, with its id", func(t *c.T) {
		var bad findings
		asked := 0
		for _, r := range t.Runs(nil) {
			ms := traffic(t, r)
			for _, m := range ms {
				if m.client() || m.M == nil || m.M.Kind() != jsonrpc.KindRequest || m.M.Method == "ping" {
					continue // ping: CLI-010's
				}
				a, ok := answer(ms, m)
				if !ok && unansweredAfterCompletions(t, r, ms, m) {
					continue // CLI-034's
				}
				asked++
				t.Judged(r)
				switch {
				case !ok:
					bad.add(m, fmt.Sprintf("%s: the client did not answer %s (id %s)", describeRunOf(r), m.M.Method, m.M.ID))
				case a.M.HasResult == a.M.HasError:
					bad.add(a, fmt.Sprintf("%s: the answer to %s carries %s", describeRunOf(r), m.M.Method, map[bool]string{true: "both result and error", false: "neither result nor error"}[a.M.HasResult]))
				}
			}
		}
		if asked == 0 {
			t.NA("no scenario server sent the client a request (roots/list goes to a client that declared roots, from the tool it calls)")
		}
		bad.report(t, "a response with the request's id: a result or an error")
	})
})
