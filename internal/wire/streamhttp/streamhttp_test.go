package streamhttp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/internal/wire"
)

const testTimeout = 2 * time.Second

func newServer(t testing.TB, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(h) // listens on 127.0.0.1
	t.Cleanup(srv.Close)
	return srv
}

func newConn(t testing.TB, url string, mod func(*Options)) (*Conn, *wire.Recorder) {
	t.Helper()
	rec := wire.NewRecorder(wire.NewRedactor())
	opts := Options{URL: url, Name: "http#1", Recorder: rec}
	if mod != nil {
		mod(&opts)
	}
	c, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c, rec
}

func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	t.Cleanup(cancel)
	return ctx
}

func waitDone(t testing.TB, r *wire.Reply) {
	t.Helper()
	select {
	case <-r.Done:
	case <-time.After(testTimeout):
		t.Fatal("Reply.Done not closed")
	}
}

// drain returns the frames queued right now, without the bookkeeping
// exchange-end notes (which TestExchangeEnd checks).
func drain(c *Conn) []wire.Frame {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var fs []wire.Frame
	for {
		f, err := c.Recv(ctx)
		if err != nil {
			return fs
		}
		if f.Kind == wire.KindNote && f.Note == wire.NoteExchangeEnd {
			continue
		}
		fs = append(fs, f)
	}
}

