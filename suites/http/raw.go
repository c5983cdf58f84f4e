package http

import (
	"context"
	"encoding/json"
	"fmt"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/internal/catalog"
	c "github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/jsonrpc"
	"github.com/mcpconform/mcpconform/internal/session"
	"github.com/mcpconform/mcpconform/internal/wire"
)

// Raw HTTP requests go through the session's own connection (wire.HTTPDoer),
// so they carry exactly what the session sends: the user's --header values
// and the bearer token, recorded and redacted like every other frame.

// rawReply is the outcome of one raw HTTP request.
type rawReply struct {
	reply  *wire.Reply
	frames []wire.Frame // the server→harness frames of the exchange
	ended  bool         // the body was read to its end within the wait
	wait   time.Duration
	// dropped: the server closed the connection on the request without an
	// HTTP response (its fault: judged by the check, not a harness error).
	dropped error
}

func (r *rawReply) status() int {
	if r == nil || r.reply == nil {
		return 0
	}
	return r.reply.Status
}

// body returns the first body or message frame of the exchange (nil when
// the body was empty).
func (r *rawReply) body() []byte {
	for _, f := range r.frames {
		if f.Kind == wire.KindBody || f.Kind == wire.KindMessage {
			return f.Raw
		}
	}
	return nil
}

func (r *rawReply) describe() string {
	if r != nil && r.dropped != nil {
		return "no HTTP response: the server dropped the connection (" + r.dropped.Error() + ")"
	}
	if r == nil || r.reply == nil {
		return "no HTTP reply"
	}
	ct := r.reply.Header.Get("Content-Type")
	if ct == "" {
		ct = "no Content-Type"
	}
	// The evidence states the wire truly: an empty body, the bytes that
	// came, or a body the harness stopped reading.
	b := r.body()
	switch {
	case !r.ended && len(b) == 0:
		return fmt.Sprintf("HTTP %d (%s), no body read within %s (the reply did not end)", r.reply.Status, ct, r.wait)
	case !r.ended:
		return fmt.Sprintf("HTTP %d (%s), body (read for %s, the reply did not end) %s", r.reply.Status, ct, r.wait, c.Clip(b))
	case len(b) == 0:
		return fmt.Sprintf("HTTP %d (%s), an empty body", r.reply.Status, ct)
	}
	return fmt.Sprintf("HTTP %d (%s), a %d-byte body %s", r.reply.Status, ct, len(b), c.Clip(b))
}

// doer returns the session's connection as an HTTPDoer.
func doer(t *c.T, s *session.Session) wire.HTTPDoer {
	d, ok := s.Conn().(wire.HTTPDoer)
	if !ok {
		t.Error("the connection %s cannot send raw HTTP requests", s.Conn().Name())
	}
	return d
}

// do sends one raw request on s's connection and waits at most wait for the
// whole body (streams that stay open longer are cut by the harness).
func do(t *c.T, s *session.Session, method string, body []byte, hdr http.Header, wait time.Duration) *rawReply {
	d := doer(t, s)
	ctx, cancel := context.WithTimeout(t.Ctx, s.Timeout())
	defer cancel()
	type opened struct {
		reply *wire.Reply
		err   error
	}
	ch := make(chan opened, 1)
	go func() {
		r, err := d.Do(ctx, method, body, &wire.SendOptions{Header: hdr})
		ch <- opened{r, err}
	}()
	var o opened
	select {
	case o = <-ch:
	case <-ctx.Done():
		o = <-ch // Do returns once ctx is done
	}
	if o.err != nil && ctx.Err() == nil && t.Ctx.Err() == nil {
		// the request went out and the server closed the connection
		// without answering; the next request opens a fresh one
		t.Env.Recorder().Note(s.Conn().Name(), "the server dropped the connection without an HTTP response: "+o.err.Error())
		return &rawReply{dropped: o.err, wait: wait}
	}
	if o.err != nil || o.reply == nil {
		if ctx.Err() != nil {
			t.TimedOut("the wait for the HTTP reply to " + method)
		}
		t.Error("%s %s: no HTTP reply: %v", method, s.Conn().Name(), o.err)
	}
	out := &rawReply{reply: o.reply, wait: wait}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case <-o.reply.Done:
		out.ended = true
	case <-timer.C:
		t.TimedOut("the wait for the end of the HTTP reply to " + method)
	case <-ctx.Done():
		t.TimedOut("the wait for the end of the HTTP reply to " + method)
	}
	cancel()
	<-o.reply.Done // closed promptly once ctx is cancelled
	out.frames = exchangeFrames(t, s, o.reply.Exchange)
	return out
}

