// Package streamhttp is the client side of the MCP Streamable HTTP
// transport as a wire.Conn: every outgoing message is its own POST, and the
// reply (a JSON body, an SSE stream, or anything else) becomes frames
// delivered through Recv. It knows framing and HTTP but nothing of MCP:
// session ids and protocol-version headers are the caller's business and
// travel through wire.SendOptions.Header.
package streamhttp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpconform/mcpconform/internal/wire"
)

// Defaults for Options.
const (
	DefaultMaxMessageBytes = 16 << 20
	DefaultMaxBodyBytes    = 64 << 20
	dialTimeout            = 5 * time.Second
)

// Options configure a Conn.
type Options struct {
	// URL is the MCP endpoint (http or https).
	URL string
	// Name names the connection in transcripts, e.g. "http#3" (default "http").
	Name string
	// Header is sent on every request (user --header flags). It overrides the
	// transport defaults and is overridden by SendOptions.Header.
	Header http.Header
	// Bearer, when set, is sent as "Authorization: Bearer <token>". The
	// caller must register it with the Recorder's Redactor.
	Bearer string
	// Client is optional. The default has no overall timeout, a 5 s dial
	// timeout, follows no redirects (a 3xx is returned as the reply), uses no
	// proxy, and does not ask for compression (bodies are recorded as they
	// travelled).
	Client *http.Client
	// Recorder records every frame in both directions (it redacts).
	Recorder *wire.Recorder
	// MaxMessageBytes caps one JSON body or one SSE event's data (default
	// 16 MiB). A longer one is delivered with Truncated set and the rest is
	// discarded without buffering.
	MaxMessageBytes int64
	// MaxBodyBytes caps the bytes read from one response body (default
	// 64 MiB). Past it the body is closed and a KindNote frame says so.
	MaxBodyBytes int64
}

// Conn is one HTTP client bound to an MCP endpoint. It implements wire.Conn
// and wire.HTTPDoer. Send and Do may be called concurrently; Recv must have
// a single reader.
type Conn struct {
	url       string
	name      string
	header    http.Header
	bearer    string
	client    *http.Client
	ownClient bool
	rec       *wire.Recorder
	maxMsg    int64
	maxBody   int64

	exchange atomic.Int64

	wg sync.WaitGroup // requests in flight and their body readers

	// emitMu orders Record+enqueue so that queue order equals Seq order.
	emitMu sync.Mutex

	mu       sync.Mutex
	closed   bool              // Close was called: no new requests
	inflight map[int64]request // requests not yet finished
	// open counts the exchanges whose end Recv has not handed out yet (a
	// request that failed before its response counts as ended at once).
	open  int
	queue []wire.Frame
	// idleSig is closed (and replaced) when open or the queue shrinks.
	idleSig chan struct{}
	eof     bool // the KindClosed frame was handed out
	notify  chan struct{}
}

// request is a request not yet finished: its context ends when the caller
// abandons it, or Close or the end of its body does.
type request struct {
	ctx    context.Context
	cancel context.CancelFunc
}

var (
	_ wire.Conn     = (*Conn)(nil)
	_ wire.HTTPDoer = (*Conn)(nil)
)

