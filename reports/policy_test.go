package reports

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/internal/result"
)

// policyRun is a run where the call policy made checks NA.
func policyRun(policyNA, others int) *Report {
	var rs []Result
	for i := 0; i < policyNA; i++ {
		rs = append(rs, Result{Requirement: "TOOL-001", Area: "tools", Level: "MUST", Verdict: "NA", Transport: "stdio", Revision: "2025-11-25",
			Message: result.PolicyPrefix + `tool "refund" does not declare annotations.readOnlyHint true`})
	}
	for i := 0; i < others; i++ {
		rs = append(rs, Result{Requirement: "LIFE-001", Area: "lifecycle", Level: "MUST", Verdict: "PASS", Transport: "stdio", Revision: "2025-11-25"})
	}
	// NA for another reason, and a PASS whose message merely mentions the
	// policy: neither counts.
	rs = append(rs,
		Result{Requirement: "LIFE-006", Area: "lifecycle", Verdict: "NA", Message: "revision not supported"},
		Result{Requirement: "LIFE-002", Area: "lifecycle", Verdict: "PASS", Message: result.PolicyPrefix + "not an NA"})
	r := &Report{SchemaVersion: SchemaVersion, CallPolicy: "readonly", Target: Target{Transport: "stdio", Command: []string{"srv"}, Config: "ci/target.yaml"}, Results: rs}
	r.Summary = result.Summarize(rs, false)
	return r
}

func TestSummaryCountsPolicyNA(t *testing.T) {
	r := policyRun(3, 20)
	if r.Summary.PolicyNA != 3 || r.Summary.Counts["NA"] != 4 || r.Summary.Hollow {
		t.Fatalf("summary %+v", r.Summary)
	}
	// A hollow run says how much of the hollowness the policy caused.
	h := policyRun(6, 1)
	if !h.Summary.Hollow || !strings.Contains(h.Summary.HollowReason, "could not judge much of what the server declares") ||
		!strings.Contains(h.Summary.HollowReason, "6 check(s) NA because the call policy") || !strings.Contains(h.Summary.HollowReason, "against 2 that judged it") {
		t.Fatalf("hollow %+v", h.Summary)
	}
	if h := result.Summarize([]Result{{Verdict: "NA", Message: "revision not supported"}}, false); !h.Hollow || strings.Contains(h.HollowReason, "call policy") {
		t.Fatalf("hollow without policy NA: %+v", h)
	}
	// The baseline re-summarizes: the count survives.
	r.ApplyBaseline(&Baseline{Version: 1}, "b.yaml")
	if r.Summary.PolicyNA != 3 {
		t.Fatalf("after the baseline: %+v", r.Summary)
	}
}

func TestPolicyInEveryReport(t *testing.T) {
	r := policyRun(3, 10)

	var term bytes.Buffer
	Terminal(&term, r, nil)
	if !strings.Contains(term.String(), "call policy: readonly — 3 checks NA because they need tool calls the policy forbids") {
		t.Errorf("terminal:\n%s", term.String())
	}

	var md bytes.Buffer
	if err := RenderMarkdown(&md, r, MarkdownLinks{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "call policy: readonly — 3 checks NA because they need tool calls") {
		t.Errorf("summary.md:\n%s", md.String())
	}

	var page bytes.Buffer
	if err := RenderHTML(&page, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`id="policy-na"`, "3 checks were NA because they need tool calls the policy forbids", "call policy <strong>readonly</strong>", "ci/target.yaml"} {
		if !strings.Contains(page.String(), want) {
			t.Errorf("report.html lacks %q", want)
		}
	}

	dir := t.TempDir()
	if _, err := WriteJSON(dir, r); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(filepath.Join(dir, "report.json"))
	var m struct {
		SchemaVersion string `json:"schemaVersion"`
		CallPolicy    string `json:"callPolicy"`
		Target        struct {
			Config string `json:"config"`
		} `json:"target"`
		Summary map[string]any `json:"summary"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	if m.SchemaVersion != SchemaVersion || m.CallPolicy != "readonly" || m.Target.Config != "ci/target.yaml" || m.Summary["policyNA"] != 3.0 {
		t.Errorf("report.json: %+v", m)
	}

	// No NA from the policy: the policy is still named, the banner absent.
	clean := policyRun(0, 10)
	term.Reset()
	Terminal(&term, clean, nil)
	if !strings.Contains(term.String(), "call policy: readonly (no check was NA because of it)") {
		t.Errorf("terminal without policy NA:\n%s", term.String())
	}
	page.Reset()
	_ = RenderHTML(&page, clean)
	if strings.Contains(page.String(), `id="policy-na"`) {
		t.Errorf("a banner without policy NA")
	}
	// A report from before 1.2 (no callPolicy) says nothing about it.
	clean.CallPolicy = ""
	if PolicyLine(clean) != "" {
		t.Errorf("pre-1.2 report: %q", PolicyLine(clean))
	}
}
