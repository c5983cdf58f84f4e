package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/mcpconform/mcpconform/internal/repro"
	"github.com/mcpconform/mcpconform/internal/result"
	"github.com/mcpconform/mcpconform/internal/target"
	"github.com/mcpconform/mcpconform/reports"
)

const reproUsage = `mcpconform repro REPORT.json ID [--revision R] [--transport stdio|http] [--no-verify | --verify] [--verify-budget D] [--bearer-env VAR | --bearer-file FILE]
       mcpconform repro --finding CORPUS.json [--report REPORT.json] [-- COMMAND... | --url URL]`

// cmdRepro prints a POSIX sh script that reproduces one FAIL or WARN of a
// report (ID: a requirement id, optionally ID@REVISION/TRANSPORT), or a
// saved fuzz case, against the same target without mcpconform.
func cmdRepro(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("repro", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	revision := fs.String("revision", "", "the result's revision (when the requirement has results in several)")
	transport := fs.String("transport", "", "the result's transport; a transport other than the run's makes the script need MCPCONFORM_TARGET_CMD or MCPCONFORM_TARGET_URL")
	finding := fs.String("finding", "", "a fuzz case saved by mcpconform fuzz (its corpus file)")
	reportPath := fs.String("report", "", "--finding: the campaign's report.json, for the target (default: the one beside the corpus directory)")
	url := fs.String("url", "", "--finding: the target's URL (instead of the report's)")
	noVerify := fs.Bool("no-verify", false, "print the script without running it against the target first (its header says it was not verified, and it never says OK: exit 2 instead)")
	verifyRun := fs.Bool("verify", false, "after verifying, run the printed script against the target and exit with its status: 1 the violation is observed, 0 the server behaves as required, 2 cannot tell")
	verifyBudget := fs.Duration("verify-budget", 90*time.Second, "bound on the verification (the scripts it runs against the target)")
	bearerEnv := fs.String("bearer-env", "", "HTTP: the variable holding the bearer token for the verification (default: the one the run named, when it was a variable)")
	bearerFile := fs.String("bearer-file", "", "HTTP: a file holding the bearer token for the verification")
	// flags may follow the positional arguments
	var pos []string
	rest := args
	for {
		if done, code := parseFlags(fs, rest, reproUsage, stdout, stderr); done {
			return code
		}
		if fs.NArg() == 0 || fs.Arg(0) == "--" || *finding != "" && len(pos) > 0 {
			break
		}
		pos = append(pos, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	command := fs.Args()
	if len(command) > 0 && command[0] == "--" {
		command = command[1:]
	}
	var opt repro.Options
	if *transport != "" {
		if *transport != "stdio" && *transport != "http" {
			fmt.Fprintf(stderr, "mcpconform repro: --transport %q: stdio or http\n", *transport)
			return exitUsage
		}
	}
	if *finding != "" {
		return reproFinding(*finding, *reportPath, *url, command, *transport, stdout, stderr)
	}
	if len(pos) != 2 || len(command) > 0 {
		fmt.Fprintf(stderr, "usage: %s\n", reproUsage)
		return exitUsage
	}
	rep, err := readReportFile(pos[0])
	if err != nil {
		fmt.Fprintf(stderr, "mcpconform repro: %v\n", err)
		return exitUsage
	}
	id, rev, tr := pos[1], *revision, *transport
	if i := strings.IndexByte(id, '/'); i >= 0 {
		id, tr = id[:i], id[i+1:]
	}
	if i := strings.IndexByte(id, '@'); i >= 0 {
		id, rev = id[:i], id[i+1:]
	}
	var matches []result.Result
	for _, r := range rep.Results {
		if r.Requirement == id && (rev == "" || r.Revision == rev) && (r.Verdict == result.FAIL || r.Verdict == result.WARN) {
			matches = append(matches, r)
		}
	}
	if len(matches) == 0 {
		fmt.Fprintf(stderr, "mcpconform repro: %s has no FAIL or WARN result %sin %s\n", id, map[bool]string{true: "of revision " + rev + " ", false: ""}[rev != ""], pos[0])
		return exitUsage
	}
	if len(matches) > 1 {
		var keys []string
		for _, m := range matches {
			keys = append(keys, m.Requirement+"@"+m.Revision)
		}
		fmt.Fprintf(stderr, "mcpconform repro: %s: %d results (%s); reproducing %s (--revision picks another)\n", id, len(matches), strings.Join(keys, ", "), keys[0])
	}
	if tr != "" && tr != matches[0].Transport {
		opt.Transport = tr
	}
	if *noVerify {
		if *verifyRun {
			fmt.Fprintln(stderr, "mcpconform repro: --verify and --no-verify exclude each other")
			return exitUsage
		}
		opt.Unverified = true // never verified: its OK is an exit 2
		script, err := repro.Generate(rep, matches[0], opt)
		if err != nil {
			fmt.Fprintf(stderr, "mcpconform repro: %v\n", err)
			return exitUsage
		}
		fmt.Fprint(stdout, script)
		return exitOK
	}
	env, err := reproEnv(rep, *bearerEnv, *bearerFile)
	if err != nil {
		fmt.Fprintf(stderr, "mcpconform repro: %v\n", err)
		return exitUsage
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	script, v, err := repro.Verify(ctx, rep, matches[0], repro.VerifyOptions{Options: opt, Budget: *verifyBudget, Env: env})
	if err != nil {
		fmt.Fprintf(stderr, "mcpconform repro: %v\n", err)
		return exitUsage
	}
	fmt.Fprintf(stderr, "mcpconform repro: %s: %s\n", v.Status, v.Why)
	fmt.Fprint(stdout, script)
	if !*verifyRun {
		return exitOK
	}
	dir, err := os.MkdirTemp("", "mcpconform-repro-")
	if err != nil {
		fmt.Fprintf(stderr, "mcpconform repro: %v\n", err)
		return exitUsage
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "repro.sh")
	if err := os.WriteFile(path, []byte(script), 0o700); err != nil {
		fmt.Fprintf(stderr, "mcpconform repro: %v\n", err)
		return exitUsage
	}
	code, out := repro.RunScript(ctx, path, 10*time.Second, env)
	fmt.Fprint(stderr, out)
	if code < 0 || code > 2 {
		code = repro.ExitUnknown
	}
	fmt.Fprintf(stderr, "mcpconform repro: the script exited %d\n", code)
	return code
}

// reproEnv is the environment the verification's scripts need: the
// bearer token (from the flags, or the variable the run named) as
// MCP_TOKEN.
func reproEnv(rep *reports.Report, envName, file string) ([]string, error) {
	if envName == "" && file == "" {
		if v, ok := strings.CutPrefix(rep.Target.Auth, "bearer token from env "); ok {
			envName = v
		}
	}
	token, _, err := bearer("--bearer", envName, file)
	if err != nil {
		return nil, err
	}
	if token == "" {
		return nil, nil
	}
	return []string{"MCP_TOKEN=" + token}, nil
}

// readReportFile reads report.json (or the report.json of a directory).
func readReportFile(path string) (*reports.Report, error) {
	if st, err := os.Stat(path); err == nil && !st.IsDir() {
		return reports.ReadReport(filepath.Dir(path))
	}
	return reports.ReadReport(path)
}

func reproFinding(path, reportPath, url string, command []string, transport string, stdout, stderr io.Writer) int {
	b, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintf(stderr, "mcpconform repro: %v\n", err)
		return exitUsage
	}
	f, err := repro.ParseFinding(b)
	if err != nil {
		fmt.Fprintf(stderr, "mcpconform repro: %s: %v\n", path, err)
		return exitUsage
	}
	var target result.Target
	switch {
	case len(command) > 0:
		target = result.Target{Transport: "stdio", Command: command}
	case url != "":
		target = result.Target{Transport: "http", URL: url}
	default:
		if reportPath == "" {
			// mcpconform fuzz saves cases in REPORT-DIR/corpus by default
			for _, dir := range []string{filepath.Dir(filepath.Dir(path)), filepath.Dir(filepath.Dir(filepath.Dir(path)))} {
				if _, err := os.Stat(filepath.Join(dir, "report.json")); err == nil {
					reportPath = dir
					break
				}
			}
		}
		if reportPath != "" {
			rep, err := readReportFile(reportPath)
			if err != nil {
				fmt.Fprintf(stderr, "mcpconform repro: %v\n", err)
				return exitUsage
			}
			target = rep.Target
		} else {
			fmt.Fprintln(stderr, "mcpconform repro: no report.json beside the corpus: the script needs MCPCONFORM_TARGET_CMD or MCPCONFORM_TARGET_URL (or give --report, --url or -- COMMAND)")
		}
	}
	script, err := repro.GenerateFinding(f, target, repro.Options{Transport: transport})
	if err != nil {
		fmt.Fprintf(stderr, "mcpconform repro: %s: %v\n", path, err)
		return exitUsage
	}
	fmt.Fprint(stdout, script)
	return exitOK
}

// verifyScripts verifies the reproduction script of each FAIL and WARN of
// a server report against the target, within budget (the results left
// when it runs out stay unverified), and records the outcome on each.
func verifyScripts(rep *reports.Report, budget time.Duration, tg *target.Target, redact func(string) string, progress io.Writer) {
	if rep.Target.Role == "client" {
		return
	}
	var env []string
	if tg.Bearer != "" {
		env = append(env, "MCP_TOKEN="+tg.Bearer)
	}
	env = append(env, tg.Env...) // the server's --env (the script starts it like the run did)
	ctx, cancel := context.WithTimeout(context.Background(), budget)
	defer cancel()
	sig, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	n := 0
	for i := range rep.Results {
		r := &rep.Results[i]
		if r.Verdict != result.FAIL && r.Verdict != result.WARN || sig.Err() != nil {
			continue
		}
		left := time.Until(deadlineOf(sig))
		if left < time.Second {
			break
		}
		_, v, err := repro.Verify(sig, rep, *r, repro.VerifyOptions{Env: env, Budget: min(left, 60*time.Second)})
		if err != nil || sig.Err() != nil && v.Status != repro.Reproduced {
			continue
		}
		// Why may quote what the server wrote: through the run's redactor
		r.Repro = &result.Repro{Status: v.Status, Prefix: v.Prefix, Why: redact(v.Why)}
		n++
	}
	fmt.Fprintf(progress, "mcpconform: verified the reproduction scripts of %d result(s)\n", n)
}

func deadlineOf(ctx context.Context) time.Time {
	d, _ := ctx.Deadline()
	return d
}