// New validates the options and returns a Conn. It does no I/O.
func New(opts Options) (*Conn, error) {
	if opts.URL == "" {
		return nil, errors.New("streamhttp: no URL")
	}
	u, err := url.Parse(opts.URL)
	if err != nil {
		return nil, fmt.Errorf("streamhttp: bad URL: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("streamhttp: URL scheme must be http or https, not %q", u.Scheme)
	}
	if u.Host == "" {
		return nil, errors.New("streamhttp: URL has no host")
	}
	c := &Conn{
		url:     opts.URL,
		name:    opts.Name,
		header:  opts.Header.Clone(),
		bearer:  opts.Bearer,
		client:  opts.Client,
		rec:     opts.Recorder,
		maxMsg:  opts.MaxMessageBytes,
		maxBody: opts.MaxBodyBytes,
		notify:  make(chan struct{}, 1),
		idleSig: make(chan struct{}),

		inflight: make(map[int64]request),
	}
	if c.name == "" {
		c.name = "http"
	}
	if c.maxMsg <= 0 {
		c.maxMsg = DefaultMaxMessageBytes
	}
	if c.maxBody <= 0 {
		c.maxBody = DefaultMaxBodyBytes
	}
	if c.client == nil {
		c.client = defaultClient()
		c.ownClient = true
	}
	return c, nil
}

// NewClient returns the HTTP client a Conn uses when Options.Client is
// nil: no proxy (traffic goes only to the URL given), no redirects
// followed, no transparent compression. Conns that share one reuse its
// idle TCP connections, as real clients do; the caller closes its idle
// connections when it is done (CloseIdleConnections).
func NewClient() *http.Client { return defaultClient() }

// maxIdlePerHost bounds the idle TCP connections a client keeps to the
// target: enough for a run's parallel lanes (each with a request and a
// GET stream under way) to find one instead of dialing. With net/http's
// default of 2, a full run against a local server dialed about 200
// connections for 47 sessions (1,100 requests).
const maxIdlePerHost = 64

func defaultClient() *http.Client {
	tr := &http.Transport{
		Proxy: nil, // traffic goes only to the URL given
		DialContext: (&net.Dialer{
			Timeout:   dialTimeout,
			KeepAlive: 30 * time.Second,
		}).DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          maxIdlePerHost,
		MaxIdleConnsPerHost:   maxIdlePerHost,
		IdleConnTimeout:       30 * time.Second,
		TLSHandshakeTimeout:   dialTimeout,
		ExpectContinueTimeout: time.Second,
		DisableCompression:    true,
	}
	return &http.Client{
		Transport: tr,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}

// Name returns the connection name.
func (c *Conn) Name() string { return c.name }

// Transport returns wire.HTTP.
func (c *Conn) Transport() string { return wire.HTTP }

// Send POSTs payload to the endpoint and returns once the response head has
// arrived. The body is turned into frames for Recv in the background;
// Reply.Done is closed after the last one was queued. Cancelling ctx while
// the body is still being read closes it (an MCP 2026-07-28 cancellation).
func (c *Conn) Send(ctx context.Context, payload []byte, opts *wire.SendOptions) (*wire.Reply, error) {
	return c.Do(ctx, http.MethodPost, payload, opts)
}

// Do sends one request with the given method and body; see Send. For GET the
// default Accept is "text/event-stream"; Content-Type: application/json is
// a default for POST and for any request with a body.
func (c *Conn) Do(ctx context.Context, method string, body []byte, opts *wire.SendOptions) (*wire.Reply, error) {
	if method == "" {
		return nil, fmt.Errorf("%s: empty HTTP method", c.name)
	}
	ex := c.exchange.Add(1)
	// The request lives until its body was read, or until ctx or Close ends it.
	reqCtx, cancel := context.WithCancel(ctx)
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		cancel()
		return nil, fmt.Errorf("%s: %w", c.name, wire.ErrClosed)
	}
	c.inflight[ex] = request{ctx: reqCtx, cancel: cancel}
	c.open++
	c.wg.Add(1)
	c.mu.Unlock()
	defer c.wg.Done()
	release := func() {
		c.mu.Lock()
		delete(c.inflight, ex)
		c.mu.Unlock()
		cancel()
	}
	// failed: the request ended before a response, so no exchange end
	// frame will come for it.
	failed := func() {
		release()
		c.mu.Lock()
		c.open--
		c.idleChangedLocked()
		c.mu.Unlock()
	}

	hdr := c.requestHeader(method, len(body) > 0, opts)

	req, err := http.NewRequestWithContext(reqCtx, method, c.url, bytes.NewReader(body))
	if err != nil {
		failed()
		return nil, fmt.Errorf("%s: %w", c.name, err)
	}
	req.Header = hdr
	if h, ok := headerGet(hdr, "Host"); ok {
		req.Host = h // Go ignores Header["Host"]; honour a deliberate override
	}

	kind := wire.KindMessage
	if len(body) == 0 {
		kind = wire.KindBody
	}
	var decoded any
	if opts != nil {
		decoded = opts.Decoded
	}
	c.rec.Record(wire.Frame{
		Conn:     c.name,
		Dir:      wire.Out,
		Kind:     kind,
		Raw:      body,
		Exchange: ex,
		HTTP:     &wire.HTTPInfo{Method: method, URL: c.url, Header: hdr},
		Decoded:  decoded,
	})

	resp, err := c.client.Do(req)
	if err != nil {
		failed()
		c.rec.Record(wire.Frame{
			Conn:     c.name,
			Dir:      wire.Out,
			Kind:     wire.KindNote,
			Exchange: ex,
			HTTP:     &wire.HTTPInfo{Method: method, URL: c.url},
			Note:     fmt.Sprintf("%s %s failed before a response: %v", method, c.url, err),
		})
		if c.isClosed() && ctx.Err() == nil {
			return nil, fmt.Errorf("%s: %s: %w", c.name, method, wire.ErrClosed)
		}
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			// The server took the request and answered nothing in time: the
			// same "no response" as a silent stdio server.
			return nil, fmt.Errorf("%s: %s: %w: no response headers before the deadline (%w)", c.name, method, wire.ErrTimeout, err)
		}
		return nil, fmt.Errorf("%s: %s: %w", c.name, method, err)
	}

	done := make(chan struct{})
	x := &exchange{
		c:       c,
		id:      ex,
		ctx:     ctx,
		reqCtx:  reqCtx,
		resp:    resp,
		header:  resp.Header,
		done:    done,
		release: release,
	}
	// The body must be closable even with a client whose transport ignores
	// the request context.
	bodyClosed := make(chan struct{})
	stop := context.AfterFunc(reqCtx, func() {
		_ = resp.Body.Close()
		close(bodyClosed)
	})
	x.stopClose = func() {
		if !stop() {
			<-bodyClosed // the hook runs in its own goroutine: let it finish
		}
	}
	c.wg.Add(1) // counter is > 0 (our own Add), so this cannot race Wait
	go x.read()
	return &wire.Reply{Exchange: ex, Status: resp.StatusCode, Header: resp.Header, Done: done}, nil
}

