package session

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpconform/mcpconform/internal/jsonrpc"
	"github.com/mcpconform/mcpconform/internal/wire"
)

// Quiet is a run's quiet gate and its record of silences (issue 31): a
// request whose deadline expired is graded only once it survived a re-ask
// while the harness was otherwise idle, for on a loaded machine (our own
// lanes, start-ups, other work) a slow answer is not a silent server.
//
// Every request a session sends (Call, CallRaw, Notify, SendRaw) passes
// the gate at its boundary: while someone holds the run quiet (Hush), new
// requests wait there, and Hush waits for those in flight to end (at most
// its limit). The re-ask's own requests pass (Unhushed). A nil *Quiet is
// an open gate that records nothing (the fuzzer, unit tests).
type Quiet struct {
	mu       sync.Mutex
	inflight int
	holds    int
	open     chan struct{} // closed when the last hold ends (holds > 0)
	drained  chan struct{} // closed when inflight reaches 0 (a Hush waits)
	sil      []Silence     // the last maxSilences
	seq      int64         // silences recorded in all

	// turn serialises the re-asks, one quiet at a time: a token taken
	// by Hush (a channel, so that a wait for it ends with its context).
	turn chan struct{}

	hushes, waited, reasked, answered atomic.Int64

	// silentAt is the recorder's position when re-asks with the harness
	// otherwise idle last got no answer at all (0: none did): while the
	// server has said nothing since, it is silent, not slow under our
	// load (MarkSilent, SilentAt).
	silentAt atomic.Int64
}

// maxSilences bounds the silences a Quiet keeps (the newest).
const maxSilences = 256

// Silence is a request whose deadline expired without an answer (or a
// notification whose POST got no reply head in time).
type Silence struct {
	Session *Session
	Conn    string
	// Seq is the recorder's position when the deadline expired.
	Seq int64
	// Method of a request built by Call ("" for a raw payload), its
	// params, and the id it was sent with; Own: the id was the session's
	// own (a re-ask takes a fresh one).
	Method string
	Params []byte
	ID     jsonrpc.ID
	Own    bool
	// Payload is a raw request's bytes (CallRaw).
	Payload []byte
	Send    *wire.SendOptions
	// Timeout is the deadline that expired; Full: it was at least the
	// session's per-response timeout (a shorter one is a check's own wait
	// for an answer that may legitimately never come).
	Timeout time.Duration
	Full    bool
	// Notification: a POSTed notification's reply head did not come.
	Notification bool
	// First: no call of the connection had been answered (its start-up).
	First bool
}

// QuietStats counts what the gate did.
type QuietStats struct {
	// Hushes: times the run was held quiet for a re-ask; Waited: those
	// that had to wait for requests in flight to end.
	Hushes, Waited int64
	// Reasked silences, and how many of them the re-ask got answered.
	Reasked, Answered int64
}

// Stats returns the counts so far.
func (q *Quiet) Stats() QuietStats {
	if q == nil {
		return QuietStats{}
	}
	return QuietStats{Hushes: q.hushes.Load(), Waited: q.waited.Load(), Reasked: q.reasked.Load(), Answered: q.answered.Load()}
}

// CountReask and CountAnswered count a re-ask made without Reask (a
// handshake tried again on a new connection) and its success.
func (q *Quiet) CountReask() {
	if q != nil {
		q.reasked.Add(1)
	}
}

func (q *Quiet) CountAnswered() {
	if q != nil {
		q.answered.Add(1)
	}
}

type unhushedKey struct{}

// Unhushed returns a context whose requests pass the gate while it is
// held (a re-ask's).
func Unhushed(ctx context.Context) context.Context {
	return context.WithValue(ctx, unhushedKey{}, true)
}

type gatedKey struct{}

type gateWaitKey struct{}

// WithGateWait returns ctx whose waits at the quiet gate pause a check's
// budget: pause is called when a wait begins, and the function it returns
// when the wait ends (a wait the harness imposed on itself, to re-ask
// another check's silence, is not the check's time).
func WithGateWait(ctx context.Context, pause func() (resume func())) context.Context {
	return context.WithValue(ctx, gateWaitKey{}, pause)
}

// Pause pauses ctx's budget (WithGateWait) for a wait of the harness's own
// — the quiet a re-ask holds the run in — until the returned function is
// called.
func Pause(ctx context.Context) (resume func()) {
	if pause, ok := ctx.Value(gateWaitKey{}).(func() func()); ok {
		return pause()
	}
	return func() {}
}

// Gated reports whether ctx is that of a request that passed the gate
// already (a session's: the connection need not gate it again).
func Gated(ctx context.Context) bool { return ctx.Value(gatedKey{}) != nil }

// Enter and Leave are enter and leave for a request a connection sends
// without a session (a check writing on Session.Conn directly).
func (q *Quiet) Enter(ctx context.Context) error { return q.enter(ctx) }
func (q *Quiet) Leave()                          { q.leave() }