// TestExchangeEnd: the last frame of every exchange delivered to Recv is
// an exchange-end note (not recorded), so a reader knows the reply is over.
func TestExchangeEnd(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte("bad"))
	}))
	defer srv.Close()
	rec := wire.NewRecorder(nil)
	c, err := New(Options{URL: srv.URL, Recorder: rec})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r, err := c.Send(ctxT(t), []byte(`{}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	waitDone(t, r)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var kinds []string
	for {
		f, err := c.Recv(ctx)
		if err != nil {
			break
		}
		kinds = append(kinds, f.Kind.String()+":"+f.Note)
	}
	if len(kinds) != 2 || kinds[1] != "note:"+wire.NoteExchangeEnd {
		t.Fatalf("frames %v", kinds)
	}
	for _, f := range rec.Since(0, 0) {
		if f.Note == wire.NoteExchangeEnd {
			t.Fatal("the exchange-end note must not be recorded")
		}
	}
}

// exchangeFrames sends payload and returns the reply and all its frames.
func exchangeFrames(t *testing.T, c *Conn, payload string, opts *wire.SendOptions) (*wire.Reply, []wire.Frame) {
	t.Helper()
	r, err := c.Send(ctxT(t), []byte(payload), opts)
	if err != nil {
		t.Fatal(err)
	}
	waitDone(t, r)
	return r, drain(c)
}

func kinds(fs []wire.Frame) string {
	var s []string
	for _, f := range fs {
		s = append(s, f.Kind.String())
	}
	return strings.Join(s, ",")
}

func TestNew(t *testing.T) {
	for _, u := range []string{"", "ftp://x/mcp", "/mcp", "localhost:80/mcp", "http://", "http://[::1"} {
		if _, err := New(Options{URL: u}); err == nil {
			t.Errorf("New(%q) succeeded", u)
		}
	}
	c, err := New(Options{URL: "https://example.invalid/mcp"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.Name() != "http" || c.Transport() != wire.HTTP {
		t.Fatalf("Name/Transport = %q/%q", c.Name(), c.Transport())
	}
	tr := c.client.Transport.(*http.Transport)
	if tr.Proxy != nil {
		t.Fatal("default client uses a proxy")
	}
	if c.client.Timeout != 0 {
		t.Fatal("default client has an overall timeout")
	}
}

func TestJSONReply(t *testing.T) {
	var gotBody []byte
	var gotHeader http.Header
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		gotBody, _ = io.ReadAll(r.Body)
		gotHeader = r.Header.Clone()
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		fmt.Fprint(w, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\r\n\n")
	})
	c, rec := newConn(t, srv.URL, nil)
	payload := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	r, fs := exchangeFrames(t, c, payload, nil)

	if string(gotBody) != payload {
		t.Fatalf("server got %q", gotBody)
	}
	if gotHeader.Get("Content-Type") != "application/json" || gotHeader.Get("Accept") != "application/json, text/event-stream" {
		t.Fatalf("request headers: %v", gotHeader)
	}
	if gotHeader.Get("Authorization") != "" {
		t.Fatal("Authorization sent without Bearer")
	}
	if r.Status != 200 || r.Exchange != 1 || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		t.Fatalf("reply %+v", r)
	}
	if len(fs) != 1 || fs[0].Kind != wire.KindMessage {
		t.Fatalf("frames: %s", kinds(fs))
	}
	f := fs[0]
	if string(f.Raw) != `{"jsonrpc":"2.0","id":1,"result":{}}` || f.Truncated || f.Exchange != 1 ||
		f.Dir != wire.In || f.Conn != "http#1" || f.HTTP.Status != 200 || f.HTTP.SSE || f.Seq == 0 {
		t.Fatalf("frame %+v %+v", f, f.HTTP)
	}

	// The recorder holds the Out frame then the In frame.
	all := rec.Since(0, 0)
	if len(all) != 2 {
		t.Fatalf("recorded %d frames", len(all))
	}
	out := all[0]
	if out.Dir != wire.Out || out.Kind != wire.KindMessage || string(out.Raw) != payload || out.Exchange != 1 ||
		out.HTTP.Method != "POST" || out.HTTP.URL != srv.URL || out.HTTP.Header.Get("Accept") == "" {
		t.Fatalf("out frame %+v %+v", out, out.HTTP)
	}
	if all[1].Seq != f.Seq {
		t.Fatalf("delivered seq %d, recorded %d", f.Seq, all[1].Seq)
	}

	// Exchange numbers increase.
	r2, _ := exchangeFrames(t, c, payload, nil)
	if r2.Exchange != 2 {
		t.Fatalf("second exchange = %d", r2.Exchange)
	}
}

func TestSSEReply(t *testing.T) {
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("X-Accel-Buffering", "no")
		fl := w.(http.Flusher)
		// Priming event (SEP-1699), a keep-alive, a notification spread over
		// two data lines with CRLF endings, then the response.
		io.WriteString(w, "id: prime-1\r\nretry: 2000\r\ndata: \r\n\r\n")
		fl.Flush()
		io.WriteString(w, ": keep-alive\r\n\r\n")
		fl.Flush()
		io.WriteString(w, "event: message\r\nid: ev-2\r\nfoo: ignored\r\ndata: {\"jsonrpc\":\"2.0\",\r\ndata: \"method\":\"notifications/progress\"}\r\n\r\n")
		fl.Flush()
		io.WriteString(w, "id: ev-3\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n")
	})
	c, _ := newConn(t, srv.URL, nil)
	r, fs := exchangeFrames(t, c, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, nil)
	if r.Status != 200 {
		t.Fatalf("status %d", r.Status)
	}
	if got := kinds(fs); got != "note,message,message,note" {
		t.Fatalf("frames: %s", got)
	}
	prime := fs[0]
	if !strings.Contains(prime.Note, `id="prime-1"`) || !strings.Contains(prime.Note, "empty data") ||
		!strings.Contains(prime.Note, "retry=2000") || prime.HTTP.EventID != "prime-1" || !prime.HTTP.SSE {
		t.Fatalf("priming note %q %+v", prime.Note, prime.HTTP)
	}
	n := fs[1]
	if string(n.Raw) != "{\"jsonrpc\":\"2.0\",\n\"method\":\"notifications/progress\"}" ||
		n.HTTP.EventID != "ev-2" || n.HTTP.Event != "message" || !n.HTTP.SSE || n.HTTP.Status != 200 ||
		n.HTTP.Header.Get("X-Accel-Buffering") != "no" {
		t.Fatalf("notification frame %q %+v", n.Raw, n.HTTP)
	}
	resp := fs[2]
	if string(resp.Raw) != `{"jsonrpc":"2.0","id":1,"result":{}}` || resp.HTTP.EventID != "ev-3" || resp.HTTP.Event != "" {
		t.Fatalf("response frame %q %+v", resp.Raw, resp.HTTP)
	}
	if !strings.Contains(fs[3].Note, "1 comment lines") {
		t.Fatalf("comment note %q", fs[3].Note)
	}
	for _, f := range fs {
		if f.Exchange != r.Exchange || f.Dir != wire.In {
			t.Fatalf("frame exchange/dir %d/%v", f.Exchange, f.Dir)
		}
	}
}

func TestSSEIncompleteFinalEvent(t *testing.T) {
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: {\"a\":1}\n\ndata: {\"b\":2}\n")
	})
	c, _ := newConn(t, srv.URL, nil)
	_, fs := exchangeFrames(t, c, `{}`, nil)
	if got := kinds(fs); got != "message,note" {
		t.Fatalf("frames: %s", got)
	}
	if string(fs[1].Raw) != `{"b":2}` || !strings.Contains(fs[1].Note, "incomplete event discarded") {
		t.Fatalf("note %q raw %q", fs[1].Note, fs[1].Raw)
	}
}

func TestNonJSONBodies(t *testing.T) {
	tests := []struct {
		name     string
		status   int
		ctype    string
		body     string
		wantKind wire.Kind
		wantRaw  string
	}{
		{"202 empty", 202, "", "", wire.KindBody, ""},
		{"400 text/plain", 400, "text/plain; charset=utf-8", "bad request\n", wire.KindBody, "bad request\n"},
		{"404 JSON error", 404, "application/json", "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32601,\"message\":\"nope\"}}\n",
			wire.KindMessage, `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"nope"}}`},
		{"vendor +json", 200, "application/vnd.x+json", `{}`, wire.KindMessage, `{}`},
		{"JSON type, empty body", 200, "application/json", "", wire.KindBody, ""},
		{"JSON type, blank body", 200, "application/json", "\n", wire.KindBody, "\n"},
		{"HTML error page", 502, "text/html", "<html>bad gateway</html>", wire.KindBody, "<html>bad gateway</html>"},
		{"403 no type", 403, "", "forbidden", wire.KindBody, "forbidden"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
				if tt.ctype != "" {
					w.Header().Set("Content-Type", tt.ctype)
				} else {
					w.Header()["Content-Type"] = nil // no sniffing
				}
				w.WriteHeader(tt.status)
				io.WriteString(w, tt.body)
			})
			c, _ := newConn(t, srv.URL, nil)
			r, fs := exchangeFrames(t, c, `{}`, nil)
			if r.Status != tt.status {
				t.Fatalf("status %d", r.Status)
			}
			if len(fs) != 1 {
				t.Fatalf("frames: %s", kinds(fs))
			}
			if fs[0].Kind != tt.wantKind || string(fs[0].Raw) != tt.wantRaw || fs[0].Truncated || fs[0].HTTP.Status != tt.status {
				t.Fatalf("frame kind=%v raw=%q trunc=%v status=%d", fs[0].Kind, fs[0].Raw, fs[0].Truncated, fs[0].HTTP.Status)
			}
		})
	}
}

func TestRedirectNotFollowed(t *testing.T) {
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://127.0.0.1:1/elsewhere", http.StatusTemporaryRedirect)
	})
	c, _ := newConn(t, srv.URL, nil)
	r, fs := exchangeFrames(t, c, `{}`, nil)
	if r.Status != http.StatusTemporaryRedirect || r.Header.Get("Location") == "" || len(fs) != 1 {
		t.Fatalf("status %d, frames %s", r.Status, kinds(fs))
	}
}

func TestOversize(t *testing.T) {
	big := `{"x":"` + strings.Repeat("a", 1000) + `"}`
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Query().Get("k") {
		case "json":
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, big)
		case "sse":
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "data: "+big+"\n\ndata: {}\n\n")
		case "text":
			w.Header().Set("Content-Type", "text/plain")
			w.WriteHeader(500)
			io.WriteString(w, big)
		case "body":
			w.Header().Set("Content-Type", "text/event-stream")
			for i := 0; i < 100; i++ {
				io.WriteString(w, "data: {\"n\":1}\n\n")
			}
		}
	})
	for _, k := range []string{"json", "sse", "text"} {
		t.Run(k, func(t *testing.T) {
			c, _ := newConn(t, srv.URL+"?k="+k, func(o *Options) { o.MaxMessageBytes = 64 })
			_, fs := exchangeFrames(t, c, `{}`, nil)
			if len(fs) == 0 || !fs[0].Truncated || len(fs[0].Raw) != 64 || string(fs[0].Raw) != big[:64] {
				t.Fatalf("frames %s; first trunc=%v len=%d", kinds(fs), fs[0].Truncated, len(fs[0].Raw))
			}
			if k == "sse" {
				if len(fs) != 2 || string(fs[1].Raw) != "{}" || fs[1].Truncated {
					t.Fatalf("event after the oversize one: %s", kinds(fs))
				}
			} else if len(fs) != 1 {
				t.Fatalf("frames %s", kinds(fs))
			}
		})
	}
	t.Run("body cap", func(t *testing.T) {
		c, _ := newConn(t, srv.URL+"?k=body", func(o *Options) { o.MaxBodyBytes = 100 })
		_, fs := exchangeFrames(t, c, `{}`, nil)
		// 100 bytes hold six 15-byte events; then the cap note.
		if got := kinds(fs); got != "message,message,message,message,message,message,note" {
			t.Fatalf("frames %s", got)
		}
		if !strings.Contains(fs[6].Note, "MaxBodyBytes") {
			t.Fatalf("note %q", fs[6].Note)
		}
	})
}

// streamServer sends one event, then holds the stream open until the client
// goes away, and reports that on gone.
func streamServer(t *testing.T) (*httptest.Server, chan struct{}) {
	gone := make(chan struct{}, 4)
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body) // the server notices a gone client only after the body
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: {\"first\":true}\n\ndata: {\"partial\":")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
		gone <- struct{}{}
	})
	return srv, gone
}

func TestCancelMidStream(t *testing.T) {
	srv, gone := streamServer(t)
	c, _ := newConn(t, srv.URL, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r, err := c.Send(ctx, []byte(`{}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	f, err := c.Recv(ctxT(t))
	if err != nil || f.Kind != wire.KindMessage || string(f.Raw) != `{"first":true}` {
		t.Fatalf("first frame %+v %v", f, err)
	}
	cancel()
	waitDone(t, r)
	fs := drain(c)
	if len(fs) != 1 || fs[0].Kind != wire.KindNote || !strings.Contains(fs[0].Note, "client-side cancellation") ||
		fs[0].Exchange != r.Exchange {
		t.Fatalf("after cancel: %s %+v", kinds(fs), fs)
	}
	select {
	case <-gone:
	case <-time.After(testTimeout):
		t.Fatal("server did not see the stream closed")
	}
}

