package observe

import (
	"fmt"
	"slices"

	"github.com/mcpconform/mcpconform/internal/catalog"
	"github.com/mcpconform/mcpconform/internal/judge"
	"github.com/mcpconform/mcpconform/internal/result"
)

// Apply folds the run-wide violations into the results of their
// requirements: a requirement violated anywhere in the run is never a PASS
// (nor NA, nor an ERROR of its own probe). A MUST violation makes the
// result FAIL, a SHOULD one WARN (by the requirement's level in the
// result's revision); the message names the check that provoked the
// offending message and quotes it, and the offending exchange joins the
// result's transcript. A result that already failed keeps its own verdict
// and message, with the run-wide finding added as a note.
//
// A violation is applied to the results of its requirement in its revision
// on its transport; when the run has none for that exact revision, to
// those of the same era; when the connection's revision was not known yet
// (a banner before the first request), to every result of the requirement.
// Only results of the run's revisions (revs) are changed: a requirement of
// a revision the run does not cover stays NA whatever traffic the era
// detection exchanged under it.
func Apply(results []result.Result, vs []Violation, revs []string) {
	for _, v := range vs {
		idx := matching(results, v, revs)
		for _, i := range idx {
			apply(&results[i], v)
		}
	}
}

func matching(results []result.Result, v Violation, revs []string) []int {
	var exact, era, any []int
	for i, r := range results {
		if r.Requirement != v.Requirement || r.Transport != v.Transport || !slices.Contains(revs, r.Revision) {
			continue
		}
		rev := catalog.Revision(r.Revision)
		any = append(any, i)
		switch {
		case rev == v.Revision:
			exact = append(exact, i)
		case v.Revision != "" && rev.IsLegacy() == v.Revision.IsLegacy():
			era = append(era, i)
		}
	}
	switch {
	case len(exact) > 0:
		return exact
	case v.Revision == "":
		return any
	}
	return era
}

// Describe renders a violation as a verdict message.
func (v Violation) Describe() string {
	msg := fmt.Sprintf("seen during %s: %s", v.Check, v.Message)
	if v.Count > 1 {
		msg += fmt.Sprintf(" (the first of %d such messages in the run)", v.Count)
	}
	return msg
}

func apply(r *result.Result, v Violation) {
	level := catalog.Level(r.Level)
	if _, ok := catalog.Get(r.Requirement); ok && r.Revision != "" {
		level = judge.Level(r.Requirement, catalog.Revision(r.Revision))
	}
	verdict := judge.GradeAt(level, v.Soft) // the one grader's
	quote := ""
	if n := len(v.Frames); n > 0 {
		quote = clip(v.Frames[n-1].Raw)
	}
	finding := "run-wide: " + v.Describe()
	if r.Verdict == result.FAIL || r.Verdict == verdict {
		r.Notes = append(r.Notes, finding+": "+quote)
	} else {
		if r.Message != "" {
			r.Notes = append(r.Notes, fmt.Sprintf("this check's own probe: %s %s", r.Verdict, r.Message))
		}
		r.Verdict, r.Message = verdict, finding
		r.Expected = "no message of the run breaks " + r.Requirement + " (judged over every message, whichever check provoked it)"
		r.Actual = quote
		if v.Expected != "" {
			r.Expected = v.Expected
		}
		if v.Actual != "" {
			r.Actual = v.Actual
		}
	}
	have := map[int64]bool{}
	for _, x := range r.Transcript {
		have[x.Seq] = true
	}
	for _, x := range result.TranscriptOf(v.Frames) {
		if !have[x.Seq] {
			r.Transcript = append(r.Transcript, x)
		}
	}
	slices.SortStableFunc(r.Transcript, func(a, b result.Exchange) int {
		switch {
		case a.Seq < b.Seq:
			return -1
		case a.Seq > b.Seq:
			return 1
		}
		return 0
	})
}
