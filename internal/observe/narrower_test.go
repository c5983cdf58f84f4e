package observe

import (
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/internal/catalog"
	"github.com/mcpconform/mcpconform/internal/result"
)

// One deviation, one verdict: a general requirement's run-wide violation
// whose offending messages a narrower requirement judged becomes a note;
// one with other offending messages keeps those; a check's own FAIL of the
// general requirement resting on a claimed frame becomes a PASS with a note.
func TestApplyNarrowerFirst(t *testing.T) {
	rev := catalog.R20251125
	res := func(id string, v result.Verdict, evidence ...int64) result.Result {
		return result.Result{Requirement: id, Revision: string(rev), Transport: "stdio", Level: "MUST", Verdict: v, Evidence: evidence,
			Links: []string{"https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle"}}
	}
	viol := func(id string, offending ...int64) Violation {
		return Violation{Requirement: id, Revision: rev, Transport: "stdio", Check: "X", Message: id + " broken", Count: len(offending), Offending: offending}
	}
	revs := []string{string(rev)}

	// LIFE-005 listed first: it is still applied after LEG-002
	rs := []result.Result{res("LIFE-005", result.PASS), res("LEG-002", result.PASS)}
	Apply(rs, []Violation{viol("LIFE-005", 8), viol("LEG-002", 8)}, revs)
	if rs[1].Verdict != result.FAIL || rs[0].Verdict != result.PASS || !strings.Contains(strings.Join(rs[0].Notes, ";"), "judged under LEG-002") {
		t.Errorf("claimed: LIFE-005 %s %v, LEG-002 %s", rs[0].Verdict, rs[0].Notes, rs[1].Verdict)
	}

	rs = []result.Result{res("LIFE-005", result.PASS), res("LEG-002", result.PASS)}
	Apply(rs, []Violation{viol("LIFE-005", 8, 12), viol("LEG-002", 8)}, revs)
	if rs[0].Verdict != result.FAIL || len(rs[0].Evidence) != 1 || rs[0].Evidence[0] != 12 {
		t.Errorf("partly claimed: LIFE-005 %s evidence %v, want FAIL [12]", rs[0].Verdict, rs[0].Evidence)
	}

	rs = []result.Result{res("LIFE-005", result.FAIL, 8), res("LEG-002", result.PASS)}
	Apply(rs, []Violation{viol("LEG-002", 8)}, revs)
	if rs[0].Verdict != result.PASS || rs[0].Evidence != nil {
		t.Errorf("a check's FAIL on a claimed frame: LIFE-005 %s %v", rs[0].Verdict, rs[0].Evidence)
	}
	if bad := result.Invariants(rs); len(bad) > 0 {
		t.Errorf("Invariants: %v", bad)
	}
}
