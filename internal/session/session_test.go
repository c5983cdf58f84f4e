package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/internal/catalog"
	"github.com/mcpconform/mcpconform/internal/jsonrpc"
	"github.com/mcpconform/mcpconform/internal/wire"
	"github.com/mcpconform/mcpconform/internal/wire/streamhttp"
)

// ---------------------------------------------------------------------------
// A scripted in-memory wire.Conn: the test plays the server.

type sentMsg struct {
	payload []byte
	opts    *wire.SendOptions
	reply   *wire.Reply
	msg     *jsonrpc.Message // decoded payload (nil if not JSON)
}

type fakeConn struct {
	transport string
	frames    chan wire.Frame
	sent      chan sentMsg
	closed    chan struct{}
	closeOnce sync.Once
	seq       atomic.Int64
	exch      atomic.Int64

	mu    sync.Mutex
	dones map[int64]chan struct{}
	// replyHeader, when set, gives the HTTP reply header for a payload.
	replyHeader func(payload []byte) http.Header
	// beforeReturn, when set, runs inside Send after the reply exists and
	// before Send returns.
	beforeReturn func(reply *wire.Reply, msg *jsonrpc.Message)
}

func newFake(transport string) *fakeConn {
	return &fakeConn{
		transport: transport,
		frames:    make(chan wire.Frame, 256),
		sent:      make(chan sentMsg, 256),
		closed:    make(chan struct{}),
		dones:     map[int64]chan struct{}{},
	}
}

func (f *fakeConn) Name() string      { return f.transport + "#fake" }
func (f *fakeConn) Transport() string { return f.transport }

func (f *fakeConn) Send(ctx context.Context, payload []byte, opts *wire.SendOptions) (*wire.Reply, error) {
	select {
	case <-f.closed:
		return nil, fmt.Errorf("%w: fake closed", wire.ErrClosed)
	default:
	}
	m, _ := jsonrpc.Decode(payload)
	var reply *wire.Reply
	if f.transport == wire.HTTP {
		ex := f.exch.Add(1)
		done := make(chan struct{})
		f.mu.Lock()
		f.dones[ex] = done
		f.mu.Unlock()
		hdr := http.Header{"Content-Type": {"application/json"}}
		if f.replyHeader != nil {
			hdr = f.replyHeader(payload)
		}
		reply = &wire.Reply{Exchange: ex, Status: http.StatusOK, Header: hdr, Done: done}
	}
	f.sent <- sentMsg{payload: append([]byte(nil), payload...), opts: opts, reply: reply, msg: m}
	if f.beforeReturn != nil {
		f.beforeReturn(reply, m)
	}
	return reply, nil
}

func (f *fakeConn) Recv(ctx context.Context) (wire.Frame, error) {
	// Frames queued before Close are delivered first, as real conns do.
	select {
	case fr := <-f.frames:
		return fr, nil
	default:
	}
	select {
	case fr := <-f.frames:
		return fr, nil
	case <-f.closed:
		// a frame pushed just before Close, while Recv was between its
		// two selects, is still delivered first (this select picks at
		// random among ready cases)
		select {
		case fr := <-f.frames:
			return fr, nil
		default:
		}
		return wire.Frame{}, wire.ErrClosed
	case <-ctx.Done():
		return wire.Frame{}, fmt.Errorf("%w: %v", wire.ErrTimeout, ctx.Err())
	}
}

func (f *fakeConn) Close() error {
	f.closeOnce.Do(func() { close(f.closed) })
	return nil
}

// push delivers a frame to the session, numbering it like a Recorder would.
func (f *fakeConn) push(fr wire.Frame) wire.Frame {
	if fr.Seq == 0 {
		fr.Seq = f.seq.Add(1)
	}
	if fr.Time.IsZero() {
		fr.Time = time.Now()
	}
	if fr.Conn == "" {
		fr.Conn = f.Name()
	}
	fr.Dir = wire.In
	f.frames <- fr
	return fr
}

func (f *fakeConn) pushMsg(raw string) wire.Frame {
	return f.push(wire.Frame{Kind: wire.KindMessage, Raw: []byte(raw)})
}

func (f *fakeConn) pushExch(ex int64, raw string) wire.Frame {
	return f.push(wire.Frame{Kind: wire.KindMessage, Raw: []byte(raw), Exchange: ex, HTTP: &wire.HTTPInfo{Status: 200}})
}

// endExchange delivers the exchange-end note and closes the reply's Done.
func (f *fakeConn) endExchange(ex int64) {
	f.push(wire.Frame{Kind: wire.KindNote, Note: wire.NoteExchangeEnd, Exchange: ex})
	f.mu.Lock()
	done := f.dones[ex]
	delete(f.dones, ex)
	f.mu.Unlock()
	if done != nil {
		close(done)
	}
}

// next returns the next payload the session sent.
func (f *fakeConn) next(t *testing.T) sentMsg {
	t.Helper()
	select {
	case m := <-f.sent:
		return m
	case <-time.After(5 * time.Second):
		t.Fatal("the session sent nothing")
		return sentMsg{}
	}
}

// none checks that nothing more is sent within d.
func (f *fakeConn) none(t *testing.T, d time.Duration) {
	t.Helper()
	select {
	case m := <-f.sent:
		t.Fatalf("unexpected send: %s", m.payload)
	case <-time.After(d):
	}
}

func newSession(t *testing.T, fc *fakeConn, rev catalog.Revision) *Session {
	t.Helper()
	s := New(fc, Options{Revision: rev, Timeout: 5 * time.Second})
	t.Cleanup(func() { _ = s.Close() })
	return s
}

type callResult struct {
	resp *Response
	err  error
}

func callAsync(s *Session, method string, params any, o *CallOptions) <-chan callResult {
	ch := make(chan callResult, 1)
	go func() {
		resp, err := s.Call(context.Background(), method, params, o)
		ch <- callResult{resp, err}
	}()
	return ch
}

