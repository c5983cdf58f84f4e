package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/fixtures"
)

// TestMain lets the test binary act as the CLI (MCPCONFORM_AS_CLI=1), so
// tests and benchmarks run the real program, and as its own fixture server.
func TestMain(m *testing.M) {
	if os.Getenv("MCPCONFORM_AS_CLI") == "1" {
		os.Exit(realMain(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

func cli(t testing.TB, env []string, args ...string) (stdout, stderr string, code int, st *os.ProcessState) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(append(os.Environ(), "MCPCONFORM_AS_CLI=1"), env...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	code = 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return o.String(), e.String(), code, cmd.ProcessState
}

func TestUsageErrorsExit2(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		hint string
	}{
		{"no command", nil, "usage"},
		{"unknown command", []string{"frobnicate"}, "unknown command"},
		{"unknown flag", []string{"run", "--frobnicate", "--", "true"}, "flag provided but not defined"},
		{"no target", []string{"run"}, "no target"},
		{"both targets", []string{"run", "--url", "http://127.0.0.1:1/mcp", "--", "true"}, "not both"},
		{"bad url", []string{"run", "--url", "ftp://x"}, "not an http(s) URL"},
		{"bad revision", []string{"run", "--revision", "2023-01-01", "--", "true"}, "unknown revision"},
		{"unset bearer env", []string{"run", "--bearer-env", "MCPCONFORM_SURELY_UNSET", "--url", "http://127.0.0.1:1/mcp"}, "not set"},
		{"bad header", []string{"run", "--header", "nocolon", "--url", "http://127.0.0.1:1/mcp"}, "Name: value"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code, _ := cli(t, nil, tc.args...)
			if code != 2 {
				t.Errorf("exit %d, want 2 (stderr %q)", code, stderr)
			}
			if !strings.Contains(stderr, tc.hint) {
				t.Errorf("stderr %q lacks %q", stderr, tc.hint)
			}
			if tc.name != "no command" && strings.Count(strings.TrimSpace(stderr), "\n") > 2 {
				t.Errorf("usage errors should be short, got:\n%s", stderr)
			}
		})
	}
}

func TestUnreachableTargetsExit2(t *testing.T) {
	errors500 := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "internal trouble", http.StatusInternalServerError)
	}))
	defer errors500.Close()
	stop := make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select { // holds the connection open, never answers
		case <-r.Context().Done():
		case <-stop:
		}
	}))
	defer hang.Close()
	defer close(stop)
	t.Run("all", func(t *testing.T) { unreachableCases(t, errors500.URL, hang.URL) })
}

func unreachableCases(t *testing.T, url500, urlHang string) {
	for _, tc := range []struct {
		name string
		args []string
		hint string
	}{
		{"command that does not exist", []string{"run", "--quiet", "--timeout", "500ms", "--", "/nonexistent/mcp-server"}, "cannot start"},
		{"command that exits at once", []string{"run", "--quiet", "--timeout", "500ms", "--", "true"}, "unreachable"},
		{"command that writes garbage", []string{"run", "--quiet", "--timeout", "500ms", "--", "sh", "-c", "while :; do echo garbage; sleep 0.01; done"}, "not JSON-RPC"},
		{"command that never answers", []string{"run", "--quiet", "--timeout", "500ms", "--", "sleep", "30"}, "no answer"},
		{"nothing listening", []string{"run", "--quiet", "--timeout", "500ms", "--url", "http://127.0.0.1:1/mcp"}, "connection refused"},
		{"HTTP 500 to everything", []string{"run", "--quiet", "--timeout", "500ms", "--url", url500}, "HTTP 500"},
		{"HTTP server that holds the connection", []string{"run", "--quiet", "--timeout", "500ms", "--url", urlHang}, "unreachable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel() // the servers above outlive the group: see t.Run("all")
			args := append([]string{tc.args[0], "--report-dir", t.TempDir()}, tc.args[1:]...)
			start := time.Now()
			_, stderr, code, _ := cli(t, nil, args...)
			if code != 2 {
				t.Errorf("exit %d, want 2 (stderr %q)", code, stderr)
			}
			if !strings.Contains(stderr, tc.hint) {
				t.Errorf("stderr lacks %q:\n%s", tc.hint, stderr)
			}
			if strings.Contains(stderr, "goroutine ") || strings.Contains(stderr, "panic") {
				t.Errorf("a Go panic trace reached the user:\n%s", stderr)
			}
			if time.Since(start) > 30*time.Second {
				t.Errorf("took %s", time.Since(start))
			}
		})
	}
}

