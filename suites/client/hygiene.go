package client

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	c "github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/jsonrpc"
)

// The rules every request of a client keeps whatever the scenario: the
// cursors it sends back (CLI-024), its progress tokens (CLI-025), its
// cancellations (CLI-026) and task augmentation (CLI-027), each judged
// over the whole run's traffic, NA when the client never did the thing.

// scope keys what a client's message belongs to: its connection and, in
// a legacy HTTP session, the session (cursors, ids and tokens do not
// cross either).
func scope(m msg) string { return m.F.Conn + "|" + sessionOf(m) }

// paramMember returns params[key] of m (ok false when absent).
func paramMember(m *jsonrpc.Message, key string) (json.RawMessage, bool) {
	var p map[string]json.RawMessage
	if m == nil || !m.HasParams || json.Unmarshal(m.Params, &p) != nil {
		return nil, false
	}
	raw, ok := p[key]
	return raw, ok
}

// isStringOrInteger reports whether raw is a JSON string or an integer
// (no fraction, no exponent).
func isStringOrInteger(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		return json.Unmarshal(raw, &s) == nil
	}
	var n json.Number
	if json.Unmarshal(raw, &n) != nil {
		return false
	}
	_, err := n.Int64()
	return err == nil
}

var _ = c.ClientArea("client", func() {
	c.It("CLI-024", "the client sends cursors back as it got them, in the same session", func(t *c.T) {
		var bad findings
		sent := 0
		for _, r := range t.Runs(nil) {
			ms := traffic(t, r)
			issued := map[string][]string{} // conn|method|cursor → the sessions it was issued in
			for _, m := range requests(ms) {
				// a null cursor asks for no page in particular: the message
				// model's to judge, not this rule's
				if raw, ok := paramMember(m.M, "cursor"); ok && string(bytes.TrimSpace(raw)) != "null" {
					sent++
					t.Judged(r)
					var cur string
					switch {
					case json.Unmarshal(raw, &cur) != nil:
						bad.add(m, fmt.Sprintf("%s: %s carries cursor %s, not a string the server issued", describeRunOf(r), m.M.Method, c.Clip(raw)))
					default:
						// a request without the session's id is CLI-006's
						in := issued[m.F.Conn+"|"+m.M.Method+"|"+cur]
						if len(in) == 0 || sessionOf(m) != "" && !slices.Contains(in, sessionOf(m)) {
							bad.add(m, fmt.Sprintf("%s: %s carries cursor %q, which no %s result of the server issued on this connection and session (made up, modified, or kept from another session)", describeRunOf(r), m.M.Method, cur, m.M.Method))
						}
					}
				}
				if a, ok := answer(ms, m); ok && a.M.HasResult {
					if next := resultString(a.M, "nextCursor"); next != "" {
						k := m.F.Conn + "|" + m.M.Method + "|" + next
						issued[k] = append(issued[k], sessionOf(m))
					}
				}
			}
		}
		if sent == 0 {
			t.NA("the client sent no cursor (it asked for no second page: the pagination scenario's tools/list has two)")
		}
		bad.report(t, "params.cursor: a nextCursor the server returned for that method on this connection and session, byte for byte")
	})

	c.It("CLI-025", "progress tokens are strings or integers, unique among active requests", func(t *c.T) {
		var bad findings
		tokens := 0
		for _, r := range t.Runs(nil) {
			ms := traffic(t, r)
			reqs := requests(ms)
			for i, m := range reqs {
				raw, ok := metaOf(m.M)["progressToken"]
				if !ok {
					continue
				}
				tokens++
				t.Judged(r)
				if !isStringOrInteger(raw) {
					bad.add(m, fmt.Sprintf("%s: %s carries progressToken %s, neither a string nor an integer", describeRunOf(r), m.M.Method, c.Clip(raw)))
					continue
				}
				for _, p := range reqs[:i] {
					if scope(p) != scope(m) || settledBefore(ms, p, m.F.Seq) {
						continue
					}
					if q, ok := metaOf(p.M)["progressToken"]; ok && bytes.Equal(bytes.TrimSpace(q), bytes.TrimSpace(raw)) {
						bad.add(m, fmt.Sprintf("%s: %s carries progressToken %s, the token of its %s (id %s) still awaiting its response", describeRunOf(r), m.M.Method, c.Clip(raw), p.M.Method, p.M.ID))
						break
					}
				}
			}
		}
		if tokens == 0 {
			t.NA("the client asked for progress in no request (no progressToken in _meta)")
		}
		bad.report(t, "progressToken: a string or an integer no other active request of the client carries")
	})

	c.It("CLI-026", "notifications/cancelled names a request the client issued, never initialize", func(t *c.T) {
		var bad findings
		cancels := 0
		for _, r := range t.Runs(nil) {
			ms := traffic(t, r)
			for _, m := range ms {
				if !m.client() || m.M == nil || m.M.Kind() != jsonrpc.KindNotification || m.M.Method != "notifications/cancelled" {
					continue
				}
				cancels++
				t.Judged(r)
				raw, _ := paramMember(m.M, "requestId")
				id := jsonrpc.RawID(raw)
				var target *msg
				for _, q := range requests(ms) {
					if q.F.Seq < m.F.Seq && scope(q) == scope(m) && len(raw) > 0 && q.M.ID.Key() == id.Key() {
						target = &q
					}
				}
				switch {
				case target == nil:
					bad.add(m, fmt.Sprintf("%s: the client cancelled requestId %s, which it never sent on this connection and session", describeRunOf(r), c.Clip(raw)))
				case target.M.Method == "initialize":
					bad.add(m, fmt.Sprintf("%s: the client cancelled its initialize request (id %s)", describeRunOf(r), target.M.ID))
				case settledBefore(ms, *target, m.F.Seq):
					t.Note("%s: the client cancelled %s (id %s) after its response had come: a race the spec tolerates", describeRunOf(r), target.M.Method, target.M.ID)
				}
			}
		}
		if cancels == 0 {
			t.NA("the client cancelled no request")
		}
		bad.report(t, "requestId: a request the client sent on this connection and session, other than initialize")
	})

	c.It("CLI-027", "no task augmentation unless the server and the tool allow it", func(t *c.T) {
		var bad findings
		judged := 0
		for _, r := range t.Runs(nil) {
			ms := traffic(t, r)
			tools := listedTools(ms)
			for _, s := range capSessions(ms) {
				judged++
				t.Judged(r)
				for _, m := range s.later {
					raw, ok := paramMember(m.M, "task")
					if !ok || string(bytes.TrimSpace(raw)) == "null" {
						continue
					}
					why := taskRefusal(s.caps, m.M, tools)
					if why != "" {
						bad.add(m, fmt.Sprintf("%s: %s is task-augmented although %s", describeRunOf(r), m.M.Method, why))
					}
				}
			}
		}
		if judged == 0 {
			t.NA("no initialize of the client got a result")
		}
		bad.report(t, "params.task only on a tools/call the server's tasks.requests.tools.call and the tool's execution.taskSupport allow")
	})
})

