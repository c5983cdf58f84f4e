package reports

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/internal/result"
)

// TestWriteOneEntryPoint: every format registers itself (sarif.go like the
// others) and Write writes what is selected, in registration order, the
// default set when none is, and the terminal summary naming the files.
func TestWriteOneEntryPoint(t *testing.T) {
	if got, want := Formats(), []string{"json", "sarif", "junit", "html", "md"}; !slices.Equal(got, want) {
		t.Fatalf("formats %v, want %v", got, want)
	}
	if d := DefaultFormats(); len(d) != 4 || d["sarif"] {
		t.Fatalf("default formats %v: sarif is opt-in", d)
	}
	rep := &Report{SchemaVersion: SchemaVersion, Tool: Tool{Name: "mcpconform", Version: "test"}, Target: Target{Transport: "stdio", Command: []string{"srv"}},
		Results: []Result{{Requirement: "LIFE-001", Level: "MUST", Verdict: result.FAIL, Revision: "2025-11-25", Transport: "stdio", Area: "lifecycle", Message: "m",
			Log: "STEP: the steps of the failed check"}}}
	rep.Summary = result.Summarize(rep.Results, false)

	dir := t.TempDir()
	var term, errs bytes.Buffer
	files := Write(rep, Options{Dir: dir, Terminal: &term, Errors: &errs})
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f))
	}
	if want := []string{"report.json", "junit.xml", "report.html", "summary.md"}; !slices.Equal(names, want) || errs.Len() > 0 {
		t.Fatalf("default: wrote %v (%s), want %v", names, errs.String(), want)
	}
	if !strings.Contains(term.String(), "result: FAILED") || !strings.Contains(term.String(), "reports: "+strings.Join(files, ", ")) {
		t.Errorf("terminal:\n%s", term.String())
	}
	md, _ := os.ReadFile(filepath.Join(dir, "summary.md"))
	for _, link := range []string{"report.html", "junit.xml", "report.json"} {
		if !strings.Contains(string(md), link) {
			t.Errorf("summary.md does not link %s:\n%s", link, md)
		}
	}
	junit, _ := os.ReadFile(filepath.Join(dir, "junit.xml"))
	if !strings.Contains(string(junit), "<system-err>STEP: the steps of the failed check</system-err>") {
		t.Errorf("junit.xml lacks the failed check's log:\n%s", junit)
	}

	dir = t.TempDir()
	files = Write(rep, Options{Dir: dir, Formats: map[string]bool{"sarif": true, "md": true, "nosuch": true}})
	if len(files) != 2 || filepath.Base(files[0]) != "sarif.json" || filepath.Base(files[1]) != "summary.md" {
		t.Fatalf("selected: wrote %v", files)
	}
	md, _ = os.ReadFile(filepath.Join(dir, "summary.md"))
	if strings.Contains(string(md), "junit.xml") || strings.Contains(string(md), "report.html") {
		t.Errorf("summary.md links files that were not written:\n%s", md)
	}
	if files := Write(rep, Options{}); files != nil {
		t.Errorf("no directory: wrote %v", files)
	}
}
