package rapidrun

import (
	"strings"
	"sync"
	"testing"

	"pgregory.net/rapid"
)

// A failing property is found, shrunk and reported; a passing one runs
// exactly Checks cases; searches started together never share settings.
func TestCheck(t *testing.T) {
	tb := Check(Options{Checks: 200, Seed: 1, ShrinkTime: 0}, &TB{Label: "fails"}, func(rt *rapid.T) {
		if rapid.IntRange(0, 1000).Draw(rt, "n") > 10 {
			rt.Fatalf("too big")
		}
	})
	if !tb.Failed() || !strings.Contains(tb.Reported(), "too big") {
		t.Fatalf("failure not recorded: failed=%v reported=%q logs=%v", tb.Failed(), tb.Reported(), tb.Logs())
	}
	var wg sync.WaitGroup
	counts := make([]int, 2)
	for i, n := range []int{7, 13} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tb := Check(Options{Checks: n, Seed: uint64(n)}, &TB{Label: "passes"}, func(*rapid.T) { counts[i]++ })
			if tb.Failed() {
				t.Errorf("a passing property failed: %v", tb.Logs())
			}
		}()
	}
	wg.Wait()
	if counts[0] != 7 || counts[1] != 13 {
		t.Fatalf("cases run %v, want [7 13]: a search ran with another's settings", counts)
	}
}
