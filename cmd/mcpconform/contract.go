package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/mcpconform/mcpconform/internal/contract"
	"github.com/mcpconform/mcpconform/internal/result"
	"github.com/mcpconform/mcpconform/internal/target"
	"github.com/mcpconform/mcpconform/internal/wire"
	"github.com/mcpconform/mcpconform/reports"
)

const contractUsage = `usage:
  mcpconform contract snapshot [-o FILE] [--update] [flags] (-- COMMAND [ARGS...] | --url URL)
      write the server's declared surface (every revision it supports) to FILE
      (default mcp.contract.json); --update rewrites an existing FILE, keeping
      its policy, and prints what changed
  mcpconform contract check FILE [--format text|json] [--report-dir DIR] [flags] (-- COMMAND | --url URL)
      compare the live server with FILE and classify every change
      (mcpconform list --contract-rules); exit 1 on an ERR change or lint the
      policy does not accept, 0 otherwise, 2 when it could not run
  mcpconform contract lint [flags] (-- COMMAND | --url URL)
      lint the text a model reads (and the surface's stability), no contract
`

func cmdContract(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, contractUsage)
		return exitUsage
	}
	switch args[0] {
	case "snapshot":
		return cmdContractSnapshot(args[1:], stdout, stderr)
	case "check":
		return cmdContractCheck(args[1:], stdout, stderr)
	case "lint":
		return cmdContractLint(args[1:], stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, contractUsage)
		return exitOK
	}
	fmt.Fprintf(stderr, "mcpconform contract: unknown subcommand %q\n%s", args[0], contractUsage)
	return exitUsage
}

// profileFlags: --profile NAME=env:VAR or NAME=file:PATH, repeated.
type profileFlags struct{ list multiFlag }

func (p *profileFlags) register(fs *flag.FlagSet) {
	fs.Var(&p.list, "profile", "HTTP: another credential profile, NAME=env:VAR or NAME=file:PATH (repeatable): its surface is snapshotted and checked as a profile of its own")
}

func (p *profileFlags) tokens(red *wire.Redactor) (map[string]string, error) {
	out := map[string]string{}
	for _, e := range p.list {
		name, src, ok := strings.Cut(e, "=")
		kind, where, ok2 := strings.Cut(src, ":")
		if !ok || !ok2 || name == "" || name == "default" {
			return nil, fmt.Errorf("--profile %q is not NAME=env:VAR or NAME=file:PATH (and not default)", e)
		}
		var tok string
		var err error
		switch kind {
		case "env":
			tok, _, err = bearer("--profile", where, "")
		case "file":
			tok, _, err = bearer("--profile", "", where)
		default:
			err = fmt.Errorf("--profile %q: env: or file:", e)
		}
		if err != nil {
			return nil, err
		}
		red.AddSecret(tok)
		out[name] = tok
	}
	return out, nil
}

// takeSnapshot builds the target from the flags and snapshots it.
func takeSnapshot(cmd string, fs *flag.FlagSet, tf *targetFlags, pf *profileFlags, stderr io.Writer) (*contract.File, *target.Target, *wire.Redactor, int) {
	tg, redactor, err := tf.build(fs, fs.Args())
	if err != nil {
		fmt.Fprintf(stderr, "mcpconform contract %s: %v\n", cmd, err)
		return nil, nil, nil, exitUsage
	}
	profiles, err := pf.tokens(redactor)
	if err != nil {
		fmt.Fprintf(stderr, "mcpconform contract %s: %v\n", cmd, err)
		return nil, nil, nil, exitUsage
	}
	tg.Recorder = wire.NewRecorder(redactor)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	f, err := contract.Snapshot(ctx, contract.Options{Target: tg, Profiles: profiles, Generator: "mcpconform " + toolVersion()})
	if err != nil {
		fmt.Fprintf(stderr, "mcpconform contract %s: %s\n", cmd, redactor.String(err.Error()))
		return nil, nil, nil, exitUsage
	}
	return f, tg, redactor, exitOK
}

