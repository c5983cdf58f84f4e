package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/internal/result"
)

// A fault that needs an earlier message of the connection: run
// --verify-repro records a reproduced script with that message, repro
// prints it with the message in it, and --verify runs it: exit 1 against
// the mutant, 0 against the reference (MCPCONFORM_TARGET_CMD).
func TestVerifiedReproOfAStateDependentFault(t *testing.T) {
	dir := t.TempDir()
	_, stderr, code, _ := cli(t, nil, "run", "--quiet", "--revision", "2026-07-28", "--only", "LIFE-010,RPC-013",
		"--verify-repro", "60s", "--report-dir", dir, "--", os.Args[0], "fixture", "aftersales", "--mutant", "version-check-forgotten")
	if code != 1 {
		t.Fatalf("run: exit %d, want 1 (LIFE-010 FAIL)\n%s", code, stderr)
	}
	b, err := os.ReadFile(filepath.Join(dir, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep result.Report
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	var life *result.Result
	for i := range rep.Results {
		if rep.Results[i].Requirement == "LIFE-010" {
			life = &rep.Results[i]
		}
	}
	if life == nil || life.Verdict != result.FAIL || life.Repro == nil || life.Repro.Status != "reproduced" || len(life.Repro.Prefix) == 0 {
		t.Fatalf("LIFE-010: %+v", life)
	}
	html, _ := os.ReadFile(filepath.Join(dir, "report.html"))
	if !strings.Contains(string(html), "mcpconform/no-such-method") || !strings.Contains(string(html), "Verified:") {
		t.Errorf("report.html's script lacks the earlier message or its verification")
	}
	script, stderr, code, _ := cli(t, nil, "repro", filepath.Join(dir, "report.json"), "LIFE-010", "--verify")
	if code != 1 || !strings.Contains(script, "mcpconform/no-such-method") || !strings.Contains(stderr, "VIOLATION") {
		t.Fatalf("repro --verify against the mutant: exit %d\n%s\n%s", code, stderr, script)
	}
	// the verified script, run against the reference: OK
	path := filepath.Join(dir, "repro.sh")
	if err := os.WriteFile(path, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sh", path)
	cmd.Env = append(os.Environ(), "MCPCONFORM_AS_CLI=1", "MCPCONFORM_TARGET_CMD=exec "+os.Args[0]+" fixture aftersales")
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "OK:") {
		t.Fatalf("the script against the reference: %v\n%s", err, out)
	}
}
