package reports

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/internal/result"
)

const validBaseline = `# mcpconform baseline: known failures that do not fail the run
version: 1
entries:
  - requirement: LIFE-010
    reason: "SDK answers unsupported versions with a plain-text 400 (upstream issue #123)"
  - requirement: RPC-007
    transport: http          # optional: only this transport
    revision: "2025-11-25"   # optional: only this revision
    reason: known
  - requirement: RPC-007
    transport: stdio
    revision: 2025-06-18
    reason: &r shared reason
  - requirement: HTTP-003
    reason: *r
`

func writeTempBaseline(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "baseline.yaml")
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadBaselineValid(t *testing.T) {
	b, err := result.LoadBaseline(writeTempBaseline(t, validBaseline))
	if err != nil {
		t.Fatal(err)
	}
	want := []BaselineEntry{
		{Requirement: "LIFE-010", Reason: "SDK answers unsupported versions with a plain-text 400 (upstream issue #123)", Line: 4},
		{Requirement: "RPC-007", Transport: "http", Revision: "2025-11-25", Reason: "known", Line: 6},
		{Requirement: "RPC-007", Transport: "stdio", Revision: "2025-06-18", Reason: "shared reason", Line: 10},
		{Requirement: "HTTP-003", Reason: "shared reason", Line: 14},
	}
	if b.Version != 1 || !reflect.DeepEqual(b.Entries, want) {
		t.Errorf("got %+v", b)
	}
	for _, empty := range []string{"version: 1\n", "version: 1\nentries: []\n", "version: 1\nentries:\n"} {
		b, err := result.ParseBaseline([]byte(empty), "b.yaml")
		if err != nil || len(b.Entries) != 0 {
			t.Errorf("%q: %v %+v", empty, err, b)
		}
	}
}

func TestLoadBaselineErrors(t *testing.T) {
	entry := func(s string) string { return "version: 1\nentries:\n" + s }
	cases := []struct{ name, in, want string }{
		{"empty", "", "empty baseline"},
		{"comments only", "# nothing\n", "empty baseline"},
		{"syntax", "version: 1\nentries: [\n", "line"},
		{"not a mapping", "- a\n- b\n", "b.yaml:1: a baseline is a mapping"},
		{"unknown top field", "version: 1\nentrys: []\n", `b.yaml:2: unknown field "entrys"`},
		{"missing version", "entries: []\n", "b.yaml:1: 'version: 1' is required"},
		{"version 2", "version: 2\nentries: []\n", `b.yaml:1: unsupported baseline version "2"`},
		{"version 1.0", "version: 1.0\n", `unsupported baseline version "1.0"`},
		{"version twice", "version: 1\nversion: 1\n", `b.yaml:2: field "version" given twice (first at line 1)`},
		{"entries not a list", "version: 1\nentries: {}\n", "b.yaml:2: 'entries' must be a list"},
		{"entry not a mapping", entry("  - LIFE-010\n"), "b.yaml:3: each entry is a mapping"},
		{"unknown entry field", entry("  - requirement: LIFE-010\n    reason: x\n    severity: low\n"), `b.yaml:5: unknown field "severity"`},
		{"missing requirement", entry("  - reason: x\n"), "b.yaml:3: entry without 'requirement'"},
		{"null requirement", entry("  - requirement:\n    reason: x\n"), "b.yaml:3: entry without 'requirement'"},
		{"bad id", entry("  - requirement: life-10\n    reason: x\n"), `b.yaml:3: requirement "life-10" is not a requirement id`},
		{"id not a string", entry("  - requirement: [LIFE-010]\n    reason: x\n"), "b.yaml:3: requirement must be a string"},
		{"missing reason", entry("  - requirement: LIFE-010\n"), "b.yaml:3: LIFE-010: 'reason' is required"},
		{"blank reason", entry("  - requirement: LIFE-010\n    reason: \"  \"\n"), "b.yaml:4: LIFE-010: 'reason' is required"},
		{"bad transport", entry("  - requirement: LIFE-010\n    transport: sse\n    reason: x\n"), `b.yaml:4: LIFE-010: transport "sse"`},
		{"bad revision", entry("  - requirement: LIFE-010\n    revision: latest\n    reason: x\n"), `b.yaml:4: LIFE-010: revision "latest"`},
		{"impossible date", entry("  - requirement: LIFE-010\n    revision: \"2025-13-45\"\n    reason: x\n"), `revision "2025-13-45"`},
		{"duplicate", entry("  - requirement: LIFE-010\n    reason: x\n  - requirement: LIFE-010\n    reason: y\n"),
			"b.yaml:5: duplicate entry LIFE-010: the entry at line 3 (LIFE-010) already covers it"},
		{"redundant narrower", entry("  - requirement: LIFE-010\n    reason: x\n  - requirement: LIFE-010\n    transport: http\n    reason: y\n"),
			"b.yaml:5: duplicate entry LIFE-010/http: the entry at line 3 (LIFE-010) already covers it"},
		{"redundant wider", entry("  - requirement: LIFE-010\n    revision: \"2025-11-25\"\n    reason: x\n  - requirement: LIFE-010\n    reason: y\n"),
			"b.yaml:6: duplicate entry LIFE-010: it covers the entry at line 3"},
		{"two documents", "version: 1\n---\nversion: 1\n", "b.yaml:2: a baseline is one YAML document"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := result.ParseBaseline([]byte(c.in), "b.yaml")
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want it to contain %q", err, c.want)
			}
		})
	}
	if _, err := result.LoadBaseline(filepath.Join(t.TempDir(), "missing.yaml")); err == nil {
		t.Error("missing file must be an error")
	}
	// Overlapping but not redundant entries are fine.
	if _, err := result.ParseBaseline([]byte(entry("  - requirement: LIFE-010\n    transport: http\n    reason: x\n  - requirement: LIFE-010\n    revision: \"2025-11-25\"\n    reason: y\n")), "b.yaml"); err != nil {
		t.Error(err)
	}
}

