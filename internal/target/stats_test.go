package target

import (
	"testing"
	"testing/synctest"
	"time"
)

// TestHandshakeWall: overlapping handshakes count once in the wall time
// they held, apart ones add up (fake time).
func TestHandshakeWall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var tg Target
		tg.handshakeSpan(true) // A: 0–3 s
		time.Sleep(time.Second)
		tg.handshakeSpan(true) // B: 1–2 s, inside A
		time.Sleep(time.Second)
		tg.handshakeSpan(false)
		time.Sleep(time.Second)
		tg.handshakeSpan(false)
		time.Sleep(time.Second) // nothing under way
		tg.handshakeSpan(true)  // C: 4–5 s
		time.Sleep(500 * time.Millisecond)
		if got := tg.handshakeWall(); got != 3500*time.Millisecond {
			t.Errorf("while C is under way: %s, want 3.5s", got)
		}
		time.Sleep(500 * time.Millisecond)
		tg.handshakeSpan(false)
		if got := tg.handshakeWall(); got != 4*time.Second {
			t.Errorf("%s, want 4s (A and B overlapping: 3s, C: 1s)", got)
		}
	})
}
