package reports

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/mcpconform/mcpconform/internal/result"
)

// Terminal writes the end-of-run summary: counts per verdict and per area,
// each FAIL/ERROR (and WARN) with id, expected and actual, the hollow-run
// warning, and where the reports are.
func Terminal(w io.Writer, r *Report, files []string) {
	s := r.Summary
	fmt.Fprintf(w, "\nmcpconform %s — %s over %s, revisions %s\n", r.Tool.Version, targetText(r.Target), r.Target.Transport, strings.Join(r.Revisions, ", "))
	if len(r.ServerInfo) > 0 {
		var info struct{ Name, Version string }
		_ = json.Unmarshal(r.ServerInfo, &info)
		fmt.Fprintf(w, "server: %q version %q\n", oneLine(info.Name, 80), oneLine(info.Version, 40))
	}
	var problems []Result
	for _, res := range r.Results {
		if res.Verdict.Problem() {
			problems = append(problems, res)
		}
	}
	if len(problems) > 0 {
		fmt.Fprintf(w, "\n")
		for _, p := range problems {
			tag := ""
			if p.Baselined {
				tag = " (baselined)"
			}
			fmt.Fprintf(w, "%-5s %s [%s %s %s] %s%s\n", p.Verdict, p.Requirement, p.Level, p.Revision, p.Transport, p.Title, tag)
			if p.Message != "" {
				fmt.Fprintf(w, "      %s\n", oneLine(p.Message, 300))
			}
			if p.Expected != "" {
				fmt.Fprintf(w, "      expected: %s\n", oneLine(p.Expected, 300))
			}
			if p.Actual != "" {
				fmt.Fprintf(w, "      actual:   %s\n", oneLine(p.Actual, 300))
			}
			for _, n := range p.Notes {
				fmt.Fprintf(w, "      %s\n", oneLine(n, 300))
			}
			if l := specLine(p); l != "" {
				fmt.Fprintf(w, "      %s\n", l)
			}
		}
	}
	fmt.Fprintf(w, "\nby area:\n")
	for _, area := range Areas(r.Results) {
		fmt.Fprintf(w, "  %-16s %s\n", area, countsText(s.ByArea[area]))
	}
	fmt.Fprintf(w, "total: %d checks — %s\n", s.Total, countsText(s.Counts))
	if s.Judgments > 0 {
		fmt.Fprintf(w, "judgments: %d (a client requirement judged on one scenario run's traffic)\n", s.Judgments)
	}
	if s.OtherRevision > 0 {
		fmt.Fprintf(w, "not counted: %d requirements of another revision than this run covers (NA)\n", s.OtherRevision)
	}
	if line := PolicyLine(r); line != "" {
		fmt.Fprintf(w, "%s\n", line)
	}
	if line := PerformanceLine(r); line != "" {
		fmt.Fprintf(w, "%s\n", line)
	}
	if line := BackoffLine(r); line != "" {
		fmt.Fprintf(w, "%s\n", line)
	}
	if s.Hollow {
		fmt.Fprintf(w, "WARNING: hollow run — %s\n", s.HollowReason)
	}
	if r.Interrupted {
		fmt.Fprintf(w, "INTERRUPTED: the run was stopped; the reports hold the checks that finished\n")
	}
	TerminalBaseline(w, r)
	if r.Contract != nil {
		fmt.Fprintln(w)
		ContractText(w, r.Contract)
	}
	verdict := "PASSED"
	if !s.Passed {
		verdict = "FAILED"
	}
	strict := ""
	if s.Strict {
		strict = " (strict: WARN fails)"
	}
	fmt.Fprintf(w, "result: %s%s\n", verdict, strict)
	if len(files) > 0 {
		fmt.Fprintf(w, "reports: %s\n", strings.Join(files, ", "))
	}
}

// specLine is the line that sends a reader of a verdict to the sentences it
// rests on: the requirement's first link, then the tolerances it invokes.
func specLine(r Result) string {
	var parts []string
	if len(r.Links) > 0 {
		parts = append(parts, "spec: "+r.Links[0])
	} else if r.Source != "" {
		parts = append(parts, "spec: "+r.Source)
	}
	for _, t := range r.Tolerances {
		s := "tolerance " + t.ID
		if len(t.Links) > 0 {
			s += " " + t.Links[0]
		}
		parts = append(parts, s)
	}
	return oneLine(strings.Join(parts, " · "), 400)
}

// PolicyLine says which call policy the run used and how many checks were
// NA because of it ("" when the report knows neither).
func PolicyLine(r *Report) string {
	n := r.Summary.PolicyNA
	if r.Summary.Counts == nil { // a report built by hand
		n = result.Summarize(r.Results, r.Summary.Strict).PolicyNA
	}
	pol := oneLine(r.CallPolicy, 20)
	switch {
	case pol == "" && n == 0:
		return ""
	case pol == "":
		return fmt.Sprintf("call policy: %d %s NA because the call policy forbade the tool calls %s", n, plural(n, "check", "checks"), plural(n, "it needs", "they need"))
	case n == 0:
		return fmt.Sprintf("call policy: %s (no check was NA because of it)", pol)
	}
	return fmt.Sprintf("call policy: %s — %d %s NA because %s tool calls the policy forbids (--call-tools, CONFIG.md)", pol, n, plural(n, "check", "checks"), plural(n, "it needs", "they need"))
}

func targetText(t Target) string {
	if t.URL != "" {
		return t.URL
	}
	return strings.Join(t.Command, " ")
}

func countsText(c Counts) string {
	var parts []string
	for _, v := range result.Verdicts {
		if n := c[v]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, v))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

func oneLine(s string, n int) string {
	s = strings.ReplaceAll(s, "\n", " ⏎ ")
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