func TestListAndVersion(t *testing.T) {
	out, _, code, _ := cli(t, nil, "list")
	if code != 0 || !strings.Contains(out, "LIFE-001") || !strings.Contains(out, "STD-003") {
		t.Errorf("list: exit %d\n%s", code, out)
	}
	// each check with its links, where it is registered and the mutants that kill it
	if !regexp.MustCompile(`(?m)^LIFE-001 .*\n    spec: https://modelcontextprotocol\.io/specification/2025-11-25/basic/lifecycle.*\n    check: suites/lifecycle/\w+\.go:\d+\n    killed by: .*serverinfo-no-version`).MatchString(out) {
		t.Errorf("list does not show LIFE-001's links, file:line and its mutant:\n%s", out[:min(len(out), 600)])
	}
	// the tolerances, each with its readings and links
	tols, _, code, _ := cli(t, nil, "list", "--tolerances")
	if code != 0 || !regexp.MustCompile(`(?m)^TOL-13  .*\n    question: .*\n(    - .* → .*\n)+    applied by: PAG-002\n    spec: https://modelcontextprotocol\.io/specification/2026-07-28/server/utilities/pagination#error-handling`).MatchString(tols) {
		t.Errorf("list --tolerances: exit %d\n%s", code, tols)
	}
	all, _, _, _ := cli(t, nil, "list", "--all")
	if !strings.Contains(all, "AUTH-010") || !strings.Contains(all, "no check yet") {
		t.Errorf("list --all misses the catalog")
	}
	out, _, code, _ = cli(t, nil, "version")
	if code != 0 || !strings.HasPrefix(out, "mcpconform ") {
		t.Errorf("version: %d %q", code, out)
	}
}

// TestRunReferenceStdio runs the CLI against the aftersales fixture and
// checks the exit code and that both report files are written.
func TestRunReferenceStdio(t *testing.T) {
	dir := t.TempDir()
	// The CLI's plumbing (reports, progress, summary, exit code) on two
	// areas; the kill matrix's reference rows run every check through it.
	out, stderr, code, _ := cli(t, nil, "run", "--label-filter", "area:lifecycle || area:jsonrpc", "--report-dir", dir, "--", os.Args[0], "fixture", "aftersales")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	for _, f := range []string{"junit.xml", "report.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s not written: %v", f, err)
		}
	}
	if !strings.Contains(out, "result: PASSED") || !strings.Contains(stderr, "[  1/") {
		t.Errorf("summary or progress missing:\n%s\n%s", out, stderr)
	}
}

// BenchmarkRunStdio measures a full `mcpconform run` against the reference
// fixture over stdio: wall time per run (ns/op) and the CLI's peak RSS.
// It also reports the number of checks and the wall time per check.
func BenchmarkRunStdio(b *testing.B) {
	dir := b.TempDir()
	var peak int64
	for i := 0; i < b.N; i++ {
		_, stderr, code, st := cli(b, []string{"MCPCONFORM_AS_CLI=1"}, "run", "--quiet", "--report-dir", dir, "--", os.Args[0], "fixture", "aftersales")
		if code != 0 {
			b.Fatalf("exit %d: %s", code, stderr)
		}
		peak = max(peak, st.SysUsage().(*syscall.Rusage).Maxrss)
	}
	b.ReportMetric(float64(peak)/1024, "peak-MB")
	reportRunMetrics(b, dir, b.N)
}