func TestCloseUnblocksRecv(t *testing.T) {
	srv, gone := streamServer(t)
	c, _ := newConn(t, srv.URL, nil)
	r, err := c.Send(context.Background(), []byte(`{}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if f, err := c.Recv(ctxT(t)); err != nil || f.Kind != wire.KindMessage {
		t.Fatalf("first frame %+v %v", f, err)
	}

	type result struct {
		f   wire.Frame
		err error
	}
	got := make(chan result, 1)
	go func() {
		// Receive until the closed frame shows up.
		for {
			f, err := c.Recv(context.Background())
			if err != nil || f.Kind == wire.KindClosed {
				got <- result{f, err}
				return
			}
		}
	}()
	if ownGoroutines() == "" {
		t.Fatal("leak detector sees no body reader") // keeps the check below honest
	}
	closed := make(chan error, 1)
	go func() { closed <- c.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(testTimeout):
		t.Fatal("Close hung")
	}
	select {
	case <-r.Done:
	default:
		t.Fatal("Close returned before the in-flight exchange finished")
	}
	if leaked := ownGoroutines(); leaked != "" {
		t.Fatalf("goroutines outlived Close:\n%s", leaked)
	}
	select {
	case res := <-got:
		if res.err != nil || res.f.Kind != wire.KindClosed {
			t.Fatalf("Recv after Close: %+v %v", res.f, res.err)
		}
	case <-time.After(testTimeout):
		t.Fatal("Recv not unblocked by Close")
	}
	if _, err := c.Recv(context.Background()); !errors.Is(err, wire.ErrClosed) {
		t.Fatalf("second Recv: %v", err)
	}
	if _, err := c.Send(context.Background(), []byte(`{}`), nil); !errors.Is(err, wire.ErrClosed) {
		t.Fatalf("Send after Close: %v", err)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	select {
	case <-gone:
	case <-time.After(testTimeout):
		t.Fatal("server did not see the stream closed")
	}
}

// ownGoroutines returns the stacks of goroutines running package code
// (other than tests).
func ownGoroutines() string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var out []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "streamhttp.(*exchange)") || strings.Contains(g, "streamhttp.(*Conn)") ||
			strings.Contains(g, "streamhttp.(*sseParser)") {
			if !strings.Contains(g, "streamhttp.TestCloseUnblocksRecv") {
				out = append(out, g)
			}
		}
	}
	return strings.Join(out, "\n\n")
}

func TestCloseWhileWaitingForHead(t *testing.T) {
	release := make(chan struct{})
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body)
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	defer close(release)
	c, rec := newConn(t, srv.URL, nil)
	errc := make(chan error, 1)
	go func() {
		_, err := c.Send(context.Background(), []byte(`{}`), nil)
		errc <- err
	}()
	// Wait until the request was recorded (it is about to be sent).
	for deadline := time.Now().Add(testTimeout); rec.Seq() == 0; {
		if time.Now().After(deadline) {
			t.Fatal("request never recorded")
		}
		time.Sleep(time.Millisecond)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-errc:
		if !errors.Is(err, wire.ErrClosed) {
			t.Fatalf("Send = %v, want ErrClosed", err)
		}
	case <-time.After(testTimeout):
		t.Fatal("Send not unblocked by Close")
	}
}

func TestRecvContext(t *testing.T) {
	c, _ := newConn(t, "http://127.0.0.1:1/mcp", nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	_, err := c.Recv(ctx)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Recv = %v", err)
	}
}

func TestTransportError(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	c, rec := newConn(t, "http://"+addr+"/mcp", nil)
	r, err := c.Send(ctxT(t), []byte(`{}`), nil)
	if err == nil || r != nil {
		t.Fatalf("Send = %v, %v", r, err)
	}
	fs := rec.Since(0, 0)
	if len(fs) != 2 || fs[1].Kind != wire.KindNote || !strings.Contains(fs[1].Note, "failed before a response") || fs[1].Exchange != 1 {
		t.Fatalf("recorded %+v", fs)
	}

	// ctx done before the head arrived.
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body) // the server notices a gone client only after the body
		<-r.Context().Done()
	})
	c2, _ := newConn(t, srv.URL, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := c2.Send(ctx, []byte(`{}`), nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Send = %v", err)
	}
}

func TestHeaders(t *testing.T) {
	var mu sync.Mutex
	var got []http.Header
	var gotHost []string
	var gotMethod []string
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Header.Clone())
		gotHost = append(gotHost, r.Host)
		gotMethod = append(gotMethod, r.Method)
		mu.Unlock()
		w.WriteHeader(http.StatusAccepted)
	})
	c, rec := newConn(t, srv.URL, func(o *Options) {
		o.Header = http.Header{"X-User": {"u1"}, "X-Keep": {"k"}}
	})
	_, _ = exchangeFrames(t, c, `{}`, &wire.SendOptions{
		Header: http.Header{
			"X-User":          {"override"},
			"content-type":    {"text/plain"}, // lower-case spelling overrides the default
			"Mcp-Method":      {"tools/call"},
			"Host":            {"evil.example"},
			"Mcp-Session-Id":  {"s1"},
			"X-Multi":         {"a", "b"},
			"Accept-Language": {"x"},
		},
		Remove: []string{"ACCEPT", "accept-language"},
	})
	h := got[0]
	if h.Get("X-User") != "override" || h.Get("X-Keep") != "k" || h.Get("Content-Type") != "text/plain" ||
		h.Get("Mcp-Method") != "tools/call" || h.Get("Mcp-Session-Id") != "s1" || len(h.Values("X-Multi")) != 2 {
		t.Fatalf("headers on the wire: %v", h)
	}
	if len(h.Values("Content-Type")) != 1 {
		t.Fatalf("Content-Type sent twice: %v", h.Values("Content-Type"))
	}
	if _, ok := h["Accept"]; ok {
		t.Fatalf("Accept not removed: %v", h)
	}
	if _, ok := h["Accept-Language"]; ok {
		t.Fatalf("Accept-Language not removed: %v", h)
	}
	if gotHost[0] != "evil.example" {
		t.Fatalf("Host = %q", gotHost[0])
	}
	out := rec.Since(0, 0)[0]
	if out.HTTP.Header.Get("X-User") != "override" {
		t.Fatalf("recorded headers: %v", out.HTTP.Header)
	}

	// Do: GET defaults to Accept: text/event-stream and no Content-Type.
	r, err := c.Do(ctxT(t), http.MethodGet, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	waitDone(t, r)
	fs := drain(c)
	if len(fs) != 1 || fs[0].Kind != wire.KindBody || r.Status != 202 {
		t.Fatalf("GET frames %s", kinds(fs))
	}
	r, err = c.Do(ctxT(t), http.MethodDelete, nil, &wire.SendOptions{Header: http.Header{"Mcp-Session-Id": {"s1"}}})
	if err != nil {
		t.Fatal(err)
	}
	waitDone(t, r)
	drain(c)
	mu.Lock()
	defer mu.Unlock()
	if gotMethod[1] != "GET" || got[1].Get("Accept") != "text/event-stream" || got[1].Get("Content-Type") != "" {
		t.Fatalf("GET: %s %v", gotMethod[1], got[1])
	}
	if gotMethod[2] != "DELETE" || got[2].Get("Mcp-Session-Id") != "s1" || got[2].Get("Content-Type") != "" {
		t.Fatalf("DELETE: %s %v", gotMethod[2], got[2])
	}
	recd := rec.Since(0, 0)
	var methods []string
	for _, f := range recd {
		if f.Dir == wire.Out {
			methods = append(methods, f.HTTP.Method)
		}
	}
	if strings.Join(methods, ",") != "POST,GET,DELETE" {
		t.Fatalf("recorded methods %v", methods)
	}
}

func TestBearerRedacted(t *testing.T) {
	const token = "s3cr3t-token-value"
	var gotAuth string
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		gotAuth = r.Header.Get("Authorization")
		w.Header().Set("Content-Type", "application/json")
		// A careless server echoing the token back.
		fmt.Fprintf(w, `{"echo":"%s"}`, token)
	})
	rec := wire.NewRecorder(wire.NewRedactor(token))
	c, err := New(Options{URL: srv.URL, Bearer: token, Recorder: rec})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r, err := c.Send(ctxT(t), []byte(`{"token":"`+token+`"}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	waitDone(t, r)
	fs := drain(c)
	if gotAuth != "Bearer "+token {
		t.Fatalf("Authorization on the wire = %q", gotAuth)
	}
	if len(fs) != 1 || !bytes.Contains(fs[0].Raw, []byte(token)) {
		t.Fatal("delivered frame should carry the bytes as read")
	}
	c.Close()
	recorded := rec.Since(0, 0)
	if len(recorded) != 3 {
		t.Fatalf("recorded %d frames", len(recorded))
	}
	for _, f := range recorded {
		dump := fmt.Sprintf("%s %s %v", f.Raw, f.Note, f.HTTP)
		if strings.Contains(dump, token) {
			t.Fatalf("token leaked into the record: %s", dump)
		}
	}
	if a := recorded[0].HTTP.Header.Get("Authorization"); a != "Bearer "+wire.Redacted {
		t.Fatalf("recorded Authorization = %q", a)
	}
}

func TestConcurrentExchanges(t *testing.T) {
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		for i := 0; i < 3; i++ {
			fmt.Fprintf(w, "data: {\"req\":%s,\"i\":%d}\n\n", body, i)
			w.(http.Flusher).Flush()
		}
	})
	c, _ := newConn(t, srv.URL, nil)
	const n = 8
	var wg sync.WaitGroup
	replies := make([]*wire.Reply, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := c.Send(ctxT(t), []byte(fmt.Sprint(i)), nil)
			if err != nil {
				t.Error(err)
				return
			}
			replies[i] = r
		}()
	}
	// Nobody calls Recv while the exchanges run: readers must not block.
	wg.Wait()
	for _, r := range replies {
		if r == nil {
			t.FailNow()
		}
		waitDone(t, r)
	}
	fs := drain(c)
	if len(fs) != 3*n {
		t.Fatalf("got %d frames", len(fs))
	}
	perExchange := map[int64]int{}
	var lastSeq int64
	for _, f := range fs {
		if f.Seq <= lastSeq {
			t.Fatal("frames not in Seq order")
		}
		lastSeq = f.Seq
		want := fmt.Sprintf(`"i":%d}`, perExchange[f.Exchange])
		if !strings.HasSuffix(string(f.Raw), want) {
			t.Fatalf("exchange %d out of order: %s", f.Exchange, f.Raw)
		}
		perExchange[f.Exchange]++
	}
}

