package main

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mcpconform/mcpconform/fixtures"
	"github.com/mcpconform/mcpconform/internal/wire"
	"github.com/mcpconform/mcpconform/reports"
)

// Hostile servers (issue 7): `mcpconform run` against the raw servers of
// `mcpconform fixture hostile-wire` must finish within its budget with a
// verdict that names the cause, keep its memory bounded, leave no process
// behind and still write its reports. Every case runs the real CLI (this
// test binary acting as it, see TestMain) in its own process.

type hostileRun struct {
	stdout, stderr string
	code           int
	elapsed        time.Duration
	maxRSS         int64 // peak resident set of the mcpconform process, bytes
	dir            string
	rep            *reports.Report // nil when no report.json was written
}

// runHostile runs `mcpconform run --quiet --report-dir DIR ARGS...`.
func runHostile(t *testing.T, args ...string) hostileRun {
	t.Helper()
	dir := t.TempDir()
	start := time.Now()
	stdout, stderr, code, st := cli(t, nil, append([]string{"run", "--quiet", "--report-dir", dir}, args...)...)
	r := hostileRun{stdout: stdout, stderr: stderr, code: code, elapsed: time.Since(start), dir: dir}
	if ru, ok := st.SysUsage().(*syscall.Rusage); ok {
		r.maxRSS = ru.Maxrss << 10 // KiB on Linux
	}
	if b, err := os.ReadFile(filepath.Join(dir, "report.json")); err == nil {
		var rep reports.Report
		if err := json.Unmarshal(b, &rep); err != nil {
			t.Fatalf("report.json: %v", err)
		}
		r.rep = &rep
	}
	return r
}

// stdioHostile is the command line of a hostile-wire behaviour over stdio
// that appends its pids (and its children's) to pidFile.
func stdioHostile(behaviour, pidFile string, extra ...string) []string {
	return append([]string{"--", os.Args[0], "fixture", "hostile-wire", "--behaviour", behaviour, "--pid-file", pidFile}, extra...)
}

// startHostileHTTP serves a hostile-wire behaviour over HTTP in its own
// process and returns its URL; the process is ended at cleanup.
func startHostileHTTP(t *testing.T, behaviour string, extra ...string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"fixture", "hostile-wire", "--behaviour", behaviour, "--http", "127.0.0.1:0"}, extra...)...)
	cmd.Env = append(os.Environ(), "MCPCONFORM_AS_CLI=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	u, ok := strings.CutPrefix(strings.TrimSpace(line), "listening on ")
	if err != nil || !ok {
		t.Fatalf("hostile-wire %s over HTTP: %q %v", behaviour, line, err)
	}
	return u
}

// causeNamed reports whether a FAIL, WARN or ERROR verdict names cause.
// causeNamed tells whether a FAIL, WARN or ERROR names the cause; cause
// may list alternatives separated by "|" (a flood can end in a timeout or
// in a cap, depending on the machine's speed).
func causeNamed(rep *reports.Report, cause string) bool {
	for _, r := range rep.Results {
		if r.Verdict != "FAIL" && r.Verdict != "WARN" && r.Verdict != "ERROR" {
			continue
		}
		for _, c := range strings.Split(cause, "|") {
			if strings.Contains(r.Message, c) {
				return true
			}
		}
	}
	return false
}

func verdicts(rep *reports.Report) string {
	var b strings.Builder
	for _, r := range rep.Results {
		b.WriteString("  " + r.Verdict.String() + " " + r.Requirement + " [" + r.Revision + "]: " + r.Message + "\n")
	}
	return b.String()
}

// checkReports: report.json and junit.xml exist and every file of the
// report directory is valid UTF-8, whatever the server sent.
func checkReports(t *testing.T, dir string) {
	t.Helper()
	for _, f := range []string{"report.json", "junit.xml"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s not written: %v", f, err)
		}
	}
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, _ := os.ReadFile(p); !utf8.Valid(b) {
				t.Errorf("%s is not valid UTF-8", filepath.Base(p))
			}
		}
		return nil
	})
}

