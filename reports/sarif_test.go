package reports

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sarif "github.com/owenrumney/go-sarif/v3/pkg/report/v210/sarif"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpconform/mcpconform/internal/result"
)

// officialSARIFSchema is the OASIS SARIF 2.1.0 schema (errata 01) as the
// go-sarif module ships it (a Go constant in its source; read from the
// module cache, never copied here).
func officialSARIFSchema(t *testing.T) any {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/owenrumney/go-sarif/v3").Output()
	if err != nil {
		t.Fatalf("locating the go-sarif module (it ships the SARIF schema): %v", err)
	}
	src, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(out)), "pkg/report/v210/sarif/schema.go"))
	if err != nil {
		t.Fatalf("reading the SARIF schema: %v", err)
	}
	_, body, ok := strings.Cut(string(src), "const schema = `")
	body, _, ok2 := strings.Cut(body, "`")
	if !ok || !ok2 {
		t.Fatal("the SARIF schema constant was not found in go-sarif's schema.go")
	}
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(body))
	if err != nil {
		t.Fatalf("the SARIF schema is not JSON: %v", err)
	}
	if id, _ := doc.(map[string]any)["id"].(string); !strings.Contains(id, "sarif-schema-2.1.0") {
		t.Fatalf("unexpected schema id %q", id)
	}
	return doc
}

func sarifFixture() *Report {
	results := []Result{
		{Requirement: "LIFE-001", Revision: "2025-11-25", Verdict: "PASS", Level: "MUST", Area: "lifecycle", Transport: "stdio", Title: "t1"},
		{Requirement: "LIFE-002", Revision: "2025-11-25", Verdict: "FAIL", Level: "MUST", Area: "lifecycle", Transport: "stdio", Message: "echoed 1900-01-01", Expected: "a supported version", Actual: "1900-01-01"},
		{Requirement: "LIFE-004", Revision: "2025-11-25", Verdict: "WARN", Level: "SHOULD", Area: "lifecycle", Transport: "stdio", Message: "early notification <script>", Baselined: true, BaselineReason: "known: issue 42"},
		{Requirement: "LIFE-006", Revision: "2026-07-28", Verdict: "NA", Level: "MUST", Area: "lifecycle", Transport: "stdio", Message: "revision not supported"},
		{Requirement: "RPC-001", Revision: "2025-11-25", Verdict: "ERROR", Level: "MUST", Area: "jsonrpc", Transport: "stdio", Message: "could not open a session"},
		{Requirement: "LIFE-002", Revision: "2025-06-18", Verdict: "FAIL", Level: "MUST", Area: "lifecycle", Transport: "stdio", Message: "again"},
	}
	rep := &Report{SchemaVersion: SchemaVersion, Tool: Tool{Name: "mcpconform", Version: "dev"},
		Target:    Target{Transport: "stdio", Command: []string{"node", "sarif_test.go"}},
		Revisions: []string{"2025-11-25"}, StartedAt: time.Date(2026, 12, 3, 1, 2, 3, 0, time.UTC), Results: results}
	rep.Summary = result.Summarize(results, false)
	return rep
}

// TestSARIFValidates: sarif.json validates against the official SARIF
// 2.1.0 schema, lists one rule per failing requirement and one result per
// FAIL, WARN or ERROR, with levels, suppressions and locations.
func TestSARIFValidates(t *testing.T) {
	schema := officialSARIFSchema(t)
	c := jsonschema.NewCompiler()
	if err := c.AddResource("sarif.json", schema); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("sarif.json")
	if err != nil {
		t.Fatalf("compiling the SARIF schema: %v", err)
	}
	dir := t.TempDir()
	path, err := WriteSARIF(dir, sarifFixture())
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Fatalf("sarif.json does not validate against the SARIF 2.1.0 schema: %v\n%s", err, b)
	}
	// the schema is not a formality: a result without its message fails it
	var broken map[string]any
	_ = json.Unmarshal(b, &broken)
	delete(broken["runs"].([]any)[0].(map[string]any)["results"].([]any)[0].(map[string]any), "message")
	if err := sch.Validate(broken); err == nil {
		t.Fatal("the SARIF schema accepted a result without a message")
	}

	// a second reader: go-sarif parses it
	log, err := sarif.FromBytes(b)
	if err != nil {
		t.Fatalf("go-sarif cannot read sarif.json: %v", err)
	}
	run := log.Runs[0]
	if got := *run.Tool.Driver.Name; got != "mcpconform" {
		t.Errorf("driver %q", got)
	}
	if len(run.Tool.Driver.Rules) != 3 {
		t.Errorf("want 3 rules (LIFE-002, LIFE-004, RPC-001), got %d", len(run.Tool.Driver.Rules))
	}
	for _, rule := range run.Tool.Driver.Rules {
		if rule.HelpURI == nil || !strings.HasPrefix(*rule.HelpURI, "https://") {
			t.Errorf("rule %s has no https helpUri", *rule.ID)
		}
	}
	want := []struct{ rule, level string }{{"LIFE-002", "error"}, {"LIFE-004", "warning"}, {"RPC-001", "error"}, {"LIFE-002", "error"}}
	if len(run.Results) != len(want) {
		t.Fatalf("want %d results, got %d", len(want), len(run.Results))
	}
	for i, w := range want {
		r := run.Results[i]
		if *r.RuleID != w.rule || r.Level != w.level {
			t.Errorf("result %d: %s %s, want %s %s", i, *r.RuleID, r.Level, w.rule, w.level)
		}
		if uri := *r.Locations[0].PhysicalLocation.ArtifactLocation.URI; uri != "sarif_test.go" {
			t.Errorf("result %d located in %q, want the command's script", i, uri)
		}
	}
	if len(run.Results[1].Suppressions) != 1 || *run.Results[1].Suppressions[0].Justification != "known: issue 42" {
		t.Errorf("the baselined WARN has no suppression with its reason")
	}
	if !strings.Contains(*run.Results[0].Message.Text, "expected: a supported version") {
		t.Errorf("message without expected/actual: %q", *run.Results[0].Message.Text)
	}
	if run.Results[0].PartialFingerprints["mcpconform/v1"] == run.Results[3].PartialFingerprints["mcpconform/v1"] {
		t.Errorf("two revisions' results share a fingerprint")
	}
}
