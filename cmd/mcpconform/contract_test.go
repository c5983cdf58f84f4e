package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestContractGate: a snapshot taken twice is byte-identical; the same
// server checked against it passes (exit 0); a contract the server no
// longer honours fails (exit 1) with the rule ids, in every report; a
// contract that cannot be read is exit 2.
func TestContractGate(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fx := []string{"--", os.Args[0], "fixture", "aftersales"}
	c1, c2 := filepath.Join(dir, "c1.json"), filepath.Join(dir, "c2.json")
	for _, c := range []string{c1, c2} {
		if _, stderr, code, _ := cli(t, nil, append([]string{"contract", "snapshot", "-o", c}, fx...)...); code != exitOK {
			t.Fatalf("snapshot: exit %d: %s", code, stderr)
		}
	}
	b1, _ := os.ReadFile(c1)
	b2, _ := os.ReadFile(c2)
	if string(b1) != string(b2) {
		t.Fatal("two snapshots of the same server differ")
	}
	if _, stderr, code, _ := cli(t, nil, append([]string{"contract", "snapshot", "-o", c1}, fx...)...); code != exitUsage || !strings.Contains(stderr, "--update") {
		t.Errorf("overwriting without --update: exit %d: %s", code, stderr)
	}
	if out, stderr, code, _ := cli(t, nil, append([]string{"contract", "check", c1}, fx...)...); code != exitOK || !strings.Contains(out, "PASS") {
		t.Fatalf("the same server: exit %d: %s %s", code, out, stderr)
	}

	// the contract promises what the server does not do
	var doc map[string]any
	_ = json.Unmarshal(b1, &doc)
	sec := doc["revisions"].(map[string]any)["2026-07-28"].(map[string]any)["profiles"].(map[string]any)["default"].(map[string]any)
	tools := sec["tools"].(map[string]any)
	tools["retired_tool"] = map[string]any{"inputSchema": map[string]any{"type": "object", "properties": map[string]any{"q": map[string]any{"type": "string"}}}}
	doc["policy"] = map[string]any{"overrides": map[string]any{"SERVER_VERSION_CHANGED": "none"}}
	changed, _ := json.MarshalIndent(doc, "", "  ")
	c3 := filepath.Join(dir, "c3.json")
	_ = os.WriteFile(c3, changed, 0o644)
	rep := filepath.Join(dir, "rep")
	out, stderr, code, _ := cli(t, nil, append([]string{"contract", "check", c3, "--format", "json", "--report-dir", rep}, fx...)...)
	if code != exitFail {
		t.Fatalf("a removed tool: exit %d: %s %s", code, out, stderr)
	}
	var sum struct {
		Passed   bool
		Findings []struct{ Rule, Level, Fingerprint string }
	}
	if err := json.Unmarshal([]byte(out), &sum); err != nil || sum.Passed || len(sum.Findings) != 1 || sum.Findings[0].Rule != "TOOL_NO_DELETE" {
		t.Fatalf("json findings: %v %s", err, out)
	}
	for file, want := range map[string][]string{
		"sarif.json":  {`"ruleId": "TOOL_NO_DELETE"`, `"startLine"`, "c3.json"},
		"junit.xml":   {`TOOL_NO_DELETE ERR tool retired_tool`, `<failure`},
		"summary.md":  {"TOOL\\_NO\\_DELETE", "❌ Contract"},
		"report.json": {`"contract"`, `"fingerprint"`},
		"report.html": {`id="contract"`, "retired_tool"},
	} {
		b, err := os.ReadFile(filepath.Join(rep, file))
		if err != nil {
			t.Errorf("%s: %v", file, err)
			continue
		}
		for _, w := range want {
			if !strings.Contains(string(b), w) {
				t.Errorf("%s lacks %q", file, w)
			}
		}
	}

	// accepted by its fingerprint: the gate passes, the finding stays
	doc["policy"] = map[string]any{"accept": []any{map[string]any{"fingerprint": sum.Findings[0].Fingerprint, "reason": "retired in v2"}},
		"overrides": map[string]any{"SERVER_VERSION_CHANGED": "none"}}
	changed, _ = json.MarshalIndent(doc, "", "  ")
	_ = os.WriteFile(c3, changed, 0o644)
	if out, _, code, _ := cli(t, nil, append([]string{"contract", "check", c3}, fx...)...); code != exitOK || !strings.Contains(out, "accepted: retired in v2") {
		t.Errorf("accepted: exit %d: %s", code, out)
	}
	// --update keeps the policy and rewrites the rest
	if _, stderr, code, _ := cli(t, nil, append([]string{"contract", "snapshot", "--update", "-o", c3}, fx...)...); code != exitOK || !strings.Contains(stderr, "TOOL_NO_DELETE") {
		t.Errorf("--update: exit %d: %s", code, stderr)
	}
	if b, _ := os.ReadFile(c3); !strings.Contains(string(b), "retired in v2") || strings.Contains(string(b), "retired_tool\"") {
		t.Errorf("--update did not keep the policy or kept the old surface")
	}
	// run --contract: the gate in the run's reports and exit code
	_ = os.WriteFile(c3, changed, 0o644)
	doc["policy"] = map[string]any{}
	changed, _ = json.MarshalIndent(doc, "", "  ")
	_ = os.WriteFile(c3, changed, 0o644)
	runDir := filepath.Join(dir, "run")
	if out, stderr, code, _ := cli(t, nil, append([]string{"run", "--quiet", "--only", "LIFE-001", "--contract", c3, "--report-dir", runDir}, fx...)...); code != exitFail || !strings.Contains(out, "TOOL_NO_DELETE") {
		t.Errorf("run --contract: exit %d: %s %s", code, out, stderr)
	}
	// unreadable contracts
	_ = os.WriteFile(filepath.Join(dir, "bad.json"), []byte(`{"format":"x"}`), 0o644)
	for _, f := range []string{filepath.Join(dir, "missing.json"), filepath.Join(dir, "bad.json")} {
		if _, _, code, _ := cli(t, nil, append([]string{"contract", "check", f}, fx...)...); code != exitUsage {
			t.Errorf("%s: exit %d, want 2", f, code)
		}
	}
}