func blResult(req, rev, transport string, verdict Verdict) Result {
	return Result{Requirement: req, Revision: rev, Transport: transport, Verdict: verdict, Area: "a", Level: "MUST", Message: string(verdict) + " " + req}
}

func blReport(strict bool, rs ...Result) *Report {
	r := &Report{SchemaVersion: SchemaVersion, Target: Target{Transport: "http"}, Results: rs}
	r.Summary = result.Summarize(rs, strict)
	return r
}

func TestApplyMatchesTransportAndRevision(t *testing.T) {
	b := &Baseline{Version: 1, Entries: []BaselineEntry{
		{Requirement: "LIFE-010", Transport: "http", Reason: "r1"},
		{Requirement: "RPC-007", Revision: "2025-11-25", Reason: "r2"},
		{Requirement: "RPC-008", Transport: "stdio", Reason: "r3"},
	}}
	r := blReport(false,
		blResult("LIFE-010", "2025-11-25", "http", "FAIL"),
		blResult("RPC-007", "2025-11-25", "http", "ERROR"),
		blResult("RPC-007", "2025-06-18", "http", "FAIL"), // other revision: not covered
		blResult("RPC-008", "2025-11-25", "http", "FAIL"), // other transport: not covered
	)
	o := b.Apply(r)
	if len(o.Baselined) != 2 || o.Baselined[0].Requirement != "LIFE-010" || o.Baselined[1].Requirement != "RPC-007" ||
		!o.Baselined[0].Baselined || o.Baselined[1].BaselineReason != "r2" {
		t.Errorf("baselined %+v", o.Baselined)
	}
	if len(o.Stale) != 0 || len(o.Unmatched) != 1 || o.Unmatched[0].String() != "RPC-008/stdio" {
		t.Errorf("stale %v unmatched %v", o.Stale, o.Unmatched)
	}
	if r.Results[0].Baselined || r.Baseline != nil {
		t.Error("Apply must not change the report")
	}
	r.ApplyBaseline(b, "b.yaml")
	if r.Summary.Passed || r.Summary.Baselined != 2 || r.Summary.Counts["FAIL"] != 3 {
		t.Errorf("summary %+v", r.Summary)
	}
	if want := []string{"LIFE-010@2025-11-25/http", "RPC-007@2025-11-25/http"}; !reflect.DeepEqual(r.Baseline.Baselined, want) {
		t.Errorf("baseline summary %+v", r.Baseline)
	}
	if !r.Results[0].Baselined || r.Results[0].BaselineReason != "r1" || r.Results[2].Baselined || r.Results[3].Baselined {
		t.Errorf("marks %+v", r.Results)
	}
}

