package result

import (
	"strings"
	"testing"
)

func TestInvariants(t *testing.T) {
	link := []string{"https://modelcontextprotocol.io/specification/2025-11-25/basic"}
	r := func(req, rev, level string, v Verdict, evidence ...int64) Result {
		return Result{Requirement: req, Revision: rev, Level: level, Verdict: v, Transport: "stdio", Links: link, Evidence: evidence}
	}
	for _, c := range []struct {
		name    string
		results []Result
		want    string // "" for none
	}{
		{"a MUST FAIL", []Result{r("RPC-007", "2025-11-25", "MUST", FAIL, 3)}, ""},
		{"a FAIL graded below MUST", []Result{r("CAN-002", "2025-11-25", "SHOULD", FAIL)}, "a FAIL cites a MUST"},
		{"a FAIL where the revision has no MUST sentence", []Result{r("RPC-007", "2025-03-26", "MUST", FAIL)}, "the catalog grades SHOULD in 2025-03-26"},
		{"a WARN there", []Result{r("RPC-007", "2025-03-26", "SHOULD", WARN)}, ""},
		{"one frame, two requirements", []Result{r("RPC-004", "2025-11-25", "MUST", FAIL, 7), r("HTTP-004", "2025-11-25", "MUST", FAIL, 7, 9)}, "frame 7 is the evidence of FAIL/WARN verdicts of RPC-004, HTTP-004"},
		{"one frame, a requirement and the schema", []Result{r("LIFE-001", "2025-11-25", "MUST", FAIL, 7), r(SchemaCompanion, "2025-11-25", "MUST", FAIL, 7)}, ""},
		{"one frame, a FAIL and a PASS's stale evidence", []Result{r("RPC-004", "2025-11-25", "MUST", FAIL, 7), r("HTTP-004", "2025-11-25", "MUST", PASS, 7)}, ""},
		{"different frames", []Result{r("RPC-004", "2025-11-25", "MUST", FAIL, 7), r("HTTP-004", "2025-11-25", "MUST", WARN, 8)}, ""},
	} {
		got := strings.Join(Invariants(c.results), "; ")
		if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("%s: Invariants = %q, want %q", c.name, got, c.want)
		}
	}
}
