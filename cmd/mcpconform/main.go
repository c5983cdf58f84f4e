// Command mcpconform checks MCP servers against the specification: it runs
// the conformance suite against a stdio command or a Streamable HTTP URL and
// writes JUnit, JSON and terminal reports. See README.md.
package main

import (
	"errors"
	"flag"
	"fmt"
	"github.com/mcpconform/mcpconform/internal/contract"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/fixtures"
	"github.com/mcpconform/mcpconform/internal/catalog"
	"github.com/mcpconform/mcpconform/internal/config"
	"github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/msgcheck"
	"github.com/mcpconform/mcpconform/internal/policy"
	"github.com/mcpconform/mcpconform/internal/repro"
	"github.com/mcpconform/mcpconform/internal/result"
	"github.com/mcpconform/mcpconform/internal/runner"
	"github.com/mcpconform/mcpconform/internal/scenario"
	"github.com/mcpconform/mcpconform/internal/session"
	"github.com/mcpconform/mcpconform/internal/target"
	"github.com/mcpconform/mcpconform/internal/wire"
	"github.com/mcpconform/mcpconform/internal/wire/stdio"
	"github.com/mcpconform/mcpconform/reports"
	_ "github.com/mcpconform/mcpconform/suites/all"
)

// Exit codes.
const (
	exitOK    = 0
	exitFail  = 1
	exitUsage = 2
	// exitInterrupted (SIGINT) and exitTerminated (SIGTERM) end a run that
	// a signal stopped (128 + the signal number, as shells report it).
	exitInterrupted = 130
	exitTerminated  = 143
)

// runMemoryLimit is the ceiling of the soft memory limit of `mcpconform run`
// (it follows the live heap below it: memory.go) unless
// GOMEMLIMIT says otherwise.
const runMemoryLimit = 384 << 20

// defaultParallel is --parallel's default: checks waiting on a slow server
// cost the harness no CPU, so the bound is on the server (its processes,
// its sessions), not on this machine's cores. A fast server's checks stay
// one at a time per revision (lanes grow only while a check waits).
const defaultParallel = 16

var version = ""

func toolVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

const usage = `mcpconform — conformance suite for MCP servers

usage:
  mcpconform run [flags] -- COMMAND [ARGS...]   check a stdio server
  mcpconform run [flags] --url URL              check a Streamable HTTP server
  mcpconform run [flags] --config FILE          check the target a config file names (CONFIG.md)
  mcpconform client [flags] -- CLIENT [ARGS...]
                                                check an MCP client: play scenario servers to it
                                                (HTTP: its URL is the last argument or {url};
                                                stdio: {server} is the server command to start)
  mcpconform fuzz [flags] -- COMMAND | --url URL
                                                fuzz a server (--seed, --duration, --checks,
                                                --properties ids,raw,tools, --replay FILE)
  mcpconform inspect [flags] -- COMMAND | --url URL
                                                connect like a host: identity, catalog,
                                                --declarations json, --call NAME --args JSON
  mcpconform contract snapshot [-o FILE] [--update] -- COMMAND | --url URL
  mcpconform contract check FILE -- COMMAND | --url URL
  mcpconform contract lint -- COMMAND | --url URL
                                                the contract gate: snapshot the declared
                                                surface, classify every change (exit 1 on
                                                ERR), lint the text a model reads
  mcpconform report [--html OUT.html] [NAME=]RUN_DIR...
                                                re-render a run's report.html/summary.md,
                                                or a matrix page of several runs
  mcpconform baseline write [--report-dir DIR] [-o FILE]
                                                known failures of a run, for --baseline
  mcpconform repro REPORT.json ID [--revision R] [--transport stdio|http]
  mcpconform repro --finding CORPUS.json       print a POSIX sh script that reproduces a FAIL
                                                or WARN (or a saved fuzz case) without mcpconform
  mcpconform list [--all|--tolerances|--markdown|--contract-rules]
                                                print the requirement catalog (with links
                                                to the specification), or the tolerated
                                                ambiguities
  mcpconform fixture NAME [--http ADDR] [--mutant NAME]
                                                serve a built-in fixture server
  mcpconform version

run 'mcpconform run --help' for the run flags.
exit codes: 0 conformant, 1 failures (or WARN with --strict), 2 usage error or target unreachable,
  130 interrupted by SIGINT (Ctrl-C), 143 by SIGTERM (the reports hold the checks that finished)
`

