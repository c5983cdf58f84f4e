// Package session speaks MCP over a wire.Conn in either era: the legacy
// initialize handshake (2024-11-05 … 2025-11-25) or the stateless
// 2026-07-28 revision with per-request _meta and server/discover. It
// correlates responses by id (keeping the JSON type), records every
// message that was not an answer to a call, and never blocks without a
// deadline.
package session

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpconform/mcpconform/internal/catalog"
	"github.com/mcpconform/mcpconform/internal/jsonrpc"
	"github.com/mcpconform/mcpconform/internal/wire"
)

// Meta keys of 2026-07-28.
const (
	MetaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	MetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	MetaClientInfo         = "io.modelcontextprotocol/clientInfo"
	MetaServerInfo         = "io.modelcontextprotocol/serverInfo"
	MetaLogLevel           = "io.modelcontextprotocol/logLevel"
)

// HTTP header names.
const (
	HeaderProtocolVersion = "MCP-Protocol-Version"
	HeaderSessionID       = "Mcp-Session-Id"
	HeaderMethod          = "Mcp-Method"
	HeaderName            = "Mcp-Name"
)

// ClientName and ClientVersion identify the harness in clientInfo.
var (
	ClientName    = "mcpconform"
	ClientVersion = "dev"
)

// Options configure a Session.
type Options struct {
	// Revision is the revision the session speaks. For a legacy revision it
	// is what initialize requests; the negotiated one may differ.
	Revision catalog.Revision
	// Timeout bounds each call that has no deadline of its own (default 5s).
	Timeout time.Duration
	// Recorder receives harness notes (the conn records frames itself).
	Recorder *wire.Recorder
	// Latency, when set, receives the answer times of cheap requests.
	Latency *Latency
	// Faults, when set, receives the systematic faults recognised.
	Faults *Faults
	// Startup, when longer than Timeout, bounds the first call of the
	// connection instead (it includes a new process's start-up, which
	// several processes started at once on a loaded machine stretch).
	Startup time.Duration
	// Quiet, when set, is the run's quiet gate: every request waits at it
	// while the run is held quiet, and a request whose deadline expires is
	// recorded there for a re-ask (Quiet, Reask).
	Quiet *Quiet
}

// Event is an incoming frame that was not the answer to a call: a
// notification, a server request, an unsolicited response, a non-JSON line,
// an HTTP body, or the end of the connection.
type Event struct {
	Frame wire.Frame
	// Msg is the decoded message (nil when the payload was not a JSON object).
	Msg *jsonrpc.Message
	// DecodeErr says why Msg is nil for a KindMessage frame.
	DecodeErr error
	// Unsolicited is set for a response whose id matches no request in flight.
	Unsolicited bool
	// Late is set for an unsolicited response whose id is that of a call
	// the session gave up on (it timed out): a late answer, not an answer
	// to anything sent since.
	Late bool
}

// Response is the outcome of one call.
type Response struct {
	// ID is the id the request was sent with.
	ID jsonrpc.ID
	// Msg is the matched response (nil when none came).
	Msg *jsonrpc.Message
	// Frame carried Msg.
	Frame wire.Frame
	// IDTypeMismatch is set when the response id matched the request only
	// when the JSON type was ignored (7 answered as "7").
	IDTypeMismatch bool
	// NullID is set when the response is an error with "id": null that
	// the session attributed to this request: on stdio it was the only
	// request in flight and nothing else had been written since the
	// server's previous message (a fault of the id rule, RPC-002, recorded
	// in Options.Faults; the check need not wait out the timeout).
	NullID bool
	// Reply is the HTTP reply head of the request (nil on stdio).
	Reply *wire.Reply
	// Exchange holds every frame of the HTTP exchange (nil on stdio).
	Exchange []wire.Frame
	// Elapsed is the time from send to answer.
	Elapsed time.Duration

	// clean: the request was the only one in flight and the server had
	// answered (sent something) since the last raw payload was written,
	// so Elapsed is the server's plain answer time (a latency sample).
	clean bool
}

// Status returns the HTTP status of the reply, 0 on stdio.
func (r *Response) Status() int {
	if r == nil || r.Reply == nil {
		return 0
	}
	return r.Reply.Status
}

// Result decodes the result into v.
func (r *Response) Result(v any) error {
	if r == nil || r.Msg == nil || !r.Msg.HasResult {
		return errors.New("no result")
	}
	return json.Unmarshal(r.Msg.Result, v)
}