// taskRefusal says why the server's capabilities (its initialize result's)
// and the tool's declaration forbid task augmentation of m ("": allowed).
func taskRefusal(caps map[string]json.RawMessage, m *jsonrpc.Message, tools map[string]json.RawMessage) string {
	var tasks struct {
		Requests map[string]map[string]json.RawMessage `json:"requests"`
	}
	_ = json.Unmarshal(caps["tasks"], &tasks)
	if m.Method != "tools/call" {
		group, method, _ := cutMethod(m.Method)
		if _, ok := tasks.Requests[group][method]; !ok {
			return "the server declared no tasks.requests." + group + "." + method
		}
		return ""
	}
	if _, ok := tasks.Requests["tools"]["call"]; !ok {
		return "the server declared no tasks.requests.tools.call"
	}
	name, _ := nameOf(m)
	var tool struct {
		Execution struct {
			TaskSupport string `json:"taskSupport"`
		} `json:"execution"`
	}
	_ = json.Unmarshal(tools[name], &tool)
	if ts := tool.Execution.TaskSupport; ts != "optional" && ts != "required" {
		if ts == "" {
			ts = "absent"
		}
		return fmt.Sprintf("the tool %s's execution.taskSupport is %s", name, ts)
	}
	return ""
}

// cutMethod splits "sampling/createMessage" into its group and method.
func cutMethod(method string) (group, name string, ok bool) {
	for i := range method {
		if method[i] == '/' {
			return method[:i], method[i+1:], true
		}
	}
	return method, "", false
}