func wait(t *testing.T, ch <-chan callResult) callResult {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(5 * time.Second):
		t.Fatal("call did not return")
		return callResult{}
	}
}

// waitRegistered waits until the session tracks HTTP exchange ex for a call
// (CallRaw registers it right after Send returns).
func waitRegistered(t *testing.T, s *Session, ex int64) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		s.mu.Lock()
		_, ok := s.byExch[ex]
		s.mu.Unlock()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("exchange %d never registered", ex)
		}
		time.Sleep(time.Millisecond)
	}
}

func idPtr(id jsonrpc.ID) *jsonrpc.ID { return &id }

func resultString(t *testing.T, r *Response, key string) string {
	t.Helper()
	var m map[string]string
	if err := r.Result(&m); err != nil {
		t.Fatalf("result of %s: %v", r.Describe(), err)
	}
	return m[key]
}

const legacyRev = catalog.R20250618

// ---------------------------------------------------------------------------
// Correlation.

func TestOutOfOrderResponsesMatchByID(t *testing.T) {
	fc := newFake(wire.Stdio)
	s := newSession(t, fc, legacyRev)
	methods := []string{"a/one", "b/two", "c/three"}
	chans := map[string]<-chan callResult{}
	for _, m := range methods {
		chans[m] = callAsync(s, m, map[string]any{}, nil)
	}
	var reqs []sentMsg
	for range methods {
		reqs = append(reqs, fc.next(t))
	}
	for i := len(reqs) - 1; i >= 0; i-- {
		m := reqs[i].msg
		fc.pushMsg(string(jsonrpc.Response(m.ID, map[string]string{"method": m.Method})))
	}
	seen := map[string]bool{}
	for _, m := range methods {
		r := wait(t, chans[m])
		if r.err != nil {
			t.Fatalf("%s: %v", m, r.err)
		}
		if got := resultString(t, r.resp, "method"); got != m {
			t.Errorf("call %s got the response for %s", m, got)
		}
		if r.resp.Msg.ID.Key() != r.resp.ID.Key() || r.resp.IDTypeMismatch {
			t.Errorf("call %s: sent id %s, response id %s, mismatch %v", m, r.resp.ID, r.resp.Msg.ID, r.resp.IDTypeMismatch)
		}
		if !r.resp.ID.IsInteger() || seen[r.resp.ID.Key()] {
			t.Errorf("call %s: id %s not a fresh integer", m, r.resp.ID)
		}
		seen[r.resp.ID.Key()] = true
		if r.resp.Reply != nil || r.resp.Exchange != nil || r.resp.Status() != 0 {
			t.Errorf("stdio response carries HTTP data: %+v", r.resp)
		}
	}
	if evs := s.Events(0); len(evs) != 0 {
		t.Errorf("matched responses became events: %+v", evs)
	}
}

func TestIntAndStringIDInFlightTogether(t *testing.T) {
	for _, order := range []string{"string first", "int first"} {
		t.Run(order, func(t *testing.T) {
			fc := newFake(wire.Stdio)
			s := newSession(t, fc, legacyRev)
			chInt := callAsync(s, "m/int", nil, &CallOptions{ID: idPtr(jsonrpc.IntID(1))})
			chStr := callAsync(s, "m/str", nil, &CallOptions{ID: idPtr(jsonrpc.StringID("1"))})
			byMethod := map[string]*jsonrpc.Message{}
			for i := 0; i < 2; i++ {
				m := fc.next(t).msg
				byMethod[m.Method] = m
			}
			if !byMethod["m/int"].ID.IsInteger() || !byMethod["m/str"].ID.IsString() {
				t.Fatalf("ids sent: %s and %s", byMethod["m/int"].ID, byMethod["m/str"].ID)
			}
			answers := []string{
				`{"jsonrpc":"2.0","id":"1","result":{"which":"string"}}`,
				`{"jsonrpc":"2.0","id":1,"result":{"which":"int"}}`,
			}
			if order == "int first" {
				answers[0], answers[1] = answers[1], answers[0]
			}
			for _, a := range answers {
				fc.pushMsg(a)
			}
			ri, rs := wait(t, chInt), wait(t, chStr)
			if ri.err != nil || rs.err != nil {
				t.Fatalf("errors: %v / %v", ri.err, rs.err)
			}
			if got := resultString(t, ri.resp, "which"); got != "int" || ri.resp.IDTypeMismatch {
				t.Errorf("int call got %q (mismatch %v)", got, ri.resp.IDTypeMismatch)
			}
			if got := resultString(t, rs.resp, "which"); got != "string" || rs.resp.IDTypeMismatch {
				t.Errorf("string call got %q (mismatch %v)", got, rs.resp.IDTypeMismatch)
			}
			if evs := s.Events(0); len(evs) != 0 {
				t.Errorf("events: %+v", evs)
			}
		})
	}
}