func main() {
	// MCPCONFORM_MEMPROFILE=file writes the allocations of the whole
	// command (go tool pprof -sample_index=alloc_space): what the GC has
	// to collect. Without it no allocation is sampled: the samples'
	// buckets (1.4 MiB by the end of a run) counted against the run's
	// memory limit (memory.go) and made the GC collect more often.
	memProfile := os.Getenv("MCPCONFORM_MEMPROFILE")
	if memProfile == "" {
		runtime.MemProfileRate = 0
	}
	// MCPCONFORM_CPUPROFILE=file writes a CPU profile of the whole command
	// (for developers measuring where a run's time goes; see make bench).
	if p := os.Getenv("MCPCONFORM_CPUPROFILE"); p != "" {
		if f, err := os.Create(p); err == nil && pprof.StartCPUProfile(f) == nil {
			code := realMain(os.Args[1:], os.Stdout, os.Stderr)
			pprof.StopCPUProfile()
			f.Close()
			os.Exit(code)
		}
	}
	if memProfile != "" {
		code := realMain(os.Args[1:], os.Stdout, os.Stderr)
		if f, err := os.Create(memProfile); err == nil {
			_ = pprof.Lookup("allocs").WriteTo(f, 0)
			f.Close()
		}
		os.Exit(code)
	}
	os.Exit(realMain(os.Args[1:], os.Stdout, os.Stderr))
}

func realMain(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	switch args[0] {
	case "run":
		return cmdRun(args[1:], stdout, stderr)
	case "list":
		return cmdList(args[1:], stdout, stderr)
	case "client":
		return cmdClient(args[1:], stdout, stderr)
	case "scenario-relay": // started by a stdio client under test (mcpconform client)
		return scenario.RelayMain(args[1:], os.Stdin, stdout, stderr)
	case "fuzz":
		return cmdFuzz(args[1:], stdout, stderr)
	case "inspect":
		return cmdInspect(args[1:], stdout, stderr)
	case "contract":
		return cmdContract(args[1:], stdout, stderr)
	case "report":
		return cmdReport(args[1:], stdout, stderr)
	case "baseline":
		return cmdBaseline(args[1:], stdout, stderr)
	case "repro":
		return cmdRepro(args[1:], stdout, stderr)
	case "fixture":
		return fixtures.Main(args[1:], os.Stdin, stdout, stderr)
	case "version", "--version":
		fmt.Fprintf(stdout, "mcpconform %s\n", toolVersion())
		return exitOK
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return exitOK
	default:
		fmt.Fprintf(stderr, "mcpconform: unknown command %q (try: mcpconform help)\n", args[0])
		return exitUsage
	}
}

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ", ") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

// targetFlags are the flags that name and reach a target; run, inspect
// (and later fuzz) share them.
type targetFlags struct {
	url, bearerEnv, bearerFile, cwd   string
	secondBearerEnv, secondBearerFile string
	timeout                           time.Duration
	prestart                          int
	headers, envs                     multiFlag
	configFile, callTools             string

	// credentials for the authorization checks (AUTH-xxx, STALE-007)
	weakBearerEnv, weakBearerFile       string
	expiredBearerEnv, expiredBearerFile string
	foreignBearerEnv, foreignBearerFile string

	// set by build: the call policy and the config file's sample arguments
	policy  policy.CallPolicy
	samples map[string]map[string]any
	// the config file's catalog_change trigger (STALE, SUB)
	catalogChange *config.Trigger
}

func (tf *targetFlags) register(fs *flag.FlagSet) {
	tf.registerCommon(fs)
	tf.registerSuiteOnly(fs)
}