func cmdContractSnapshot(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("contract snapshot", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var tf targetFlags
	tf.registerCommon(fs)
	var pf profileFlags
	pf.register(fs)
	out := fs.String("o", "mcp.contract.json", "the contract file to write (- for stdout)")
	update := fs.Bool("update", false, "rewrite the existing file: its policy is kept, and the changes are printed for review")
	if done, code := parseFlags(fs, args, "mcpconform contract snapshot [-o FILE] [--update] [flags] (-- COMMAND [ARGS...] | --url URL)", stdout, stderr); done {
		return code
	}
	var old *contract.File
	if *update {
		b, err := os.ReadFile(*out)
		if err != nil {
			fmt.Fprintf(stderr, "mcpconform contract snapshot: --update: %v\n", err)
			return exitUsage
		}
		if old, err = contract.Decode(b); err != nil {
			fmt.Fprintf(stderr, "mcpconform contract snapshot: --update: %s: %v\n", *out, err)
			return exitUsage
		}
	} else if _, err := os.Stat(*out); err == nil && *out != "-" {
		fmt.Fprintf(stderr, "mcpconform contract snapshot: %s exists: give --update to rewrite it (its policy is kept)\n", *out)
		return exitUsage
	}
	f, _, _, code := takeSnapshot("snapshot", fs, &tf, &pf, stderr)
	if f == nil {
		return code
	}
	for _, n := range f.Notes {
		fmt.Fprintf(stderr, "note: %s\n", n)
	}
	if old != nil {
		f.Policy = old.Policy
		changes := contract.Compare(old, f)
		fmt.Fprintf(stderr, "%d change(s) from %s:\n", len(changes), *out)
		for _, c := range changes {
			fmt.Fprintf(stderr, "  %s\n", c)
		}
	}
	for _, l := range contract.Lint(f, f.Policy) {
		fmt.Fprintf(stderr, "lint: %s\n", l)
	}
	b, err := f.Encode()
	if err != nil {
		fmt.Fprintf(stderr, "mcpconform contract snapshot: %v\n", err)
		return exitFail
	}
	if *out == "-" {
		stdout.Write(b)
		return exitOK
	}
	if err := os.WriteFile(*out, b, 0o644); err != nil {
		fmt.Fprintf(stderr, "mcpconform contract snapshot: %v\n", err)
		return exitUsage
	}
	fmt.Fprintf(stderr, "wrote %s: %d revision(s)\n", *out, len(f.Sections))
	return exitOK
}

func cmdContractCheck(args []string, stdout, stderr io.Writer) int {
	// the contract file comes first: flags after it
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		fmt.Fprintf(stderr, "mcpconform contract check: give the contract file first\n%s", contractUsage)
		return exitUsage
	}
	file := args[0]
	fs, tf, pf, format, reportDir := gateFlags("contract check")
	if done, code := parseFlags(fs, args[1:], "mcpconform contract check FILE [--format text|json] [--report-dir DIR] [flags] (-- COMMAND | --url URL)", stdout, stderr); done {
		return code
	}
	if *format != "text" && *format != "json" {
		fmt.Fprintf(stderr, "mcpconform contract check: --format is text or json\n")
		return exitUsage
	}
	old, code := loadContract(file, stderr)
	if old == nil {
		return code
	}
	live, tg, _, code := takeSnapshot("check", fs, tf, pf, stderr)
	if live == nil {
		return code
	}
	sum := gate(file, old, live)
	return finishContract(sum, tg, *format, *reportDir, stdout, stderr)
}

func cmdContractLint(args []string, stdout, stderr io.Writer) int {
	fs, tf, pf, format, reportDir := gateFlags("contract lint")
	if done, code := parseFlags(fs, args, "mcpconform contract lint [flags] (-- COMMAND | --url URL)", stdout, stderr); done {
		return code
	}
	live, tg, _, code := takeSnapshot("lint", fs, tf, pf, stderr)
	if live == nil {
		return code
	}
	return finishContract(gate("", nil, live), tg, *format, *reportDir, stdout, stderr)
}

// gateFlags are the flags of contract check and contract lint.
func gateFlags(name string) (fs *flag.FlagSet, tf *targetFlags, pf *profileFlags, format, reportDir *string) {
	fs = flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	tf, pf = &targetFlags{}, &profileFlags{}
	tf.registerCommon(fs)
	pf.register(fs)
	format = fs.String("format", "text", "text or json (the findings on stdout)")
	reportDir = fs.String("report-dir", "", "also write the reports (report.json, junit.xml, sarif.json, summary.md, report.html) here")
	return
}

// loadContract reads and decodes a contract file (exit 2 when it cannot).
func loadContract(file string, stderr io.Writer) (*contract.File, int) {
	b, err := os.ReadFile(file)
	if err != nil {
		fmt.Fprintf(stderr, "mcpconform: contract: %v\n", err)
		return nil, exitUsage
	}
	f, err := contract.Decode(b)
	if err != nil {
		fmt.Fprintf(stderr, "mcpconform: contract %s: %v\n", file, err)
		return nil, exitUsage
	}
	return f, exitOK
}

// gate is the contract part of a report: the changes from old (nil: none,
// lints only) and the lints of the live surface, with the lines of the
// findings in the file.
func gate(file string, old *contract.File, live *contract.File) *reportContract {
	var fs []contract.Finding
	pol := contract.Policy{}
	if old != nil {
		fs = contract.Compare(old, live)
		pol = old.Policy
	}
	fs = append(fs, contract.Lint(live, pol)...)
	if file != "" {
		if b, err := os.ReadFile(file); err == nil {
			for i := range fs {
				fs[i].Line = contract.LineOf(b, fs[i].Pointer())
			}
		}
	}
	return contract.Summary(file, fs, live.Notes)
}

type (
	reportContract = reports.Contract
	contractFile   = contract.File
)

// finishContract prints the findings, writes the reports and returns the
// exit code.
func finishContract(sum *reportContract, tg *target.Target, format, reportDir string, stdout, stderr io.Writer) int {
	if format == "json" {
		b, _ := json.MarshalIndent(sum, "", "  ")
		stdout.Write(append(b, '\n'))
	} else {
		reports.ContractText(stdout, sum)
	}
	if reportDir != "" {
		dir, _ := filepath.Abs(reportDir)
		rep := contractReport(tg, sum)
		formats := map[string]bool{"json": true, "junit": true, "sarif": true, "md": true, "html": true}
		reports.Write(rep, reports.Options{Dir: dir, Formats: formats, Errors: stderr})
	}
	if !sum.Passed {
		return exitFail
	}
	return exitOK
}

// contractReport is the report of a contract check or lint: the target and
// the contract part, no suite results.
func contractReport(tg *target.Target, sum *reportContract) *result.Report {
	t := result.Target{Transport: tg.Transport(), Command: tg.Command, URL: tg.URL}
	if tg.BearerSource != "" {
		t.Auth = "bearer token from " + tg.BearerSource
	}
	return &result.Report{SchemaVersion: result.SchemaVersion, Tool: result.Tool{Name: "mcpconform", Version: toolVersion()},
		Target: t, Revisions: []string{}, Eras: []result.Era{}, Results: []result.Result{}, StartedAt: time.Now().UTC(),
		Contract: sum, Summary: result.Summary{Passed: sum.Passed, ByArea: map[string]result.Counts{}}}
}
