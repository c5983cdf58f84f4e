//go:build slow

package fuzz

import (
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/internal/judge"
)

// A server that drops a request only while another is in flight (the
// fuzz-hang-on-concurrent-requests mutant) is a FAIL RPC-002 in every
// campaign, whatever the seed, with the rate at which its case reproduced
// (issue 34): the re-runs of a concurrency defect send its messages in
// flight together, and a defect that shows again in any re-run is
// confirmed. The campaign is TestFuzzOnlyMutantsAreFound's for this
// mutant, its time a cap for a loaded machine (the checks decide).
func TestConcurrencyDropFailsInEveryCampaign(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3, 4, 5} {
		tg := stdioTarget("--mutant", "fuzz-hang-on-concurrent-requests")
		tg.Timeout = 500 * time.Millisecond
		res := campaign(t, tg, Config{Seed: seed, Checks: 100, Rounds: 1, Properties: []string{PropIDs}, ShrinkTime: 4 * time.Second, Duration: time.Minute})
		var f *Finding
		for i := range res.Findings {
			if res.Findings[i].Signature() == "ids/response/no-response" {
				f = &res.Findings[i]
			}
		}
		if f == nil {
			t.Errorf("seed %d: no finding ids/response/no-response; findings: %+v", seed, res.Findings)
			continue
		}
		t.Logf("seed %d: %s %s %s, %s (flaky %v, %d messages)", seed, f.Verdict, f.Requirement, f.Signature(), f.Rate(), f.Flaky, len(f.Messages))
		// the case was replayed (rapid's re-run and at least one replay)
		// and showed again: a confirmed MUST, whatever the rate
		if f.Verdict != string(judge.FAIL) || f.Requirement != "RPC-002" || f.Unconfirmed || f.Reruns < 2 || f.Reproduced < 1 || !strings.Contains(f.Note, f.Rate()) {
			t.Errorf("seed %d: %s %s (unconfirmed %v, note %q), want FAIL RPC-002 with its rate over its replays", seed, f.Verdict, f.Requirement, f.Unconfirmed, f.Note)
		}
		if !concurrent(f) {
			t.Errorf("seed %d: the case does not put two requests in flight together: %v", seed, f.Transcript)
		}
	}
}