func TestApplyBaselinedFailPasses(t *testing.T) {
	b := &Baseline{Version: 1, Entries: []BaselineEntry{{Requirement: "LIFE-010", Reason: "upstream"}}}
	r := blReport(false, blResult("LIFE-001", "2025-11-25", "stdio", "PASS"), blResult("LIFE-010", "2025-11-25", "stdio", "FAIL"), blResult("LIFE-010", "2025-06-18", "stdio", "FAIL"))
	if r.Summary.Passed {
		t.Fatal("precondition: the run fails without a baseline")
	}
	r.ApplyBaseline(b, "b.yaml")
	if !r.Summary.Passed || r.Summary.Baselined != 2 || r.Summary.Stale != 0 {
		t.Errorf("summary %+v", r.Summary)
	}
	// Idempotent, and a nil baseline undoes it.
	r.ApplyBaseline(b, "b.yaml")
	if !r.Summary.Passed || r.Summary.Baselined != 2 || len(r.Baseline.Baselined) != 2 {
		t.Errorf("re-apply %+v %+v", r.Summary, r.Baseline)
	}
	r.ApplyBaseline(nil, "")
	if r.Summary.Passed || r.Baseline != nil || r.Results[1].Baselined || r.Results[1].BaselineReason != "" {
		t.Errorf("nil baseline must remove it: %+v", r.Summary)
	}
}

func TestApplyStale(t *testing.T) {
	b := &Baseline{Version: 1, Entries: []BaselineEntry{
		{Requirement: "LIFE-010", Transport: "http", Revision: "2025-11-25", Reason: "fixed now"},
		{Requirement: "LIFE-011", Reason: "mixed"},
	}}
	r := blReport(false,
		blResult("LIFE-010", "2025-11-25", "http", "PASS"),
		blResult("LIFE-011", "2025-11-25", "http", "PASS"),
		blResult("LIFE-011", "2025-06-18", "http", "FAIL"),
	)
	o := b.Apply(r)
	if len(o.Stale) != 1 || o.Stale[0].Requirement != "LIFE-010" {
		t.Errorf("stale %+v", o.Stale)
	}
	r.ApplyBaseline(b, "b.yaml")
	if r.Summary.Passed || r.Summary.Stale != 1 || r.Summary.Baselined != 1 || !reflect.DeepEqual(r.Baseline.Stale, []string{"LIFE-010@2025-11-25/http"}) {
		t.Errorf("a stale entry fails the run: %+v %+v", r.Summary, r.Baseline)
	}
	var out bytes.Buffer
	TerminalBaseline(&out, r)
	for _, want := range []string{
		"baseline: 1 known failure ignored (b.yaml)",
		"STALE BASELINE: LIFE-010 now passes (http 2025-11-25) — remove it from b.yaml",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("terminal lacks %q:\n%s", want, out.String())
		}
	}
	// PASS plus NA is still stale; NA alone is unmatched.
	r = blReport(false, blResult("LIFE-010", "2025-11-25", "http", "PASS"), blResult("LIFE-010", "2024-11-05", "http", "NA"))
	if o := (&Baseline{Entries: []BaselineEntry{{Requirement: "LIFE-010", Reason: "x"}}}).Apply(r); len(o.Stale) != 1 {
		t.Errorf("PASS+NA: %+v", o)
	}
}

func TestApplyWarnOnlyUnderStrict(t *testing.T) {
	b := &Baseline{Version: 1, Entries: []BaselineEntry{{Requirement: "LIFE-004", Reason: "early notification"}}}
	for _, strict := range []bool{false, true} {
		r := blReport(strict, blResult("LIFE-001", "2025-11-25", "stdio", "PASS"), blResult("LIFE-004", "2025-11-25", "stdio", "WARN"))
		r.ApplyBaseline(b, "b.yaml")
		wantBaselined := 0
		if strict {
			wantBaselined = 1
		}
		if !r.Summary.Passed || r.Summary.Baselined != wantBaselined || r.Summary.Stale != 0 || r.Results[1].Baselined != strict {
			t.Errorf("strict=%v: %+v", strict, r.Summary)
		}
	}
	// Without the baseline, strict fails.
	if r := blReport(true, blResult("LIFE-004", "2025-11-25", "stdio", "WARN")); r.Summary.Passed {
		t.Error("strict WARN must fail without a baseline")
	}
}