// checkNoLeftovers: every process the fixture recorded in pidFile is gone
// (or a zombie about to be reaped by init) once the run has returned.
func checkNoLeftovers(t *testing.T, pidFile string, atLeast int) {
	t.Helper()
	b, _ := os.ReadFile(pidFile)
	pids := strings.Fields(string(b))
	if len(pids) < atLeast {
		t.Fatalf("the fixture recorded %d pids, want at least %d", len(pids), atLeast)
	}
	deadline := time.Now().Add(2 * time.Second)
	for _, p := range pids {
		pid, _ := strconv.Atoi(p)
		for alive(pid) {
			if time.Now().After(deadline) {
				cmdline, _ := os.ReadFile("/proc/" + p + "/cmdline")
				t.Errorf("process %d outlived the run: %s", pid, bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '}))
				_ = syscall.Kill(pid, syscall.SIGKILL)
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z' && s[i+2] != 'X'
	}
	return true
}

const mib = 1 << 20

func TestHostileServers(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the CLI against hostile servers")
	}
	for _, tc := range []struct {
		name      string
		behaviour string
		fixture   []string // extra fixture flags
		run       []string // extra run flags
		http      bool
		budget    time.Duration
		wantCode  int
		cause     string // named by a verdict (or, when unreachable, by stderr)
		maxRSS    int64
		pids      int // at least this many processes recorded (stdio)
	}{
		{name: "never answers", behaviour: "never-answer", run: []string{"--timeout", "500ms"},
			budget: 10 * time.Second, wantCode: exitUsage, cause: "no answer", pids: 2},
		// 10 s: the first checks (RPC-001 asks a ping, the lists and an
		// unknown method, each unanswered for its 500 ms, then re-asks them
		// with the harness quiet) take seconds, and a spec reports only
		// after the one before it; with 6 s the run ended before the check
		// that says "no response" was reported, one run in two
		{name: "answers after minutes", behaviour: "slow", run: []string{"--timeout", "500ms"},
			budget: 10 * time.Second, wantCode: exitFail, cause: "no response", pids: 2},
		{name: "endless stdout", behaviour: "endless-stdout", run: []string{"--only", "LIFE-016,STD-001,LOG-001"},
			budget: 20 * time.Second, wantCode: exitFail, cause: "without declaring the logging capability", maxRSS: 768 * mib, pids: 2},
		// The cap decides these two, not a clock: the per-response timeout
		// only bounds a hung server, so it is long enough for 16 MiB to
		// arrive on a loaded machine.
		{name: "one line of 200 MiB", behaviour: "huge-line", fixture: []string{"--mib", "200"}, run: []string{"--only", "LIFE-016", "--timeout", "15s"},
			budget: 30 * time.Second, wantCode: exitFail, cause: "a stdout line exceeds the 16 MiB cap", maxRSS: 512 * mib, pids: 2},
		{name: "invalid UTF-8", behaviour: "invalid-utf8", run: []string{"--only", "STD-001"},
			budget: 10 * time.Second, wantCode: exitFail, cause: "invalid UTF-8 in server output", pids: 2},
		{name: "binary output", behaviour: "binary", run: []string{"--only", "STD-001"},
			budget: 10 * time.Second, wantCode: exitFail, cause: "invalid UTF-8 in server output", pids: 2},
		{name: "stdout closed mid-message", behaviour: "close-mid-message", run: []string{"--only", "LIFE-016"},
			budget: 10 * time.Second, wantCode: exitFail, cause: "stdout ended in the middle of a message", pids: 2},
		{name: "crash after 3 requests", behaviour: "crash-after", fixture: []string{"--after", "3"}, run: []string{"--only", "LIFE-016,TOOL-001"},
			budget: 10 * time.Second, wantCode: exitFail, cause: "ended on its own (exit status 2)", pids: 2},
		{name: "children hold the pipes", behaviour: "child-holds-pipes", run: []string{"--only", "LIFE-001,LIFE-016"},
			budget: 10 * time.Second, wantCode: exitOK, pids: 6},
		{name: "ignores SIGTERM and stdin EOF", behaviour: "ignore-sigterm", run: []string{"--only", "STD-002", "--revision", "2025-11-25"},
			budget: 20 * time.Second, wantCode: exitOK, cause: "exited neither on stdin EOF nor within 2s of SIGTERM", pids: 1},

		{name: "http answers after minutes", behaviour: "slow", http: true, run: []string{"--timeout", "500ms"},
			budget: 10 * time.Second, wantCode: exitFail, cause: "no response"},
		{name: "http endless SSE stream", behaviour: "endless-sse", http: true, run: []string{"--only", "LIFE-016"},
			budget: 10 * time.Second, wantCode: exitFail, cause: "no response to ping|response body exceeded 67108864 bytes", maxRSS: 768 * mib},
		{name: "http body of 200 MiB", behaviour: "huge-line", http: true, fixture: []string{"--mib", "200"}, run: []string{"--only", "LIFE-016", "--timeout", "15s"},
			budget: 30 * time.Second, wantCode: exitFail, cause: "exceeds the 16 MiB message cap", maxRSS: 512 * mib},
		{name: "http connection closed mid-body", behaviour: "close-mid-message", http: true, run: []string{"--only", "LIFE-016"},
			budget: 10 * time.Second, wantCode: exitFail, cause: "closed the connection in the middle of a response body"},
		{name: "http server crashes after 3 requests", behaviour: "crash-after", http: true, fixture: []string{"--after", "3"}, run: []string{"--only", "LIFE-016,TOOL-001"},
			// the crash shows as a refused connection, or, for a request
			// in flight when it happened, a reset or EOF
			budget: 10 * time.Second, wantCode: exitFail, cause: "connection refused|connection reset by peer|\": EOF"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			args := append([]string{"--budget", tc.budget.String()}, tc.run...)
			if !slicesContain(args, "--timeout") {
				args = append(args, "--timeout", "1s")
			}
			pidFile := filepath.Join(t.TempDir(), "pids")
			if tc.http {
				args = append(args, "--url", startHostileHTTP(t, tc.behaviour, tc.fixture...))
			} else {
				args = append(args, stdioHostile(tc.behaviour, pidFile, tc.fixture...)...)
			}
			r := runHostile(t, args...)
			t.Logf("%s: exit %d in %s, peak RSS %d MiB", tc.behaviour, r.code, r.elapsed.Round(time.Millisecond), r.maxRSS/mib)
			if r.code != tc.wantCode {
				t.Errorf("exit %d, want %d\nstderr: %s", r.code, tc.wantCode, r.stderr)
			}
			// The budget bounds the checks; probing, closing the sessions
			// and writing the reports come on top (a few seconds).
			if limit := tc.budget + 10*time.Second; r.elapsed > limit {
				t.Errorf("took %s, more than the budget %s plus 10s", r.elapsed, tc.budget)
			}
			if strings.Contains(r.stderr, "goroutine ") || strings.Contains(r.stderr, "panic:") {
				t.Errorf("a Go panic reached the user:\n%s", r.stderr)
			}
			if tc.maxRSS > 0 && r.maxRSS > tc.maxRSS {
				t.Errorf("peak RSS %d MiB, want at most %d MiB", r.maxRSS/mib, tc.maxRSS/mib)
			}
			switch {
			case r.rep == nil:
				t.Errorf("no report.json\nstderr: %s", r.stderr)
			case tc.wantCode == exitUsage: // unreachable: stderr and the (empty) reports say why
				checkReports(t, r.dir)
				if !strings.Contains(r.stderr, tc.cause) || !strings.Contains(r.rep.Summary.HollowReason, "no check ran") ||
					!strings.Contains(strings.Join(r.rep.Detection, "\n"), tc.cause) || r.rep.Summary.Passed {
					t.Errorf("stderr or report.json do not name the cause %q:\n%s\n%+v", tc.cause, r.stderr, r.rep)
				}
			case r.rep == nil:
				t.Errorf("no report.json\nstderr: %s", r.stderr)
			default:
				checkReports(t, r.dir)
				if tc.cause != "" && !causeNamed(r.rep, tc.cause) {
					t.Errorf("no verdict names the cause %q:\n%s", tc.cause, verdicts(r.rep))
				}
			}
			if !tc.http {
				checkNoLeftovers(t, pidFile, tc.pids)
			}
		})
	}
}

func slicesContain(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// TestHostileBudget: a server that answers only after minutes makes every
// check wait for its deadline; the budget ends the run, which reports the
// checks that finished and says it was interrupted.
func TestHostileBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the CLI against a hostile server")
	}
	t.Parallel()
	pidFile := filepath.Join(t.TempDir(), "pids")
	r := runHostile(t, append([]string{"--budget", "4s", "--timeout", "1s"}, stdioHostile("slow", pidFile)...)...)
	if r.code != exitFail || r.rep == nil {
		t.Fatalf("exit %d, report %v\n%s", r.code, r.rep != nil, r.stderr)
	}
	if !r.rep.Interrupted || !strings.Contains(r.stdout, "INTERRUPTED") {
		t.Errorf("the report should say the run was interrupted by its budget:\n%s", r.stdout)
	}
	if r.elapsed > 14*time.Second {
		t.Errorf("took %s with a budget of 4s", r.elapsed)
	}
	checkReports(t, r.dir)
	checkNoLeftovers(t, pidFile, 2)
}