// ErrorCode returns the JSON-RPC error code when the response is an error.
func (r *Response) ErrorCode() (int64, bool) {
	if r == nil || r.Msg == nil {
		return 0, false
	}
	return r.Msg.ErrorCode()
}

// IsResult reports a response with a result member.
func (r *Response) IsResult() bool { return r != nil && r.Msg != nil && r.Msg.HasResult }

// IsError reports an error response without a result.
func (r *Response) IsError() bool { return r != nil && r.Msg != nil && r.Msg.IsError() }

// Describe renders the response for a failure message.
func (r *Response) Describe() string {
	if r == nil {
		return "no response"
	}
	var b strings.Builder
	if r.Reply != nil {
		fmt.Fprintf(&b, "HTTP %d", r.Reply.Status)
		if ct := r.Reply.Header.Get("Content-Type"); ct != "" {
			fmt.Fprintf(&b, " (%s)", ct)
		}
		b.WriteString(": ")
	}
	if r.Msg == nil {
		b.WriteString("no JSON-RPC response")
		for _, f := range r.Exchange {
			if f.Dir == wire.In && (f.Kind == wire.KindBody || f.Kind == wire.KindMessage) {
				fmt.Fprintf(&b, "; body %s", clip(f.Raw, 300))
				break
			}
		}
		return b.String()
	}
	b.WriteString(clip(r.Msg.Raw, 600))
	return b.String()
}

func clip(b []byte, n int) string {
	if len(b) == 0 {
		return "(empty)"
	}
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}

// ErrNoResponse is returned when the HTTP reply of a request ended without
// a JSON-RPC response to it; the Response still carries the reply.
var ErrNoResponse = errors.New("no JSON-RPC response to the request")

type call struct {
	id       jsonrpc.ID
	exchange atomic.Int64
	done     chan struct{}
	resp     *Response
	sent     time.Time
	frames   []wire.Frame // HTTP exchange frames
	ended    bool
	// method is set for requests sent with Call; payload is what was
	// sent; mark is the recorder position before the send and lastIn the
	// session's last incoming frame then (nullIDTargetLocked).
	method       string
	payload      []byte
	mark, lastIn int64
	// wellFormed: payload is one valid JSON-RPC request on one line
	// (wellFormedMethod), known without decoding it for a request Call
	// built.
	wellFormed bool
	// clean: see Response.clean.
	clean bool
}

// Session is one MCP client session over one connection.
type Session struct {
	conn wire.Conn
	opts Options
	rec  *wire.Recorder

	nextID atomic.Int64
	warm   atomic.Bool // a call of this session was answered (latency)
	// answered: a call of this session got its response (Startup)
	answered atomic.Bool
	// hung: a re-ask on this connection went unanswered (Reask), and
	// nothing was answered since
	hung atomic.Bool
	// junk: something not a well-formed request or notification was
	// written on this connection (a blank line, an invalid request, raw
	// bytes); the server may answer it with "id": null at any later time,
	// so such errors are no longer attributed (nullIDTargetLocked).
	junk   atomic.Bool
	lastIn int64 // Seq of the last incoming frame handled (under mu)
	// lastInAt is when the last incoming frame was handled, timedOutAt
	// when the last call that timed out was sent (under mu; Stalled).
	lastInAt, timedOutAt time.Time
	// rawAt is when a raw payload (SendRaw, CallRaw) was last written
	// (under mu): answers behind unparsed input are no latency samples.
	rawAt time.Time

	mu            sync.Mutex
	altName       string           // SetClientName
	pending       map[string]*call // by ID.Key()
	expired       map[string]bool  // ids of calls that ended without a response (at most maxExpired)
	loose         map[string]*call // by ID.LooseKey()
	byExch        map[int64]*call
	events        []Event
	eventBytes    int
	droppedEvents int
	orphans       map[int64]*orphan
	eventSig      chan struct{}
	closed        bool
	closedErr     error

	// Legacy state.
	negotiated catalog.Revision
	sessionID  string
	initResult json.RawMessage

	// Modern state.
	discover json.RawMessage

	answering    chan struct{} // slots for answers to server requests
	dispatchDone chan struct{}
	stop         context.CancelFunc
}

// maxExpired bounds the ids of abandoned calls a session remembers.
const maxExpired = 10000