func TestIDTypeMismatch(t *testing.T) {
	cases := []struct {
		name   string
		sent   jsonrpc.ID
		answer string
	}{
		{"int answered as string", jsonrpc.IntID(7), `"7"`},
		{"string answered as int", jsonrpc.StringID("7"), `7`},
		{"unicode string answered escaped", jsonrpc.StringID("é"), `"\u00e9"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fc := newFake(wire.Stdio)
			s := newSession(t, fc, legacyRev)
			ch := callAsync(s, "x", nil, &CallOptions{ID: idPtr(tc.sent)})
			req := fc.next(t).msg
			if req.ID.Key() != tc.sent.Key() {
				t.Fatalf("sent id %s, want %s", req.ID, tc.sent)
			}
			fc.pushMsg(`{"jsonrpc":"2.0","id":` + tc.answer + `,"result":{}}`)
			r := wait(t, ch)
			if r.err != nil {
				t.Fatal(r.err)
			}
			wantMismatch := tc.name != "unicode string answered escaped"
			if r.resp.IDTypeMismatch != wantMismatch {
				t.Errorf("IDTypeMismatch = %v, want %v", r.resp.IDTypeMismatch, wantMismatch)
			}
			if r.resp.ID.Key() != tc.sent.Key() {
				t.Errorf("Response.ID = %s, want the sent id %s", r.resp.ID, tc.sent)
			}
			if got := r.resp.Msg.ID.Key(); got != jsonrpc.RawID(json.RawMessage(tc.answer)).Key() {
				t.Errorf("Msg.ID = %s, want the id as answered %s", got, tc.answer)
			}
			if evs := s.Events(0); len(evs) != 0 {
				t.Errorf("events: %+v", evs)
			}
		})
	}
	t.Run("null does not loosely match the string null", func(t *testing.T) {
		fc := newFake(wire.Stdio)
		s := newSession(t, fc, legacyRev)
		ch := callAsync(s, "x", nil, &CallOptions{ID: idPtr(jsonrpc.StringID("null")), Timeout: 100 * time.Millisecond})
		fc.next(t)
		fc.pushMsg(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse"}}`)
		r := wait(t, ch)
		if !errors.Is(r.err, wire.ErrTimeout) {
			t.Errorf("err = %v, want a timeout", r.err)
		}
		if r.resp == nil || r.resp.Msg != nil {
			t.Errorf("resp = %+v", r.resp)
		}
		evs := s.Events(0)
		if len(evs) != 1 || !evs[0].Unsolicited || !evs[0].Msg.ID.IsNull() {
			t.Errorf("events = %+v", evs)
		}
	})
}

// A response that comes after its call timed out is a late answer, told
// apart from an unsolicited one, once.
func TestLateAnswerToATimedOutCall(t *testing.T) {
	fc := newFake(wire.Stdio)
	s := newSession(t, fc, legacyRev)
	ch := callAsync(s, "slow", nil, &CallOptions{ID: idPtr(jsonrpc.IntID(34)), Timeout: 50 * time.Millisecond})
	fc.next(t)
	if r := wait(t, ch); !errors.Is(r.err, wire.ErrTimeout) {
		t.Fatalf("err = %v, want a timeout", r.err)
	}
	fc.pushMsg(`{"jsonrpc":"2.0","id":34,"result":{}}`)
	fc.pushMsg(`{"jsonrpc":"2.0","id":34,"result":{}}`)
	fc.pushMsg(`{"jsonrpc":"2.0","id":35,"result":{}}`)
	deadline := time.Now().Add(2 * time.Second)
	for len(s.Events(0)) < 3 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	evs := s.Events(0)
	if len(evs) != 3 {
		t.Fatalf("events = %+v", evs)
	}
	if !evs[0].Unsolicited || !evs[0].Late {
		t.Errorf("the late answer: %+v", evs[0])
	}
	if !evs[1].Unsolicited || evs[1].Late || !evs[2].Unsolicited || evs[2].Late {
		t.Errorf("a second answer, or one to an id never sent, is not late: %+v", evs[1:])
	}
}

func TestDuplicateIDInFlightRejected(t *testing.T) {
	fc := newFake(wire.Stdio)
	s := newSession(t, fc, legacyRev)
	ch := callAsync(s, "x", nil, &CallOptions{ID: idPtr(jsonrpc.IntID(5))})
	fc.next(t)
	_, err := s.Call(context.Background(), "y", nil, &CallOptions{ID: idPtr(jsonrpc.IntID(5))})
	if err == nil {
		t.Fatal("a second call with an id in flight was accepted")
	}
	fc.pushMsg(`{"jsonrpc":"2.0","id":5,"result":{}}`)
	if r := wait(t, ch); r.err != nil {
		t.Fatal(r.err)
	}
}

// ---------------------------------------------------------------------------
// Events.

func TestUnsolicitedResponseBecomesEvent(t *testing.T) {
	fc := newFake(wire.Stdio)
	s := newSession(t, fc, legacyRev)
	f := fc.pushMsg(`{"jsonrpc":"2.0","id":99,"result":{}}`)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ev, ok := s.WaitEvent(ctx, 0, func(e Event) bool { return true })
	if !ok {
		t.Fatal("no event")
	}
	if !ev.Unsolicited || ev.Msg == nil || ev.Msg.ID.Key() != "99" || ev.DecodeErr != nil || ev.Frame.Seq != f.Seq {
		t.Errorf("event = %+v", ev)
	}

	// A response arriving after its call timed out is unsolicited too.
	r, err := s.Call(context.Background(), "slow", nil, &CallOptions{ID: idPtr(jsonrpc.StringID("late")), Timeout: 30 * time.Millisecond})
	if !errors.Is(err, wire.ErrTimeout) {
		t.Fatalf("err = %v, want timeout", err)
	}
	if r == nil || r.Msg != nil || r.ID.Key() != `"late"` {
		t.Fatalf("resp = %+v", r)
	}
	fc.next(t)
	late := fc.pushMsg(`{"jsonrpc":"2.0","id":"late","result":{}}`)
	ev, ok = s.WaitEvent(ctx, f.Seq, func(e Event) bool { return true })
	if !ok || !ev.Unsolicited || ev.Frame.Seq != late.Seq {
		t.Errorf("late response event = %+v, %v", ev, ok)
	}
}

