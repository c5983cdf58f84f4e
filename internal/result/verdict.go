// Package result is the model of a run's results: the verdict vocabulary,
// one Result per check, the Report a run (or a fuzz campaign) produces, its
// Summary, the baseline of known failures, and the one rule of what fails
// a run. internal/conform produces results, internal/runner returns a
// Report, and the reports package only renders one.
//
// It is a leaf: it imports nothing of mcpconform's but the catalog (ids,
// order) and wire (the transcript frames a result quotes).
package result

// Verdict of one check. Its text is the verdict's name ("PASS", "FAIL" …)
// in every report format; this file is the only place that spells them.
type Verdict string

// Verdicts.
const (
	// PASS: the server met the requirement.
	PASS Verdict = "PASS"
	// FAIL: the server broke a MUST (or crashed or hung).
	FAIL Verdict = "FAIL"
	// WARN: the server broke a SHOULD, or a spec ambiguity was met.
	WARN Verdict = "WARN"
	// NA: the requirement does not apply to the server (with the reason).
	NA Verdict = "NA"
	// ERROR: the check could not judge the server (harness or target failure).
	ERROR Verdict = "ERROR"
)

// Verdicts in report order.
var Verdicts = []Verdict{PASS, FAIL, WARN, NA, ERROR}

// String is the verdict's name.
func (v Verdict) String() string { return string(v) }

// ParseVerdict reads a verdict name ("FAIL"); ok is false for any other text.
func ParseVerdict(s string) (v Verdict, ok bool) {
	for _, k := range Verdicts {
		if string(k) == s {
			return k, true
		}
	}
	return "", false
}

// Fails is the one rule of what fails a run: FAIL and ERROR always, WARN
// when the run is strict. (A result a baseline covers no longer fails the
// run: Result.FailsRun.)
func (v Verdict) Fails(strict bool) bool {
	return v == FAIL || v == ERROR || (strict && v == WARN)
}

// Problem reports whether the verdict is one the reports list as a
// problem: FAIL, ERROR or WARN (whether or not it fails the run).
func (v Verdict) Problem() bool { return v == FAIL || v == ERROR || v == WARN }

// Judged reports whether the check said something about the server: PASS,
// FAIL or WARN (not NA, not ERROR).
func (v Verdict) Judged() bool { return v == PASS || v == FAIL || v == WARN }

// Severity orders verdicts from the worst: ERROR, FAIL, WARN, PASS, NA
// (and anything unknown last). Worse uses it.
func (v Verdict) Severity() int {
	switch v {
	case ERROR:
		return 4
	case FAIL:
		return 3
	case WARN:
		return 2
	case PASS:
		return 1
	case NA:
		return 0
	}
	return -1
}

// Worse reports whether v is worse than w (by Severity).
func (v Verdict) Worse(w Verdict) bool { return v.Severity() > w.Severity() }
