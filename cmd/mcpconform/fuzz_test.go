package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/fuzz"
)

func TestFuzzUsageErrorsExit2(t *testing.T) {
	for _, args := range [][]string{
		{"fuzz"},
		{"fuzz", "--revision", "1999-01-01", "--", "x"},
		{"fuzz", "--properties", "nope", "--", os.Args[0], "fixture", "aftersales"},
		{"fuzz", "--checks", "0", "--", "x"},
		{"fuzz", "--bogus"},
		{"fuzz", "--replay", filepath.Join(t.TempDir(), "missing.json"), "--", "x"},
	} {
		if _, stderr, code, _ := cli(t, nil, args...); code != exitUsage {
			t.Errorf("%v: exit %d, want 2\n%s", args, code, stderr)
		}
	}
}

func TestFuzzReferenceAndMutant(t *testing.T) {
	dir := t.TempDir()
	out, stderr, code, _ := cli(t, nil, "fuzz", "--seed", "7", "--checks", "15", "--duration", "10s", "--timeout", "2s",
		"--report-dir", dir, "--", os.Args[0], "fixture", "aftersales")
	if code != exitOK || !strings.Contains(stderr, "seed 7") || !strings.Contains(out, "0 finding(s)") {
		t.Fatalf("reference: exit %d\n%s\n%s", code, out, stderr)
	}
	var rep struct {
		Summary struct{ Passed bool } `json:"summary"`
		Results []struct{ Verdict string }
	}
	b, err := os.ReadFile(filepath.Join(dir, "report.json"))
	if err != nil || json.Unmarshal(b, &rep) != nil || !rep.Summary.Passed || len(rep.Results) != len(fuzz.Properties()) {
		t.Fatalf("report.json: %v %s", err, b)
	}
	if junit, err := os.ReadFile(filepath.Join(dir, "junit.xml")); err != nil || !strings.Contains(string(junit), `tests="7"`) || !strings.Contains(string(junit), "FUZZ-SEQ") {
		t.Fatalf("junit.xml: %v\n%s", err, junit)
	}

	dir = t.TempDir()
	corpus := filepath.Join(t.TempDir(), "cases")
	mutant := []string{"--", os.Args[0], "fixture", "aftersales", "--mutant", "fuzz-truncate-long-ids"}
	out, stderr, code, _ = cli(t, nil, append([]string{"fuzz", "--seed", "7", "--checks", "100", "--duration", "15s", "--timeout", "2s",
		"--properties", "ids", "--report-dir", dir, "--corpus", corpus}, mutant...)...)
	if code != exitFail || !strings.Contains(out, "ids/correlation/unknown-id") {
		t.Fatalf("mutant: exit %d\n%s\n%s", code, out, stderr)
	}
	if !strings.Contains(stderr, "fuzz ") || !strings.Contains(stderr, "exchanges (") {
		t.Errorf("no progress line on stderr:\n%s", stderr)
	}
	file := filepath.Join(corpus, "ids-correlation-unknown-id.json")
	out, stderr, code, _ = cli(t, nil, append([]string{"fuzz", "--replay", file}, mutant...)...)
	if code != exitFail || !strings.HasPrefix(out, "STILL FAILING") {
		t.Errorf("replay against the mutant: exit %d\n%s\n%s", code, out, stderr)
	}
	out, stderr, code, _ = cli(t, nil, "fuzz", "--replay", file, "--", os.Args[0], "fixture", "aftersales")
	if code != exitOK || !strings.HasPrefix(out, "FIXED") {
		t.Errorf("replay against the reference: exit %d\n%s\n%s", code, out, stderr)
	}
}
