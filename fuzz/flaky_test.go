package fuzz

import (
	"context"
	"strconv"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// flakyCheck runs check with a body that fails when fails(call, n) says
// so, n being a number the case draws; the finding's one message is n.
func flakyCheck(t *testing.T, fails func(call, n int) bool) (*Finding, int) {
	t.Helper()
	return codeCheck(t, func(call, n int) string {
		if fails(call, n) {
			return "flaky"
		}
		return ""
	})
}

// codeCheck is flakyCheck with the failure's code chosen per run ("": the
// case passes).
func codeCheck(t *testing.T, code func(call, n int) string) (*Finding, int) {
	t.Helper()
	h := &harness{tg: stdioTarget(), rev: "2026-07-28"}
	call := 0
	body := func(_ context.Context, rt *rapid.T, fail failFunc) {
		call++
		n := rapid.IntRange(0, 1000).Draw(rt, "n")
		if c := code(call, n); c != "" {
			fail(rt, []problem{{"test", c, "n is " + strconv.Itoa(n)}}, nil, [][]byte{[]byte(strconv.Itoa(n))}, nil)
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	return h.check(context.Background(), "test", body, 1, 100, deadline, deadline.Add(5*time.Second), time.Second, map[string]bool{})
}

// A failure that never shows again is reported as found, marked Flaky,
// after maxFlakyRuns searches from the same seed.
func TestFlakyFailureIsMarked(t *testing.T) {
	f, cases := flakyCheck(t, func(call, _ int) bool { return call == 1 })
	if f == nil {
		t.Fatal("no finding")
	}
	if !f.Flaky {
		t.Errorf("finding not marked flaky: %+v", f)
	}
	// the first search: the failing case and its re-run (and rapid's
	// output run); the next ones: every check passes
	if cases < 2+100 {
		t.Errorf("%d cases: the search was not run again", cases)
	}
}

// A failure that did not show on rapid's re-run but shows in the next
// search from the same seed is shrunk there.
func TestFlakyFailureIsSearchedAgainAndShrunk(t *testing.T) {
	f, _ := flakyCheck(t, func(call, n int) bool { return call == 1 || (call > 3 && n > 10) })
	if f == nil {
		t.Fatal("no finding")
	}
	if f.Flaky {
		t.Errorf("finding marked flaky although the second search reproduced it")
	}
	if len(f.Messages) != 1 || f.Messages[0].Text == nil || *f.Messages[0].Text != "11" {
		t.Errorf("not shrunk to n = 11: %+v", f.Messages)
	}
}

// A re-run that shows another defect than the first run is not a
// reproduction either (rapid does not shrink it): the case is searched
// again and, never reproduced, marked Flaky.
func TestOtherDefectOnReRunIsMarked(t *testing.T) {
	f, _ := codeCheck(t, func(call, _ int) string {
		switch call {
		case 1:
			return "first"
		case 2:
			return "second"
		}
		return ""
	})
	if f == nil || !f.Flaky {
		t.Fatalf("finding %+v, want one marked flaky", f)
	}
}