// BenchmarkRunHTTP is BenchmarkRunStdio over Streamable HTTP.
func BenchmarkRunHTTP(b *testing.B) {
	url, stop, err := fixtures.StartHTTP("aftersales", fixtures.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer stop()
	dir := b.TempDir()
	var peak int64
	for i := 0; i < b.N; i++ {
		_, stderr, code, st := cli(b, nil, "run", "--quiet", "--report-dir", dir, "--url", url)
		if code != 0 {
			b.Fatalf("exit %d: %s", code, stderr)
		}
		peak = max(peak, st.SysUsage().(*syscall.Rusage).Maxrss)
	}
	b.ReportMetric(float64(peak)/1024, "peak-MB")
	reportRunMetrics(b, dir, b.N)
}

// TestInspect: the host view prints the catalog, exports declarations,
// runs an allowed call with its record, and refuses a call the policy
// forbids (exit 2) without sending it.
func TestInspect(t *testing.T) {
	fx := []string{"--", os.Args[0], "fixture", "aftersales"}
	out, stderr, code, _ := cli(t, nil, append([]string{"inspect"}, fx...)...)
	// Other areas add fixture content: at least aftersales' 13 own tools.
	n := 0
	if m := regexp.MustCompile(`Tools \((\d+)\)`).FindStringSubmatch(out); m != nil {
		n, _ = strconv.Atoi(m[1])
	}
	if code != 0 || n < 13 || !strings.Contains(out, "Revision      2026-07-28") {
		t.Errorf("inspect: exit %d\n%s\n%s", code, out, stderr)
	}
	out, _, code, _ = cli(t, nil, append([]string{"inspect", "--declarations", "json"}, fx...)...)
	if code != 0 || !strings.Contains(out, `"type": "function"`) || !strings.Contains(out, `"name": "get_order"`) {
		t.Errorf("declarations: exit %d\n%s", code, out)
	}
	out, _, code, _ = cli(t, nil, append([]string{"inspect", "--revision", "2025-11-25", "--call", "get_order", "--args", `{"order_id":"A1001"}`}, fx...)...)
	if code != 0 || !strings.Contains(out, `"layer": "result"`) {
		t.Errorf("call: exit %d\n%s", code, out)
	}
	out, stderr, code, _ = cli(t, nil, append([]string{"inspect", "--call", "create_refund_draft", "--args", `{"order_id":"A1001","reason":"x"}`}, fx...)...)
	if code != 2 || !strings.Contains(stderr, "--call-tools all") || strings.Contains(out, "Record") {
		t.Errorf("a write tool under readonly must be refused: exit %d\n%s\n%s", code, out, stderr)
	}
	_, stderr, code, _ = cli(t, nil, append([]string{"inspect", "--args", `{}`}, fx...)...)
	if code != 2 || !strings.Contains(stderr, "--args needs --call") {
		t.Errorf("usage: exit %d %s", code, stderr)
	}
}

// TestSecretsNeverLeak runs a full suite against a server that echoes the
// bearer token everywhere it can (serverInfo, error messages, a response
// header) and proves the token appears in no report file and no output.
func TestSecretsNeverLeak(t *testing.T) {
	const token = "sekrit-bearer-token-4f1c9a77"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		echo := r.Header.Get("Authorization")
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.Unmarshal(body, &req)
		w.Header().Set("X-Echo", echo)
		if req.ID == nil {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		var result any
		switch req.Method {
		case "initialize":
			result = map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "serverInfo": map[string]any{"name": "echo " + echo, "version": "1"}}
		case "ping":
			result = map[string]any{}
		default:
			_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "error": map[string]any{"code": -32601, "message": "no method; you sent " + echo}})
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": result})
	}))
	defer srv.Close()
	dir := t.TempDir()
	if d := os.Getenv("MCPCONFORM_KEEP_DIR"); d != "" {
		dir = d
	}
	out, stderr, code, _ := cli(t, []string{"MCP_TEST_TOKEN=" + token}, "run", "--report-dir", dir, "--bearer-env", "MCP_TEST_TOKEN", "--url", srv.URL)
	if code == 2 {
		t.Fatalf("run did not start: %s", stderr)
	}
	if strings.Contains(out+stderr, token) {
		t.Errorf("the token leaked into the terminal output")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) < 4 {
		t.Fatalf("expected the report files, got %v", entries)
	}
	for _, e := range entries {
		b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		if strings.Contains(string(b), token) {
			t.Errorf("the token leaked into %s", e.Name())
		}
		if e.Name() == "report.json" && !strings.Contains(string(b), "[REDACTED]") {
			t.Errorf("report.json shows no redaction: was the echo recorded at all?")
		}
	}
}

// TestStaleBaselineFailsTheRun: a baseline that lists a requirement the
// server now passes fails the run and says "stale baseline"; one that
// lists the actual failures lets a failing run pass.
func TestStaleBaselineFailsTheRun(t *testing.T) {
	dir := t.TempDir()
	stale := filepath.Join(dir, "stale.yaml")
	if err := os.WriteFile(stale, []byte("version: 1\nentries:\n  - requirement: LIFE-001\n    reason: \"was broken once\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fx := []string{"--", os.Args[0], "fixture", "aftersales"}
	out, _, code, _ := cli(t, nil, append([]string{"run", "--quiet", "--only", "LIFE-001", "--baseline", stale, "--report-dir", filepath.Join(dir, "a")}, fx...)...)
	if code != 1 || !strings.Contains(strings.ToLower(out), "stale baseline") {
		t.Errorf("stale baseline: exit %d\n%s", code, out)
	}
	// A failing run, baselined with `baseline write`, passes.
	mutant := append(append([]string{}, fx...), "--mutant", "stringify-ids")
	_, _, code, _ = cli(t, nil, append([]string{"run", "--quiet", "--only", "RPC-002", "--report-dir", filepath.Join(dir, "m")}, mutant...)...)
	if code != 1 {
		t.Fatalf("the mutant should fail RPC-002 (exit %d)", code)
	}
	base := filepath.Join(dir, "base.yaml")
	if _, stderr, code, _ := cli(t, nil, "baseline", "write", "--report-dir", filepath.Join(dir, "m"), "-o", base); code != 0 {
		t.Fatalf("baseline write: %d %s", code, stderr)
	}
	out, _, code, _ = cli(t, nil, append([]string{"run", "--quiet", "--only", "RPC-002", "--baseline", base, "--report-dir", filepath.Join(dir, "m2")}, mutant...)...)
	if code != 0 || !strings.Contains(out, "(baselined)") {
		t.Errorf("baselined failures must not fail the run: exit %d\n%s", code, out)
	}
}