// registerCommon registers the target flags every command that talks to a
// server reads (mcpconform fuzz registers only these).
func (tf *targetFlags) registerCommon(fs *flag.FlagSet) {
	fs.StringVar(&tf.url, "url", "", "Streamable HTTP endpoint of the server")
	fs.StringVar(&tf.bearerEnv, "bearer-env", "", "name of an environment variable holding the bearer token")
	fs.StringVar(&tf.bearerFile, "bearer-file", "", "file holding the bearer token")
	fs.StringVar(&tf.cwd, "cwd", "", "working directory of the stdio server")
	fs.DurationVar(&tf.timeout, "timeout", 5*time.Second, "deadline for each response")
	fs.Var(&tf.headers, "header", "extra HTTP header 'Name: value' (repeatable)")
	fs.Var(&tf.envs, "env", "extra environment variable NAME=value for the stdio server (repeatable)")
	fs.StringVar(&tf.configFile, "config", "", "target config file (YAML, see CONFIG.md): transport, command or URL, env, token source, call policy, sample arguments; flags override it")
	fs.StringVar(&tf.callTools, "call-tools", string(policy.Default), "which tools may be called with inputs that could execute: none, readonly (annotations.readOnlyHint true), all")
}

// registerSuiteOnly registers the target flags only the suite's checks
// read: the authorization checks' other tokens, and the processes started
// ahead of need.
func (tf *targetFlags) registerSuiteOnly(fs *flag.FlagSet) {
	fs.StringVar(&tf.secondBearerEnv, "second-bearer-env", "", "HTTP: environment variable holding a second principal's token (checks that compare what two principals see)")
	fs.StringVar(&tf.secondBearerFile, "second-bearer-file", "", "HTTP: file holding a second principal's token")
	fs.StringVar(&tf.weakBearerEnv, "weak-bearer-env", "", "HTTP: environment variable holding a valid token with fewer rights (scopes) than the main one (authorization checks)")
	fs.StringVar(&tf.weakBearerFile, "weak-bearer-file", "", "HTTP: file holding a token with fewer rights than the main one")
	fs.StringVar(&tf.expiredBearerEnv, "expired-bearer-env", "", "HTTP: environment variable holding an expired token (authorization checks)")
	fs.StringVar(&tf.expiredBearerFile, "expired-bearer-file", "", "HTTP: file holding an expired token")
	fs.StringVar(&tf.foreignBearerEnv, "foreign-bearer-env", "", "HTTP: environment variable holding a valid token issued for another audience/resource (authorization checks)")
	fs.StringVar(&tf.foreignBearerFile, "foreign-bearer-file", "", "HTTP: file holding a token issued for another audience")
	fs.IntVar(&tf.prestart, "prestart", target.DefaultPrestart, "stdio: server processes kept started ahead of need, so checks that need a fresh one do not wait for its start-up (0: none)")
}

