package staleness

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"

	c "github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/jsonrpc"
	"github.com/mcpconform/mcpconform/internal/session"
	"github.com/mcpconform/mcpconform/internal/wire"
)

// kinds are the lists a catalog change can touch: the capability, its list
// method, and the notification announcing a change.
var kinds = []struct{ capability, method, notification string }{
	{"tools", "tools/list", "notifications/tools/list_changed"},
	{"prompts", "prompts/list", "notifications/prompts/list_changed"},
	{"resources", "resources/list", "notifications/resources/list_changed"},
}

// snapshot is one complete walk of each declared list: key → item.
type snapshot map[string]map[string]json.RawMessage

// takeSnapshot walks every declared list of the three kinds (and
// resources/templates/list when withTemplates). A walk that does not reach
// its end leaves the list out and is noted: pagination is judged elsewhere.
func takeSnapshot(t *c.T, s *session.Session, withTemplates bool) snapshot {
	snap := snapshot{}
	methods := []string{}
	for _, k := range kinds {
		if c.Declared(s, k.capability) {
			methods = append(methods, k.method)
		}
	}
	if withTemplates && c.Declared(s, "resources") {
		methods = append(methods, "resources/templates/list")
	}
	for _, m := range methods {
		snap.add(t, m, t.WalkList(s, m))
	}
	return snap
}

// add keeps the walk w of method m in the snapshot, unless it did not
// reach its end (noted).
func (snap snapshot) add(t *c.T, m string, w *c.Walk) {
	if !w.Complete() {
		t.Note("%s could not be walked to its end (%s); it is left out", m, w.Problem)
		return
	}
	items := map[string]json.RawMessage{}
	for i, k := range w.Keys() {
		if k != "" {
			items[k] = w.Items[i]
		}
	}
	snap[m] = items
}

