package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpconform/mcpconform/reports"
)

// cmdReport re-renders reports from report.json files:
//
//	mcpconform report RUN_DIR                      rewrite RUN_DIR/report.html and summary.md
//	mcpconform report --html OUT.html RUN_DIR      one run's page to OUT.html
//	mcpconform report --html OUT.html [NAME=]RUN_DIR...
//	                                               a matrix page: requirements × runs
func cmdReport(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	out := fs.String("html", "", "write the page here (several runs: a matrix page)")
	if done, code := parseFlags(fs, args, "mcpconform report [--html OUT.html] [NAME=]RUN_DIR...", stdout, stderr); done {
		return code
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "mcpconform report: give at least one run directory (holding report.json)")
		return exitUsage
	}
	type run struct {
		name, dir string
		rep       *reports.Report
	}
	var runs []run
	for _, a := range fs.Args() {
		name, dir, named := strings.Cut(a, "=")
		if !named {
			dir, name = a, ""
		}
		rep, err := reports.ReadReport(dir)
		if err != nil {
			fmt.Fprintf(stderr, "mcpconform report: %v\n", err)
			return exitUsage
		}
		if name == "" {
			name = runName(rep, dir)
		}
		runs = append(runs, run{name, dir, rep})
	}
	switch {
	case *out == "":
		for _, r := range runs {
			for _, p := range reports.Write(r.rep, reports.Options{Dir: r.dir, Formats: map[string]bool{"html": true, "md": true}, Errors: stderr}) {
				fmt.Fprintf(stdout, "wrote %s\n", p)
			}
		}
	case len(runs) == 1:
		var buf bytes.Buffer
		if err := reports.RenderHTML(&buf, runs[0].rep); err != nil {
			fmt.Fprintf(stderr, "mcpconform report: %v\n", err)
			return exitFail
		}
		if err := os.WriteFile(*out, buf.Bytes(), 0o644); err != nil {
			fmt.Fprintf(stderr, "mcpconform report: %v\n", err)
			return exitFail
		}
		fmt.Fprintf(stdout, "wrote %s\n", *out)
	default:
		var mruns []reports.MatrixRun
		for _, r := range runs {
			// Each column links to that run's own page, rendered if missing.
			page := filepath.Join(r.dir, "report.html")
			if _, err := os.Stat(page); err != nil {
				if _, err := reports.WriteHTML(r.dir, r.rep); err != nil {
					fmt.Fprintf(stderr, "mcpconform report: %v\n", err)
					return exitFail
				}
			}
			link, err := filepath.Rel(filepath.Dir(*out), page)
			if err != nil {
				link = page
			}
			mruns = append(mruns, reports.MatrixRun{Name: r.name, Report: r.rep, Link: filepath.ToSlash(link)})
		}
		var buf bytes.Buffer
		if err := reports.RenderMatrix(&buf, mruns); err != nil {
			fmt.Fprintf(stderr, "mcpconform report: %v\n", err)
			return exitFail
		}
		if err := os.WriteFile(*out, buf.Bytes(), 0o644); err != nil {
			fmt.Fprintf(stderr, "mcpconform report: %v\n", err)
			return exitFail
		}
		fmt.Fprintf(stdout, "wrote %s (%d runs)\n", *out, len(runs))
	}
	return exitOK
}

// runName names a matrix column after the server and transport.
func runName(rep *reports.Report, dir string) string {
	name := filepath.Base(filepath.Clean(dir))
	if len(rep.ServerInfo) > 0 {
		var info struct{ Name string }
		if json.Unmarshal(rep.ServerInfo, &info) == nil && info.Name != "" {
			name = info.Name
		}
	}
	return name + " " + rep.Target.Transport
}

// cmdBaseline writes a baseline from a run: mcpconform baseline write.
func cmdBaseline(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "write" {
		fmt.Fprintln(stderr, "usage: mcpconform baseline write [--report-dir DIR] [--strict] [-o FILE]")
		return exitUsage
	}
	fs := flag.NewFlagSet("baseline write", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	dir := fs.String("report-dir", "./mcpconform-report", "the run whose failures become the baseline")
	strict := fs.Bool("strict", false, "also list WARN results (for runs gated with --strict)")
	outFile := fs.String("o", "", "write the baseline to this file instead of standard output")
	if done, code := parseFlags(fs, args[1:], "mcpconform baseline write [--report-dir DIR] [--strict] [-o FILE]", stdout, stderr); done {
		return code
	}
	rep, err := reports.ReadReport(*dir)
	if err != nil {
		fmt.Fprintf(stderr, "mcpconform baseline write: %v\n", err)
		return exitUsage
	}
	var buf bytes.Buffer
	if err := reports.WriteBaseline(&buf, rep, *strict || rep.Summary.Strict); err != nil {
		fmt.Fprintf(stderr, "mcpconform baseline write: %v\n", err)
		return exitFail
	}
	if *outFile == "" {
		_, _ = stdout.Write(buf.Bytes())
		return exitOK
	}
	if err := os.WriteFile(*outFile, buf.Bytes(), 0o644); err != nil {
		fmt.Fprintf(stderr, "mcpconform baseline write: %v\n", err)
		return exitFail
	}
	fmt.Fprintf(stderr, "wrote %s\n", *outFile)
	return exitOK
}
