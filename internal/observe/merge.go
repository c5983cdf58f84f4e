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
//
// One deviation, one verdict: a requirement whose sentence covers a general
// case (catalog.Narrower) is applied after the narrower ones, and the
// messages they judged (their results' evidence) are theirs alone: a
// violation left with no other offending message becomes a note. Then a
// check's own FAIL or WARN of the general requirement whose every evidence
// frame a narrower requirement judged becomes a PASS with a note naming it.
func Apply(results []result.Result, vs []Violation, revs []string) {
	vs = slices.Clone(vs)
	slices.SortStableFunc(vs, func(a, b Violation) int {
		return boolInt(len(catalog.Narrower(a.Requirement)) > 0) - boolInt(len(catalog.Narrower(b.Requirement)) > 0)
	})
	for _, v := range vs {
		idx := matching(results, v, revs)
		if narrow := catalog.Narrower(v.Requirement); len(narrow) > 0 && len(v.Offending) > 0 && !v.Head {
			claimed := claimedBy(results, narrow)
			var rest []int64
			for _, seq := range v.Offending {
				if claimed[seq] == "" {
					rest = append(rest, seq)
				}
			}
			if len(rest) == 0 {
				for _, i := range idx {
					results[i].Notes = append(results[i].Notes, fmt.Sprintf("note: run-wide, %s: judged under %s (one deviation, one verdict)", v.Describe(), claimed[v.Offending[0]]))
				}
				continue
			}
			v.Offending = rest
		}
		for _, i := range idx {
			apply(&results[i], v)
		}
	}
	yieldClaimed(results)
}

// yieldClaimed turns a FAIL or WARN whose every evidence frame a narrower
// requirement's FAIL or WARN claims into a PASS with a note naming it.
func yieldClaimed(results []result.Result) {
	for i := range results {
		r := &results[i]
		narrow := catalog.Narrower(r.Requirement)
		if len(narrow) == 0 || len(r.Evidence) == 0 || (r.Verdict != result.FAIL && r.Verdict != result.WARN) {
			continue
		}
		claimed := claimedBy(results, narrow)
		owner := ""
		for _, seq := range r.Evidence {
			if owner = claimed[seq]; owner == "" {
				break
			}
		}
		if owner == "" {
			continue
		}
		r.Notes = append(r.Notes, fmt.Sprintf("note: %s %s: the message is judged under %s (one deviation, one verdict)", r.Verdict, r.Message, owner))
		r.Verdict, r.Message, r.Expected, r.Actual, r.Evidence = result.PASS, "", "", "", nil
	}
}

// claimedBy maps each frame that is the evidence of a FAIL or WARN of one
// of ids to that requirement.
func claimedBy(results []result.Result, ids []string) map[int64]string {
	out := map[int64]string{}
	for _, r := range results {
		if (r.Verdict == result.FAIL || r.Verdict == result.WARN) && slices.Contains(ids, r.Requirement) {
			for _, seq := range r.Evidence {
				out[seq] = r.Requirement
			}
		}
	}
	return out
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
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
	if v.Head {
		r.HeadEvidence = append(r.HeadEvidence, v.Offending...)
	} else {
		r.Evidence = append(r.Evidence, v.Offending...)
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
