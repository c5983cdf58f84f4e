package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/internal/catalog"
	"github.com/mcpconform/mcpconform/internal/result"
	"github.com/mcpconform/mcpconform/internal/runner"
	"github.com/mcpconform/mcpconform/internal/scenario"
	"github.com/mcpconform/mcpconform/internal/wire"
	"github.com/mcpconform/mcpconform/reports"
)

// cmdClient is `mcpconform client [flags] -- CLIENT [ARGS...]` (issue 32):
// mcpconform plays its scenario servers to the client under test, one
// scenario at a time per worker, and judges the client's traffic.
func cmdClient(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("client", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var envs multiFlag
	var (
		transport   = fs.String("transport", "auto", "how the client talks to the scenario servers: http (its URL is the last argument, or replaces {url}), stdio (it starts the server command {server} expands to), auto (stdio when an argument holds {server})")
		revision    = fs.String("revision", "2025-11-25,2026-07-28", "comma list of the revisions to play")
		reportDir   = fs.String("report-dir", "./mcpconform-report", "directory for the reports")
		reportList  = fs.String("reports", reports.DefaultFormatList(), "comma list of the reports to write in --report-dir (report.json is always written): "+reports.FormatsHelp())
		timeout     = fs.Duration("timeout", 20*time.Second, "deadline for the client to finish one scenario (it is stopped then)")
		parallel    = fs.Int("parallel", 6, "scenarios played at once (each to its own client process, which mostly waits)")
		budget      = fs.Duration("budget", 10*time.Minute, "deadline for the whole run")
		strict      = fs.Bool("strict", false, "WARN fails the run")
		labelFilter = fs.String("label-filter", "", "Ginkgo label expression selecting checks, e.g. 'level:MUST'")
		only        = fs.String("only", "", "comma list of requirement ids to run (others are not run)")
		skip        = fs.String("skip", "", "comma list of requirement ids not to run")
		baseline    = fs.String("baseline", "", "YAML file of known failures that do not fail the run")
		quiet       = fs.Bool("quiet", false, "no progress lines")
		scenarios   = fs.String("scenarios", "", "comma list of glob patterns of the scenarios to play, e.g. 'auth/*,tools_call' (default: all)")
		blackBox    = fs.Bool("black-box", false, "play one scenario server with every feature (for a host with no per-scenario adapter: it is judged on whatever it does) instead of the official harness's scenarios")
	)
	fs.Var(&envs, "env", "extra environment variable NAME=value for the client (repeatable)")
	if done, code := parseFlags(fs, args, "mcpconform client [flags] -- CLIENT [ARGS...]", stdout, stderr); done {
		return code
	}
	argv := fs.Args()
	if len(argv) == 0 {
		fmt.Fprintln(stderr, "mcpconform client: give the client's command after --, e.g. mcpconform client -- ./everything-client (see 'mcpconform client --help')")
		return exitUsage
	}
	c := scenario.Client{Argv: argv, Env: envs, Timeout: *timeout, BlackBox: *blackBox}
	if *scenarios != "" {
		for _, p := range strings.Split(*scenarios, ",") {
			c.Scenarios = append(c.Scenarios, strings.TrimSpace(p))
		}
		if p, err := scenario.CheckPatterns(c.Scenarios); err != nil {
			fmt.Fprintf(stderr, "mcpconform client: --scenarios %q: %v\n", p, err)
			return exitUsage
		}
	}
	switch *transport {
	case "auto":
		c.Transport = wire.HTTP
		for _, a := range argv {
			if strings.Contains(a, scenario.ServerPlaceholder) {
				c.Transport = wire.Stdio
			}
		}
	case wire.HTTP, wire.Stdio:
		c.Transport = *transport
	default:
		fmt.Fprintf(stderr, "mcpconform client: --transport %q: want http, stdio or auto\n", *transport)
		return exitUsage
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintf(stderr, "mcpconform client: %v\n", err)
		return exitUsage
	}
	c.Relay = []string{self, "scenario-relay"}
	var revs []catalog.Revision
	for _, r := range strings.Split(*revision, ",") {
		rev := catalog.Revision(strings.TrimSpace(r))
		if !rev.Known() {
			fmt.Fprintf(stderr, "mcpconform client: unknown revision %q (known: %v)\n", rev, catalog.AllRevisions)
			return exitUsage
		}
		revs = append(revs, rev)
	}
	var base *result.Baseline
	if *baseline != "" {
		if base, err = result.LoadBaseline(*baseline); err != nil {
			fmt.Fprintf(stderr, "mcpconform client: --baseline: %v\n", err)
			return exitUsage
		}
	}
	filter, err := selection(*labelFilter, *only, *skip)
	if err != nil {
		fmt.Fprintf(stderr, "mcpconform client: %v\n", err)
		return exitUsage
	}
	formats, err := reportFormats(*reportList)
	if err != nil {
		fmt.Fprintf(stderr, "mcpconform client: --reports: %v\n", err)
		return exitUsage
	}
	progress := stderr
	if *quiet {
		progress = io.Discard
	}
	dir, _ := filepath.Abs(*reportDir)
	fmt.Fprintf(progress, "mcpconform %s: checking the client %s (%s)\n", toolVersion(), strings.Join(argv, " "), c.Transport)
	out, err := runner.RunClient(runner.Config{Revisions: revs, LabelFilter: filter, Strict: *strict, Progress: progress,
		Version: toolVersion(), Budget: *budget, Baseline: base, BaselineFile: *baseline, Parallel: *parallel}, c)
	if err != nil {
		fmt.Fprintf(stderr, "mcpconform client: %v\n", err)
		if errors.Is(err, runner.ErrInterrupted) {
			return exitInterrupted
		}
		return exitUsage
	}
	reports.Write(out.Report, reports.Options{Dir: dir, Formats: formats, Terminal: stdout, Errors: stderr})
	if out.Report.Summary.Total == 0 {
		fmt.Fprintf(stderr, "mcpconform client: the selection (--label-filter/--only/--skip) matched no check\n")
		return exitUsage
	}
	if !out.Report.Summary.Passed {
		return exitFail
	}
	return exitOK
}