func TestApplyUnmatched(t *testing.T) {
	b := &Baseline{Version: 1, Entries: []BaselineEntry{
		{Requirement: "TOOL-001", Reason: "not selected"},
		{Requirement: "LIFE-002", Reason: "only NA"},
		{Requirement: "LIFE-003", Transport: "stdio", Reason: "other transport"},
		{Requirement: "ZZZ-999", Reason: "typo"},
	}}
	r := blReport(false, blResult("LIFE-002", "2025-11-25", "http", "NA"), blResult("LIFE-003", "2025-11-25", "http", "PASS"))
	o := b.Apply(r)
	if len(o.Unmatched) != 4 || len(o.Stale) != 0 || len(o.Baselined) != 0 {
		t.Errorf("%+v", o)
	}
	r.ApplyBaseline(b, "b.yaml")
	if !r.Summary.Passed || len(r.Baseline.Unmatched) != 4 || r.Baseline.Unmatched[2] != "LIFE-003/stdio" {
		t.Errorf("unmatched entries do not fail the run: %+v %+v", r.Summary, r.Baseline)
	}
	var out bytes.Buffer
	TerminalBaseline(&out, r)
	if !strings.Contains(out.String(), "note: baseline entry TOOL-001 matched no check") || !strings.Contains(out.String(), "ZZZ-999 matched no check in this run (unknown requirement id") {
		t.Errorf("terminal:\n%s", out.String())
	}
	out.Reset()
	TerminalBaseline(&out, blReport(false))
	if out.Len() != 0 {
		t.Error("no baseline, no output")
	}
}

func TestMostSpecificEntryGivesTheReason(t *testing.T) {
	b := &Baseline{Version: 1, Entries: []BaselineEntry{
		{Requirement: "LIFE-010", Transport: "http", Reason: "broad"},
		{Requirement: "LIFE-010", Revision: "2025-11-25", Transport: "http", Reason: "narrow"},
	}}
	o := b.Apply(blReport(false, blResult("LIFE-010", "2025-11-25", "http", "FAIL")))
	if len(o.Baselined) != 1 || o.Baselined[0].BaselineReason != "narrow" {
		t.Errorf("%+v", o.Baselined)
	}
}

func TestReportJSONCarriesBaseline(t *testing.T) {
	r := blReport(false, blResult("LIFE-010", "2025-11-25", "http", "FAIL"))
	r.ApplyBaseline(&Baseline{Version: 1, Entries: []BaselineEntry{{Requirement: "LIFE-010", Reason: "why"}}}, "ci/baseline.yaml")
	dir := t.TempDir()
	if _, err := WriteJSON(dir, r); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(filepath.Join(dir, "report.json"))
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	if m["schemaVersion"] != SchemaVersion {
		t.Errorf("schemaVersion %v", m["schemaVersion"])
	}
	bl := m["baseline"].(map[string]any)
	if bl["file"] != "ci/baseline.yaml" || len(bl["baselined"].([]any)) != 1 || bl["stale"] == nil || bl["unmatched"] == nil {
		t.Errorf("baseline %v", bl)
	}
	res0 := m["results"].([]any)[0].(map[string]any)
	if res0["baselined"] != true || res0["baselineReason"] != "why" {
		t.Errorf("result %v", res0)
	}
	sum := m["summary"].(map[string]any)
	if sum["passed"] != true || sum["baselined"] != 1.0 || sum["stale"] != 0.0 {
		t.Errorf("summary %v", sum)
	}
	back, err := ReadReport(dir)
	if err != nil || back.Baseline == nil || !back.Results[0].Baselined {
		t.Errorf("ReadReport: %v %+v", err, back)
	}
	// Without a baseline the new result fields and "baseline" are absent.
	r.ApplyBaseline(nil, "")
	b, _ := json.Marshal(r)
	if strings.Contains(string(b), `"baseline"`) || strings.Contains(string(b), "baselineReason") {
		t.Errorf("additions must be omitted when unused: %s", b)
	}
}

