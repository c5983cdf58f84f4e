package fuzz

import (
	"context"
	"fmt"
	"time"

	"pgregory.net/rapid"

	"github.com/mcpconform/mcpconform/internal/rapidrun"
)

// The search: rapid run from a main binary, one property
// at a time, with the flaky-failure loop.

// failFunc reports a case's problems: those with a signature not yet
// known end the case as a finding (rapid then shrinks it).
type failFunc func(t *rapid.T, probs []problem, transcript []string, msgs [][]byte, steps []Step)

// caseFunc runs one case of a property.
type caseFunc func(ctx context.Context, t *rapid.T, fail failFunc)

// msgCase is the case of a message property: generate, exchange, judge.
func (h *harness) msgCase(gen func(*rapid.T) [][]byte) caseFunc {
	return func(ctx context.Context, t *rapid.T, fail failFunc) {
		msgs := gen(t)
		ps, transcript := h.exchange(ctx, msgs)
		fail(t, ps, transcript, msgs, nil)
	}
}

// check runs one property with rapid until it fails with a signature not
// in known, the checks are done, or the deadline passes (shrinking goes on
// for up to shrink more, never past end). It returns the
// shrunk finding (nil: none) and the number of cases run.
//
// rapid shrinks a failure only after running the failing case again; a
// failure that depends on timing (a concurrency defect on a loaded
// machine) may not show the second time, or show as another defect, and
// rapid then gives up at once. Its case is then replayed directly
// (rerun.go: up to maxReruns re-runs in all, within the campaign's
// budget); a failure that shows again in any of them is confirmed, with
// that rate, and reported as found, unshrunk and marked Flaky. One that
// shows in none is searched for again from the same seed, so that the same
// case comes up after the same earlier cases (maxFlakyRuns searches in
// all, within the deadline); when none of them reproduces it, the finding
// is reported unshrunk, marked Flaky, unconfirmed. A failure rapid did
// reproduce is shrunk, and its minimal case replayed to the same count
// within the property's own time, for its rate.
func (h *harness) check(ctx context.Context, prop string, body caseFunc, seed uint64, checks int, deadline, end time.Time, shrink time.Duration, known map[string]bool) (*Finding, int) {
	if shrink <= 0 {
		shrink = max(time.Second, min(20*time.Second, time.Until(deadline)/2))
	}
	// rapid checks its shrink budget between steps only, and a state
	// machine's step can take seconds: past the deadline plus the shrink
	// budget every case passes at once, so the property ends on time.
	hard := deadline.Add(shrink)
	if hard.After(end) {
		hard = end // the campaign's own budget
	}
	var flaky *Finding
	cases := 0
	reruns, shown := 0, 0 // of flaky's failure, over the searches so far
	for run := 0; run < maxFlakyRuns; run++ {
		f, n, unsure, until := h.checkOnce(ctx, prop, body, seed, checks, deadline, hard, end, shrink, known)
		cases += n
		if f == nil {
			break
		}
		if flaky != nil && flaky.Signature() != f.Signature() {
			reruns, shown = 0, 0 // another failure came up first this time
		}
		reruns++ // rapid's confirming re-run
		if !unsure {
			r, s := h.rerun(ctx, f, maxReruns-1, until)
			f.Reruns, f.Reproduced = reruns+r, shown+1+s
			return f, cases + r
		}
		f.Flaky = true
		r, s := h.rerun(ctx, f, maxReruns-1, end)
		cases += r
		reruns, shown = reruns+r, shown+s
		f.Reruns, f.Reproduced = reruns, shown
		flaky = f
		if shown > 0 || ctx.Err() != nil || time.Now().After(deadline) {
			break
		}
	}
	return flaky, cases
}

// maxFlakyRuns bounds the searches of a property whose failure rapid could
// not reproduce.
const maxFlakyRuns = 3

// checkOnce is one rapid search of check: the finding (nil: none), the
// cases run, and whether rapid could not reproduce the failure, or the
// re-run showed another defect (the finding is then the case as first
// found, not shrunk).
//
// A failure found near the property's deadline still gets its confirming
// re-run: the budget is extended, within the campaign's (end), to twice
// the longest case so far past the moment it was found. The last return
// is that budget, the time the finding's own re-runs may take.
//
// A case that shows several defects reports the first failure's when it
// shows among them (a re-run or a shrink step may list them in another
// order: rapid would take that for another failure), else the first
// unknown one.
func (h *harness) checkOnce(ctx context.Context, prop string, body caseFunc, seed uint64, checks int, deadline, hard, end time.Time, shrink time.Duration, known map[string]bool) (*Finding, int, bool, time.Time) {
	var first, last *Finding // the failure as first found; the last one (shrunk)
	cases := 0
	var longest time.Duration // the longest case so far
	var caseStart time.Time
	tb := &rapidrun.TB{Label: "mcpconform-fuzz-" + prop}
	fail := func(rt *rapid.T, ps []problem, transcript []string, msgs [][]byte, steps []Step) {
		pick := -1
		for i, p := range ps {
			sig := prop + "/" + p.Layer + "/" + p.Code
			if known[sig] {
				continue
			}
			if pick < 0 {
				pick = i
			}
			if first != nil && sig == first.Signature() {
				pick = i
				break
			}
		}
		if pick >= 0 {
			p := ps[pick]
			// Server text quoted in a finding goes through the run's
			// redactor like every report (the frames already did).
			red := h.tg.Recorder.Redactor()
			f := Finding{Property: prop, Layer: p.Layer, Code: p.Code, Detail: red.String(p.Detail),
				Revision: string(h.rev), Transport: h.tg.Transport(), Transcript: clipLines(transcript),
				rule: ruleFor(prop, h.tg.Transport(), h.probe, p, msgs, steps)}
			for _, m := range msgs {
				f.Messages = append(f.Messages, RawOf(m))
			}
			f.Steps = append([]Step(nil), steps...)
			last = &f
			if first == nil {
				first = last
				confirm := time.Now().Add(2*max(longest, time.Since(caseStart)) + time.Second)
				if confirm.After(end) {
					confirm = end
				}
				if confirm.After(hard) {
					hard = confirm
				}
			}
			// rapid reproduces and shrinks a failure only while the error
			// string stays the same: the signature, not the detail (ids,
			// which of two crossed responses came first, the server's
			// bytes), or shrinking stops at once.
			rt.Fatalf("%s", f.Signature())
		}
	}
	rapidrun.Check(rapidrun.Options{Checks: checks, Seed: seed, ShrinkTime: shrink, Steps: seqSteps}, tb, func(rt *rapid.T) {
		now := time.Now()
		if ctx.Err() != nil || (last == nil && now.After(deadline)) || now.After(hard) {
			return // out of budget: the remaining checks (or shrink steps) pass at once
		}
		cases++
		h.cases.Add(1)
		caseStart = now
		defer func() { longest = max(longest, time.Since(now)) }()
		body(ctx, rt, fail)
	})
	if first != nil && (tb.Flaky() || tb.Reported() != "" && tb.Reported() != first.Signature()) {
		return first, cases, true, hard
	}
	return last, cases, false, hard
}

// clipLines keeps the last maxTranscript lines of a long transcript.
func clipLines(lines []string) []string {
	if len(lines) <= maxTranscript {
		return lines
	}
	return append([]string{fmt.Sprintf("… %d earlier lines", len(lines)-maxTranscript)}, lines[len(lines)-maxTranscript:]...)
}