// RecordSilence records x, a request written on s's connection directly
// whose deadline expired.
func (s *Session) RecordSilence(x Silence) { s.silence(x) }

// enter waits at the gate (unless ctx is Unhushed) and counts a request in
// flight; leave ends it.
func (q *Quiet) enter(ctx context.Context) error {
	if q == nil {
		return nil
	}
	pass := ctx.Value(unhushedKey{}) != nil
	var resume func()
	defer func() {
		if resume != nil {
			resume()
		}
	}()
	for {
		q.mu.Lock()
		if q.holds == 0 || pass {
			q.inflight++
			q.mu.Unlock()
			return nil
		}
		open := q.open
		q.mu.Unlock()
		if resume == nil {
			resume = Pause(ctx) // the check's budget waits too
		}
		select {
		case <-open:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (q *Quiet) leave() {
	if q == nil {
		return
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	q.inflight--
	if q.inflight == 0 && q.drained != nil {
		close(q.drained)
		q.drained = nil
	}
}

// Wait blocks while the run is held quiet (or until ctx ends): work that
// is not a request, such as starting a server process ahead of need,
// waits at the same boundary.
func (q *Quiet) Wait(ctx context.Context) {
	if q == nil {
		return
	}
	q.mu.Lock()
	if q.holds == 0 {
		q.mu.Unlock()
		return
	}
	open := q.open
	q.mu.Unlock()
	defer Pause(ctx)()
	select {
	case <-open:
	case <-ctx.Done():
	}
}

// MarkSilent records that re-asks made with the harness otherwise idle got
// no answer, at the recorder's position seq.
func (q *Quiet) MarkSilent(seq int64) {
	if q != nil {
		q.silentAt.Store(seq)
	}
}

// SilentAt is the position MarkSilent recorded last (0: none).
func (q *Quiet) SilentAt() int64 {
	if q == nil {
		return 0
	}
	return q.silentAt.Load()
}

// Holding reports whether the run is held quiet.
func (q *Quiet) Holding() bool {
	if q == nil {
		return false
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.holds > 0
}

// Hush holds the run quiet: from now on requests wait at the gate, and it
// returns once those in flight ended, or limit passed, or ctx ended. One
// hold at a time: a second Hush waits for the first's release (or for
// ctx to end: then it holds nothing). Call release when the re-ask is
// done.
func (q *Quiet) Hush(ctx context.Context, limit time.Duration) (release func()) {
	if q == nil {
		return func() {}
	}
	q.mu.Lock()
	if q.turn == nil {
		q.turn = make(chan struct{}, 1)
	}
	turn := q.turn
	q.mu.Unlock()
	select {
	case turn <- struct{}{}:
	case <-ctx.Done():
		return func() {}
	}
	q.hushes.Add(1)
	q.mu.Lock()
	q.holds++
	if q.holds == 1 {
		q.open = make(chan struct{})
	}
	var drained chan struct{}
	if q.inflight > 0 {
		if q.drained == nil {
			q.drained = make(chan struct{})
		}
		drained = q.drained
	}
	q.mu.Unlock()
	if drained != nil {
		q.waited.Add(1)
		tm := time.NewTimer(limit)
		select {
		case <-drained:
		case <-tm.C:
		case <-ctx.Done():
		}
		tm.Stop()
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			q.mu.Lock()
			q.holds--
			if q.holds == 0 {
				close(q.open)
			}
			q.mu.Unlock()
			<-turn
		})
	}
}

// record keeps x.
func (q *Quiet) record(x Silence) {
	if q == nil {
		return
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	q.seq++
	if len(q.sil) >= maxSilences {
		q.sil = append(q.sil[:0], q.sil[len(q.sil)-maxSilences/2:]...)
	}
	q.sil = append(q.sil, x)
}

// Recorded counts the silences recorded so far.
func (q *Quiet) Recorded() int64 {
	if q == nil {
		return 0
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.seq
}

// Since returns the silences recorded after recorder position seq whose
// connection keep accepts (nil: every one), oldest first.
func (q *Quiet) Since(seq int64, keep func(conn string) bool) []Silence {
	if q == nil {
		return nil
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	var out []Silence
	for _, x := range q.sil {
		if x.Seq > seq && (keep == nil || keep(x.Conn)) {
			out = append(out, x)
		}
	}
	return out
}

// silence records a call that timed out on s.
func (s *Session) silence(x Silence) {
	if s.opts.Quiet == nil {
		return
	}
	x.Session, x.Conn = s, s.conn.Name()
	if s.rec != nil {
		x.Seq = s.rec.Seq()
	}
	x.Full = x.Timeout >= s.opts.Timeout
	s.opts.Quiet.record(x)
}

// Reasked is what a re-ask found.
type Reasked struct {
	// Answered: the re-ask got an answer; Late: the original request got
	// its answer after its deadline (by the time the re-ask ended, and a
	// grace after its answer); Ended: the connection had ended; Hung: the
	// connection (a stdio process) left an earlier re-ask unanswered
	// (nothing was sent for Ended and Hung).
	Answered, Late, Ended, Hung bool
	// What was sent, and how long the re-ask took.
	What string
	Took time.Duration
}

// Reask sends again, on s, a request that went unanswered (x), with the
// full per-response timeout (the start-up deadline for a connection's
// first call): a request built by Call with its method and params, a raw
// request as it was, each with a fresh id of the same type, and for a
// notification, or a raw request whose id cannot be read, the era's
// barrier request (ping, or server/discover in 2026-07-28). Sent after
// the original on the same connection, the re-ask is also a barrier: once
// it is answered (and grace more passed) a server that was only slow has
// sent the original's late answer (Late). Call it with an Unhushed ctx
// while the run is held quiet. A connection that went silent on a
// re-ask before answers no later re-ask until it answers something again.
func (s *Session) Reask(ctx context.Context, x Silence, grace time.Duration) (r Reasked) {
	defer func() { r.Late = r.Late || s.answeredLate(x.ID) }()
	timeout := s.opts.Timeout
	if x.First {
		timeout = max(timeout, s.opts.Startup)
	}
	if s.hung.Load() {
		r.Hung = true
		return r
	}
	if closed, _ := s.Closed(); closed {
		r.Ended = true
		return r
	}
	if q := s.opts.Quiet; q != nil {
		q.reasked.Add(1)
	}
	began := time.Now()
	var resp *Response
	var err error
	id := s.freshLike(x.ID)
	var payload []byte
	var built *jsonrpc.Message
	switch {
	case x.Notification:
	case x.Method != "":
		payload, built = jsonrpc.Built(id, x.Method, x.Params)
		r.What = x.Method
	default:
		payload = withID(x.Payload, id)
		r.What = "the same raw request"
	}
	if payload == nil {
		m := "ping"
		if s.Modern() {
			m = "server/discover"
		}
		r.What = m
		resp, err = s.Call(ctx, m, nil, &CallOptions{Timeout: timeout})
	} else {
		so := &wire.SendOptions{}
		if built != nil { // never a typed nil: readers assert *jsonrpc.Message
			so.Decoded = built
		}
		if x.Send != nil {
			so.Header, so.Remove = x.Send.Header, x.Send.Remove
		}
		if built == nil {
			s.markRaw()
		}
		resp, err = s.callRaw(ctx, id, payload, so, timeout, x.Method, built != nil)
	}
	r.Took = time.Since(began)
	// an answer: a JSON-RPC response, or over HTTP a reply that came in
	// time without one (an HTTP error: not a silence)
	r.Answered = resp != nil && (resp.Msg != nil || resp.Reply != nil && !errors.Is(err, wire.ErrTimeout))
	if !r.Answered && errors.Is(err, wire.ErrTimeout) && s.Transport() != wire.HTTP {
		// a stdio process that did not answer the re-ask is stuck; over
		// HTTP every request is a new exchange, and each is re-asked
		s.hung.Store(true)
	}
	if r.Answered {
		if q := s.opts.Quiet; q != nil {
			q.answered.Add(1)
		}
		if !x.ID.IsZero() && !x.Notification {
			gctx, cancel := context.WithTimeout(ctx, grace)
			_, r.Late = s.WaitEvent(gctx, 0, func(e Event) bool { return e.Late && e.Msg != nil && e.Msg.ID.Key() == x.ID.Key() })
			cancel()
		}
	}
	return r
}

// answeredLate reports whether the answer to id came after its call gave
// up on it.
func (s *Session) answeredLate(id jsonrpc.ID) bool {
	if id.IsZero() {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range s.events {
		if e.Late && e.Msg != nil && e.Msg.ID.Key() == id.Key() {
			return true
		}
	}
	return false
}

// freshLike returns a new id of the session's of the same JSON type as id
// (a string id stays a string).
func (s *Session) freshLike(id jsonrpc.ID) jsonrpc.ID {
	n := s.NewID()
	if id.IsString() {
		return jsonrpc.StringID("mcpconform-reask-" + n.String())
	}
	return n
}

// withID returns payload, a raw request, with its id replaced by id (nil
// when payload is not a JSON object with an id).
func withID(payload []byte, id jsonrpc.ID) []byte {
	var obj map[string]json.RawMessage
	if json.Unmarshal(bytes.TrimSpace(payload), &obj) != nil || obj["id"] == nil {
		return nil
	}
	obj["id"] = json.RawMessage(id.String())
	b, err := json.Marshal(obj)
	if err != nil {
		return nil
	}
	return b
}
