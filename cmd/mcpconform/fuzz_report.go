package main

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/fuzz"
	"github.com/mcpconform/mcpconform/internal/catalog"
	"github.com/mcpconform/mcpconform/reports"
	"github.com/onsi/ginkgo/v2/types"
)

// fuzzReport renders a campaign in the run's result model: one result per
// requirement the campaign touched, in the suite's vocabulary. A
// requirement some finding names gets the worst verdict of its findings
// (FAIL for a MUST, a crash or a hang; WARN for a SHOULD or an unconfirmed
// finding), each finding a note; one the properties that ran exercised
// without a finding is PASS; one only skipped properties exercise is NA.
func fuzzReport(transport, describe, pol string, res *fuzz.Result, started time.Time, strict bool) *reports.Report {
	rep := &reports.Report{
		SchemaVersion: reports.SchemaVersion,
		Tool:          reports.Tool{Name: "mcpconform fuzz", Version: toolVersion()},
		Target:        reports.Target{Transport: transport},
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
	byReq := map[string]*reports.Result{}
	result := func(id string) *reports.Result {
		if r := byReq[id]; r != nil {
			return r
		}
		r := &reports.Result{Requirement: id, Title: "fuzzer harness", Area: "fuzz", Level: "MUST", Verdict: "PASS", Transport: transport, Revision: string(rev)}
		if req, ok := catalog.Get(id); ok {
			r.Title, r.Area, r.Level, r.Statement, r.Source = req.Title, req.Area(), string(req.LevelFor(rev)), req.Statement, req.Source
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
					r := result(id)
					r.Verdict, r.Message = "NA", "property "+p+" skipped: "+why
				}
				continue
			}
			if res.PerProperty[p] == 0 {
				continue // not selected (or no time left)
			}
			r := result(id)
			if r.Verdict == "NA" {
				r.Verdict, r.Message = "PASS", ""
			}
			r.Notes = append(r.Notes, fmt.Sprintf("note: property %s: %d cases, no counterexample", p, res.PerProperty[p]))
		}
	}
	for _, f := range res.Findings {
		id := f.Requirement
		if id == "" {
			id = "FUZZ-HARNESS"
		}
		r := result(id)
		unconfirmed := ""
		if f.Unconfirmed {
			unconfirmed = ", unconfirmed"
		}
		line := fmt.Sprintf("%s (%s %s%s): %s (replay: %s)", f.Signature(), f.Verdict, f.Level, unconfirmed, f.Detail, f.File)
		if f.Note != "" {
			line += " [" + f.Note + "]"
		}
		r.Notes = append(r.Notes, line)
		if rank(f.Verdict) > rank(r.Verdict) {
			r.Verdict, r.Message, r.Actual = f.Verdict, f.Detail, strings.Join(f.Transcript, "\n")
		}
	}
	for _, r := range byReq {
		rep.Results = append(rep.Results, *r)
	}
	sort.Slice(rep.Results, func(i, j int) bool { return catalog.Less(rep.Results[i].Requirement, rep.Results[j].Requirement) })
	rep.Summary = reports.Summarize(rep.Results, strict)
	return rep
}

func rank(v string) int {
	switch v {
	case "ERROR":
		return 4
	case "FAIL":
		return 3
	case "WARN":
		return 2
	case "PASS":
		return 1
	}
	return 0
}

// fuzzGinkgoReport gives a campaign's results the shape of a Ginkgo run
// (one It per requirement, labelled like the suite's checks), so that
// junit.xml is written by the same reporter as run's.
func fuzzGinkgoReport(rep *reports.Report, started time.Time) types.Report {
	end := started.Add(time.Duration(rep.DurationMs) * time.Millisecond)
	gr := types.Report{SuitePath: "mcpconform fuzz", SuiteDescription: "mcpconform fuzz", SuiteSucceeded: rep.Summary.Passed,
		StartTime: started, EndTime: end, RunTime: end.Sub(started)}
	for _, r := range rep.Results {
		sr := types.SpecReport{LeafNodeType: types.NodeTypeIt, LeafNodeText: r.Requirement + " " + r.Title,
			LeafNodeLabels: []string{"req:" + r.Requirement, "level:" + r.Level, "rev:" + r.Revision, "area:" + r.Area}, State: types.SpecStatePassed,
			StartTime: started, EndTime: end, RunTime: end.Sub(started)}
		switch r.Verdict {
		case "FAIL", "ERROR":
			sr.State, sr.Failure = types.SpecStateFailed, types.Failure{Message: r.Message}
		case "NA":
			sr.State = types.SpecStateSkipped
		}
		gr.SpecReports = append(gr.SpecReports, sr)
	}
	return gr
}