// New starts a session over conn. Nothing is sent yet.
func New(conn wire.Conn, opts Options) *Session {
	if opts.Timeout <= 0 {
		opts.Timeout = 5 * time.Second
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Session{
		conn:         conn,
		opts:         opts,
		rec:          opts.Recorder,
		pending:      map[string]*call{},
		expired:      map[string]bool{},
		loose:        map[string]*call{},
		byExch:       map[int64]*call{},
		eventSig:     make(chan struct{}),
		answering:    make(chan struct{}, 16),
		dispatchDone: make(chan struct{}),
		stop:         cancel,
	}
	s.lastIn = s.rec.Seq()
	go s.dispatch(ctx)
	return s
}

// Conn returns the underlying connection.
func (s *Session) Conn() wire.Conn { return s.conn }

// Idle reports whether nothing more can arrive on the session until its
// next request (wire.Idler; false on stdio, where the server may write at
// any time).
func (s *Session) Idle() bool {
	i, ok := s.conn.(wire.Idler)
	if !ok {
		return false
	}
	idle, _, _ := i.Idle()
	return idle
}

// WaitIdle reports whether the session is Idle, waiting (at most until ctx
// ends) while the only exchanges still open are ending: a call that
// returned has abandoned its exchange, which ends within moments. It does
// not wait out an exchange that may still bring messages (an open stream),
// and returns false at once on stdio.
func (s *Session) WaitIdle(ctx context.Context) bool {
	i, ok := s.conn.(wire.Idler)
	if !ok {
		return false
	}
	for {
		idle, ending, changed := i.Idle()
		if idle || !ending {
			return idle
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return false
		}
	}
}

// Transport returns the transport name.
func (s *Session) Transport() string { return s.conn.Transport() }

// Revision returns the revision in use: the negotiated one after a legacy
// handshake, otherwise the configured one.
func (s *Session) Revision() catalog.Revision {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.negotiated != "" {
		return s.negotiated
	}
	return s.opts.Revision
}

// Modern reports whether the session speaks 2026-07-28.
func (s *Session) Modern() bool { return !s.opts.Revision.IsLegacy() }

// Timeout is the default per-call deadline.
func (s *Session) Timeout() time.Duration { return s.opts.Timeout }

// NewID allocates a fresh integer id.
func (s *Session) NewID() jsonrpc.ID { return jsonrpc.IntID(s.nextID.Add(1)) }

func (s *Session) dispatch(ctx context.Context) {
	defer close(s.dispatchDone)
	for {
		f, err := s.conn.Recv(ctx)
		if err != nil {
			s.mu.Lock()
			s.closed = true
			s.closedErr = err
			for _, c := range s.pending {
				s.finishLocked(c, nil)
			}
			s.signalLocked()
			s.mu.Unlock()
			return
		}
		s.handle(ctx, f)
	}
}

// Bounds on the events a session keeps: a flooding server must not grow
// the harness without limit. The oldest events go first.
const (
	maxEvents     = 10_000
	maxEventBytes = 32 << 20
)

// addEventLocked keeps s.events in recorder order (Frame.Seq): frames of
// concurrent HTTP streams may be dispatched out of the order they were
// recorded in, so a late one moves back to its place (a step or two).
// Events and WaitEvent then find the first event after a mark by binary
// search instead of scanning every stored event on every call.
func (s *Session) addEventLocked(e Event) {
	s.events = append(s.events, e)
	for i := len(s.events) - 1; i > 0 && s.events[i-1].Frame.Seq > s.events[i].Frame.Seq; i-- {
		s.events[i-1], s.events[i] = s.events[i], s.events[i-1]
	}
	s.eventBytes += len(e.Frame.Raw)
	for len(s.events) > maxEvents || (s.eventBytes > maxEventBytes && len(s.events) > 1) {
		s.eventBytes -= len(s.events[0].Frame.Raw)
		s.events[0] = Event{}
		s.events = s.events[1:]
		s.droppedEvents++
	}
}

// DroppedEvents returns how many events were discarded by the bounds.
func (s *Session) DroppedEvents() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.droppedEvents
}

func (s *Session) signalLocked() {
	close(s.eventSig)
	s.eventSig = make(chan struct{})
}