// build makes the target (command = the arguments after the flags, fs the
// parsed flags) with a recorder whose redactor knows every secret the
// flags carry, after merging the --config file under the flags.
func (tf *targetFlags) build(fs *flag.FlagSet, command []string) (*target.Target, *wire.Redactor, error) {
	command, err := tf.loadConfig(fs, command)
	if err != nil {
		return nil, nil, err
	}
	redactor := wire.NewRedactor()
	tg := &target.Target{URL: tf.url, Command: command, Env: tf.envs, Dir: tf.cwd, Timeout: tf.timeout, Header: http.Header{}, Prestart: tf.prestart}
	if tf.prestart <= 0 {
		tg.Prestart = -1 // none
	}
	for _, h := range tf.headers {
		k, v, ok := strings.Cut(h, ":")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, nil, fmt.Errorf("--header %q is not 'Name: value'", h)
		}
		tg.Header.Add(strings.TrimSpace(k), strings.TrimSpace(v))
		if strings.EqualFold(strings.TrimSpace(k), "Authorization") {
			redactor.AddSecret(strings.TrimSpace(v))
		}
	}
	for _, e := range tf.envs {
		if k, v, ok := strings.Cut(e, "="); ok && config.LooksSecret(k) {
			redactor.AddSecret(v)
		}
	}
	token, source, err := bearer("--bearer", tf.bearerEnv, tf.bearerFile)
	if err != nil {
		return nil, nil, err
	}
	tg.Bearer, tg.BearerSource = token, source
	redactor.AddSecret(token)
	token2, source2, err := bearer("--second-bearer", tf.secondBearerEnv, tf.secondBearerFile)
	if err != nil {
		return nil, nil, err
	}
	if token2 != "" && tf.url == "" {
		return nil, nil, errors.New("a second principal (--second-bearer-env/--second-bearer-file) needs an HTTP target (--url)")
	}
	if token2 != "" && token2 == token {
		return nil, nil, errors.New("the second principal's token equals the first one: give another principal's token")
	}
	tg.SecondBearer, tg.SecondBearerSource = token2, source2
	redactor.AddSecret(token2)
	for _, x := range []struct {
		flag, env, file string
		token, source   *string
	}{
		{"--weak-bearer", tf.weakBearerEnv, tf.weakBearerFile, &tg.WeakBearer, &tg.WeakBearerSource},
		{"--expired-bearer", tf.expiredBearerEnv, tf.expiredBearerFile, &tg.ExpiredBearer, &tg.ExpiredBearerSource},
		{"--foreign-bearer", tf.foreignBearerEnv, tf.foreignBearerFile, &tg.ForeignBearer, &tg.ForeignBearerSource},
	} {
		tok, src, err := bearer(x.flag, x.env, x.file)
		if err != nil {
			return nil, nil, err
		}
		if tok != "" && tf.url == "" {
			return nil, nil, fmt.Errorf("%s-env/%s-file needs an HTTP target (--url)", x.flag, x.flag)
		}
		if tok != "" && tok == token {
			return nil, nil, fmt.Errorf("the %s token equals the main one: give a different token", strings.TrimPrefix(x.flag, "--"))
		}
		*x.token, *x.source = tok, src
		redactor.AddSecret(tok)
	}
	tg.Recorder = wire.NewRecorder(redactor)
	if err := tg.Validate(); err != nil {
		return nil, nil, err
	}
	session.ClientVersion = toolVersion()
	return tg, redactor, nil
}

// parseFlags parses args; on -h it prints the usage and returns done.
func parseFlags(fs *flag.FlagSet, args []string, usageLine string, stdout, stderr io.Writer) (done bool, code int) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(stdout)
			fmt.Fprintf(stdout, "usage: %s\n\nflags:\n", usageLine)
			fs.PrintDefaults()
			return true, exitOK
		}
		fmt.Fprintf(stderr, "mcpconform %s: %v (see 'mcpconform %s --help')\n", fs.Name(), err, fs.Name())
		return true, exitUsage
	}
	return false, exitOK
}

