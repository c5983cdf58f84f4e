package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/mcpconform/mcpconform/internal/catalog"
	"github.com/mcpconform/mcpconform/internal/inspect"
)

// cmdInspect is the host view: connect like a host, handshake and discover
// once, print the server and its catalog (or LLM tool declarations), and
// optionally run one tool call and print it with its logged record.
func cmdInspect(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("inspect", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var tf targetFlags
	tf.register(fs)
	var (
		revision     = fs.String("revision", "auto", "auto (the newest era the server supports) or one revision")
		declarations = fs.String("declarations", "", "print the tools as LLM tool declarations instead: json")
		call         = fs.String("call", "", "call this tool once and print the result and its record")
		callArgs     = fs.String("args", "", "JSON object of arguments for --call")
		maxPages     = fs.Int("max-pages", 100, "cap on pages per list")
	)
	if done, code := parseFlags(fs, args, "mcpconform inspect [flags] -- COMMAND [ARGS...] | mcpconform inspect [flags] --url URL", stdout, stderr); done {
		return code
	}
	usage := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "mcpconform inspect: "+format+" (see 'mcpconform inspect --help')\n", a...)
		return exitUsage
	}
	if *declarations != "" && *declarations != "json" {
		return usage("--declarations takes json")
	}
	if *callArgs != "" && *call == "" {
		return usage("--args needs --call NAME")
	}
	if *callArgs != "" && !json.Valid([]byte(*callArgs)) {
		return usage("--args is not valid JSON")
	}
	var rev catalog.Revision
	if *revision != "auto" {
		rev = catalog.Revision(*revision)
		if !rev.Known() {
			return usage("unknown revision %q (known: %v)", rev, catalog.AllRevisions)
		}
	}
	tg, redactor, err := tf.build(fs, fs.Args())
	if err != nil {
		return usage("%v", err)
	}
	pol := tf.policy
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	in, err := inspect.Inspect(ctx, inspect.Options{Target: tg, Revision: rev, Policy: pol, MaxPages: *maxPages})
	if err != nil {
		fmt.Fprintf(stderr, "mcpconform inspect: %s\n", redactor.String(err.Error()))
		return exitUsage
	}
	defer in.Close()
	if *declarations == "json" {
		b, err := in.DeclarationsJSON()
		if err != nil {
			fmt.Fprintf(stderr, "mcpconform inspect: %v\n", err)
			return exitFail
		}
		fmt.Fprintf(stdout, "%s\n", b)
	} else {
		in.Print(stdout)
	}
	if *call == "" {
		return exitOK
	}
	argsJSON := json.RawMessage(*callArgs)
	if a, ok := tf.samples[*call]; ok && *callArgs == "" { // the config's sample arguments
		if argsJSON, err = json.Marshal(a); err != nil {
			return usage("--config: sample_arguments of %s: %v", *call, err)
		}
	}
	rec, err := in.Call(ctx, *call, argsJSON)
	if errors.Is(err, inspect.ErrRefused) {
		fmt.Fprintf(stderr, "mcpconform inspect: %s\n", redactor.String(err.Error()))
		return exitUsage
	}
	if err != nil {
		fmt.Fprintf(stderr, "mcpconform inspect: %s\n", redactor.String(err.Error()))
		return exitFail
	}
	fmt.Fprintln(stdout)
	in.PrintCall(stdout, rec)
	if rec.Layer != inspect.LayerResult {
		return exitFail
	}
	return exitOK
}
