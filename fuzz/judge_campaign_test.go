//go:build slow

package fuzz

// Campaigns against the one grader's mutants (fixtures/mut_judge.go, and
// parse-error-invalid-request): the fuzzer grades what the suite grades,
// as the suite grades it, and a missing answer is RPC-002, confirmed,
// whatever the method, waited for on the server's own pace.

import (
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/internal/policy"
)

func TestOneJudgeCampaigns(t *testing.T) {
	for _, c := range []struct {
		mutant, property     string
		requirement, verdict string
		detail               string // in the finding's detail
	}{
		// unparseable input answered -32600: RPC-005, naming the code, as
		// the suite's RPC-005 does (a WARN: the code is a SHOULD)
		{"parse-error-invalid-request", PropRaw, "RPC-005", "WARN", "got error -32600"},
		// an invalid request answered -32700: RPC-006's SHOULD sub-case
		{"invalid-request-parse-error", PropRaw, "RPC-006", "WARN", "got error -32700"},
		// requests dropped under concurrency: RPC-002, confirmed
		{"drop-concurrent-requests", PropIDs, "RPC-002", "FAIL", "no response to "},
	} {
		t.Run(c.mutant, func(t *testing.T) {
			tg := stdioTarget("--mutant", c.mutant)
			tg.Timeout = 5 * time.Second // the default: the bound for a hung server, never waited out here
			res := campaign(t, tg, Config{Properties: []string{c.property}, Policy: policy.All, Duration: 20 * time.Second, ShrinkTime: 5 * time.Second})
			var got *Finding
			for i, f := range res.Findings {
				if strings.Contains(f.Detail, "within 5s") {
					t.Errorf("a finding waited out the timeout: %s", f.Detail)
				}
				if f.Requirement == c.requirement && f.Verdict == c.verdict && strings.Contains(f.Detail, c.detail) {
					got = &res.Findings[i]
				}
			}
			if got == nil {
				t.Fatalf("no %s %s finding whose detail says %q: %+v", c.verdict, c.requirement, c.detail, res.Findings)
			}
			if got.Unconfirmed {
				t.Errorf("the finding was not confirmed by rapid's re-run: %+v", *got)
			}
		})
	}
}
