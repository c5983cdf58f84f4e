package subscriptions

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/mcpconform/mcpconform/internal/catalog"
	c "github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/jsonrpc"
	"github.com/mcpconform/mcpconform/internal/session"
	"github.com/mcpconform/mcpconform/internal/wire"
)

// MetaSubscriptionID tags every message of a listen stream.
const MetaSubscriptionID = "io.modelcontextprotocol/subscriptionId"

// Ack is the acknowledgment notification.
const Ack = "notifications/subscriptions/acknowledged"

// Stream is one open subscriptions/listen request. On HTTP its SSE
// response lives until Close; on stdio Close sends notifications/cancelled.
type Stream struct {
	t      *c.T
	s      *session.Session
	ID     jsonrpc.ID
	Mark   int64 // recorder position before the request was sent
	Reply  *wire.Reply
	cancel context.CancelFunc
	closed bool
}

// Listen sends subscriptions/listen with the notifications filter on s
// (a 2026-07-28 session) and returns at once: the stream's messages arrive
// as events of s. The caller must Close it.
func Listen(t *c.T, s *session.Session, id jsonrpc.ID, filter map[string]any) *Stream {
	params, err := json.Marshal(map[string]any{"_meta": s.ModernMeta(), "notifications": filter})
	if err != nil {
		t.Error("subscriptions/listen params: %v", err)
	}
	payload := jsonrpc.Request(id, "subscriptions/listen", json.RawMessage(params))
	h := http.Header{}
	if t.HTTP() {
		h.Set(session.HeaderProtocolVersion, string(catalog.Modern))
		h.Set(session.HeaderMethod, "subscriptions/listen")
	}
	ctx, cancel := context.WithCancel(t.Ctx)
	st := &Stream{t: t, s: s, ID: id, Mark: t.Mark(), cancel: cancel}
	reply, err := s.Conn().Send(ctx, payload, &wire.SendOptions{Header: h})
	if err != nil {
		cancel()
		t.Error("could not send subscriptions/listen: %v", err)
	}
	st.Reply = reply
	return st
}

// Close ends the subscription the way a client does: HTTP closes the
// stream, stdio sends notifications/cancelled naming the listen id.
func (st *Stream) Close() {
	if st.closed {
		return
	}
	st.closed = true
	if !st.t.HTTP() {
		_, _ = st.s.Notify(st.t.Ctx, "notifications/cancelled", map[string]any{"requestId": st.ID, "reason": "mcpconform: done listening"})
	}
	st.cancel()
}

// Tagged reports whether message m belongs to this stream: a notification
// whose _meta subscriptionId has the listen id's value (of either JSON
// type: a mistyped tag still belongs to it), or a response with its id.
func (st *Stream) Tagged(m *jsonrpc.Message) bool {
	if m == nil {
		return false
	}
	if m.HasMethod && !m.HasID {
		raw, ok := SubscriptionID(m)
		return ok && jsonrpc.RawID(raw).LooseKey() == st.ID.LooseKey()
	}
	return !m.HasMethod && m.HasID && m.ID.LooseKey() == st.ID.LooseKey()
}

// SubscriptionID returns params._meta[subscriptionId] of a notification.
func SubscriptionID(m *jsonrpc.Message) (json.RawMessage, bool) {
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(m.Params, &p) != nil || p.Meta == nil {
		return nil, false
	}
	raw, ok := p.Meta[MetaSubscriptionID]
	return raw, ok
}

// Events returns the stream's messages so far (events of s after Mark that
// Tagged accepts).
func (st *Stream) Events() []session.Event {
	var out []session.Event
	for _, e := range st.s.Events(st.Mark) {
		if st.Tagged(e.Msg) {
			out = append(out, e)
		}
	}
	return out
}

// WaitFor waits, up to the session's timeout, for a stream message pred
// accepts.
func (st *Stream) WaitFor(pred func(*jsonrpc.Message) bool) (session.Event, bool) {
	ctx, cancel := context.WithTimeout(st.t.Ctx, st.s.Timeout())
	defer cancel()
	return st.s.WaitEvent(ctx, st.Mark, func(e session.Event) bool { return st.Tagged(e.Msg) && pred(e.Msg) })
}

// WaitAck waits for the first message of the stream and returns it (ok
// false when none came in time).
func (st *Stream) WaitFirst() (session.Event, bool) {
	return st.WaitFor(func(*jsonrpc.Message) bool { return true })
}

// AckFilter returns the ack's params.notifications.
func AckFilter(m *jsonrpc.Message) map[string]json.RawMessage {
	var p struct {
		Notifications map[string]json.RawMessage `json:"notifications"`
	}
	_ = json.Unmarshal(m.Params, &p)
	return p.Notifications
}

// FullFilter asks for every list the server declared listChanged for (all
// three when all is set), and resourceSubscriptions for uris.
func FullFilter(s *session.Session, all bool, uris []string) map[string]any {
	f := map[string]any{}
	for _, k := range []struct{ capability, key string }{{"tools", "toolsListChanged"}, {"prompts", "promptsListChanged"}, {"resources", "resourcesListChanged"}} {
		if all || c.SubCapability(s, k.capability, "listChanged") {
			f[k.key] = true
		}
	}
	if len(uris) > 0 {
		f["resourceSubscriptions"] = uris
	}
	return f
}

// listensAtAll reports whether the server has anything to listen for.
func listensAtAll(s *session.Session) bool {
	for _, k := range []string{"tools", "prompts", "resources"} {
		if c.SubCapability(s, k, "listChanged") {
			return true
		}
	}
	return c.SubCapability(s, "resources", "subscribe")
}

// NeedListen ends the check as NA when the server offers nothing a listen
// stream could carry.
func NeedListen(t *c.T, s *session.Session) {
	if !listensAtAll(s) {
		t.NA("the server declares no listChanged and no resources.subscribe: it offers nothing to listen for")
	}
}

// describe renders an event for messages.
func describeEvent(e session.Event) string {
	return c.Clip(e.Frame.Raw)
}

// kindOf returns "tools", "prompts" or "resources" for a list_changed
// method ("" otherwise).
func kindOf(method string) string {
	if !strings.HasSuffix(method, "/list_changed") {
		return ""
	}
	return strings.TrimSuffix(strings.TrimPrefix(method, "notifications/"), "/list_changed")
}