func (s *Session) finishLocked(c *call, resp *Response) {
	if c.resp != nil || isClosed(c.done) {
		return
	}
	if resp == nil {
		resp = &Response{ID: c.id}
	}
	resp.Exchange = c.frames
	resp.Elapsed = time.Since(c.sent)
	c.resp = resp
	delete(s.pending, c.id.Key())
	if resp.Msg == nil && len(s.expired) < maxExpired {
		s.expired[c.id.Key()] = true
	}
	if s.loose[c.id.LooseKey()] == c {
		delete(s.loose, c.id.LooseKey())
	}
	close(c.done)
}

func isClosed(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

func (s *Session) handle(ctx context.Context, f wire.Frame) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f.Dir == wire.In && f.Seq > s.lastIn {
		defer func() { s.lastIn = f.Seq }()
	}
	s.lastInAt = time.Now()
	var exch *call
	if f.Exchange != 0 {
		exch = s.byExch[f.Exchange]
		if exch != nil {
			exch.frames = append(exch.frames, f)
		} else {
			// The reply may be read before CallRaw registered the exchange:
			// keep its frames until the call claims them.
			s.orphanLocked(f)
		}
	}
	switch f.Kind {
	case wire.KindNote:
		if f.Note == wire.NoteExchangeEnd {
			if exch != nil {
				delete(s.byExch, f.Exchange)
				s.finishLocked(exch, nil)
			}
			return
		}
		return
	case wire.KindMessage:
	default:
		s.addEventLocked(Event{Frame: f})
		s.signalLocked()
		return
	}
	msg, decoded := f.Decoded.(*jsonrpc.Message) // by the run-wide observer
	var err error
	if !decoded {
		msg, err = jsonrpc.Decode(f.Raw)
	}
	if err != nil {
		s.addEventLocked(Event{Frame: f, DecodeErr: err})
		s.signalLocked()
		return
	}
	if msg.Kind() == jsonrpc.KindResponse && msg.HasID {
		if c, ok := s.pending[msg.ID.Key()]; ok {
			s.finishLocked(c, &Response{ID: c.id, Msg: msg, Frame: f, Reply: nil})
			return
		}
		if c, ok := s.loose[msg.ID.LooseKey()]; ok && !msg.ID.IsNull() {
			s.finishLocked(c, &Response{ID: c.id, Msg: msg, Frame: f, IDTypeMismatch: true})
			return
		}
		if msg.ID.IsNull() {
			if c := s.nullIDTargetLocked(msg); c != nil {
				s.opts.Faults.add(Fault{Requirement: "RPC-002", Revision: string(s.opts.Revision), Method: methodOf(c), Request: s.requestFrame(c), Response: f})
				s.finishLocked(c, &Response{ID: c.id, Msg: msg, Frame: f, NullID: true})
				return
			}
		}
	}
	ev := Event{Frame: f, Msg: msg, Unsolicited: msg.Kind() == jsonrpc.KindResponse}
	if ev.Unsolicited && msg.HasID && s.expired[msg.ID.Key()] {
		ev.Late = true
		delete(s.expired, msg.ID.Key())
	}
	s.addEventLocked(ev)
	s.signalLocked()
	if msg.Kind() == jsonrpc.KindRequest && !s.Modern() {
		select { // bounded: a server flooding requests gets no more than 16 answers in flight
		case s.answering <- struct{}{}:
			go func() {
				defer func() { <-s.answering }()
				s.answerServerRequest(ctx, msg)
			}()
		default:
		}
	}
}

// answerServerRequest replies to a legacy server→client request: ping gets
// {}, anything else "method not found" (the harness declares no client
// capabilities unless a check says otherwise).
func (s *Session) answerServerRequest(ctx context.Context, msg *jsonrpc.Message) {
	if !msg.ID.Valid() {
		return
	}
	var payload []byte
	if msg.Method == "ping" {
		payload = jsonrpc.Response(msg.ID, struct{}{})
	} else {
		payload = jsonrpc.ErrorResponse(msg.ID, jsonrpc.CodeMethodNotFound, "mcpconform does not offer "+msg.Method)
	}
	cctx, cancel := context.WithTimeout(ctx, s.opts.Timeout)
	defer cancel()
	_, _ = s.conn.Send(cctx, payload, &wire.SendOptions{Header: s.legacyHeaders()})
}

// Events returns the events whose frame Seq is greater than after.
func (s *Session) Events(after int64) []Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	rest := s.events[s.firstAfterLocked(after):]
	if len(rest) == 0 {
		return nil
	}
	return slices.Clone(rest)
}