// TestInterruptWritesReports: SIGINT during a run ends the running check,
// writes the reports of the checks that finished, says so and exits 130.
func TestInterruptWritesReports(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the CLI against a hostile server")
	}
	t.Parallel()
	dir := t.TempDir()
	pidFile := filepath.Join(t.TempDir(), "pids")
	cmd := exec.Command(os.Args[0], append([]string{"run", "--budget", "60s", "--timeout", "1s", "--report-dir", dir},
		stdioHostile("slow", pidFile)...)...)
	cmd.Env = append(os.Environ(), "MCPCONFORM_AS_CLI=1")
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	errPipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait for two finished checks on the progress lines, then Ctrl-C.
	var stderr strings.Builder
	progressed := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(errPipe)
		n := 0
		for sc.Scan() {
			stderr.WriteString(sc.Text() + "\n")
			if strings.HasPrefix(sc.Text(), "[") {
				if n++; n == 2 {
					close(progressed)
				}
			}
		}
		if n < 2 {
			close(progressed)
		}
	}()
	select {
	case <-progressed:
	case <-time.After(30 * time.Second):
		t.Error("no progress within 30s")
	}
	start := time.Now()
	_ = cmd.Process.Signal(os.Interrupt)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		// a goroutine dump for whoever reads the failure (it failed now
		// and then inside make test's load: a lane check opening a shared
		// session held the lock the report needed until its waits ran out,
		// 12-16 s; the report now cancels the lanes first)
		_ = cmd.Process.Signal(syscall.SIGQUIT)
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		t.Fatalf("the run did not end within 20s of SIGINT; its stderr, with the goroutines SIGQUIT dumped:\n%s", stderr.String())
	}
	t.Logf("ended %s after SIGINT", time.Since(start).Round(time.Millisecond))
	if code := cmd.ProcessState.ExitCode(); code != exitInterrupted {
		t.Errorf("exit %d, want %d", code, exitInterrupted)
	}
	if !strings.Contains(stderr.String(), "interrupted by SIGINT") {
		t.Errorf("stderr does not say the run was interrupted:\n%s", stderr.String())
	}
	b, err := os.ReadFile(filepath.Join(dir, "report.json"))
	if err != nil {
		t.Fatalf("no report.json after SIGINT: %v", err)
	}
	var rep reports.Report
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if !rep.Interrupted || len(rep.Results) < 2 {
		t.Errorf("report.json: interrupted=%v with %d results, want interrupted with the finished checks", rep.Interrupted, len(rep.Results))
	}
	checkReports(t, dir)
	checkNoLeftovers(t, pidFile, 2)
}

