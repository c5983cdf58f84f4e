package reports

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	junit "github.com/joshdk/go-junit"
	"github.com/onsi/ginkgo/v2/reporters"

	"github.com/mcpconform/mcpconform/internal/result"
	"github.com/mcpconform/mcpconform/internal/wire"
)

func TestJUnitCarriesVerdictsAndProperties(t *testing.T) {
	results := []Result{
		{Requirement: "LIFE-001", Revision: "2025-11-25", Verdict: "PASS", Level: "MUST", Area: "lifecycle", Transport: "stdio", Title: "t1", Source: "src"},
		{Requirement: "LIFE-002", Revision: "2025-11-25", Verdict: "FAIL", Level: "MUST", Area: "lifecycle", Transport: "stdio", Message: "echoed 1900-01-01", Expected: "a supported version", Actual: "1900-01-01"},
		{Requirement: "LIFE-004", Revision: "2025-11-25", Verdict: "WARN", Level: "SHOULD", Area: "lifecycle", Transport: "stdio", Message: "early notification"},
		{Requirement: "LIFE-006", Revision: "2026-07-28", Verdict: "NA", Level: "MUST", Area: "lifecycle", Transport: "stdio", Message: "revision not supported"},
		{Requirement: "RPC-001", Revision: "2025-11-25", Verdict: "ERROR", Level: "MUST", Area: "jsonrpc", Transport: "stdio", Message: "could not open a session"},
	}
	for _, strict := range []bool{false, true} {
		dir := t.TempDir()
		path, err := WriteJUnit(dir, &Report{Results: results, Summary: Summary{Strict: strict}})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(path)
		var suites reporters.JUnitTestSuites
		if err := xml.Unmarshal(b, &suites); err != nil {
			t.Fatalf("junit.xml does not parse: %v", err)
		}
		ts := suites.TestSuites[0]
		wantFailures := 1
		if strict {
			wantFailures = 2
		}
		if ts.Tests != 5 || ts.Failures != wantFailures || ts.Errors != 1 || ts.Skipped != 1 {
			t.Errorf("strict=%v: tests %d failures %d errors %d skipped %d", strict, ts.Tests, ts.Failures, ts.Errors, ts.Skipped)
		}
		tc := ts.TestCases[1]
		if tc.Properties.WithName("requirement") != "LIFE-002" || tc.Properties.WithName("level") != "MUST" ||
			tc.Properties.WithName("revision") != "2025-11-25" || tc.Properties.WithName("verdict") != "FAIL" {
			t.Errorf("properties %+v", tc.Properties)
		}
		if tc.Failure == nil || !strings.Contains(tc.Failure.Description, "expected: a supported version") {
			t.Errorf("failure %+v", tc.Failure)
		}
		if ts.TestCases[3].Skipped == nil || !strings.Contains(ts.TestCases[3].Skipped.Message, "revision not supported") {
			t.Errorf("NA must be a skip with its reason: %+v", ts.TestCases[3])
		}
	}
}

func TestSummaryGateAndHollow(t *testing.T) {
	rs := []Result{{Verdict: "PASS", Area: "a"}, {Verdict: "WARN", Area: "a"}, {Verdict: "NA", Area: "b"}}
	if s := result.Summarize(rs, false); !s.Passed || s.Hollow || s.Counts["WARN"] != 1 || s.ByArea["a"]["PASS"] != 1 {
		t.Errorf("%+v", s)
	}
	if s := result.Summarize(rs, true); s.Passed {
		t.Error("strict: WARN must fail the gate")
	}
	if s := result.Summarize(append(rs, Result{Verdict: "NA"}, Result{Verdict: "ERROR"}), false); !s.Hollow || s.Passed {
		t.Errorf("mostly NA/ERROR must be hollow and failing: %+v", s)
	}
	if s := result.Summarize(nil, false); !s.Hollow {
		t.Error("an empty run is hollow")
	}
}

