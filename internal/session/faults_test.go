package session

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/internal/jsonrpc"
	"github.com/mcpconform/mcpconform/internal/wire"
)

// recConn is a stdio fakeConn whose traffic goes through a Recorder, as a
// real connection's does.
type recConn struct {
	*fakeConn
	rec *wire.Recorder
}

func (c *recConn) Send(ctx context.Context, payload []byte, opts *wire.SendOptions) (*wire.Reply, error) {
	c.rec.Record(wire.Frame{Conn: c.Name(), Dir: wire.Out, Kind: wire.KindMessage, Raw: payload})
	return c.fakeConn.Send(ctx, payload, opts)
}

func (c *recConn) answer(raw string) {
	f := c.rec.Record(wire.Frame{Conn: c.Name(), Dir: wire.In, Kind: wire.KindMessage, Raw: []byte(raw)})
	c.push(f)
}

func newRecSession(t *testing.T) (*recConn, *Session, *Faults) {
	t.Helper()
	rc := &recConn{fakeConn: newFake(wire.Stdio), rec: wire.NewRecorder(wire.NewRedactor())}
	faults := &Faults{}
	s := New(rc, Options{Revision: legacyRev, Timeout: 5 * time.Second, Recorder: rc.rec, Faults: faults})
	t.Cleanup(func() { _ = s.Close() })
	return rc, s, faults
}

// An error with "id": null to the only request in flight, with nothing
// else written since the server's previous message, answers that request:
// the call returns at once (no timeout) and the fault is recorded.
func TestNullIDErrorAttributedToTheOnlyRequest(t *testing.T) {
	rc, s, faults := newRecSession(t)
	ch := callAsync(s, "tools/call", map[string]any{"name": "x"}, nil)
	rc.next(t)
	rc.answer(`{"jsonrpc":"2.0","id":null,"error":{"code":-32602,"message":"bad"}}`)
	r := wait(t, ch)
	if r.err != nil || r.resp == nil || !r.resp.NullID || !r.resp.Msg.ID.IsNull() {
		t.Fatalf("want the null-id error as the answer: %+v %v", r.resp, r.err)
	}
	kept, n := faults.For("RPC-002")
	if n != 1 || len(kept) != 1 || kept[0].Method != "tools/call" || kept[0].Request.Kind != wire.KindMessage {
		t.Fatalf("fault not recorded: %d %+v", n, kept)
	}
}

