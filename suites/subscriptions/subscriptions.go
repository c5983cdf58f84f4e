package subscriptions

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"

	c "github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/jsonrpc"
	"github.com/mcpconform/mcpconform/internal/session"
)

// listenSeq numbers the listen ids of the run (distinct from the session's
// own integer ids).
var listenSeq atomic.Int64

func intID() jsonrpc.ID { return jsonrpc.IntID(900000 + listenSeq.Add(1)) }
func stringID() jsonrpc.ID {
	return jsonrpc.StringID(fmt.Sprintf("mcpconform-listen-%d", listenSeq.Add(1)))
}

var filterKeys = []struct{ key, capability string }{
	{"toolsListChanged", "tools"}, {"promptsListChanged", "prompts"}, {"resourcesListChanged", "resources"},
}

var _ = c.Area("subscriptions", func() {
	c.It("SUB-001", "the listen stream starts with notifications/subscriptions/acknowledged", func(t *c.T) {
		s := t.Shared()
		NeedListen(t, s)
		st := c.Listen(t, s, intID(), FullFilter(s, false, nil))
		defer st.Close()
		e, ok := st.WaitFirst()
		if !ok {
			t.Violation(c.SubscriptionAck+" tagged with the listen id", "nothing within "+s.Timeout().String(), "no acknowledgment for subscriptions/listen")
		}
		if e.Msg.HasID && !e.Msg.HasMethod {
			if code, isErr := e.Msg.ErrorCode(); isErr && code == jsonrpc.CodeMethodNotFound {
				t.Violation(c.SubscriptionAck, describeEvent(e), "subscriptions/listen is not implemented (-32601) although the server declares listChanged or resources.subscribe")
			}
		}
		t.Check(e.Msg.Method == c.SubscriptionAck, c.SubscriptionAck+" as the first message of the subscription", describeEvent(e),
			"the first message for the subscription is not the acknowledgment")
	})

	c.It("SUB-002", "the acknowledged notifications are a supported subset of the filter", func(t *c.T) {
		s := t.Shared()
		NeedListen(t, s)
		for _, full := range []bool{true, false} {
			// all types requested (unsupported ones must be left out); then
			// only one type (nothing else may be added)
			filter := map[string]any{"toolsListChanged": true}
			if full {
				filter = FullFilter(s, true, []string{"mcpconform://subscription-probe"})
			}
			st := c.Listen(t, s, intID(), filter)
			e, ok := st.WaitFor(func(m *jsonrpc.Message) bool { return m.Method == c.SubscriptionAck })
			st.Close()
			if !ok {
				t.NA("no acknowledgment came (judged by SUB-001)")
			}
			got := AckFilter(e.Msg)
			for _, k := range filterKeys {
				if string(got[k.key]) != "true" {
					continue
				}
				t.Check(filter[k.key] == true, fmt.Sprintf("%s only when requested", k.key), describeEvent(e),
					"the acknowledgment grants %s, which the filter %s did not ask for", k.key, mustJSON(filter))
				if !c.Declared(s, k.capability) {
					// one fault at a time: a list served without its
					// capability is judged by the tools, prompts and
					// resources checks
					t.Note("the acknowledgment grants %s although the server declares no %s capability", k.key, k.capability)
					continue
				}
				t.Check(c.SubCapability(s, k.capability, "listChanged"), fmt.Sprintf("%s left out (%s.listChanged is not declared)", k.key, k.capability),
					describeEvent(e), "the acknowledgment grants %s without %s.listChanged", k.key, k.capability)
			}
			if raw, has := got["resourceSubscriptions"]; has && string(raw) != "null" && string(raw) != "[]" {
				var uris []string
				_ = json.Unmarshal(raw, &uris)
				asked, _ := filter["resourceSubscriptions"].([]string)
				t.Check(c.SubCapability(s, "resources", "subscribe"), "resourceSubscriptions left out (resources.subscribe is not declared)",
					describeEvent(e), "the acknowledgment grants resourceSubscriptions without resources.subscribe")
				for _, u := range uris {
					t.Check(contains(asked, u), "only requested URIs", describeEvent(e), "the acknowledgment grants a subscription to %q, which was not requested", u)
				}
			}
		}
	})

	c.It("SUB-003", "listen notifications carry the listen id as subscriptionId, with its JSON type", func(t *c.T) {
		s := t.Shared()
		NeedListen(t, s)
		for _, id := range []jsonrpc.ID{intID(), stringID()} {
			st := c.Listen(t, s, id, FullFilter(s, false, nil))
			_, ok := st.WaitFor(func(m *jsonrpc.Message) bool { return m.Method == c.SubscriptionAck })
			st.Close()
			if !ok {
				t.NA("no acknowledgment came (judged by SUB-001)")
			}
			t.Settle(s)
			for _, e := range st.Events() {
				if !e.Msg.HasMethod {
					continue
				}
				raw, _ := c.SubscriptionID(e.Msg)
				t.Check(jsonrpc.RawID(raw).Key() == id.Key(), fmt.Sprintf("_meta[%q] = %s (%s)", c.MetaSubscriptionID, id, id.TypeName()),
					describeEvent(e), "%s carries subscriptionId %s for the listen id %s", e.Msg.Method, string(raw), id)
			}
		}
	})

	c.It("SUB-004", "only requested notification types appear on the listen stream", func(t *c.T) {
		s := t.Shared()
		if !c.SubCapability(s, "tools", "listChanged") {
			t.NA("tools.listChanged is not declared: a tools-only listen stream has nothing to carry")
		}
		o := t.Open()
		st := c.Listen(t, o, intID(), map[string]any{"toolsListChanged": true})
		defer st.Close()
		if _, ok := st.WaitFor(func(m *jsonrpc.Message) bool { return m.Method == c.SubscriptionAck }); !ok {
			t.NA("no acknowledgment came (judged by SUB-001)")
		}
		// request-scoped traffic on the same connection: log messages asked
		// for with the logLevel _meta, and the lists
		meta := o.ModernMeta()
		meta[session.MetaLogLevel] = "debug"
		for _, m := range []string{"tools/list", "prompts/list", "resources/list"} {
			if c.Declared(o, strings.Split(m, "/")[0]) {
				_, _ = t.TryCall(o, m, map[string]any{"_meta": map[string]any{"progressToken": "mcpconform-sub-004"}}, &session.CallOptions{Meta: meta})
			}
		}
		if tr := c.CatalogTrigger(); tr != nil {
			t.FireTrigger(o, tr)
			defer t.RestoreCatalog(o, tr)
		} else {
			t.Note("%s; without it only the quiet stream was watched", c.TriggerKeyHelp)
		}
		t.Settle(o)
		for _, e := range st.Events() {
			if !e.Msg.HasMethod || e.Msg.Method == c.SubscriptionAck {
				continue
			}
			t.Check(e.Msg.Method == "notifications/tools/list_changed", "only notifications/tools/list_changed (the one type requested)",
				describeEvent(e), "the listen stream carried %s, which the subscription did not ask for", e.Msg.Method)
		}
	})

	c.It("SUB-005", "the HTTP listen response is an open SSE stream", func(t *c.T) {
		s := t.Shared()
		NeedListen(t, s)
		st := c.Listen(t, s, intID(), FullFilter(s, false, nil))
		defer st.Close()
		if st.Reply == nil {
			t.Error("no HTTP reply head for subscriptions/listen")
		}
		ct := st.Reply.Header.Get("Content-Type")
		if _, ok := st.WaitFor(func(m *jsonrpc.Message) bool { return m.Method == c.SubscriptionAck }); !ok && st.Reply.Status >= 400 {
			t.Violation("200 text/event-stream", fmt.Sprintf("HTTP %d %s", st.Reply.Status, ct), "subscriptions/listen was refused")
		}
		t.Check(strings.HasPrefix(strings.ToLower(strings.TrimSpace(ct)), "text/event-stream"), "Content-Type: text/event-stream",
			"Content-Type: "+ct, "the listen response is not an SSE stream")
		t.Settle(s)
		for _, e := range st.Events() {
			if !e.Msg.HasMethod {
				t.Violation("no final response while the subscription is active", describeEvent(e), "the server answered the listen request right after the acknowledgment")
			}
		}
		select {
		case <-st.Reply.Done:
			t.Violation("the stream stays open after the acknowledgment", "the response body ended", "the server closed the listen stream while the subscription was active")
		default:
		}
	})

	c.It("SUB-006", "a subscription the server ends gets a final result tagged with the subscription", func(t *c.T) {
		s := t.Shared()
		NeedListen(t, s)
		// a filter that asks for nothing: a server with nothing to send may
		// end such a subscription itself (and go-sdk does)
		st := c.Listen(t, s, intID(), map[string]any{})
		defer st.Close()
		if _, ok := st.WaitFor(func(m *jsonrpc.Message) bool { return m.Method == c.SubscriptionAck }); !ok {
			t.NA("no acknowledgment came (judged by SUB-001)")
		}
		t.Settle(s)
		var end *session.Event
		for _, e := range s.Events(st.Mark) {
			if e.Msg == nil {
				continue
			}
			if st.Tagged(e.Msg) && !e.Msg.HasMethod {
				end = &e
				break
			}
			if e.Msg.Method == "notifications/cancelled" && !e.Msg.HasID {
				var p struct {
					RequestID json.RawMessage `json:"requestId"`
				}
				if json.Unmarshal(e.Msg.Params, &p) == nil && jsonrpc.RawID(p.RequestID).LooseKey() == st.ID.LooseKey() {
					end = &e
					break
				}
			}
		}
		if end == nil {
			if t.HTTP() && st.Reply != nil {
				select {
				case <-st.Reply.Done:
					t.Note("the server closed the listen stream without a final result (accepted on HTTP, TOL-4)")
					return
				default:
				}
			}
			t.NA("the server kept even a subscription that asks for nothing open: it ended no subscription by itself")
		}
		if end.Msg.HasMethod {
			if t.HTTP() {
				t.Note("the server ended the subscription with notifications/cancelled on HTTP, where closing the stream is the signal")
			}
			return // stdio: notifications/cancelled for the listen id is accepted (TOL-4)
		}
		want := fmt.Sprintf(`a result {"resultType":"complete","_meta":{%q:%s}}`, c.MetaSubscriptionID, st.ID)
		// (a message with both members is RPC-003's business)
		t.Check(end.Msg.HasResult, want, describeEvent(*end), "the server ended the subscription with an error instead of a successful result")
		var res struct {
			ResultType string                     `json:"resultType"`
			Meta       map[string]json.RawMessage `json:"_meta"`
		}
		_ = json.Unmarshal(end.Msg.Result, &res)
		t.Check(res.ResultType == "complete", want, describeEvent(*end), "the final result of the subscription has resultType %q", res.ResultType)
		raw, ok := res.Meta[c.MetaSubscriptionID]
		t.Check(ok && jsonrpc.RawID(raw).Key() == st.ID.Key(), want, describeEvent(*end),
			"the final result of the subscription does not carry the subscription id %s in _meta", st.ID)
	})

	c.It("SUB-007", "subscribed list changes produce list_changed on the stream", func(t *c.T) {
		tr := t.NeedTrigger()
		o := t.Open()
		filter := FullFilter(o, false, nil)
		delete(filter, "resourceSubscriptions")
		if len(filter) == 0 {
			t.NA("the server declares listChanged for none of tools, prompts, resources")
		}
		st := c.Listen(t, o, intID(), filter)
		defer st.Close()
		ack, ok := st.WaitFor(func(m *jsonrpc.Message) bool { return m.Method == c.SubscriptionAck })
		if !ok {
			t.NA("no acknowledgment came (judged by SUB-001)")
		}
		granted := AckFilter(ack.Msg)
		before := lists(t, o)
		t.FireTrigger(o, tr)
		defer t.RestoreCatalog(o, tr)
		after := lists(t, o)
		judged := 0
		for _, k := range filterKeys {
			method := k.capability + "/list"
			if string(granted[k.key]) != "true" || before[method] == "" || before[method] == after[method] {
				continue
			}
			judged++
			n := "notifications/" + k.capability + "/list_changed"
			_, ok := st.WaitFor(func(m *jsonrpc.Message) bool { return m.Method == n })
			t.Check(ok, n+" on the listen stream", "nothing within "+o.Timeout().String(),
				"%s changed and the subscription asked for %s, but no %s came", method, k.key, n)
		}
		if judged == 0 {
			t.NA("the catalog_change trigger (%s) changed no list the subscription covers", tr.Describe())
		}
	})

	c.It("SUB-008", "a cancelled stdio subscription goes quiet", func(t *c.T) {
		o := t.Open()
		NeedListen(t, o)
		st := c.Listen(t, o, intID(), FullFilter(o, false, nil))
		if _, ok := st.WaitFor(func(m *jsonrpc.Message) bool { return m.Method == c.SubscriptionAck }); !ok {
			st.Close()
			t.NA("no acknowledgment came (judged by SUB-001)")
		}
		st.Close() // notifications/cancelled
		t.Settle(o)
		quiet := t.Mark() // what arrives later is no race any more
		tr := c.CatalogTrigger()
		if tr != nil {
			t.FireTrigger(o, tr)
			defer t.RestoreCatalog(o, tr)
			lists(t, o)
		} else {
			t.Note("%s; without it only a late answer could show", c.TriggerKeyHelp)
		}
		t.Settle(o)
		for _, e := range o.Events(quiet) {
			if st.Tagged(e.Msg) {
				t.Violation("nothing more for the cancelled subscription", describeEvent(e),
					"after notifications/cancelled for the listen request the server still sent a message for it")
			}
		}
	})
})

// lists returns the keys of each declared list, joined ("" when not
// walked to the end).
func lists(t *c.T, s *session.Session) map[string]string {
	out := map[string]string{}
	for _, m := range []string{"tools/list", "prompts/list", "resources/list"} {
		if !c.Declared(s, strings.Split(m, "/")[0]) {
			continue
		}
		w := t.WalkList(s, m)
		if w.Complete() {
			out[m] = strings.Join(w.Keys(), "\x00") + "\x01" + fmt.Sprint(len(w.Items))
			for _, it := range w.Items {
				out[m] += string(it)
			}
		}
	}
	return out
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
