package session

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpconform/mcpconform/internal/wire"
)

// newQuietSession is newRecSession with a quiet gate.
func newQuietSession(t *testing.T, q *Quiet) (*recConn, *Session) {
	t.Helper()
	rc := &recConn{fakeConn: newFake(wire.Stdio), rec: wire.NewRecorder(wire.NewRedactor())}
	s := New(rc, Options{Revision: legacyRev, Timeout: time.Second, Recorder: rc.rec, Quiet: q})
	t.Cleanup(func() { _ = s.Close() })
	return rc, s
}

// While the run is held quiet, a new request waits at the gate (nothing
// is sent), Hush returns once the request in flight ended, an Unhushed
// request passes, and the waiting request goes once the hold ends.
func TestQuietGate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := &Quiet{}
		rc, s := newQuietSession(t, q)
		a := callAsync(s, "ping", nil, nil)
		ma := rc.next(t)

		hushed := make(chan func())
		go func() { hushed <- q.Hush(context.Background(), time.Minute) }()
		synctest.Wait()
		select {
		case <-hushed:
			t.Fatal("Hush returned with a request in flight")
		default:
		}
		b := callAsync(s, "tools/list", nil, nil)
		synctest.Wait()
		select {
		case m := <-rc.sent:
			t.Fatalf("a request was sent while the run was held quiet: %s", m.payload)
		default:
		}
		rc.answer(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{}}`, ma.msg.ID))
		if r := wait(t, a); r.err != nil {
			t.Fatal(r.err)
		}
		release := <-hushed

		c := make(chan error, 1)
		go func() {
			_, err := s.Call(Unhushed(context.Background()), "ping", nil, nil)
			c <- err
		}()
		mc := rc.next(t)
		rc.answer(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{}}`, mc.msg.ID))
		if err := <-c; err != nil {
			t.Fatalf("the unhushed request: %v", err)
		}
		release()
		mb := rc.next(t)
		if mb.msg.Method != "tools/list" {
			t.Fatalf("after the hold, sent %s", mb.payload)
		}
		rc.answer(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"tools":[]}}`, mb.msg.ID))
		if r := wait(t, b); r.err != nil {
			t.Fatal(r.err)
		}
		if st := q.Stats(); st.Hushes != 1 || st.Waited != 1 {
			t.Fatalf("stats %+v", st)
		}
	})
}

// silentCall makes a call of method time out and returns its silence.
func silentCall(t *testing.T, q *Quiet, rc *recConn, s *Session, method string) (Silence, sentMsg) {
	t.Helper()
	ch := callAsync(s, method, map[string]any{"cursor": "c1"}, nil)
	m := rc.next(t)
	if r := wait(t, ch); !errors.Is(r.err, wire.ErrTimeout) {
		t.Fatalf("want a timeout, got %v", r.err)
	}
	sil := q.Since(0, nil)
	if len(sil) != 1 || sil[0].Method != method || !sil[0].Full || sil[0].Session != s {
		t.Fatalf("silences %+v", sil)
	}
	return sil[0], m
}

// A request answered after its deadline, once the re-ask (its barrier on
// the same connection) is answered, was only slow: Late.
func TestReaskLateAnswer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := &Quiet{}
		rc, s := newQuietSession(t, q)
		x, orig := silentCall(t, q, rc, s, "resources/list")
		done := make(chan Reasked, 1)
		go func() { done <- s.Reask(Unhushed(context.Background()), x, 25*time.Millisecond) }()
		re := rc.next(t)
		if re.msg.Method != "resources/list" || re.msg.ID == orig.msg.ID || string(re.msg.Params) != string(orig.msg.Params) {
			t.Fatalf("the re-ask %s is not the same request with a fresh id (original %s)", re.payload, orig.payload)
		}
		rc.answer(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"resources":[]}}`, orig.msg.ID))
		rc.answer(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"resources":[]}}`, re.msg.ID))
		r := <-done
		if !r.Answered || !r.Late {
			t.Fatalf("%+v, want answered and late", r)
		}
		if st := q.Stats(); st.Reasked != 1 || st.Answered != 1 {
			t.Fatalf("stats %+v", st)
		}
	})
}

// A request never answered while its re-ask is: the server dropped it
// (not Late). A re-ask left unanswered marks the connection hung: the
// next re-ask on it sends nothing.
func TestReaskDroppedAndHung(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := &Quiet{}
		rc, s := newQuietSession(t, q)
		x, _ := silentCall(t, q, rc, s, "tools/list")
		done := make(chan Reasked, 1)
		go func() { done <- s.Reask(Unhushed(context.Background()), x, 25*time.Millisecond) }()
		re := rc.next(t)
		rc.answer(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"tools":[]}}`, re.msg.ID))
		if r := <-done; !r.Answered || r.Late {
			t.Fatalf("%+v, want answered, not late", r)
		}

		go func() { done <- s.Reask(Unhushed(context.Background()), x, 25*time.Millisecond) }()
		rc.next(t) // never answered
		if r := <-done; r.Answered || r.Late {
			t.Fatalf("%+v, want unanswered", r)
		}
		go func() { done <- s.Reask(Unhushed(context.Background()), x, 25*time.Millisecond) }()
		synctest.Wait()
		select {
		case m := <-rc.sent:
			t.Fatalf("re-asked on a connection known hung: %s", m.payload)
		case r := <-done:
			if r.Answered {
				t.Fatalf("%+v", r)
			}
		}
	})
}

// A Hush waiting for another's release ends with its context (Ctrl-C
// while one check re-asks and another waits for its turn), holding
// nothing.
func TestHushWaitEndsWithItsContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var q Quiet
		release := q.Hush(context.Background(), time.Second)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan func())
		go func() { done <- q.Hush(ctx, time.Second) }()
		synctest.Wait()
		select {
		case <-done:
			t.Fatal("a second Hush did not wait for the first's release")
		default:
		}
		cancel()
		(<-done)()
		release()
		if q.Holding() {
			t.Error("the run is held quiet after the release")
		}
		q.Hush(context.Background(), time.Second)() // the turn is free
	})
}
