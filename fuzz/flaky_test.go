package fuzz

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/internal/catalog"
	"github.com/mcpconform/mcpconform/internal/judge"
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
	return codesCheck(t, func(call, n int) []string {
		if c := code(call, n); c != "" {
			return []string{c}
		}
		return nil
	})
}

// codesCheck runs check with a fake server: each run of the case — rapid's
// (found, re-run, shrunk, its output run) and the replays of the finding's
// case (rerun.go) alike, counted by call — shows the problems whose codes
// codes returns, n being a number the case draws (the finding's one
// message).
func codesCheck(t *testing.T, codes func(call, n int) []string) (*Finding, int) {
	t.Helper()
	h := &harness{tg: stdioTarget(), rev: "2026-07-28"}
	call := 0
	run := func(n int) []problem {
		call++
		var ps []problem
		for _, c := range codes(call, n) {
			ps = append(ps, problem{"test", c, "n is " + strconv.Itoa(n)})
		}
		return ps
	}
	body := func(_ context.Context, rt *rapid.T, fail failFunc) {
		n := rapid.IntRange(0, 1000).Draw(rt, "n")
		if ps := run(n); len(ps) > 0 {
			fail(rt, ps, nil, [][]byte{[]byte(strconv.Itoa(n))}, nil)
		}
	}
	h.replay = func(_ context.Context, f *Finding, _ bool) []problem {
		n, err := strconv.Atoi(*f.Messages[0].Text)
		if err != nil {
			t.Fatalf("replayed case %+v", f.Messages)
		}
		return run(n)
	}
	deadline := time.Now().Add(10 * time.Second)
	return h.check(context.Background(), "test", body, 1, 100, deadline, deadline.Add(5*time.Second), time.Second, map[string]bool{})
}

// rapidRuns are the runs of the case rapid makes when it cannot reproduce
// a failure: the failing one, its re-run and its output run. The replays
// of the case come next.
const rapidRuns = 3

// A failure that never shows again is reported as found, marked Flaky,
// after its replays and maxFlakyRuns searches from the same seed:
// unconfirmed, reproduced in 0 of maxReruns re-runs.
func TestFlakyFailureIsMarked(t *testing.T) {
	f, cases := flakyCheck(t, func(call, _ int) bool { return call == 1 })
	if f == nil {
		t.Fatal("no finding")
	}
	if !f.Flaky || f.Reruns != maxReruns || f.Reproduced != 0 {
		t.Errorf("finding not marked flaky, reproduced in 0 of %d re-runs: %+v", maxReruns, f)
	}
	if f.grade(false); !f.Unconfirmed || !strings.Contains(f.Note, "reproduced in 0 of 5 re-runs") {
		t.Errorf("graded %s, unconfirmed %v, note %q", f.Verdict, f.Unconfirmed, f.Note)
	}
	// the first search: the failing case and its re-run (and rapid's
	// output run), then the replays; the next ones: every check passes
	if cases < rapidRuns+maxReruns-1+100 {
		t.Errorf("%d cases: the search was not run again", cases)
	}
}

// A failure that did not show on rapid's re-run nor on the replays of its
// case, but shows in the next search from the same seed, is shrunk there;
// its rate counts the re-runs of both searches.
func TestFlakyFailureIsSearchedAgainAndShrunk(t *testing.T) {
	replays := maxReruns - 1
	f, _ := flakyCheck(t, func(call, n int) bool { return call == 1 || (call > rapidRuns+replays && n > 10) })
	if f == nil {
		t.Fatal("no finding")
	}
	if f.Flaky {
		t.Errorf("finding marked flaky although the second search reproduced it")
	}
	if len(f.Messages) != 1 || f.Messages[0].Text == nil || *f.Messages[0].Text != "11" {
		t.Errorf("not shrunk to n = 11: %+v", f.Messages)
	}
	// the first search: 0 of 5; the second: rapid's re-run and the
	// minimal case's replays, 5 of 5
	if f.Reruns != 2*maxReruns || f.Reproduced != maxReruns {
		t.Errorf("reproduced in %d of %d re-runs, want %d of %d", f.Reproduced, f.Reruns, maxReruns, 2*maxReruns)
	}
}

// A failure rapid did not reproduce that shows again in some replays of
// its case is confirmed by them, unshrunk, with its rate: a MUST broken is
// FAIL however rarely it shows. The search is not run again.
func TestFlakyFailureConfirmedByReplays(t *testing.T) {
	replay := func(call int) int { return call - rapidRuns } // 1… for the replays
	var found int
	f, cases := flakyCheck(t, func(call, n int) bool {
		if call == 1 {
			found = n
		}
		return call == 1 || replay(call) == 2 || replay(call) == 4
	})
	if f == nil {
		t.Fatal("no finding")
	}
	if !f.Flaky || f.Reruns != maxReruns || f.Reproduced != 2 {
		t.Fatalf("flaky %v, reproduced in %d of %d re-runs, want 2 of %d", f.Flaky, f.Reproduced, f.Reruns, maxReruns)
	}
	if *f.Messages[0].Text != strconv.Itoa(found) {
		t.Errorf("the case is %s, not the one found (%d)", *f.Messages[0].Text, found)
	}
	if cases > rapidRuns+maxReruns-1+1 {
		t.Errorf("%d cases: the search ran again although the replays confirmed the failure", cases)
	}
	f.rule = judge.MissingAnswer
	f.Revision = string(catalog.Modern)
	f.grade(false)
	if f.Verdict != "FAIL" || f.Unconfirmed || !strings.Contains(f.Note, "reproduced in 2 of 5 re-runs") {
		t.Errorf("graded %s (unconfirmed %v, note %q), want FAIL reproduced in 2 of 5 re-runs", f.Verdict, f.Unconfirmed, f.Note)
	}
}

// A failure rapid reproduced is shrunk, and its minimal case replayed for
// its rate: every re-run of a deterministic defect shows it.
func TestConfirmedFailureHasItsRate(t *testing.T) {
	f, _ := flakyCheck(t, func(_, n int) bool { return n > 10 })
	if f == nil || f.Flaky || *f.Messages[0].Text != "11" {
		t.Fatalf("finding %+v, want one shrunk to n = 11", f)
	}
	if f.Reruns != maxReruns || f.Reproduced != maxReruns || f.Rate() != "reproduced in 5 of 5 re-runs" {
		t.Errorf("%q (%d of %d), want reproduced in 5 of 5 re-runs", f.Rate(), f.Reproduced, f.Reruns)
	}
}

// A case that shows two defects, listed in another order on each run, is
// one failure to rapid: the re-runs report the first one's signature when
// it shows, so it is confirmed and shrunk.
func TestDefectsInAnotherOrderAreOneFailure(t *testing.T) {
	f, _ := codesCheck(t, func(call, n int) []string {
		if n <= 10 {
			return nil
		}
		if call%2 == 0 {
			return []string{"second", "first"}
		}
		return []string{"first", "second"}
	})
	if f == nil || f.Flaky || f.Code != "first" || *f.Messages[0].Text != "11" {
		t.Fatalf("finding %+v, want first, confirmed, shrunk to n = 11", f)
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