func TestNonJSONFrameBecomesEventWithDecodeErr(t *testing.T) {
	fc := newFake(wire.Stdio)
	s := newSession(t, fc, legacyRev)
	raws := []string{"this is not json", "", `[{"jsonrpc":"2.0","id":1,"result":{}}]`, `{"jsonrpc":`}
	var last int64
	for _, raw := range raws {
		last = fc.pushMsg(raw).Seq
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, ok := s.WaitEvent(ctx, last-1, func(Event) bool { return true }); !ok {
		t.Fatal("events not delivered")
	}
	evs := s.Events(0)
	if len(evs) != len(raws) {
		t.Fatalf("%d events, want %d", len(evs), len(raws))
	}
	for i, ev := range evs {
		if ev.DecodeErr == nil || ev.Msg != nil || ev.Unsolicited || string(ev.Frame.Raw) != raws[i] {
			t.Errorf("event %d = %+v", i, ev)
		}
	}
	if !errors.Is(evs[2].DecodeErr, jsonrpc.ErrNotObject) {
		t.Errorf("array: DecodeErr = %v, want ErrNotObject", evs[2].DecodeErr)
	}
	// Events(after) filters by Seq.
	if got := s.Events(evs[1].Frame.Seq); len(got) != 2 || got[0].Frame.Seq != evs[2].Frame.Seq {
		t.Errorf("Events(after) = %+v", got)
	}
}

func TestNotificationsAndServerRequestsBecomeEvents(t *testing.T) {
	t.Run("legacy answers server requests", func(t *testing.T) {
		fc := newFake(wire.Stdio)
		s := newSession(t, fc, legacyRev)
		fc.pushMsg(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hi"}}`)
		fc.pushMsg(`{"jsonrpc":"2.0","id":"srv-1","method":"ping"}`)
		fc.pushMsg(`{"jsonrpc":"2.0","id":42,"method":"sampling/createMessage","params":{}}`)
		fc.pushMsg(`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`) // invalid id: not answered
		answers := map[string]*jsonrpc.Message{}
		for i := 0; i < 2; i++ {
			m := fc.next(t).msg
			answers[m.ID.Key()] = m
		}
		if a := answers[`"srv-1"`]; a == nil || !a.HasResult || a.IsError() {
			t.Errorf("ping answer = %+v", a)
		}
		if a := answers[`42`]; a == nil {
			t.Error("sampling request not answered")
		} else if code, ok := a.ErrorCode(); !ok || code != jsonrpc.CodeMethodNotFound {
			t.Errorf("sampling answer code %d %v", code, ok)
		}
		fc.none(t, 30*time.Millisecond)
		evs := s.Events(0)
		if len(evs) != 4 {
			t.Fatalf("%d events, want 4", len(evs))
		}
		kinds := []jsonrpc.Kind{jsonrpc.KindNotification, jsonrpc.KindRequest, jsonrpc.KindRequest, jsonrpc.KindRequest}
		for i, ev := range evs {
			if ev.Msg == nil || ev.Msg.Kind() != kinds[i] || ev.Unsolicited || ev.DecodeErr != nil {
				t.Errorf("event %d = %+v", i, ev)
			}
		}
	})
	t.Run("modern does not answer", func(t *testing.T) {
		fc := newFake(wire.Stdio)
		s := newSession(t, fc, catalog.Modern)
		f := fc.pushMsg(`{"jsonrpc":"2.0","id":"srv-1","method":"ping"}`)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if ev, ok := s.WaitEvent(ctx, 0, func(e Event) bool { return e.Frame.Seq == f.Seq }); !ok || ev.Msg.Kind() != jsonrpc.KindRequest {
			t.Fatalf("event = %+v, %v", ev, ok)
		}
		fc.none(t, 30*time.Millisecond)
	})
}

func TestWaitEvent(t *testing.T) {
	fc := newFake(wire.Stdio)
	s := newSession(t, fc, legacyRev)
	isProgress := func(e Event) bool { return e.Msg != nil && e.Msg.Method == "notifications/progress" }

	// Respects ctx when nothing matches.
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Millisecond)
	t0 := time.Now()
	if ev, ok := s.WaitEvent(ctx, 0, isProgress); ok {
		t.Fatalf("WaitEvent found %+v", ev)
	}
	cancel()
	if d := time.Since(t0); d > 2*time.Second {
		t.Errorf("WaitEvent ignored ctx for %v", d)
	}

	// Finds a matching event that arrives while waiting, skipping others.
	ctx, cancel = context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	got := make(chan Event, 1)
	go func() {
		ev, _ := s.WaitEvent(ctx, 0, isProgress)
		got <- ev
	}()
	fc.pushMsg(`{"jsonrpc":"2.0","method":"notifications/message","params":{}}`)
	first := fc.pushMsg(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}`)
	second := fc.pushMsg(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":2}}`)
	select {
	case ev := <-got:
		if ev.Frame.Seq != first.Seq {
			t.Errorf("WaitEvent returned seq %d, want %d", ev.Frame.Seq, first.Seq)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("WaitEvent did not return")
	}
	// after skips earlier events.
	if ev, ok := s.WaitEvent(ctx, first.Seq, isProgress); !ok || ev.Frame.Seq != second.Seq {
		t.Errorf("WaitEvent(after first) = %+v, %v", ev, ok)
	}

	// Returns false once the connection has closed.
	done := make(chan bool, 1)
	go func() {
		_, ok := s.WaitEvent(ctx, second.Seq, isProgress)
		done <- ok
	}()
	fc.Close()
	select {
	case ok := <-done:
		if ok {
			t.Error("WaitEvent found an event after close")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("WaitEvent blocked after the connection closed")
	}
	if closed, err := s.Closed(); !closed || !errors.Is(err, wire.ErrClosed) {
		t.Errorf("Closed() = %v, %v", closed, err)
	}
}

func TestClosedConnection(t *testing.T) {
	fc := newFake(wire.Stdio)
	s := newSession(t, fc, legacyRev)
	ch := callAsync(s, "x", nil, nil)
	fc.next(t)
	closedFrame := fc.push(wire.Frame{Kind: wire.KindClosed, Note: "server closed stdout"})
	fc.Close()
	r := wait(t, ch)
	if !errors.Is(r.err, wire.ErrClosed) {
		t.Errorf("in-flight call err = %v, want ErrClosed", r.err)
	}
	if r.resp == nil || r.resp.Msg != nil {
		t.Errorf("in-flight call resp = %+v", r.resp)
	}
	if _, err := s.Call(context.Background(), "y", nil, nil); !errors.Is(err, wire.ErrClosed) {
		t.Errorf("call after close err = %v, want ErrClosed", err)
	}
	// the in-flight call can end (the connection closed) before the
	// session's reader has handled the closed frame: wait for the event
	// (an event, not a clock: a loaded machine may take a while)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s.WaitEvent(ctx, 0, func(Event) bool { return true })
	evs := s.Events(0)
	if len(evs) != 1 || evs[0].Frame.Kind != wire.KindClosed || evs[0].Frame.Seq != closedFrame.Seq {
		t.Errorf("events = %+v", evs)
	}
}

// ---------------------------------------------------------------------------
// Calls.

func TestCallTimeout(t *testing.T) {
	fc := newFake(wire.Stdio)
	s := newSession(t, fc, legacyRev)
	t0 := time.Now()
	r, err := s.Call(context.Background(), "tools/list", map[string]any{}, &CallOptions{Timeout: 50 * time.Millisecond})
	d := time.Since(t0)
	if !errors.Is(err, wire.ErrTimeout) {
		t.Fatalf("err = %v, want ErrTimeout", err)
	}
	if d < 50*time.Millisecond || d > 3*time.Second {
		t.Errorf("Call returned after %v", d)
	}
	if r == nil || r.Msg != nil || r.IsResult() || r.IsError() || r.Describe() != "no JSON-RPC response" {
		t.Errorf("resp = %+v (%s)", r, r.Describe())
	}
	// The caller's ctx deadline applies too.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	if _, err := s.Call(ctx, "tools/list", nil, nil); !errors.Is(err, wire.ErrTimeout) {
		t.Errorf("ctx deadline: err = %v, want ErrTimeout", err)
	}
}

func TestResultAndErrorBoth(t *testing.T) {
	fc := newFake(wire.Stdio)
	s := newSession(t, fc, legacyRev)
	ch := callAsync(s, "x", nil, nil)
	req := fc.next(t).msg
	fc.pushMsg(`{"jsonrpc":"2.0","id":` + req.ID.String() + `,"result":{"v":"r"},"error":{"code":-32603,"message":"both"}}`)
	r := wait(t, ch)
	if r.err != nil {
		t.Fatal(r.err)
	}
	if !r.resp.IsResult() || r.resp.IsError() {
		t.Errorf("IsResult %v IsError %v", r.resp.IsResult(), r.resp.IsError())
	}
	if _, ok := r.resp.ErrorCode(); ok {
		t.Error("ErrorCode ok")
	}
	if resultString(t, r.resp, "v") != "r" {
		t.Error("result not readable")
	}

	// A plain error response.
	ch = callAsync(s, "y", nil, nil)
	req = fc.next(t).msg
	fc.pushMsg(string(jsonrpc.ErrorResponse(req.ID, jsonrpc.CodeInvalidParams, "bad")))
	r = wait(t, ch)
	if r.err != nil {
		t.Fatal(r.err)
	}
	if r.resp.IsResult() || !r.resp.IsError() {
		t.Errorf("error response: IsResult %v IsError %v", r.resp.IsResult(), r.resp.IsError())
	}
	if code, ok := r.resp.ErrorCode(); !ok || code != jsonrpc.CodeInvalidParams {
		t.Errorf("ErrorCode = %d, %v", code, ok)
	}
	if r.resp.Result(&struct{}{}) == nil {
		t.Error("Result of an error response succeeded")
	}
}

func paramsOf(t *testing.T, m sentMsg) map[string]json.RawMessage {
	t.Helper()
	if m.msg == nil {
		t.Fatalf("sent non-JSON %q", m.payload)
	}
	if !m.msg.HasParams {
		return nil
	}
	var p map[string]json.RawMessage
	if err := json.Unmarshal(m.msg.Params, &p); err != nil {
		t.Fatalf("params %s: %v", m.msg.Params, err)
	}
	return p
}

func metaOf(t *testing.T, p map[string]json.RawMessage) map[string]any {
	t.Helper()
	var meta map[string]any
	if err := json.Unmarshal(p["_meta"], &meta); err != nil {
		t.Fatalf("_meta %s: %v", p["_meta"], err)
	}
	return meta
}

func TestModernMeta(t *testing.T) {
	fc := newFake(wire.Stdio)
	s := newSession(t, fc, catalog.Modern)
	if !s.Modern() || s.Revision() != catalog.Modern {
		t.Fatalf("Modern %v Revision %s", s.Modern(), s.Revision())
	}
	// Every request in this test is answered with an empty result.
	answer := func() sentMsg {
		m := fc.next(t)
		fc.pushMsg(string(jsonrpc.Response(m.msg.ID, struct{}{})))
		return m
	}
	wantMeta := map[string]any{
		MetaProtocolVersion:    "2026-07-28",
		MetaClientCapabilities: map[string]any{},
		MetaClientInfo:         map[string]any{"name": ClientName, "version": ClientVersion},
	}

	t.Run("merged into caller params", func(t *testing.T) {
		ch := callAsync(s, "tools/call", map[string]any{
			"name":      "echo",
			"arguments": map[string]any{"text": "hi"},
			"_meta":     map[string]any{"progressToken": "tok-1"},
		}, nil)
		m := answer()
		if r := wait(t, ch); r.err != nil {
			t.Fatal(r.err)
		}
		p := paramsOf(t, m)
		if string(p["name"]) != `"echo"` || string(p["arguments"]) != `{"text":"hi"}` {
			t.Errorf("caller params lost: %s", m.msg.Params)
		}
		meta := metaOf(t, p)
		for k, v := range wantMeta {
			if !reflect.DeepEqual(meta[k], v) {
				t.Errorf("_meta[%s] = %#v, want %#v", k, meta[k], v)
			}
		}
		if meta["progressToken"] != "tok-1" {
			t.Errorf("caller _meta lost: %v", meta)
		}
		if len(m.opts.Header) != 0 {
			t.Errorf("stdio call carries headers %v", m.opts.Header)
		}
	})
	t.Run("struct params", func(t *testing.T) {
		type args struct {
			URI string `json:"uri"`
		}
		ch := callAsync(s, "resources/read", args{URI: "file:///x"}, nil)
		m := answer()
		if r := wait(t, ch); r.err != nil {
			t.Fatal(r.err)
		}
		p := paramsOf(t, m)
		if string(p["uri"]) != `"file:///x"` || len(metaOf(t, p)) != 3 {
			t.Errorf("params %s", m.msg.Params)
		}
	})
	t.Run("nil params get only _meta", func(t *testing.T) {
		ch := callAsync(s, "server/discover", nil, nil)
		m := answer()
		if r := wait(t, ch); r.err != nil {
			t.Fatal(r.err)
		}
		p := paramsOf(t, m)
		if len(p) != 1 || !reflect.DeepEqual(metaOf(t, p), wantMeta) {
			t.Errorf("params %s", m.msg.Params)
		}
	})
	t.Run("Meta replaces the session meta", func(t *testing.T) {
		ch := callAsync(s, "tools/list", map[string]any{"cursor": "c"}, &CallOptions{Meta: map[string]any{MetaProtocolVersion: "1999-01-01"}})
		m := answer()
		if r := wait(t, ch); r.err != nil {
			t.Fatal(r.err)
		}
		p := paramsOf(t, m)
		meta := metaOf(t, p)
		if len(meta) != 1 || meta[MetaProtocolVersion] != "1999-01-01" || string(p["cursor"]) != `"c"` {
			t.Errorf("params %s", m.msg.Params)
		}
	})
	t.Run("NoMeta sends params untouched", func(t *testing.T) {
		ch := callAsync(s, "tools/list", map[string]any{"cursor": "c"}, &CallOptions{NoMeta: true})
		m := answer()
		if r := wait(t, ch); r.err != nil {
			t.Fatal(r.err)
		}
		if string(m.msg.Params) != `{"cursor":"c"}` {
			t.Errorf("params %s", m.msg.Params)
		}
		ch = callAsync(s, "tools/list", nil, &CallOptions{NoMeta: true})
		m = answer()
		if r := wait(t, ch); r.err != nil {
			t.Fatal(r.err)
		}
		if m.msg.HasParams {
			t.Errorf("NoMeta with nil params sent params %s", m.msg.Params)
		}
	})
	t.Run("non-object params are refused", func(t *testing.T) {
		if _, err := s.Call(context.Background(), "x", []int{1}, nil); err == nil {
			t.Error("array params accepted for _meta")
		}
	})
	t.Run("legacy adds no meta", func(t *testing.T) {
		fc := newFake(wire.Stdio)
		ls := newSession(t, fc, legacyRev)
		ch := callAsync(ls, "tools/list", map[string]any{"cursor": "c"}, nil)
		m := fc.next(t)
		fc.pushMsg(string(jsonrpc.Response(m.msg.ID, struct{}{})))
		if r := wait(t, ch); r.err != nil {
			t.Fatal(r.err)
		}
		if string(m.msg.Params) != `{"cursor":"c"}` {
			t.Errorf("legacy params %s", m.msg.Params)
		}
	})
}

func TestModernHTTPHeaders(t *testing.T) {
	fc := newFake(wire.HTTP)
	s := newSession(t, fc, catalog.Modern)
	ch := callAsync(s, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{}}, &CallOptions{
		Header: http.Header{"X-Extra": {"1"}},
		Remove: []string{"Accept"},
	})
	m := fc.next(t)
	waitRegistered(t, s, m.reply.Exchange)
	fc.pushExch(m.reply.Exchange, string(jsonrpc.Response(m.msg.ID, struct{}{})))
	fc.endExchange(m.reply.Exchange)
	if r := wait(t, ch); r.err != nil {
		t.Fatal(r.err)
	}
	h := m.opts.Header
	if h.Get(HeaderProtocolVersion) != "2026-07-28" || h.Get(HeaderMethod) != streamhttp.EncodeHeaderValue("tools/call") ||
		h.Get(HeaderName) != streamhttp.EncodeHeaderValue("echo") || h.Get("X-Extra") != "1" {
		t.Errorf("headers %v", h)
	}
	if !reflect.DeepEqual(m.opts.Remove, []string{"Accept"}) {
		t.Errorf("Remove %v", m.opts.Remove)
	}
	if h.Get(HeaderSessionID) != "" {
		t.Errorf("modern request carries a session id: %v", h)
	}

	// A caller header (canonical key, as http.Header.Set makes it)
	// replaces the session's value instead of being added to it.
	over := http.Header{}
	over.Set(HeaderProtocolVersion, "1900-01-01")
	ch = callAsync(s, "server/discover", nil, &CallOptions{Header: over})
	m = fc.next(t)
	waitRegistered(t, s, m.reply.Exchange)
	fc.pushExch(m.reply.Exchange, string(jsonrpc.Response(m.msg.ID, struct{}{})))
	fc.endExchange(m.reply.Exchange)
	if r := wait(t, ch); r.err != nil {
		t.Fatal(r.err)
	}
	if got := m.opts.Header.Values(HeaderProtocolVersion); len(got) != 1 || got[0] != "1900-01-01" {
		t.Errorf("overridden %s = %q", HeaderProtocolVersion, got)
	}
	n := 0
	for k := range m.opts.Header {
		if http.CanonicalHeaderKey(k) == http.CanonicalHeaderKey(HeaderProtocolVersion) {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d spellings of %s in %v", n, HeaderProtocolVersion, m.opts.Header)
	}
	if _, ok := m.opts.Header[http.CanonicalHeaderKey(HeaderName)]; ok {
		t.Errorf("server/discover carries %s", HeaderName)
	}
}

// ---------------------------------------------------------------------------
// HTTP exchanges.

func TestHTTPExchangeWithoutResponse(t *testing.T) {
	fc := newFake(wire.HTTP)
	s := newSession(t, fc, legacyRev)
	ch := callAsync(s, "tools/list", map[string]any{}, nil)
	m := fc.next(t)
	if m.reply == nil || m.reply.Exchange == 0 {
		t.Fatalf("fake reply %+v", m.reply)
	}
	ex := m.reply.Exchange
	waitRegistered(t, s, ex)
	body := fc.push(wire.Frame{Kind: wire.KindBody, Raw: []byte("Bad Request: nope"), Exchange: ex,
		HTTP: &wire.HTTPInfo{Status: 400, Header: http.Header{"Content-Type": {"text/plain"}}}})
	fc.endExchange(ex)
	t0 := time.Now()
	r := wait(t, ch)
	if !errors.Is(r.err, ErrNoResponse) {
		t.Fatalf("err = %v, want ErrNoResponse", r.err)
	}
	if d := time.Since(t0); d > 2*time.Second {
		t.Errorf("Call returned after %v: did it wait for the timeout?", d)
	}
	if r.resp == nil || r.resp.Reply != m.reply || r.resp.Msg != nil || r.resp.Status() != http.StatusOK {
		t.Fatalf("resp = %+v", r.resp)
	}
	if len(r.resp.Exchange) == 0 || r.resp.Exchange[0].Seq != body.Seq || r.resp.Exchange[0].Kind != wire.KindBody {
		t.Errorf("Exchange = %+v", r.resp.Exchange)
	}
	for _, f := range r.resp.Exchange {
		if f.Exchange != ex {
			t.Errorf("frame of exchange %d in exchange %d", f.Exchange, ex)
		}
	}
	// The body is also an event, for checks that look at every reply.
	evs := s.Events(0)
	if len(evs) != 1 || evs[0].Frame.Seq != body.Seq {
		t.Errorf("events %+v", evs)
	}
	s.mu.Lock()
	left := len(s.byExch)
	s.mu.Unlock()
	if left != 0 {
		t.Errorf("%d exchanges still tracked", left)
	}
}

func TestHTTPExchangeWithResponse(t *testing.T) {
	fc := newFake(wire.HTTP)
	s := newSession(t, fc, legacyRev)
	ch := callAsync(s, "tools/list", map[string]any{}, nil)
	m := fc.next(t)
	ex := m.reply.Exchange
	waitRegistered(t, s, ex)
	note := fc.pushExch(ex, `{"jsonrpc":"2.0","method":"notifications/message","params":{}}`)
	resp := fc.pushExch(ex, string(jsonrpc.Response(m.msg.ID, map[string]any{"tools": []any{}})))
	r := wait(t, ch)
	fc.endExchange(ex)
	if r.err != nil {
		t.Fatal(r.err)
	}
	if r.resp.Reply != m.reply || r.resp.Frame.Seq != resp.Seq || !r.resp.IsResult() {
		t.Errorf("resp = %+v", r.resp)
	}
	if len(r.resp.Exchange) != 2 || r.resp.Exchange[0].Seq != note.Seq || r.resp.Exchange[1].Seq != resp.Seq {
		t.Errorf("Exchange = %+v", r.resp.Exchange)
	}
	if evs := s.Events(0); len(evs) != 1 || evs[0].Frame.Seq != note.Seq {
		t.Errorf("events %+v", evs)
	}
}

// TestHTTPExchangeEndingBeforeSendReturns covers a reply whose body is read
// and delivered (exchange end included) before Send returned: streamhttp
// reads the body in a goroutine started before Send returns, so this can
// happen with a fast server.
func TestHTTPExchangeEndingBeforeSendReturns(t *testing.T) {
	fc := newFake(wire.HTTP)
	s := newSession(t, fc, legacyRev)
	fc.beforeReturn = func(reply *wire.Reply, _ *jsonrpc.Message) {
		fc.push(wire.Frame{Kind: wire.KindBody, Exchange: reply.Exchange, HTTP: &wire.HTTPInfo{Status: 202}})
		fc.endExchange(reply.Exchange)
		// Frames are handled in order: once this marker is an event, the
		// dispatcher has handled both frames above, before Send returns.
		marker := fc.pushMsg(`{"jsonrpc":"2.0","method":"test/marker"}`)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s.WaitEvent(ctx, 0, func(e Event) bool { return e.Frame.Seq == marker.Seq })
	}
	t0 := time.Now()
	r, err := s.Call(context.Background(), "x", nil, &CallOptions{Timeout: 2 * time.Second})
	if !errors.Is(err, ErrNoResponse) {
		t.Errorf("err = %v after %v, want ErrNoResponse", err, time.Since(t0))
	}
	if r == nil || len(r.Exchange) == 0 {
		t.Errorf("exchange frames lost: %+v", r)
	}
}

// ---------------------------------------------------------------------------
// Legacy handshake.

func TestLegacyInitializeOverHTTP(t *testing.T) {
	cases := []struct {
		negotiated    catalog.Revision
		versionHeader string
	}{
		{catalog.R20250618, "2025-06-18"},
		{catalog.R20251125, "2025-11-25"},
		{catalog.R20250326, ""}, // MCP-Protocol-Version exists from 2025-06-18 on
	}
	for _, tc := range cases {
		t.Run(string(tc.negotiated), func(t *testing.T) {
			fc := newFake(wire.HTTP)
			fc.replyHeader = func(payload []byte) http.Header {
				h := http.Header{"Content-Type": {"application/json"}}
				if m, _ := jsonrpc.Decode(payload); m != nil && m.Method == "initialize" {
					h.Set(HeaderSessionID, "sess-abc")
				}
				return h
			}
			s := newSession(t, fc, catalog.R20251125)
			if s.Modern() {
				t.Fatal("legacy session reports Modern")
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()

			type initOut struct {
				resp *Response
				err  error
			}
			initCh := make(chan initOut, 1)
			go func() {
				r, err := s.Initialize(ctx, "2025-11-25")
				initCh <- initOut{r, err}
			}()
			m := fc.next(t)
			if m.msg.Method != "initialize" {
				t.Fatalf("first message %s", m.payload)
			}
			p := paramsOf(t, m)
			if string(p["protocolVersion"]) != `"2025-11-25"` || p["capabilities"] == nil || p["clientInfo"] == nil || p["_meta"] != nil {
				t.Errorf("initialize params %s", m.msg.Params)
			}
			if m.opts.Header.Get(HeaderSessionID) != "" || m.opts.Header.Get(HeaderProtocolVersion) != "" {
				t.Errorf("initialize carries session headers %v", m.opts.Header)
			}
			waitRegistered(t, s, m.reply.Exchange)
			fc.pushExch(m.reply.Exchange, string(jsonrpc.Response(m.msg.ID, map[string]any{
				"protocolVersion": string(tc.negotiated),
				"capabilities":    map[string]any{"tools": map[string]any{}},
				"serverInfo":      map[string]any{"name": "fake", "version": "1"},
			})))
			fc.endExchange(m.reply.Exchange)
			out := <-initCh
			if out.err != nil {
				t.Fatalf("Initialize: %v", out.err)
			}
			if s.Revision() != tc.negotiated || s.SessionID() != "sess-abc" {
				t.Errorf("Revision %q SessionID %q", s.Revision(), s.SessionID())
			}
			if _, ok := s.Capabilities()["tools"]; !ok {
				t.Errorf("Capabilities %v", s.Capabilities())
			}
			if string(s.ServerInfo()) != `{"name":"fake","version":"1"}` {
				t.Errorf("ServerInfo %s", s.ServerInfo())
			}

			checkHeaders := func(what string, h http.Header) {
				t.Helper()
				if h.Get(HeaderSessionID) != "sess-abc" {
					t.Errorf("%s: Mcp-Session-Id = %q", what, h.Get(HeaderSessionID))
				}
				if h.Get(HeaderProtocolVersion) != tc.versionHeader {
					t.Errorf("%s: MCP-Protocol-Version = %q, want %q", what, h.Get(HeaderProtocolVersion), tc.versionHeader)
				}
			}

			// notifications/initialized carries the headers.
			notified := make(chan error, 1)
			go func() {
				_, err := s.Initialized(ctx)
				notified <- err
			}()
			n := fc.next(t)
			if n.msg.Method != "notifications/initialized" || n.msg.HasID {
				t.Errorf("second message %s", n.payload)
			}
			checkHeaders("initialized", n.opts.Header)
			fc.endExchange(n.reply.Exchange)
			if err := <-notified; err != nil {
				t.Fatalf("Initialized: %v", err)
			}

			// So does every later request.
			ch := callAsync(s, "tools/list", map[string]any{}, nil)
			m = fc.next(t)
			checkHeaders("tools/list", m.opts.Header)
			if m.msg.HasParams && paramsOf(t, m)["_meta"] != nil {
				t.Errorf("legacy request carries _meta: %s", m.msg.Params)
			}
			waitRegistered(t, s, m.reply.Exchange)
			fc.pushExch(m.reply.Exchange, string(jsonrpc.Response(m.msg.ID, map[string]any{"tools": []any{}})))
			fc.endExchange(m.reply.Exchange)
			if r := wait(t, ch); r.err != nil {
				t.Fatal(r.err)
			}

			// And the answer to a server request.
			fc.pushMsg(`{"jsonrpc":"2.0","id":"srv","method":"ping"}`)
			a := fc.next(t)
			if a.msg.ID.Key() != `"srv"` || !a.msg.HasResult {
				t.Errorf("ping answer %s", a.payload)
			}
			checkHeaders("ping answer", a.opts.Header)
			fc.endExchange(a.reply.Exchange)
		})
	}
}

func TestLegacyInitializeOverStdio(t *testing.T) {
	fc := newFake(wire.Stdio)
	s := newSession(t, fc, catalog.R20251125)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	errCh := make(chan error, 1)
	go func() { errCh <- s.OpenLegacy(ctx) }()
	m := fc.next(t)
	fc.pushMsg(string(jsonrpc.Response(m.msg.ID, map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "serverInfo": map[string]any{"name": "f", "version": "1"}})))
	n := fc.next(t)
	if n.msg.Method != "notifications/initialized" {
		t.Errorf("second message %s", n.payload)
	}
	if err := <-errCh; err != nil {
		t.Fatalf("OpenLegacy: %v", err)
	}
	if s.Revision() != catalog.R20250618 || s.SessionID() != "" || len(n.opts.Header) != 0 {
		t.Errorf("Revision %q SessionID %q headers %v", s.Revision(), s.SessionID(), n.opts.Header)
	}
}

func TestLegacyInitializeFailures(t *testing.T) {
	t.Run("unknown version", func(t *testing.T) {
		fc := newFake(wire.Stdio)
		s := newSession(t, fc, catalog.R20251125)
		errCh := make(chan error, 1)
		go func() { errCh <- s.OpenLegacy(context.Background()) }()
		m := fc.next(t)
		fc.pushMsg(string(jsonrpc.Response(m.msg.ID, map[string]any{"protocolVersion": "1999-01-01"})))
		if err := <-errCh; err == nil {
			t.Error("OpenLegacy accepted an unknown version")
		}
		fc.none(t, 20*time.Millisecond) // no notifications/initialized
	})
	t.Run("error response", func(t *testing.T) {
		fc := newFake(wire.Stdio)
		s := newSession(t, fc, catalog.R20251125)
		type out struct {
			r   *Response
			err error
		}
		ch := make(chan out, 1)
		go func() {
			r, err := s.Initialize(context.Background(), "2025-11-25")
			ch <- out{r, err}
		}()
		m := fc.next(t)
		fc.pushMsg(string(jsonrpc.ErrorResponse(m.msg.ID, jsonrpc.CodeInvalidParams, "unsupported")))
		o := <-ch
		if o.err == nil || o.r == nil || !o.r.IsError() {
			t.Errorf("Initialize = %+v, %v", o.r, o.err)
		}
		if s.Revision() != catalog.R20251125 {
			t.Errorf("Revision changed to %q", s.Revision())
		}
	})
}