// TestTranscriptKeepsRedactionAndEscapesBinary: frames come redacted from
// the recorder; invalid UTF-8 is kept readable and marked.
func TestTranscriptKeepsRedactionAndEscapesBinary(t *testing.T) {
	rec := wire.NewRecorder(wire.NewRedactor("s3cret-token"))
	rec.Record(wire.Frame{Conn: "stdio#1", Dir: wire.In, Raw: []byte(`{"echo":"s3cret-token"}`)})
	rec.Record(wire.Frame{Conn: "stdio#1", Dir: wire.In, Raw: []byte{'o', 'k', 0xff, 0xfe}})
	ts := result.TranscriptOf(rec.Since(0, 0))
	b, _ := json.Marshal(ts)
	if strings.Contains(string(b), "s3cret-token") {
		t.Fatal("secret in transcript")
	}
	if ts[1].Encoding != "go-quoted" || ts[1].Body != `ok\xff\xfe` {
		t.Errorf("binary body %q (%s)", ts[1].Body, ts[1].Encoding)
	}
	p, err := WriteJSON(t.TempDir(), &Report{SchemaVersion: SchemaVersion, Results: []Result{{Transcript: ts}}})
	if err != nil || filepath.Base(p) != "report.json" {
		t.Fatal(err)
	}
}

// TestJUnitReadByARealConsumer parses junit.xml with an independent JUnit
// reader (github.com/joshdk/go-junit, as used by CI tooling): totals and
// per-test statuses must match the verdicts, strict or not.
func TestJUnitReadByARealConsumer(t *testing.T) {
	results := []Result{
		{Requirement: "LIFE-001", Revision: "2025-11-25", Verdict: "PASS", Level: "MUST", Area: "lifecycle", Transport: "http"},
		{Requirement: "LIFE-002", Revision: "2025-11-25", Verdict: "FAIL", Level: "MUST", Area: "lifecycle", Transport: "http", Message: "m"},
		{Requirement: "LIFE-004", Revision: "2025-11-25", Verdict: "WARN", Level: "SHOULD", Area: "lifecycle", Transport: "http", Message: "w"},
		{Requirement: "LIFE-006", Revision: "2026-07-28", Verdict: "NA", Level: "MUST", Area: "lifecycle", Transport: "http", Message: "n"},
		{Requirement: "RPC-001", Revision: "2025-11-25", Verdict: "ERROR", Level: "MUST", Area: "jsonrpc", Transport: "http", Message: "e"},
		{Requirement: "RPC-002", Revision: "2025-11-25", Verdict: "FAIL", Level: "MUST", Area: "jsonrpc", Transport: "http", Message: "b", Baselined: true, BaselineReason: "known"},
	}
	for _, strict := range []bool{false, true} {
		rep := &Report{Results: results, Summary: Summary{Strict: strict}, Baseline: &BaselineSummary{File: "b.yaml", Stale: []string{"LIFE-016/http"}}}
		path, err := WriteJUnit(t.TempDir(), rep)
		if err != nil {
			t.Fatal(err)
		}
		suites, err := junit.IngestFile(path)
		if err != nil || len(suites) != 1 {
			t.Fatalf("go-junit cannot read junit.xml: %v", err)
		}
		got := suites[0].Totals
		// PASS, WARN(non-strict) pass; NA and baselined are skipped; FAIL, stale, WARN(strict) fail.
		want := junit.Totals{Tests: 7, Passed: 2, Skipped: 2, Failed: 2, Error: 1}
		if strict {
			want.Passed, want.Failed = 1, 3
		}
		got.Duration = 0
		if got != want {
			t.Errorf("strict=%v: totals %+v, want %+v", strict, got, want)
		}
		if tc := suites[0].Tests[1]; tc.Status != junit.StatusFailed || tc.Classname != "mcpconform.lifecycle" || !strings.HasPrefix(tc.Name, "LIFE-002 MUST") {
			t.Errorf("test as read: %+v", tc)
		}
	}
}