func cmdRun(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var tf targetFlags
	tf.register(fs)
	var (
		revision    = fs.String("revision", "auto", "auto, or a comma list of revisions (2024-11-05 … 2026-07-28)")
		reportDir   = fs.String("report-dir", "./mcpconform-report", "directory for junit.xml and report.json")
		budget      = fs.Duration("budget", 10*time.Minute, "deadline for the whole run")
		parallel    = fs.Int("parallel", defaultParallel, "checks run at once: above 1, each protocol revision's checks run in a lane beside the other revisions', and a lane takes more workers (each with its own shared session), up to this many, while its checks wait on a slow server (a start-up, a slow tool or answer); the verdicts are those of a run of one check at a time; 1: one check at a time")
		window      = fs.Duration("window", 0, "grace period, after a barrier request was answered, to watch for traffic that must not come (default: adaptive, 3× the observed p99 latency within 5ms..25ms)")
		maxPages    = fs.Int("max-pages", conform.DefaultMaxPages, "cap on the pages of each list walk (a longer list is reported as endless)")
		strict      = fs.Bool("strict", false, "WARN fails the run")
		labelFilter = fs.String("label-filter", "", "Ginkgo label expression selecting checks, e.g. 'area:lifecycle && level:MUST'")
		quiet       = fs.Bool("quiet", false, "no progress lines")
		only        = fs.String("only", "", "comma list of requirement ids to run (others are not run)")
		skip        = fs.String("skip", "", "comma list of requirement ids not to run")
		schemaFile  = fs.String("schema", "", "also validate every server message against this official MCP schema.json (JSON Schema draft-07 or 2020-12)")
		baseline    = fs.String("baseline", "", "YAML file of known failures that do not fail the run (a listed requirement that now passes does)")
		contractF   = fs.String("contract", "", "also compare the server with this contract file (mcpconform contract snapshot) and lint its model-read text: an ERR change or lint fails the run")
		verifyRepro = fs.Duration("verify-repro", 0, "after the checks, verify the reproduction script of each FAIL and WARN against the target within this budget (e.g. 60s), so that report.html and report.json carry verified scripts (mcpconform repro); 0: not verified (report.html's scripts then never say OK)")
		lint        = fs.Bool("lint", false, "also lint the text a model reads (tool, prompt, resource text, instructions) and the surface's stability: an ERR lint fails the run")
		reportList  = fs.String("reports", reports.DefaultFormatList(), "comma list of the reports to write in --report-dir (report.json is always written): "+reports.FormatsHelp())
	)
	if done, code := parseFlags(fs, args, "mcpconform run [flags] -- COMMAND [ARGS...] | mcpconform run [flags] --url URL | mcpconform run [flags] --config FILE", stdout, stderr); done {
		return code
	}
	tg, redactor, err := tf.build(fs, fs.Args())
	if err != nil {
		fmt.Fprintf(stderr, "mcpconform run: %v (see 'mcpconform run --help')\n", err)
		return exitUsage
	}
	var revs []catalog.Revision
	if *revision != "auto" {
		for _, r := range strings.Split(*revision, ",") {
			rev := catalog.Revision(strings.TrimSpace(r))
			if !rev.Known() {
				fmt.Fprintf(stderr, "mcpconform run: unknown revision %q (known: %v)\n", rev, catalog.AllRevisions)
				return exitUsage
			}
			revs = append(revs, rev)
		}
	}
	var base *result.Baseline
	if *baseline != "" {
		if base, err = result.LoadBaseline(*baseline); err != nil {
			fmt.Fprintf(stderr, "mcpconform run: --baseline: %v\n", err)
			return exitUsage
		}
	}
	var schema *msgcheck.SchemaValidator
	if *schemaFile != "" {
		if schema, err = msgcheck.LoadSchema(*schemaFile); err != nil {
			fmt.Fprintf(stderr, "mcpconform run: --schema: %v\n", err)
			return exitUsage
		}
	}
	filter, err := selection(*labelFilter, *only, *skip)
	if err != nil {
		fmt.Fprintf(stderr, "mcpconform run: %v\n", err)
		return exitUsage
	}
	formats, err := reportFormats(*reportList)
	if err != nil {
		fmt.Fprintf(stderr, "mcpconform run: --reports: %v\n", err)
		return exitUsage
	}
	progress := stderr
	if *quiet {
		progress = io.Discard
	}
	dir, _ := filepath.Abs(*reportDir)
	if os.Getenv("GOMEMLIMIT") == "" {
		// A soft limit: the caps bound what a hostile server makes the
		// harness keep; this keeps the garbage around it from doubling
		// the peak (the GC works harder near the limit, never fails).
		defer adaptMemoryLimit()() // memory.go: follows the live heap, at most runMemoryLimit
	}
	if tg.Transport() == wire.Stdio {
		// No process a server spawns outlives the run, even one that left
		// its process group (internal/wire/stdio reap.go).
		_ = stdio.AdoptOrphans()
		defer stdio.ReapOrphans()
	}
	var contractSum *reportContract
	if *contractF != "" || *lint {
		// on a target of its own (the suite's statistics stay the suite's)
		var old *contractFile
		if *contractF != "" {
			var code int
			if old, code = loadContract(*contractF, stderr); old == nil {
				return code
			}
		}
		var pf profileFlags
		live, _, _, code := takeSnapshot("(run --contract)", fs, &tf, &pf, stderr)
		if live == nil {
			return code
		}
		contractSum = gate(*contractF, old, live)
	}
	fmt.Fprintf(progress, "mcpconform %s: checking %s (%s)\n", toolVersion(), tg.Describe(), tg.Transport())
	conform.SetCatalogTrigger(catalogTrigger(tf.catalogChange))
	restoreProcs := checksOnOneP() // procs.go
	defer restoreProcs()
	out, err := runner.Run(runner.Config{
		Target: tg, Revisions: revs, LabelFilter: filter, Strict: *strict,
		Progress: progress, Version: toolVersion(), Budget: *budget, Window: *window, MaxPages: *maxPages,
		Baseline: base, BaselineFile: *baseline, Schema: schema, SchemaFile: *schemaFile,
		Policy: tf.policy, SampleArgs: tf.samples, ConfigFile: tf.configFile, Parallel: *parallel,
	})
	restoreProcs()
	if out != nil && contractSum != nil {
		out.Report.Contract = contractSum
		if !contractSum.Passed {
			out.Report.Summary.Passed = false
		}
	}
	if out != nil && err == nil && out.Signal == "" && *verifyRepro > 0 {
		verifyScripts(out.Report, *verifyRepro, tg, redactor.String, progress) // repro.go
	}
	if out != nil { // a run that ended before any check ran still has reports saying why
		var terminal io.Writer = stdout
		if err != nil {
			terminal = nil // the error says it
		}
		reports.Write(out.Report, reports.Options{Dir: dir, Formats: formats, Terminal: terminal, Errors: stderr})
	}
	if err != nil {
		fmt.Fprintf(stderr, "mcpconform run: %s\n", redactor.String(err.Error()))
		if errors.Is(err, runner.ErrInterrupted) {
			return exitInterrupted
		}
		return exitUsage
	}
	if out.Signal != "" {
		fmt.Fprintf(stderr, "mcpconform run: interrupted by %s: the reports hold the %d checks that finished\n", out.Signal, out.Report.Summary.Total)
		if out.Signal == "SIGTERM" {
			return exitTerminated
		}
		return exitInterrupted
	}
	if out.Report.Summary.Total == 0 {
		fmt.Fprintf(stderr, "mcpconform run: the selection (--label-filter/--only/--skip) matched no check\n")
		return exitUsage
	}
	if !out.Report.Summary.Passed {
		return exitFail
	}
	return exitOK
}