// requestHeader builds the headers of one request: transport defaults,
// Authorization, Options.Header, SendOptions.Header, then SendOptions.Remove.
// Overrides match names case-insensitively but keep the caller's spelling.
func (c *Conn) requestHeader(method string, hasBody bool, opts *wire.SendOptions) http.Header {
	h := make(http.Header, 4+len(c.header))
	if method == http.MethodPost || hasBody {
		h["Content-Type"] = []string{"application/json"}
	}
	if method == http.MethodGet {
		h["Accept"] = []string{"text/event-stream"}
	} else {
		h["Accept"] = []string{"application/json, text/event-stream"}
	}
	if c.bearer != "" {
		h["Authorization"] = []string{"Bearer " + c.bearer}
	}
	overlay(h, c.header)
	if opts != nil {
		overlay(h, opts.Header)
		for _, name := range opts.Remove {
			headerDel(h, name)
		}
	}
	return h
}

// overlay replaces, in h, every header named in o (case-insensitively).
func overlay(h, o http.Header) {
	for k, vs := range o {
		headerDel(h, k)
		h[k] = append([]string(nil), vs...)
	}
}

func headerDel(h http.Header, name string) {
	for k := range h {
		if strings.EqualFold(k, name) {
			delete(h, k)
		}
	}
}

func headerGet(h http.Header, name string) (string, bool) {
	for k, vs := range h {
		if strings.EqualFold(k, name) && len(vs) > 0 {
			return vs[0], true
		}
	}
	return "", false
}

// Recv returns the next incoming frame. After Close it returns the frames
// still queued, then one KindClosed frame, then wire.ErrClosed.
func (c *Conn) Recv(ctx context.Context) (wire.Frame, error) {
	for {
		c.mu.Lock()
		if len(c.queue) > 0 {
			f := c.queue[0]
			c.queue[0] = wire.Frame{}
			c.queue = c.queue[1:]
			if len(c.queue) == 0 {
				c.queue = nil
			}
			if f.Kind == wire.KindClosed {
				c.eof = true
			}
			if f.Kind == wire.KindNote && f.Note == wire.NoteExchangeEnd {
				c.open--
			}
			if len(c.queue) == 0 && c.open == 0 {
				c.idleChangedLocked()
			}
			c.mu.Unlock()
			return f, nil
		}
		eof := c.eof
		c.mu.Unlock()
		if eof {
			return wire.Frame{}, wire.ErrClosed
		}
		select {
		case <-c.notify:
		case <-ctx.Done():
			return wire.Frame{}, fmt.Errorf("%s: recv: %w", c.name, ctx.Err())
		}
	}
}

// Idle reports whether nothing more can arrive through Recv until the next
// request: every exchange has ended and Recv has handed out all its frames
// (a Streamable HTTP server answers a request only on that request's own
// response, and an open GET stream is an exchange that has not ended). The
// reader may still be handling the last frame it took; when that frame was
// a message, its exchange's end frame is still queued, so Idle is false.
// When not idle, ending says that every exchange still open was abandoned
// by its caller or has been read to its end (it can bring no new message,
// and it ends within moments), and changed is closed once the connection
// may have become idle.
func (c *Conn) Idle() (idle, ending bool, changed <-chan struct{}) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.open == 0 && len(c.queue) == 0 {
		return true, false, c.idleSig
	}
	for _, r := range c.inflight {
		if r.ctx.Err() == nil {
			return false, false, c.idleSig
		}
	}
	return false, true, c.idleSig
}

func (c *Conn) idleChangedLocked() {
	close(c.idleSig)
	c.idleSig = make(chan struct{})
}

// Close cancels every request in flight, waits for their readers to stop,
// and queues the KindClosed frame. It is idempotent.
func (c *Conn) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	for _, r := range c.inflight {
		r.cancel()
	}
	c.mu.Unlock()

	c.wg.Wait()
	if c.ownClient {
		c.client.CloseIdleConnections()
	}
	c.emit(wire.Frame{Dir: wire.In, Kind: wire.KindClosed, Note: "connection closed by harness"})
	return nil
}

func (c *Conn) isClosed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closed
}

// emit records f and queues it for Recv.
// deliver queues f for Recv without recording it (bookkeeping frames).
func (c *Conn) deliver(f wire.Frame) {
	f.Conn = c.name
	c.emitMu.Lock()
	c.mu.Lock()
	c.queue = append(c.queue, f)
	c.mu.Unlock()
	c.emitMu.Unlock()
	select {
	case c.notify <- struct{}{}:
	default:
	}
}

func (c *Conn) emit(f wire.Frame) {
	f.Conn = c.name
	if f.Time.IsZero() {
		f.Time = time.Now()
	}
	c.emitMu.Lock()
	r := c.rec.Record(f)
	// Deliver the frame as read (the recorder's copy is the redacted one).
	f.Seq, f.Time, f.Decoded = r.Seq, r.Time, r.Decoded
	c.mu.Lock()
	c.queue = append(c.queue, f)
	c.mu.Unlock()
	c.emitMu.Unlock()
	select {
	case c.notify <- struct{}{}:
	default:
	}
}