// exchangeFrames returns the server→harness frames of one exchange of s.
func exchangeFrames(t *c.T, s *session.Session, exchange int64) []wire.Frame {
	var out []wire.Frame
	name := s.Conn().Name()
	for _, f := range t.Since() {
		if f.Conn == name && f.Exchange == exchange && f.Dir == wire.In {
			out = append(out, f)
		}
	}
	return out
}

// legacyHeader returns the headers of a request inside s's legacy session.
func legacyHeader(s *session.Session) http.Header {
	hdr := http.Header{}
	if sid := s.SessionID(); sid != "" {
		hdr.Set(session.HeaderSessionID, sid)
	}
	if rev := s.Revision(); rev >= catalog.R20250618 {
		hdr.Set(session.HeaderProtocolVersion, string(rev))
	}
	return hdr
}

// stream is a GET stream held open in the background.
type stream struct {
	reply  *wire.Reply
	err    error
	cancel context.CancelFunc
}

// openGET opens a GET (Accept: text/event-stream) on s's connection and
// returns once the response head came or the session's timeout passed.
func openGET(t *c.T, s *session.Session, hdr http.Header) *stream {
	d := doer(t, s)
	ctx, cancel := context.WithCancel(t.Ctx)
	ch := make(chan *stream, 1)
	go func() {
		r, err := d.Do(ctx, http.MethodGet, nil, &wire.SendOptions{Header: hdr})
		ch <- &stream{reply: r, err: err}
	}()
	timer := time.NewTimer(s.Timeout())
	defer timer.Stop()
	select {
	case st := <-ch:
		st.cancel = cancel
		return st
	case <-timer.C:
		t.TimedOut("the wait for the GET stream's reply head")
		cancel()
		st := <-ch
		st.cancel = cancel
		if st.err == nil {
			st.err = fmt.Errorf("no response head within %s", s.Timeout())
		}
		return st
	}
}

// close ends the stream and waits (bounded) for its last frame.
func (st *stream) close() {
	st.cancel()
	if st.reply != nil {
		select {
		case <-st.reply.Done:
		case <-time.After(2 * time.Second):
		}
	}
}

func (st *stream) status() int {
	if st.reply == nil {
		return 0
	}
	return st.reply.Status
}

func mediaType(h http.Header) string {
	ct := h.Get("Content-Type")
	if ct == "" {
		return ""
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		mt, _, _ = strings.Cut(ct, ";")
	}
	return strings.ToLower(strings.TrimSpace(mt))
}

func isSSE(resp *session.Response) bool {
	return resp != nil && resp.Reply != nil && mediaType(resp.Reply.Header) == "text/event-stream"
}

// replyOf ends the check with ERROR when a call got no HTTP reply at all.
func replyOf(t *c.T, what string, resp *session.Response, err error) *session.Response {
	if resp == nil || resp.Reply == nil {
		t.Error("%s: no HTTP reply: %v", what, err)
	}
	return resp
}

// expectHeaderMismatch asserts HTTP 400 with a -32020 error body.
func expectHeaderMismatch(t *c.T, what string, resp *session.Response, err error) {
	replyOf(t, what, resp, err)
	code, ok := resp.ErrorCode()
	if resp.Status() != http.StatusBadRequest {
		t.StatusClaim(resp, http.StatusBadRequest)
	}
	t.Check(ok && code == jsonrpc.CodeHeaderMismatch && resp.Status() == http.StatusBadRequest,
		"HTTP 400 with JSON-RPC error -32020 (header mismatch)", resp.Describe(), "%s was not rejected as a header mismatch", what)
}

