package main

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/fuzz"
	"github.com/mcpconform/mcpconform/internal/catalog"
	"github.com/mcpconform/mcpconform/internal/result"
)

// fuzzReport renders a campaign in the run's result model: one result per
// requirement the campaign touched, in the suite's vocabulary. A
// requirement some finding names gets the worst verdict of its findings
// (FAIL for a MUST, a crash or a hang; WARN for a SHOULD or an unconfirmed
// finding), each finding a note; one the properties that ran exercised
// without a finding is PASS; one only skipped properties exercise is NA.
func fuzzReport(transport, describe, pol string, res *fuzz.Result, started time.Time, strict bool) *result.Report {
	rep := &result.Report{
		SchemaVersion: result.SchemaVersion,
		Tool:          result.Tool{Name: "mcpconform fuzz", Version: toolVersion()},
		Target:        result.Target{Transport: transport},
		CallPolicy:    pol,
		Revision:      string(res.Revision),
		Revisions:     []string{string(res.Revision)},
		StartedAt:     started,
		DurationMs:    res.Elapsed.Milliseconds(),
	}
	if transport == "http" {
		rep.Target.URL = describe
	} else {
		rep.Target.Command = strings.Fields(describe)
	}
	rev := res.Revision
	byReq := map[string]*result.Result{}
	resultOf := func(id string) *result.Result {
		if r := byReq[id]; r != nil {
			return r
		}
		r := &result.Result{Requirement: id, Title: "fuzzer harness", Area: "fuzz", Level: "MUST", Verdict: result.PASS, Transport: transport, Revision: string(rev)}
		if req, ok := catalog.Get(id); ok {
			r.Describe(req)
			r.Level = string(req.LevelFor(rev))
		}
		byReq[id] = r
		return r
	}
	skipped := map[string]string{}
	for _, s := range res.Skipped {
		p, why, _ := strings.Cut(s, ": ")
		skipped[p] = why
	}
	for _, p := range fuzz.Properties() {
		for _, id := range fuzz.Exercised(p) {
			if req, ok := catalog.Get(id); !ok || !req.AppliesTo(rev, transport) {
				continue
			}
			if why, skip := skipped[p]; skip {
				if byReq[id] == nil {
					r := resultOf(id)
					r.Verdict, r.Message = result.NA, "property "+p+" skipped: "+why
				}
				continue
			}
			if res.PerProperty[p] == 0 {
				continue // not selected (or no time left)
			}
			r := resultOf(id)
			if r.Verdict == result.NA {
				r.Verdict, r.Message = result.PASS, ""
			}
			r.Notes = append(r.Notes, fmt.Sprintf("note: property %s: %d cases, no counterexample", p, res.PerProperty[p]))
		}
	}
	for _, f := range res.Findings {
		id := f.Requirement
		if id == "" {
			id = "FUZZ-HARNESS"
		}
		r := resultOf(id)
		unconfirmed := ""
		if f.Unconfirmed {
			unconfirmed = ", unconfirmed"
		}
		line := fmt.Sprintf("%s (%s %s%s): %s (replay: %s)", f.Signature(), f.Verdict, f.Level, unconfirmed, f.Detail, f.File)
		if f.Note != "" {
			line += " [" + f.Note + "]"
		}
		r.Notes = append(r.Notes, line)
		v, ok := result.ParseVerdict(f.Verdict)
		if !ok {
			v = result.ERROR
		}
		if v.Worse(r.Verdict) {
			r.Verdict, r.Message, r.Actual = v, f.Detail, strings.Join(f.Transcript, "\n")
		}
	}
	for _, r := range byReq {
		rep.Results = append(rep.Results, *r)
	}
	sort.Slice(rep.Results, func(i, j int) bool { return catalog.Less(rep.Results[i].Requirement, rep.Results[j].Requirement) })
	result.CiteTolerances(rep.Results)
	rep.Summary = result.Summarize(rep.Results, strict)
	return rep
}