// TestSecretScan runs full suites with a recognisable bearer token, given
// by environment variable and by file, against the tutor fixture over
// HTTP and against a server that echoes the Authorization header in its
// answers (plain, base64 and URL-encoded), and proves that the token, in
// any of those forms, appears in no report file, transcript, log, or
// output of the CLI.
func TestSecretScan(t *testing.T) {
	if testing.Short() {
		t.Skip("runs full suites")
	}
	t.Parallel()
	nonce := make([]byte, 8)
	_, _ = rand.Read(nonce)
	token := "SECRET-canary-" + hex.EncodeToString(nonce)
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tutorURL, stop, err := fixtures.StartHTTP("tutor", fixtures.Options{Token: token})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	echoURL := startHostileHTTP(t, "echo-auth")

	forms := map[string]string{"plain": token}
	for _, v := range []string{token, "Bearer " + token} {
		forms["base64 of "+v[:6]] = strings.TrimRight(base64.StdEncoding.EncodeToString([]byte(v)), "=")
		forms["base64url of "+v[:6]] = strings.TrimRight(base64.URLEncoding.EncodeToString([]byte(v)), "=")
		forms["url-encoded "+v[:6]] = url.QueryEscape(v)
	}
	for i, f := range wire.SecretForms(token) {
		forms["redactor form "+strconv.Itoa(i)] = f
	}
	env := []string{"MCPC_CANARY_TOKEN=" + token}
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"tutor, token from env", []string{"--bearer-env", "MCPC_CANARY_TOKEN", "--url", tutorURL}},
		{"tutor, token from file", []string{"--bearer-file", tokenFile, "--url", tutorURL, "--only", "LIFE-001,AUTH-001,TOOL-001,HTTP-001"}},
		{"server echoing Authorization", []string{"--bearer-env", "MCPC_CANARY_TOKEN", "--url", echoURL}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			stdout, stderr, code, _ := cli(t, env, append([]string{"run", "--timeout", "2s", "--report-dir", dir}, tc.args...)...)
			if code == exitUsage {
				t.Fatalf("the run did not start:\n%s", stderr)
			}
			scan := map[string][]byte{"stdout": []byte(stdout), "stderr": []byte(stderr)}
			_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					b, _ := os.ReadFile(p)
					scan[filepath.Base(p)] = b
				}
				return nil
			})
			if len(scan) < 6 {
				t.Fatalf("expected the output and at least 4 report files, got %d", len(scan))
			}
			for where, b := range scan {
				for form, v := range forms {
					if bytes.Contains(b, []byte(v)) {
						t.Errorf("the token leaked into %s (%s)", where, form)
					}
				}
			}
			if tc.name == "server echoing Authorization" && !bytes.Contains(scan["report.json"], []byte(wire.Redacted)) {
				t.Errorf("report.json shows no redaction: was the echo recorded at all?")
			}
		})
	}
}
