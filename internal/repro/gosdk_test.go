//go:build slow

package repro_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/internal/result"
)

// TestReproGoSDK: from a report of a run against the official go-sdk
// v1.8.0 hello example over stdio, the scripts of its liveness FAILs
// (RPC-014) and of the checks whose input stopped it (RPC-005, RPC-006,
// RPC-008) and its executed invalid request (RPC-006) reproduce with the
// server binary alone (exit 1) and pass against the reference fixture
// (exit 0); from a fuzz campaign against its everything example,
// repro --finding reproduces the resources/read crash. Builds the go-sdk
// examples from the module cache (the version of go.mod).
func TestReproGoSDK(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute) // the harness never hangs
	defer cancel()
	build := func(out, pkg string) string {
		p := filepath.Join(dir, out)
		cmd := exec.CommandContext(ctx, "go", "build", "-o", p, pkg)
		cmd.Dir = "../.."
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", pkg, err, b)
		}
		return p
	}
	bin := build("mcpconform", "github.com/mcpconform/mcpconform/cmd/mcpconform")
	fixture := build("fixture", "github.com/mcpconform/mcpconform/fixtures/cmd/fixture")
	hello := build("hello", "github.com/modelcontextprotocol/go-sdk/examples/server/hello")
	everything := build("everything", "github.com/modelcontextprotocol/go-sdk/examples/server/everything")
	reference := "exec '" + fixture + "' aftersales"

	run := func(args ...string) {
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); !ok && err != nil || ok && ee.ExitCode() != 1 {
			t.Fatalf("mcpconform %v: %v (want exit 1)\n%s", args, err, out)
		}
	}
	script := func(args ...string) string {
		out, err := exec.CommandContext(ctx, bin, append([]string{"repro"}, args...)...).Output()
		if err != nil {
			t.Fatalf("mcpconform repro %v: %v", args, err)
		}
		return string(out)
	}
	sh := func(name, s string, env ...string) (int, string) {
		p := filepath.Join(dir, name+".sh")
		if err := os.WriteFile(p, []byte(s), 0o755); err != nil {
			t.Fatal(err)
		}
		cmd := exec.CommandContext(ctx, "sh", p)
		cmd.Env = append(append(os.Environ(), "MCPCONFORM_WAIT=10"), env...)
		out, err := cmd.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode(), string(out)
		}
		if err != nil {
			t.Fatalf("sh %s: %v", name, err)
		}
		return 0, string(out)
	}
	prove := func(name, s string) {
		t.Helper()
		if strings.Contains(s, "mcpconform run") || strings.Contains(s, "mcpconform fuzz") {
			t.Errorf("%s: the script calls mcpconform", name)
		}
		if code, out := sh(name, s); code != 1 {
			t.Errorf("%s: want exit 1 against the go-sdk server, got %d:\n%s", name, code, out)
		}
		if code, out := sh(name, s, "MCPCONFORM_TARGET_CMD="+reference); code != 0 {
			t.Errorf("%s: want exit 0 against the reference fixture, got %d:\n%s", name, code, out)
		}
	}

	run("run", "--quiet", "--reports", "json", "--report-dir", "hello-report", "--only", "RPC-005,RPC-006,RPC-008,RPC-014", "--", hello)
	b, err := os.ReadFile(filepath.Join(dir, "hello-report", "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep result.Report
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, res := range rep.Results {
		if res.Verdict != result.FAIL && res.Verdict != result.WARN {
			continue
		}
		key := res.Requirement + "@" + res.Revision
		seen[res.Requirement] = true
		prove(key, script(filepath.Join(dir, "hello-report", "report.json"), res.Requirement, "--revision", res.Revision))
	}
	for _, id := range []string{"RPC-014", "RPC-005", "RPC-006"} {
		if !seen[id] {
			t.Errorf("the go-sdk hello example no longer fails %s: %s", id, b[:min(len(b), 2000)])
		}
	}

	run("fuzz", "--checks", "100", "--properties", "resources", "--duration", "60s", "--seed", "1", "--report-dir", "fz", "--", everything)
	cases, _ := filepath.Glob(filepath.Join(dir, "fz", "corpus", "*crash*.json"))
	if len(cases) == 0 {
		t.Fatalf("the campaign against the go-sdk everything example saved no crash")
	}
	prove("finding", script("--finding", cases[0]))
}
