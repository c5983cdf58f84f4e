package target

import (
	"testing"
	"time"
)

// The start-up deadline: at least StartupFactor × the timeout before any
// start-up was seen, StartupMultiple × the slowest one seen after, at
// most StartupCap (never under the floor).
func TestStartupDeadline(t *testing.T) {
	tg := &Target{Timeout: 2 * time.Second}
	if d := tg.StartupDeadline(); d != 6*time.Second {
		t.Fatalf("no start-up seen: %s, want 6s", d)
	}
	tg.observeStartup(100 * time.Millisecond)
	if d := tg.StartupDeadline(); d != 6*time.Second {
		t.Fatalf("fast start-ups: %s, want the floor 6s", d)
	}
	tg.observeStartup(2 * time.Second)
	tg.observeStartup(time.Second)
	if d := tg.StartupDeadline(); d != StartupMultiple*2*time.Second {
		t.Fatalf("slowest 2s: %s, want %s", d, StartupMultiple*2*time.Second)
	}
	tg.observeStartup(time.Minute)
	if d := tg.StartupDeadline(); d != StartupCap {
		t.Fatalf("slowest 1m: %s, want the cap %s", d, StartupCap)
	}
	if slowest, n := tg.SlowestStartup(); slowest != time.Minute || n != 4 {
		t.Fatalf("SlowestStartup %s %d", slowest, n)
	}
}

// Every session's first call has the start-up deadline (Options.Startup)
// and the run's quiet gate.
func TestSessionOptionsStartup(t *testing.T) {
	tg := &Target{Timeout: time.Second}
	o := tg.sessionOptions("2025-11-25")
	if o.Startup != 3*time.Second || o.Quiet != tg.Quiet() || o.Timeout != time.Second {
		t.Fatalf("%+v", o)
	}
}