// selection combines --label-filter, --only and --skip into one Ginkgo
// label expression; ids must be in the catalog.
func selection(labelFilter, only, skip string) (string, error) {
	var parts []string
	if strings.TrimSpace(labelFilter) != "" {
		parts = append(parts, "("+labelFilter+")")
	}
	for _, sel := range []struct {
		flag, list, format string
	}{{"--only", only, "req: containsAny {%s}"}, {"--skip", skip, "!(req: containsAny {%s})"}} {
		if strings.TrimSpace(sel.list) == "" {
			continue
		}
		var ids []string
		for _, id := range strings.Split(sel.list, ",") {
			id = strings.ToUpper(strings.TrimSpace(id))
			if _, ok := catalog.Get(id); !ok {
				return "", fmt.Errorf("%s: %q is not a requirement id (see 'mcpconform list --all')", sel.flag, id)
			}
			ids = append(ids, id)
		}
		parts = append(parts, fmt.Sprintf(sel.format, strings.Join(ids, ", ")))
	}
	return strings.Join(parts, " && "), nil
}

// bearer reads a token from the variable or file named by the flags
// flag+"-env" / flag+"-file".
func bearer(flag, envName, file string) (token, source string, err error) {
	switch {
	case envName != "" && file != "":
		return "", "", fmt.Errorf("give %s-env or %s-file, not both", flag, flag)
	case envName != "":
		v, ok := os.LookupEnv(envName)
		if !ok || strings.TrimSpace(v) == "" {
			return "", "", fmt.Errorf("%s-env %s: the variable is not set or empty", flag, envName)
		}
		return strings.TrimSpace(v), "env " + envName, nil
	case file != "":
		b, err := os.ReadFile(file)
		if err != nil {
			return "", "", fmt.Errorf("%s-file: %v", flag, err)
		}
		v := strings.TrimSpace(string(b))
		if v == "" {
			return "", "", fmt.Errorf("%s-file %s is empty", flag, file)
		}
		return v, "file " + file, nil
	}
	return "", "", nil
}