func BenchmarkSendJSON(b *testing.B) {
	srv := newServer(b, func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
	})
	// No recorder: it keeps every frame, which would grow with b.N.
	c, err := New(Options{URL: srv.URL})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	payload := []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	b.ReportAllocs()
	for b.Loop() {
		r, err := c.Send(ctx, payload, nil)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := c.Recv(ctx); err != nil {
			b.Fatal(err)
		}
		<-r.Done
	}
}

// TestIdle: a connection is idle only when every exchange has ended and
// Recv has handed out all of its frames; an open stream keeps it busy, a
// request that failed before its response does not, and changed is closed
// when it may have become idle.
func TestIdle(t *testing.T) {
	isIdle := func(c *Conn) bool { idle, _, _ := c.Idle(); return idle }
	srv, _ := streamServer(t)
	c, _ := newConn(t, srv.URL, nil)
	if !isIdle(c) {
		t.Fatal("a new connection is idle")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r, err := c.Send(ctx, []byte(`{}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Recv(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	idle, ending, changed := c.Idle()
	if idle || ending {
		t.Fatalf("idle %v, ending %v while a stream is open", idle, ending)
	}
	cancel()
	waitDone(t, r)
	if _, ending, _ := c.Idle(); !ending {
		t.Fatal("an abandoned exchange whose frames are queued is not ending")
	}
	if isIdle(c) {
		t.Fatal("idle while the exchange's frames are queued")
	}
	drain(c) // the cancellation note, then the exchange end
	select {
	case <-changed:
	case <-time.After(testTimeout):
		t.Fatal("changed not closed when the connection became idle")
	}
	if !isIdle(c) {
		t.Fatal("not idle after every frame was handed out")
	}

	json := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
	})
	c2, _ := newConn(t, json.URL, nil)
	r, err = c2.Send(ctxT(t), []byte(`{}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	waitDone(t, r)
	if isIdle(c2) {
		t.Fatal("idle before the answer was handed out")
	}
	if f, err := c2.Recv(ctxT(t)); err != nil || f.Kind != wire.KindMessage {
		t.Fatalf("answer %+v %v", f, err)
	}
	if isIdle(c2) {
		t.Fatal("idle before the exchange end was handed out")
	}
	drain(c2)
	if !isIdle(c2) {
		t.Fatal("not idle after the exchange ended")
	}

	json.Close() // a request that fails before any response ends at once
	if _, err := c2.Send(ctxT(t), []byte(`{}`), nil); err == nil {
		t.Fatal("a request to a closed server succeeded")
	}
	if !isIdle(c2) {
		t.Fatal("a failed request keeps the connection busy")
	}
}
