package conform

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/mcpconform/mcpconform/internal/catalog"
	"github.com/mcpconform/mcpconform/internal/jsonrpc"
	"github.com/mcpconform/mcpconform/internal/session"
	"github.com/mcpconform/mcpconform/internal/wire"
)

// MetaSubscriptionID tags every message of a 2026-07-28 listen stream.
const MetaSubscriptionID = "io.modelcontextprotocol/subscriptionId"

// SubscriptionAck is the acknowledgment that opens a listen stream.
const SubscriptionAck = "notifications/subscriptions/acknowledged"

// ListenStream is one open subscriptions/listen request (the
// subscriptions checks and the staleness checks listen). On HTTP its SSE
// response lives until Close; on stdio Close sends notifications/cancelled.
type ListenStream struct {
	t      *T
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
func Listen(t *T, s *session.Session, id jsonrpc.ID, filter map[string]any) *ListenStream {
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
	st := &ListenStream{t: t, s: s, ID: id, Mark: t.Mark(), cancel: cancel}
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
func (st *ListenStream) Close() {
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
func (st *ListenStream) Tagged(m *jsonrpc.Message) bool {
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
func (st *ListenStream) Events() []session.Event {
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
func (st *ListenStream) WaitFor(pred func(*jsonrpc.Message) bool) (session.Event, bool) {
	ctx, cancel := context.WithTimeout(st.t.Ctx, st.s.Timeout())
	defer cancel()
	e, ok := st.s.WaitEvent(ctx, st.Mark, func(e session.Event) bool { return st.Tagged(e.Msg) && pred(e.Msg) })
	if !ok {
		st.t.TimedOut("the wait for a message on the subscriptions/listen stream " + st.ID.String())
	}
	return e, ok
}

// WaitFirst waits for the first message of the stream and returns it (ok
// false when none came in time).
func (st *ListenStream) WaitFirst() (session.Event, bool) {
	return st.WaitFor(func(*jsonrpc.Message) bool { return true })
}