func TestWriteBaselineRoundTrip(t *testing.T) {
	hostile := "bad\n  - requirement: LIFE-001\n    reason: injected\r\u2028# \u0085x\x00\xff \u202eevil"
	r := &Report{Target: Target{Transport: "stdio"}, Tool: Tool{Version: "v0.1.0"}, StartedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Results: []Result{
		blResult("RPC-007", "2025-11-25", "stdio", "FAIL"),
		blResult("RPC-007", "2025-06-18", "stdio", "FAIL"), // failed everywhere: one entry, no revision
		blResult("LIFE-010", "2026-07-28", "stdio", "PASS"),
		blResult("LIFE-010", "2025-11-25", "stdio", "FAIL"), // passed elsewhere: narrowed
		blResult("LIFE-010", "2025-06-18", "stdio", "ERROR"),
		blResult("LIFE-004", "2025-11-25", "stdio", "WARN"), // only with strict
		blResult("LIFE-002", "2025-11-25", "stdio", "NA"),
		blResult("HTTP-001", "2025-11-25", "", "FAIL"), // no transport: not narrowed
		blResult("LIFE-003", "2025-11-25", "stdio", "PASS"),
	}}
	r.Results[0].Message = hostile
	r.Results[0].Title = "title\nwith newline"
	r.Results[1].Baselined, r.Results[1].BaselineReason = true, "kept \"reason\": from before"
	r.Results[0].Baselined, r.Results[0].BaselineReason = true, "kept \"reason\": from before"

	var a, b bytes.Buffer
	if err := WriteBaseline(&a, r, false); err != nil {
		t.Fatal(err)
	}
	// Shuffled results produce the same file.
	shuffled := *r
	shuffled.Results = append([]Result(nil), r.Results...)
	for i, j := 0, len(shuffled.Results)-1; i < j; i, j = i+1, j-1 {
		shuffled.Results[i], shuffled.Results[j] = shuffled.Results[j], shuffled.Results[i]
	}
	if err := WriteBaseline(&b, &shuffled, false); err != nil {
		t.Fatal(err)
	}
	if a.String() != b.String() {
		t.Errorf("not deterministic:\n%s\n---\n%s", a.String(), b.String())
	}
	bl, err := result.ParseBaseline(a.Bytes(), "written.yaml")
	if err != nil {
		t.Fatalf("%v\n%s", err, a.String())
	}
	var got []BaselineEntry
	for _, e := range bl.Entries {
		e.Line = 0
		got = append(got, e)
	}
	want := []BaselineEntry{
		{Requirement: "LIFE-010", Transport: "stdio", Revision: "2025-11-25", Reason: "TODO: explain"},
		{Requirement: "LIFE-010", Transport: "stdio", Revision: "2025-06-18", Reason: "TODO: explain"},
		{Requirement: "RPC-007", Transport: "stdio", Reason: "kept \"reason\": from before"},
		{Requirement: "HTTP-001", Reason: "TODO: explain"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("entries\n got %+v\nwant %+v\n%s", got, want, a.String())
	}
	if !strings.Contains(a.String(), "#   FAIL 2025-11-25: bad - requirement: LIFE-001 reason: injected") {
		t.Errorf("failure message must appear as one comment line:\n%s", a.String())
	}
	// The written baseline makes the run pass.
	r.Summary = result.Summarize(r.Results, false)
	r.ApplyBaseline(bl, "written.yaml")
	if !r.Summary.Passed || r.Summary.Stale != 0 {
		t.Errorf("applying the written baseline: %+v %+v", r.Summary, r.Baseline)
	}

	// Strict adds the WARN.
	var s bytes.Buffer
	if err := WriteBaseline(&s, r, true); err != nil {
		t.Fatal(err)
	}
	bl, err = result.ParseBaseline(s.Bytes(), "strict.yaml")
	if err != nil || len(bl.Entries) != 5 || bl.Entries[0].Requirement != "LIFE-004" {
		t.Errorf("strict: %v %+v", err, bl)
	}

	// Nothing failing: an empty, loadable baseline.
	var e bytes.Buffer
	if err := WriteBaseline(&e, blReport(false, blResult("LIFE-001", "2025-11-25", "stdio", "PASS")), false); err != nil {
		t.Fatal(err)
	}
	if bl, err := result.ParseBaseline(e.Bytes(), "empty.yaml"); err != nil || len(bl.Entries) != 0 {
		t.Errorf("empty: %v\n%s", err, e.String())
	}
}

func TestCleanLine(t *testing.T) {
	cases := []struct {
		in   string
		max  int
		want string
	}{
		{"a\nb\r\n\tc", 100, "a b c"},
		{"  lead and trail  ", 100, "lead and trail"},
		{"x\x00y\u202ez\xff\u2028w", 100, "x\uFFFDy\uFFFDz\uFFFD w"},
		{"0123456789", 5, "01234…"},
		{"01234", 5, "01234"},
		{"ab   \n\n   cdefghijk", 5, "ab cd…"},
		{"abcd efgh", 5, "abcd…"},
	}
	for _, c := range cases {
		if got := cleanLine(c.in, c.max); got != c.want {
			t.Errorf("cleanLine(%q, %d) = %q, want %q", c.in, c.max, got, c.want)
		}
	}
}