// firstAfterLocked is the index of the first stored event recorded after
// seq.
func (s *Session) firstAfterLocked(seq int64) int {
	return sort.Search(len(s.events), func(i int) bool { return s.events[i].Frame.Seq > seq })
}

// WaitEvent waits until an event after seq satisfies pred, ctx ends, or the
// connection closes. It returns the event and true when found.
func (s *Session) WaitEvent(ctx context.Context, after int64, pred func(Event) bool) (Event, bool) {
	for {
		s.mu.Lock()
		for _, e := range s.events[s.firstAfterLocked(after):] {
			if pred(e) {
				s.mu.Unlock()
				return e, true
			}
		}
		sig, closed := s.eventSig, s.closed
		s.mu.Unlock()
		if closed {
			return Event{}, false
		}
		select {
		case <-sig:
		case <-ctx.Done():
			return Event{}, false
		}
	}
}

// Closed reports whether the connection has ended, with the reason.
func (s *Session) Closed() (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed, s.closedErr
}

// CallOptions tune one call.
type CallOptions struct {
	// ID overrides the allocated id.
	ID *jsonrpc.ID
	// Meta replaces the modern _meta the session would add; NoMeta sends
	// params without _meta (and no params at all when params is nil).
	Meta   map[string]any
	NoMeta bool
	// Header adds or overrides HTTP headers; Remove deletes headers.
	Header http.Header
	Remove []string
	// Timeout overrides the session's per-call deadline.
	Timeout time.Duration
}

// Call sends a request and waits for its response. In the modern era the
// required _meta is merged into params and the 2026-07-28 HTTP headers are
// set; in the legacy era the session id and protocol version headers are.
// A response is returned whenever one came; err reports a timeout, a closed
// connection, or an HTTP reply without a response (ErrNoResponse).
func (s *Session) Call(ctx context.Context, method string, params any, o *CallOptions) (*Response, error) {
	if o == nil {
		o = &CallOptions{}
	}
	var p json.RawMessage
	var err error
	if s.Modern() && !o.NoMeta {
		meta := o.Meta
		if meta == nil {
			meta = s.ModernMeta()
		}
		p, err = withMeta(params, meta)
	} else if params != nil {
		p, err = json.Marshal(params)
	}
	if err != nil {
		return nil, fmt.Errorf("params: %w", err)
	}
	id := s.NewID()
	if o.ID != nil {
		id = *o.ID
	}
	payload, built := jsonrpc.Built(id, method, p)
	hdr := s.headersFor(method, p)
	for k, v := range o.Header {
		for have := range hdr { // replace regardless of the spelling
			if strings.EqualFold(have, k) {
				delete(hdr, have)
			}
		}
		hdr[k] = v
	}
	// Built here: well-formed unless a check chose an invalid id or
	// params that are not an object (no need to decode it again), and
	// decoded already (the observer takes it with the frame).
	wellFormed := method != "" && id.Valid() && (p == nil || (len(p) > 0 && p[0] == '{'))
	so := &wire.SendOptions{Header: hdr, Remove: o.Remove, Decoded: built}
	first := !s.answered.Load()
	resp, err := s.callRaw(ctx, id, payload, so, o.Timeout, method, wellFormed)
	if err != nil && errors.Is(err, wire.ErrTimeout) {
		s.silence(Silence{Method: method, Params: p, ID: id, Own: o.ID == nil, Send: so, Timeout: s.deadline(o.Timeout, first), First: first})
	}
	s.observe(method, resp, err)
	if method == "tools/call" && err == nil && resp != nil && resp.Msg != nil {
		if m, ok := params.(map[string]any); ok {
			if name, ok := m["name"].(string); ok {
				s.opts.Latency.ObserveTool(name, resp.Elapsed)
			}
		}
	}
	return resp, err
}

// CallRaw sends payload (which must carry id) and waits for the response
// with that id.
func (s *Session) CallRaw(ctx context.Context, id jsonrpc.ID, payload []byte, so *wire.SendOptions, timeout time.Duration) (*Response, error) {
	s.markRaw()
	first := !s.answered.Load()
	resp, err := s.callRaw(ctx, id, payload, so, timeout, "", false)
	if err != nil && errors.Is(err, wire.ErrTimeout) {
		s.silence(Silence{ID: id, Payload: payload, Send: so, Timeout: s.deadline(timeout, first), First: first})
	}
	return resp, err
}