// With something else written before the request (an invalid message the
// null id may be for), or two requests in flight, the error stays an
// unsolicited event and no fault is recorded.
func TestNullIDErrorNotAttributedWhenAmbiguous(t *testing.T) {
	t.Run("raw message before", func(t *testing.T) {
		rc, s, faults := newRecSession(t)
		if _, err := s.SendRaw(context.Background(), []byte(`{bad json`), nil); err != nil {
			t.Fatal(err)
		}
		rc.next(t)
		ch := callAsync(s, "ping", nil, &CallOptions{Timeout: 200 * time.Millisecond})
		rc.next(t)
		rc.answer(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`)
		if r := wait(t, ch); r.err == nil || (r.resp != nil && r.resp.NullID) {
			t.Fatalf("the parse error must not answer the ping: %+v %v", r.resp, r.err)
		}
		if _, n := faults.For("RPC-002"); n != 0 {
			t.Fatalf("no fault expected, got %d", n)
		}
	})
	t.Run("blank lines around the request", func(t *testing.T) {
		rc, s, faults := newRecSession(t)
		ch := make(chan callResult, 1)
		go func() {
			resp, err := s.CallRaw(context.Background(), jsonrpc.IntID(5), []byte("\n\n{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\"}\n"), &wire.SendOptions{Raw: true}, 200*time.Millisecond)
			ch <- callResult{resp, err}
		}()
		rc.next(t)
		rc.answer(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`)
		if r := wait(t, ch); r.err == nil || (r.resp != nil && r.resp.NullID) {
			t.Fatalf("the blank line's parse error must not answer the request: %+v %v", r.resp, r.err)
		}
		if _, n := faults.For("RPC-002"); n != 0 {
			t.Fatalf("no fault expected, got %d", n)
		}
	})
	// the regression the kill matrix found: blank lines of an earlier
	// request, answered late with -32700 id null, after the next well-formed
	// request went out (nothing else was written in between)
	t.Run("late parse error for earlier blank lines", func(t *testing.T) {
		rc, s, faults := newRecSession(t)
		if _, err := s.SendRaw(context.Background(), []byte("\n"), &wire.SendOptions{Raw: true}); err != nil {
			t.Fatal(err)
		}
		rc.next(t)
		rc.answer(`{"jsonrpc":"2.0","id":"x","result":{}}`) // the server's last message
		ch := callAsync(s, "ping", nil, &CallOptions{Timeout: 200 * time.Millisecond})
		rc.next(t)
		rc.answer(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`)
		if r := wait(t, ch); r.err == nil || (r.resp != nil && r.resp.NullID) {
			t.Fatalf("the late parse error must not answer the ping: %+v %v", r.resp, r.err)
		}
		if _, n := faults.For("RPC-002"); n != 0 {
			t.Fatalf("no fault expected, got %d", n)
		}
		// a code only a parsed request can get is still attributed
		ch = callAsync(s, "mcpconform/none", nil, &CallOptions{Timeout: 2 * time.Second})
		rc.next(t)
		rc.answer(`{"jsonrpc":"2.0","id":null,"error":{"code":-32601,"message":"Method not found"}}`)
		if r := wait(t, ch); r.err != nil || r.resp == nil || !r.resp.NullID {
			t.Fatalf("the -32601 answers the only request in flight: %+v %v", r.resp, r.err)
		}
	})
	t.Run("params an array", func(t *testing.T) {
		rc, s, faults := newRecSession(t)
		ch := callAsync(s, "ping", json.RawMessage(`[1]`), &CallOptions{Timeout: 200 * time.Millisecond})
		rc.next(t)
		rc.answer(`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid request"}}`)
		if r := wait(t, ch); r.err == nil || (r.resp != nil && r.resp.NullID) {
			t.Fatalf("an invalid request may get id null: %+v %v", r.resp, r.err)
		}
		if _, n := faults.For("RPC-002"); n != 0 {
			t.Fatalf("no fault expected, got %d", n)
		}
	})
	t.Run("two in flight", func(t *testing.T) {
		rc, s, faults := newRecSession(t)
		a := callAsync(s, "ping", nil, &CallOptions{ID: idPtr(jsonrpc.IntID(100)), Timeout: 200 * time.Millisecond})
		rc.next(t)
		b := callAsync(s, "ping", nil, &CallOptions{ID: idPtr(jsonrpc.IntID(101)), Timeout: 200 * time.Millisecond})
		rc.next(t)
		rc.answer(`{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"x"}}`)
		for _, ch := range []<-chan callResult{a, b} {
			if r := wait(t, ch); r.err == nil {
				t.Fatalf("neither call may take the null-id error: %+v", r.resp)
			}
		}
		if _, n := faults.For("RPC-002"); n != 0 {
			t.Fatalf("no fault expected, got %d", n)
		}
	})
}

func TestLatencyQuantiles(t *testing.T) {
	var l Latency
	if l.Quantile(0.99) != 0 || l.Count() != 0 {
		t.Fatal("empty latency must be zero")
	}
	for i := 1; i <= 100; i++ {
		l.Observe(time.Duration(i) * time.Millisecond)
	}
	if got := l.Quantile(0.5); got != 50*time.Millisecond {
		t.Errorf("p50 %v", got)
	}
	if got := l.Quantile(0.99); got != 99*time.Millisecond {
		t.Errorf("p99 %v", got)
	}
	if l.Count() != 100 {
		t.Errorf("count %d", l.Count())
	}
}

// A session whose server sent nothing since a request timed out is
// stalled; any message from the server ends that.
func TestStalled(t *testing.T) {
	rc, s, _ := newRecSession(t)
	if s.Stalled() {
		t.Fatal("a new session is not stalled")
	}
	ch := callAsync(s, "ping", nil, &CallOptions{Timeout: 50 * time.Millisecond})
	rc.next(t)
	if r := wait(t, ch); r.err == nil {
		t.Fatal("want a timeout")
	}
	if !s.Stalled() {
		t.Fatal("silent since a timed-out request: stalled")
	}
	rc.answer(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`)
	if _, ok := s.WaitEvent(context.Background(), 0, func(Event) bool { return true }); !ok || s.Stalled() {
		t.Fatal("a message from the server ends the stall")
	}
}