// Requirements of another revision are not checks of the run: they leave
// the counts, and hollowness is judged on the checks that apply.
func TestSummaryLeavesOutOtherRevisions(t *testing.T) {
	var rs []Result
	for i := 0; i < 10; i++ {
		rs = append(rs, Result{Requirement: "LIFE-006", Area: "lifecycle", Verdict: "NA", Message: result.OtherRevisionPrefix + "2026-07-28; this run covers 2025-11-25"})
	}
	rs = append(rs, Result{Requirement: "LIFE-001", Area: "lifecycle", Verdict: "PASS"}, Result{Requirement: "TOOL-002", Area: "tools", Verdict: "NA", Message: "tools declared"},
		Result{Requirement: "LIFE-002", Area: "lifecycle", Verdict: "PASS"})
	s := result.Summarize(rs, false)
	if s.Hollow || s.Total != 3 || s.OtherRevision != 10 || s.Counts["NA"] != 1 || s.ByArea["lifecycle"]["NA"] != 0 {
		t.Fatalf("summary %+v", s)
	}
	// A check that is NA because the server does not declare what it
	// needs did not fail to judge: the run is not hollow for it.
	if s := result.Summarize(append(rs, Result{Verdict: "NA", Message: "no tools"}, Result{Verdict: "NA", Message: "no prompts"}), false); s.Hollow {
		t.Fatalf("3 of 5 checks NA for undeclared capabilities: want not hollow, got %+v", s)
	}
	// ERRORs and an era the detection could not reach are checks that
	// could not judge.
	unreached := Result{Requirement: "LIFE-006", Verdict: "NA", Message: result.OtherRevisionPrefix + "2026-07-28; this run covers 2025-11-25 (2026-07-28: no answer to server/discover)"}
	if s := result.Summarize(append(rs, unreached, Result{Verdict: "ERROR", Message: "could not open a session"}), false); !s.Hollow ||
		!strings.Contains(s.HollowReason, "1 check(s) ERROR") || !strings.Contains(s.HollowReason, "1 check(s) of a revision the era detection could not reach") {
		t.Fatalf("ERROR and an unreached era: want hollow, got %+v", s)
	}
}

// TestEncodeJSONMatchesMarshalIndent: report.json, written one result at a
// time, is byte for byte what json.MarshalIndent writes.
func TestEncodeJSONMatchesMarshalIndent(t *testing.T) {
	for _, r := range []*Report{htmlHostileReport(false, false), htmlHostileReport(true, true), {SchemaVersion: SchemaVersion}, {Results: []Result{}}} {
		want, err := json.MarshalIndent(r, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := EncodeJSON(&got, r); err != nil {
			t.Fatal(err)
		}
		if got.String() != string(want)+"\n" {
			t.Errorf("EncodeJSON differs from MarshalIndent:\n%s\nwant\n%s", got.String(), want)
		}
	}
}

// TestIndentCompactMatchesIndent: indentCompact indents json.Marshal's
// output as json.Indent does, on values with nesting, empty containers and
// strings holding brackets, quotes and backslashes.
func TestIndentCompactMatchesIndent(t *testing.T) {
	values := []any{
		nil, 1.5, "x", []any{}, map[string]any{},
		map[string]any{"a": []any{}, "b": map[string]any{}, "c": []any{1, []any{2, map[string]any{"d": nil}}}},
		[]any{`{"[,:]}`, `\`, `\"`, `\\"`, "\"\\\\", "<&>\u2028", map[string]any{`k"\`: `v\\`}},
		htmlHostileReport(true, true),
	}
	for _, v := range values {
		src, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		var want bytes.Buffer
		if err := json.Indent(&want, src, "    ", "  "); err != nil {
			t.Fatal(err)
		}
		if got := indentCompact(nil, src, "    ", "  "); string(got) != want.String() {
			t.Errorf("indentCompact(%s):\n%s\nwant\n%s", src, got, want.String())
		}
	}
}
