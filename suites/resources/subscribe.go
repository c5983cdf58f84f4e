package resources

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/internal/catalog"
	c "github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/jsonrpc"
	"github.com/mcpconform/mcpconform/internal/session"
	"github.com/mcpconform/mcpconform/internal/wire"
)

// RES-009: legacy resources/subscribe and resources/unsubscribe.
//
// A server sends notifications/resources/updated when a resource changes,
// and no generic request makes one change. So the check judges what it can
// observe: the answers to subscribe and unsubscribe, every update that
// arrives while it watches (on stdio the one stream; on HTTP the POST
// replies and a GET stream it opens for the purpose), and that none for
// the URI arrives after the unsubscribe was answered (a read of the URI
// and a barrier follow, then the settle window).
func judgeSubscriptions(t *c.T, s *session.Session, inv *inventory) {
	if !c.SubCapability(s, "resources", "subscribe") {
		judgeUndeclaredSubscribe(t, s, inv)
		return
	}
	if len(inv.uris) == 0 {
		t.NA("the server declares resources.subscribe but lists no resource to subscribe to")
	}
	uri := inv.uris[0]
	stop := watchStream(t, s)
	defer stop()
	mark := t.Mark()
	t.Step("resources/subscribe " + uri)
	expectEmptyResult(t, "resources/subscribe", t.Call(s, "resources/subscribe", map[string]any{"uri": uri}, nil))
	_, _ = t.TryCall(s, "resources/read", map[string]any{"uri": uri}, nil) // ordinary traffic while subscribed
	t.Step("resources/unsubscribe " + uri)
	unsub := t.Call(s, "resources/unsubscribe", map[string]any{"uri": uri}, nil)
	expectEmptyResult(t, "resources/unsubscribe", unsub)
	after := unsub.Frame.Seq
	_, _ = t.TryCall(s, "resources/read", map[string]any{"uri": uri}, nil)
	t.Settle(s)
	updates := 0
	for _, e := range s.Events(mark) {
		if e.Msg == nil || e.Msg.Kind() != jsonrpc.KindNotification || e.Msg.Method != "notifications/resources/updated" {
			continue
		}
		updates++
		var p struct {
			URI *string `json:"uri"`
		}
		if json.Unmarshal(e.Msg.Params, &p) != nil || p.URI == nil {
			t.Violation(`notifications/resources/updated with params {"uri": string}`, c.Clip(e.Frame.Raw),
				"a resource update does not name its uri")
		}
		if e.Frame.Seq > after && covers(uri, *p.URI) {
			t.Violation("no notifications/resources/updated for "+uri+" once resources/unsubscribe was answered", c.Clip(e.Frame.Raw),
				"the server sent an update for %s after the client unsubscribed", *p.URI)
		}
	}
	if updates == 0 {
		t.Note("no notifications/resources/updated arrived while watching (servers send them when a resource changes, which no generic request causes); the absence after unsubscribing was observed for the settle window")
	}
}

// covers reports whether an update for got concerns a subscription to uri:
// the same URI or a sub-resource of it.
func covers(uri, got string) bool {
	return got == uri || strings.HasPrefix(got, strings.TrimSuffix(uri, "/")+"/")
}

// judgeUndeclaredSubscribe: without resources.subscribe, resources/subscribe
// should get -32601 (a derived SHOULD of a MUST requirement: a warning).
func judgeUndeclaredSubscribe(t *c.T, s *session.Session, inv *inventory) {
	uri := "mcpconform-missing://subscribe-probe"
	if len(inv.uris) > 0 {
		uri = inv.uris[0]
	}
	t.Step("resources/subscribe " + uri + " without capabilities.resources.subscribe")
	resp := t.Call(s, "resources/subscribe", map[string]any{"uri": uri}, nil)
	if code, ok := resp.ErrorCode(); ok && code == jsonrpc.CodeMethodNotFound {
		return
	}
	if resp.IsResult() {
		_, _ = t.TryCall(s, "resources/unsubscribe", map[string]any{"uri": uri}, nil)
		t.Warn("the server does not declare resources.subscribe, yet accepted resources/subscribe (%s); it should answer -32601", c.Clip(resp.Msg.Raw))
		return
	}
	t.Warn("the server does not declare resources.subscribe; resources/subscribe should get -32601, got %s", resp.Describe())
}

// expectEmptyResult asserts a result object; members other than _meta are
// noted (the result is an EmptyResult).
func expectEmptyResult(t *c.T, what string, resp *session.Response) {
	res := t.ResultObject(what, resp)
	for k := range res {
		if k != "_meta" {
			t.Note("%s: the empty result carries %q", what, k)
		}
	}
}

// watchStream opens the legacy HTTP GET stream on which a server sends
// notifications that answer no request, so updates sent there are seen
// too. It returns the function that closes it (a no-op on stdio, or when
// the server offers no stream).
func watchStream(t *c.T, s *session.Session) func() {
	d, ok := s.Conn().(wire.HTTPDoer)
	if !ok || !t.HTTP() {
		return func() {}
	}
	hdr := http.Header{}
	if sid := s.SessionID(); sid != "" {
		hdr.Set(session.HeaderSessionID, sid)
	}
	if rev := s.Revision(); rev >= catalog.R20250618 {
		hdr.Set(session.HeaderProtocolVersion, string(rev))
	}
	ctx, cancel := context.WithCancel(t.Ctx)
	type opened struct {
		reply *wire.Reply
		err   error
	}
	ch := make(chan opened, 1)
	go func() {
		r, err := d.Do(ctx, http.MethodGet, nil, &wire.SendOptions{Header: hdr})
		ch <- opened{r, err}
	}()
	select {
	case o := <-ch:
		if o.err != nil || o.reply == nil || o.reply.Status != http.StatusOK {
			status := 0
			if o.reply != nil {
				status = o.reply.Status
			}
			t.Note("no GET stream for server notifications (HTTP %d, %v): only updates on POST replies were observable", status, o.err)
			cancel()
			return func() {}
		}
		return cancel
	case <-time.After(s.Timeout()):
		cancel()
		t.Note("the GET stream for server notifications did not open within %s: only updates on POST replies were observable", s.Timeout())
		return func() {}
	}
}
