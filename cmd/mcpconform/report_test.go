package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/internal/result"
	"github.com/mcpconform/mcpconform/reports"
)

// TestReportRerendersFromJSON: `mcpconform report` rewrites a run's
// report.html from report.json alone (transcripts included, as the page's
// data block), writes one page elsewhere with --html, and a matrix page for
// several runs that links into each run's page.
func TestReportRerendersFromJSON(t *testing.T) {
	root := t.TempDir()
	t0 := time.Date(2026, 7, 28, 10, 0, 0, 0, time.UTC)
	mk := func(name string, verdict reports.Verdict) string {
		dir := filepath.Join(root, name)
		r := &reports.Report{SchemaVersion: reports.SchemaVersion, Tool: reports.Tool{Name: "mcpconform", Version: "test"},
			Target: reports.Target{Transport: "stdio", Command: []string{"srv"}}, StartedAt: t0,
			Results: []reports.Result{{Requirement: "LIFE-001", Title: "initialize", Area: "lifecycle", Level: "MUST", Verdict: verdict,
				Transport: "stdio", Revision: "2025-11-25", Transcript: []reports.Exchange{
					{Seq: 1, Time: t0, Conn: "stdio#1", Direction: "send", Kind: "message", Body: `{"jsonrpc":"2.0","id":1,"method":"initialize"}`},
					{Seq: 2, Time: t0, Conn: "stdio#1", Direction: "recv", Kind: "message", Body: `{"jsonrpc":"2.0","id":1,"result":{"marker":"transcript-body-marker"}}`}}}}}
		r.Summary = result.Summarize(r.Results, false)
		if _, err := reports.WriteJSON(dir, r); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	a, b := mk("a", "PASS"), mk("b", "FAIL")
	page := func(path string) string {
		t.Helper()
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		s := string(raw)
		if !strings.Contains(s, `id="tx-data"`) || !strings.Contains(s, "transcript-body-marker") || !strings.Contains(s, `data-tx="0-2"`) {
			t.Errorf("%s: no transcript data or reference", path)
		}
		return s
	}
	if _, stderr, code, _ := cli(t, nil, "report", a); code != 0 {
		t.Fatalf("report %s: exit %d: %s", a, code, stderr)
	}
	page(filepath.Join(a, "report.html"))
	one := filepath.Join(root, "one.html")
	if _, stderr, code, _ := cli(t, nil, "report", "--html", one, b); code != 0 {
		t.Fatalf("report --html: exit %d: %s", code, stderr)
	}
	page(one)
	matrix := filepath.Join(root, "matrix.html")
	if _, stderr, code, _ := cli(t, nil, "report", "--html", matrix, "first="+a, "second="+b); code != 0 {
		t.Fatalf("matrix: exit %d: %s", code, stderr)
	}
	raw, err := os.ReadFile(matrix)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`href="a/report.html#LIFE-001--2025-11-25"`, `href="b/report.html#LIFE-001--2025-11-25"`, "first", "second"} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("matrix lacks %s", want)
		}
	}
	page(filepath.Join(b, "report.html")) // rendered for the matrix's link
}