func cmdList(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("list", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	all := fs.Bool("all", false, "also list catalog requirements that have no check yet")
	tols := fs.Bool("tolerances", false, "list the ambiguities of the specification mcpconform tolerates, with the verdict of each reading and the links")
	md := fs.Bool("markdown", false, "print the whole catalog as Markdown (docs/requirements.md is this output)")
	rules := fs.Bool("contract-rules", false, "list the rules of the contract gate (mcpconform contract) and the lints")
	if err := fs.Parse(args); err != nil || fs.NArg() > 0 {
		if err == nil {
			err = fmt.Errorf("unexpected argument %q", fs.Arg(0))
		}
		fmt.Fprintf(stderr, "mcpconform list: %v (flags: --all, --tolerances, --markdown, --contract-rules)\n", err)
		return exitUsage
	}
	switch {
	case *rules:
		for _, r := range contract.Rules {
			fmt.Fprintf(stdout, "%-32s %-4s %-6s %s\n%38s why: %s\n", r.ID, r.Level, r.Category, r.Change, "", r.Why)
		}
	case *md:
		writeCatalogMarkdown(stdout)
	case *tols:
		writeTolerances(stdout)
	default:
		writeList(stdout, *all)
	}
	return exitOK
}

// writeList prints the catalog with, for each requirement, where its check
// is registered (file:line) and the mutants of the kill matrix that kill it
// (suites/checks.txt is this output with --all; make lint diffs it).
func writeList(w io.Writer, all bool) {
	checked, sources, killers := checkIndex(true)
	fmt.Fprintln(w, "ID  LEVEL  REVISIONS  TRANSPORTS  TITLE")
	fmt.Fprintln(w, "    check: where it is registered; killed by: the kill-matrix mutants that fail it")
	for _, r := range catalog.All() {
		if !all && !checked[r.ID] {
			continue
		}
		fmt.Fprintf(w, "\n%s  %s  %s  %s  %s\n", r.ID, r.SpecLevel, r.RevisionsString(), strings.Join(r.TransportNames(), ","), r.Title)
		fmt.Fprintf(w, "    spec: %s\n", strings.Join(r.Links(""), " "))
		if !checked[r.ID] {
			fmt.Fprintln(w, "    no check yet")
			continue
		}
		fmt.Fprintf(w, "    check: %s\n", strings.Join(sources[r.ID], ", "))
		if k := killers[r.ID]; len(k) > 0 {
			sort.Strings(k)
			fmt.Fprintf(w, "    killed by: %s\n", strings.Join(k, ", "))
		} else {
			fmt.Fprintln(w, "    killed by: no mutant (the kill matrix fails)")
		}
		if r.Client() {
			fmt.Fprintf(w, "    repro: a client's fault is replayed by playing its scenarios again: mcpconform client --only %s -- CLIENT\n", r.ID)
		} else if judged, note := repro.Coverage(r.ID); judged {
			fmt.Fprintf(w, "    repro: judged (%s)\n", note)
		} else {
			fmt.Fprintf(w, "    repro: %s\n", note)
		}
	}
	fmt.Fprintf(w, "\n%d requirements with checks (of %d in the catalog)\n", len(checked), len(catalog.All()))
}

// checkedIDs builds the spec tree once for every revision and transport to
// learn which requirements have a check.
func checkedIDs() []string { return conform.CheckedIDs() }

// reportFormats parses --reports: which report files to write besides
// report.json (always written: baselines and `mcpconform report` read it).
func reportFormats(list string) (map[string]bool, error) {
	out := map[string]bool{"json": true}
	known := reports.Formats()
	for _, f := range strings.Split(list, ",") {
		switch f = strings.TrimSpace(f); {
		case f == "":
		case slices.Contains(known, f):
			out[f] = true
		default:
			return nil, fmt.Errorf("unknown report %q (%s)", f, strings.Join(known, ", "))
		}
	}
	return out, nil
}