// isHeaderMismatch reports a -32020 error.
func isHeaderMismatch(resp *session.Response) bool {
	code, ok := resp.ErrorCode()
	return ok && code == jsonrpc.CodeHeaderMismatch
}

// expectAccepted asserts that a request whose headers are right was not
// refused for its headers (a result, an isError result, or an error that
// is not -32020 and has no 400-with-nothing shape).
func expectAccepted(t *c.T, what string, resp *session.Response, err error) {
	replyOf(t, what, resp, err)
	if resp.Msg == nil {
		t.Violation("a JSON-RPC response processing the request", resp.Describe(), "%s got no JSON-RPC response", what)
	}
	t.Check(!isHeaderMismatch(resp), "the request processed (its headers are right)", resp.Describe(), "%s was rejected as a header mismatch", what)
}

// modernHeaders returns the 2026-07-28 headers for a request (the ones a
// session would send), to be changed by a check.
func modernHeaders(method, name string) http.Header {
	h := http.Header{}
	h.Set(session.HeaderProtocolVersion, string(catalog.Modern))
	h.Set(session.HeaderMethod, method)
	if name != "" {
		h.Set(session.HeaderName, name)
	}
	return h
}

// loopbackURL reports whether the target URL's host is a loopback name or
// address.
func loopbackURL(raw string) (host, port string, ok bool) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", "", false
	}
	host, port = u.Hostname(), u.Port()
	if strings.EqualFold(host, "localhost") {
		return host, port, true
	}
	ip := net.ParseIP(host)
	return host, port, ip != nil && ip.IsLoopback()
}

// supportedVersions returns the supportedVersions of the discover result.
func supportedVersions(s *session.Session) []string {
	var res struct {
		SupportedVersions []string `json:"supportedVersions"`
	}
	_ = json.Unmarshal(s.DiscoverResult(), &res)
	return res.SupportedVersions
}

// declaredList returns the first list method whose capability s declared
// ("" when none).
func declaredList(s *session.Session) string {
	for _, l := range []struct{ capability, method string }{{"tools", "tools/list"}, {"resources", "resources/list"}, {"prompts", "prompts/list"}} {
		if c.Declared(s, l.capability) {
			return l.method
		}
	}
	return ""
}

// posted is a request POSTed raw, its reply read in the background.
type posted struct {
	stream
	id jsonrpc.ID
}

// postRaw POSTs a request for method (params: only the era's _meta) with
// the headers the session would send, outside the session's call
// bookkeeping, so that the harness never cuts its stream; close ends it.
func postRaw(t *c.T, s *session.Session, method string) *posted {
	id := s.NewID()
	var params any
	hdr := legacyHeader(s)
	if s.Modern() {
		params = map[string]any{"_meta": s.ModernMeta()}
		hdr = modernHeaders(method, "")
	} else if method != "ping" {
		params = map[string]any{}
	}
	payload := jsonrpc.Request(id, method, params)
	d := doer(t, s)
	ctx, cancel := context.WithCancel(t.Ctx)
	ch := make(chan *stream, 1)
	go func() {
		r, err := d.Do(ctx, http.MethodPost, payload, &wire.SendOptions{Header: hdr})
		ch <- &stream{reply: r, err: err}
	}()
	timer := time.NewTimer(s.Timeout())
	defer timer.Stop()
	var st *stream
	select {
	case st = <-ch:
	case <-timer.C:
		cancel()
		st = <-ch
	}
	st.cancel = cancel
	return &posted{stream: *st, id: id}
}

// waitResponse waits (within the session's timeout) for the response to
// the posted request on its own exchange.
func (p *posted) waitResponse(t *c.T, s *session.Session) bool {
	ctx, cancel := context.WithTimeout(t.Ctx, s.Timeout())
	defer cancel()
	ex := p.reply.Exchange
	_, ok := s.WaitEvent(ctx, 0, func(e session.Event) bool {
		return e.Frame.Exchange == ex && e.Msg != nil && e.Msg.Kind() == jsonrpc.KindResponse && e.Msg.ID.Key() == p.id.Key()
	})
	return ok
}
