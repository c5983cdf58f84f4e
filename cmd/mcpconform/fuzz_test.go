package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	// one result per requirement the campaign exercised, in the suite's vocabulary
	rep := readFuzzReport(t, dir)
	if !rep.Summary.Passed || rep.verdict("RPC-002") != "PASS" || rep.verdict("RPC-005") != "PASS" || rep.verdict("TOOL-014") != "PASS" {
		t.Fatalf("report.json: %+v", rep)
	}
	if junit, err := os.ReadFile(filepath.Join(dir, "junit.xml")); err != nil || !strings.Contains(string(junit), fmt.Sprintf(`tests="%d"`, len(rep.Results))) || !strings.Contains(string(junit), "RPC-002") {
		t.Fatalf("junit.xml: %v\n%s", err, junit)
	}

	dir = t.TempDir()
	corpus := filepath.Join(t.TempDir(), "cases")
	mutant := []string{"--", os.Args[0], "fixture", "aftersales", "--mutant", "fuzz-truncate-long-ids"}
	out, stderr, code, _ = cli(t, nil, append([]string{"fuzz", "--seed", "7", "--checks", "100", "--duration", "15s", "--timeout", "2s",
		"--properties", "ids", "--report-dir", dir, "--corpus", corpus}, mutant...)...)
	if code != exitFail || !strings.Contains(out, "FAIL RPC-002 MUST ids/correlation/unknown-id") {
		t.Fatalf("mutant: exit %d\n%s\n%s", code, out, stderr)
	}
	if rep := readFuzzReport(t, dir); rep.verdict("RPC-002") != "FAIL" {
		t.Errorf("report.json: %+v", rep)
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

type fuzzReportJSON struct {
	Summary struct{ Passed bool } `json:"summary"`
	Results []struct {
		Requirement, Level, Verdict string
		Notes                       []string
	}
}

func (r fuzzReportJSON) verdict(id string) string {
	for _, x := range r.Results {
		if x.Requirement == id {
			return x.Verdict
		}
	}
	return ""
}

func readFuzzReport(t *testing.T, dir string) fuzzReportJSON {
	t.Helper()
	var rep fuzzReportJSON
	b, err := os.ReadFile(filepath.Join(dir, "report.json"))
	if err != nil || json.Unmarshal(b, &rep) != nil {
		t.Fatalf("report.json: %v %s", err, b)
	}
	seen := map[string]bool{}
	for _, x := range rep.Results {
		if seen[x.Requirement] {
			t.Errorf("report.json: two results for %s", x.Requirement)
		}
		seen[x.Requirement] = true
	}
	return rep
}

// A finding that breaks only a SHOULD (here a request with "jsonrpc":"1.0"
// executed: the envelope rule binds the sender, RPC-006's MUST is on the
// id) is a WARN with its requirement: the campaign passes, unless --strict.
func TestFuzzShouldFindingIsWarn(t *testing.T) {
	mutant := []string{"--", os.Args[0], "fixture", "aftersales", "--mutant", "accept-jsonrpc-1.0"}
	for _, strict := range []bool{false, true} {
		dir := t.TempDir()
		args := []string{"fuzz", "--seed", "7", "--checks", "100", "--duration", "10s", "--timeout", "2s", "--properties", "raw", "--report-dir", dir}
		want := exitOK
		if strict {
			args, want = append(args, "--strict"), exitFail
		}
		out, stderr, code, _ := cli(t, nil, append(args, mutant...)...)
		if code != want || !strings.Contains(out, "WARN RPC-006 SHOULD raw/fault/executed-wrong-jsonrpc-version") {
			t.Fatalf("strict %v: exit %d, want %d\n%s\n%s", strict, code, want, out, stderr)
		}
		if rep := readFuzzReport(t, dir); rep.verdict("RPC-006") != "WARN" || rep.Summary.Passed == strict {
			t.Errorf("strict %v: report.json %+v", strict, rep)
		}
	}
}

// TestFuzzHelpShowsOnlyFuzzerFlags: the tokens only the suite's checks use
// are flags of mcpconform run, not of mcpconform fuzz.
func TestFuzzHelpShowsOnlyFuzzerFlags(t *testing.T) {
	out, errOut, _, _ := cli(t, nil, "fuzz", "--help")
	help := out + errOut
	if !strings.Contains(help, "-bearer-env") || !strings.Contains(help, "-duration") {
		t.Fatalf("fuzz --help lacks its own flags:\n%s", help)
	}
	for _, f := range []string{"second-bearer", "weak-bearer", "expired-bearer", "foreign-bearer"} {
		if strings.Contains(help, f) {
			t.Errorf("fuzz --help lists %s, which only the suite reads", f)
		}
	}
	runOut, runErr, _, _ := cli(t, nil, "run", "--help")
	if !strings.Contains(runOut+runErr, "foreign-bearer-env") {
		t.Errorf("run --help lost --foreign-bearer-env")
	}
}
