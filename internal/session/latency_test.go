package session

import (
	"context"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/internal/jsonrpc"
	"github.com/mcpconform/mcpconform/internal/wire"
)

// Latency samples are clean answers only: not a connection's first, not a
// request sent behind raw input the server had not answered yet (a
// barrier after megabytes measures the input), not one sent while another
// was in flight.
func TestLatencySamplesOnlyCleanAnswers(t *testing.T) {
	fc := newFake(wire.Stdio)
	var lat Latency
	s := New(fc, Options{Revision: legacyRev, Timeout: 5 * time.Second, Latency: &lat})
	t.Cleanup(func() { _ = s.Close() })
	ping := func() {
		t.Helper()
		ch := callAsync(s, "ping", nil, nil)
		m := fc.next(t).msg
		fc.pushMsg(string(jsonrpc.Response(m.ID, map[string]any{})))
		if r := wait(t, ch); r.err != nil {
			t.Fatal(r.err)
		}
	}
	ping() // the connection's first answer: left out
	ping()
	if n := lat.Count(); n != 1 {
		t.Fatalf("%d samples after two pings, want 1 (the first answer is left out)", n)
	}
	// raw input the server does not answer, then a barrier: no sample
	if _, err := s.SendRaw(context.Background(), []byte(`{"jsonrpc":"2.0","id":"x","method":`), nil); err != nil {
		t.Fatal(err)
	}
	fc.next(t)
	ping()
	if n := lat.Count(); n != 1 {
		t.Fatalf("a ping behind unanswered raw input was sampled (%d samples)", n)
	}
	// the server has answered since (the ping): the next one counts again
	ping()
	if n := lat.Count(); n != 2 {
		t.Fatalf("%d samples, want 2", n)
	}
	// two calls in flight: neither the second's answer is sampled
	ch1 := callAsync(s, "ping", nil, nil)
	m1 := fc.next(t).msg
	ch2 := callAsync(s, "ping", nil, nil)
	m2 := fc.next(t).msg
	fc.pushMsg(string(jsonrpc.Response(m2.ID, map[string]any{})))
	fc.pushMsg(string(jsonrpc.Response(m1.ID, map[string]any{})))
	wait(t, ch1)
	wait(t, ch2)
	if n := lat.Count(); n != 3 {
		t.Fatalf("%d samples, want 3 (the call sent alone counts, the one sent beside it not)", n)
	}
}

// TestLatencyTool: the slowest answer of each tool is kept apart from the
// server's pace.
func TestLatencyTool(t *testing.T) {
	var l Latency
	if _, ok := l.Tool("slow"); ok {
		t.Fatal("a tool never called has a pace")
	}
	l.ObserveTool("slow", 2*time.Second)
	l.ObserveTool("slow", time.Second)
	l.ObserveTool("fast", time.Millisecond)
	if d, ok := l.Tool("slow"); !ok || d != 2*time.Second {
		t.Errorf("slow: %s %v, want its slowest answer, 2s", d, ok)
	}
	if d, _ := l.Tool("fast"); d != time.Millisecond {
		t.Errorf("fast: %s", d)
	}
	if l.Count() != 0 {
		t.Errorf("tool answers counted as the server's pace (%d samples)", l.Count())
	}
	var none *Latency
	none.ObserveTool("x", time.Second)
	if _, ok := none.Tool("x"); ok {
		t.Error("a nil Latency keeps a pace")
	}
}
