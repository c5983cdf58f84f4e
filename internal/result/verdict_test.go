package result

import (
	"encoding/json"
	"testing"
)

// TestVerdictNames: every verdict parses from its name and back, in JSON
// too; nothing else parses.
func TestVerdictNames(t *testing.T) {
	for _, v := range Verdicts {
		got, ok := ParseVerdict(v.String())
		if !ok || got != v {
			t.Errorf("ParseVerdict(%q) = %q, %v", v, got, ok)
		}
		b, err := json.Marshal(v)
		if err != nil || string(b) != `"`+v.String()+`"` {
			t.Errorf("json %s: %s %v", v, b, err)
		}
		var back Verdict
		if err := json.Unmarshal(b, &back); err != nil || back != v {
			t.Errorf("json back %s: %q %v", b, back, err)
		}
	}
	for _, s := range []string{"", "fail", "Pass", "SKIP", "FAIL "} {
		if v, ok := ParseVerdict(s); ok {
			t.Errorf("ParseVerdict(%q) = %q", s, v)
		}
	}
}

// TestFailsRule: the one rule of what fails a run, and how the summary, a
// baselined result and the severity order follow it.
func TestFailsRule(t *testing.T) {
	for _, c := range []struct {
		v                      Verdict
		fails, strict, problem bool
	}{
		{PASS, false, false, false}, {FAIL, true, true, true}, {WARN, false, true, true},
		{NA, false, false, false}, {ERROR, true, true, true},
	} {
		if c.v.Fails(false) != c.fails || c.v.Fails(true) != c.strict || c.v.Problem() != c.problem {
			t.Errorf("%s: Fails %v/%v Problem %v", c.v, c.v.Fails(false), c.v.Fails(true), c.v.Problem())
		}
		for _, strict := range []bool{false, true} {
			s := Summarize([]Result{{Verdict: PASS}, {Verdict: PASS}, {Verdict: c.v}}, strict)
			if s.Passed == c.v.Fails(strict) {
				t.Errorf("%s strict=%v: summary passed=%v", c.v, strict, s.Passed)
			}
			if (Result{Verdict: c.v, Baselined: true}).FailsRun(strict) {
				t.Errorf("%s: a baselined result fails the run", c.v)
			}
		}
	}
	order := []Verdict{ERROR, FAIL, WARN, PASS, NA}
	for i := 1; i < len(order); i++ {
		if !order[i-1].Worse(order[i]) || order[i].Worse(order[i-1]) {
			t.Errorf("%s must be worse than %s", order[i-1], order[i])
		}
	}
}
