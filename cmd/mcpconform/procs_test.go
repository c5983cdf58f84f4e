package main

import (
	"runtime"
	"testing"
)

// TestChecksOnOneP: GOMAXPROCS is 1 while any run's checks go on, and
// comes back when the last of overlapping runs restores it (twice
// restoring is harmless).
func TestChecksOnOneP(t *testing.T) {
	t.Setenv("GOMAXPROCS", "")
	before := runtime.GOMAXPROCS(0)
	if before == 1 {
		runtime.GOMAXPROCS(2)
		defer runtime.GOMAXPROCS(1)
		before = 2
	}
	a := checksOnOneP()
	b := checksOnOneP()
	if got := runtime.GOMAXPROCS(0); got != 1 {
		t.Fatalf("during the checks: GOMAXPROCS %d, want 1", got)
	}
	a()
	a()
	if got := runtime.GOMAXPROCS(0); got != 1 {
		t.Fatalf("one of two runs ended: GOMAXPROCS %d, want 1", got)
	}
	b()
	if got := runtime.GOMAXPROCS(0); got != before {
		t.Fatalf("both runs ended: GOMAXPROCS %d, want %d", got, before)
	}
	t.Setenv("GOMAXPROCS", "3")
	checksOnOneP()()
	if got := runtime.GOMAXPROCS(0); got != before {
		t.Fatalf("with GOMAXPROCS in the environment: %d, want it left at %d", got, before)
	}
}
