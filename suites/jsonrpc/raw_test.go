package jsonrpc

import (
	"testing"
	"time"
)

// The barrier's wait follows the observed latency: the whole timeout while
// none is known, then a multiple of the slowest recent one, at least half
// the timeout and never more than it.
func TestLatencyWindow(t *testing.T) {
	var l latencyWindow
	if w := l.wait(5 * time.Second); w != 5*time.Second {
		t.Fatalf("no latency known: %s", w)
	}
	l.observe(2 * time.Millisecond)
	if w := l.wait(5 * time.Second); w != 2500*time.Millisecond {
		t.Fatalf("fast server: %s", w)
	}
	l.observe(40 * time.Millisecond)
	if w := l.wait(5 * time.Second); w != 4*time.Second {
		t.Fatalf("40 ms latency: %s", w)
	}
	l.observe(time.Second)
	if w := l.wait(5 * time.Second); w != 5*time.Second {
		t.Fatalf("slow server: %s", w)
	}
	for i := 0; i < 16; i++ {
		l.observe(time.Millisecond)
	}
	if w := l.wait(5 * time.Second); w != 2500*time.Millisecond {
		t.Fatalf("old observations must age out: %s", w)
	}
}