// keys returns the sorted keys of one list.
func (s snapshot) keys(method string) []string {
	out := make([]string, 0, len(s[method]))
	for k := range s[method] {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// removed returns the keys of method present in before and absent after.
func removed(before, after snapshot, method string) []string {
	var out []string
	if _, ok := after[method]; !ok {
		return nil
	}
	for _, k := range before.keys(method) {
		if _, still := after[method][k]; !still {
			out = append(out, k)
		}
	}
	return out
}

// differs reports whether a list changed between two snapshots (the set of
// keys, or an item's content).
func differs(before, after snapshot, method string) bool {
	b, okb := before[method]
	a, oka := after[method]
	if !okb || !oka {
		return false
	}
	if len(a) != len(b) {
		return true
	}
	for k, v := range b {
		w, ok := a[k]
		if !ok || !sameJSON(v, w) {
			return true
		}
	}
	return false
}

func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return bytes.Equal(a, b)
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}

// field returns item[key] (nil when absent).
func field(item json.RawMessage, key string) json.RawMessage {
	var o map[string]json.RawMessage
	if json.Unmarshal(item, &o) != nil {
		return nil
	}
	return o[key]
}

// isListChanged reports an event that is the notification n.
func isNotification(e session.Event, n string) bool {
	return e.Msg != nil && e.Msg.Method == n && !e.Msg.HasID
}

// openGetStream opens the legacy HTTP GET stream of s, on which a server
// sends notifications unrelated to a request; it stays open until the
// returned function is called; ok is false when the server offers no such
// stream (405, an error). On stdio and in 2026-07-28 it does nothing.
func openGetStream(t *c.T, s *session.Session) (stop func(), ok bool) {
	if !t.HTTP() || t.Modern() {
		return func() {}, true
	}
	doer, isDoer := s.Conn().(wire.HTTPDoer)
	if !isDoer {
		return func() {}, false
	}
	ctx, cancel := context.WithCancel(t.Ctx)
	h := http.Header{}
	if id := s.SessionID(); id != "" {
		h.Set(session.HeaderSessionID, id)
	}
	if rev := s.Revision(); rev >= "2025-06-18" {
		h.Set(session.HeaderProtocolVersion, string(rev))
	}
	reply, err := doer.Do(ctx, http.MethodGet, nil, &wire.SendOptions{Header: h})
	if err != nil || reply.Status != http.StatusOK || !strings.HasPrefix(reply.Header.Get("Content-Type"), "text/event-stream") {
		status := 0
		if reply != nil {
			status = reply.Status
		}
		t.Note("no GET stream for notifications (status %d, %v): only notifications on request streams are seen", status, err)
		return cancel, false
	}
	return cancel, true
}

// waitNotification waits, up to the target's timeout, for notification n
// on s after mark.
func waitNotification(t *c.T, s *session.Session, mark int64, n string) bool {
	ctx, cancel := context.WithTimeout(t.Ctx, s.Timeout())
	defer cancel()
	_, ok := s.WaitEvent(ctx, mark, func(e session.Event) bool { return isNotification(e, n) })
	return ok
}

// upperName returns a case variant of name that is not in taken ("" when
// the name has no letters whose case can change).
func caseVariant(name string, taken map[string]json.RawMessage) string {
	for _, v := range []string{strings.ToUpper(name), strings.ToLower(name), swapCase(name)} {
		if v == name {
			continue
		}
		if _, ok := taken[v]; ok {
			continue
		}
		return v
	}
	return ""
}

func swapCase(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z':
			b.WriteRune(r - 'a' + 'A')
		case r >= 'A' && r <= 'Z':
			b.WriteRune(r - 'A' + 'a')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// settleFor waits until the server has sent what it would send on s: the
// barrier, then the grace window, bounded by d more for debounced
// notifications.
func settle(t *c.T, s *session.Session) {
	t.Settle(s)
	select {
	case <-time.After(50 * time.Millisecond):
	case <-t.Ctx.Done():
	}
}

func describeKeys(keys []string) string {
	if len(keys) == 0 {
		return "(none)"
	}
	if len(keys) > 12 {
		return fmt.Sprintf("%s … (%d in all)", strings.Join(keys[:12], ", "), len(keys))
	}
	return strings.Join(keys, ", ")
}

// listenAll opens a 2026-07-28 listen stream asking for every list change
// and waits for its acknowledgment; the returned function closes it.
func listenAll(t *c.T, s *session.Session) func() {
	st := c.Listen(t, s, jsonrpc.StringID("mcpconform-stale-listen"), map[string]any{
		"toolsListChanged": true, "promptsListChanged": true, "resourcesListChanged": true,
	})
	st.WaitFor(func(m *jsonrpc.Message) bool { return m.Method == c.SubscriptionAck })
	return st.Close
}

// servesPhantom reports whether the server answers a request naming a
// made-up tool, prompt or resource with a result. Then a stale or
// case-variant name being served is that broader fault, judged by the
// tools, prompts and resources checks (TOOL-010, PRM, RES): one fault at a
// time.
func servesPhantom(t *c.T, s *session.Session, method string) bool {
	served, _ := phantom(t, s, method)
	return served
}

// phantom is servesPhantom that also returns the error code the made-up
// name got (ok false when it got none).
func phantom(t *c.T, s *session.Session, method string) (served bool, code phantomCode) {
	var params map[string]any
	switch method {
	case "tools/call":
		params = map[string]any{"name": "mcpconform_no_such_tool", "arguments": map[string]any{}}
	case "prompts/get":
		params = map[string]any{"name": "mcpconform_no_such_prompt", "arguments": map[string]any{}}
	default:
		params = map[string]any{"uri": "mcpconform://no-such-resource"}
	}
	resp, err := t.TryCall(s, method, params, nil)
	if err == nil && resp.IsResult() && !resp.IsError() {
		t.Note("%s of a made-up name is served too (%s); that is judged by the %s checks, not here", method, resp.Describe(), strings.Split(method, "/")[0])
		return true, code
	}
	if err == nil {
		code.code, code.ok = resp.ErrorCode()
	}
	return false, code
}

// phantomCode is the JSON-RPC error code a made-up name got.
type phantomCode struct {
	code int64
	ok   bool
}

// servesInvalid calls tool with arguments that break its current schema in
// a way unrelated to any earlier schema (the derived arguments without one
// required property) and reports whether the server served them: then it
// does not validate arguments at all, which TOOL-012 judges, and stale
// arguments being served say nothing more.
func servesInvalid(t *c.T, s *session.Session, tool string, schema json.RawMessage) bool {
	args, err := c.DeriveArgs(schema)
	if err != nil {
		return false
	}
	var sch struct {
		Required []string `json:"required"`
	}
	_ = json.Unmarshal(schema, &sch)
	if len(sch.Required) == 0 {
		return false
	}
	req := append([]string(nil), sch.Required...)
	sort.Strings(req)
	delete(args, req[0])
	resp, err := t.TryCall(s, "tools/call", map[string]any{"name": tool, "arguments": args}, nil)
	if err != nil || !resp.IsResult() || resp.IsError() {
		return false
	}
	var res struct {
		IsError bool `json:"isError"`
	}
	if resp.Result(&res) == nil && !res.IsError {
		t.Note("%s without its required %q is served too (%s): the server does not validate arguments (TOOL-012)", tool, req[0], resp.Describe())
		return true
	}
	return false
}