// deadline is the deadline of a call given timeout (0: the session's)
// when first is whether no call of the connection was answered yet.
func (s *Session) deadline(timeout time.Duration, first bool) time.Duration {
	if timeout > 0 {
		return timeout
	}
	if first && s.opts.Startup > s.opts.Timeout {
		return s.opts.Startup
	}
	return s.opts.Timeout
}

// callRaw is CallRaw; method is set for a request built by Call, and built
// when that request is well-formed by construction.
func (s *Session) callRaw(ctx context.Context, id jsonrpc.ID, payload []byte, so *wire.SendOptions, timeout time.Duration, method string, built bool) (*Response, error) {
	if timeout <= 0 {
		timeout = s.opts.Timeout
		if s.opts.Startup > timeout && !s.answered.Load() {
			timeout = s.opts.Startup
		}
	}
	// The request boundary: while the run is held quiet (a re-ask), the
	// request waits here, before its deadline starts.
	if err := s.opts.Quiet.enter(ctx); err != nil {
		return nil, fmt.Errorf("waiting for the harness's quiet: %w", err)
	}
	defer s.opts.Quiet.leave()
	ctx = context.WithValue(ctx, gatedKey{}, true)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	wellFormed := built || wellFormedMethod(bytes.TrimSuffix(payload, []byte("\n"))) != ""
	if !wellFormed {
		s.junk.Store(true)
	}
	c := &call{id: id, done: make(chan struct{}), sent: time.Now(), method: method, payload: payload, mark: s.rec.Seq(), wellFormed: wellFormed}
	s.mu.Lock()
	c.lastIn = s.lastIn
	c.clean = len(s.pending) == 0 && (s.rawAt.IsZero() || s.lastInAt.After(s.rawAt))
	if s.closed {
		s.mu.Unlock()
		return nil, fmt.Errorf("%w: %v", wire.ErrClosed, s.closedErr)
	}
	if _, dup := s.pending[id.Key()]; dup {
		s.mu.Unlock()
		return nil, fmt.Errorf("id %s already in flight", id)
	}
	s.pending[id.Key()] = c
	if !id.IsZero() {
		if _, taken := s.loose[id.LooseKey()]; !taken {
			s.loose[id.LooseKey()] = c
		}
	}
	s.mu.Unlock()

	reply, err := s.conn.Send(ctx, payload, so)
	if err != nil {
		s.mu.Lock()
		s.finishLocked(c, nil)
		s.mu.Unlock()
		return nil, err
	}
	if reply != nil {
		c.exchange.Store(reply.Exchange)
		s.mu.Lock()
		o := s.orphans[reply.Exchange]
		delete(s.orphans, reply.Exchange)
		if o != nil {
			c.frames = append(o.frames, c.frames...)
		}
		switch {
		case o != nil && o.ended:
			s.finishLocked(c, nil) // no-op when the response already matched
		case c.resp == nil:
			s.byExch[reply.Exchange] = c
		}
		s.mu.Unlock()
	}
	select {
	case <-c.done:
	case <-ctx.Done():
		s.mu.Lock()
		s.finishLocked(c, nil)
		if c.sent.After(s.timedOutAt) {
			s.timedOutAt = c.sent
		}
		s.mu.Unlock()
		return s.withReply(c, reply), fmt.Errorf("%w: no response to %s within %s", wire.ErrTimeout, id, timeout)
	}
	resp := s.withReply(c, reply)
	resp.clean = c.clean
	if resp.Msg != nil {
		s.answered.Store(true)
		s.hung.Store(false)
	}
	if resp.Msg == nil {
		if closed, cerr := s.Closed(); closed && reply == nil {
			return resp, fmt.Errorf("%w: %v", wire.ErrClosed, cerr)
		}
		return resp, ErrNoResponse
	}
	return resp, nil
}

func (s *Session) withReply(c *call, reply *wire.Reply) *Response {
	s.mu.Lock()
	defer s.mu.Unlock()
	resp := c.resp
	if resp == nil {
		resp = &Response{ID: c.id, Exchange: c.frames, Elapsed: time.Since(c.sent)}
	}
	resp.Reply = reply
	if reply != nil {
		delete(s.byExch, reply.Exchange)
	}
	return resp
}
