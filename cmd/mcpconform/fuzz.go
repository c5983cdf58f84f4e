package main

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/fuzz"
	"github.com/mcpconform/mcpconform/internal/catalog"
	"github.com/mcpconform/mcpconform/reports"
)

const fuzzUsageLine = "mcpconform fuzz [flags] -- COMMAND [ARGS...] | mcpconform fuzz [flags] --url URL | mcpconform fuzz --replay FILE [flags] -- COMMAND | --url URL"

// cmdFuzz runs a fuzzing campaign (or replays one saved finding).
func cmdFuzz(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("fuzz", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var tf targetFlags
	tf.registerCommon(fs) // the suite-only flags (other tokens, --prestart) are not the fuzzer's
	var (
		revision   = fs.String("revision", "auto", "auto (the newest revision the server supports) or one revision (2024-11-05 … 2026-07-28)")
		duration   = fs.Duration("duration", 30*time.Second, "budget of the whole campaign")
		checks     = fs.Int("checks", 100, "cases per property (and per round: after a finding a property runs again to find others)")
		seed       = fs.Uint64("seed", 0, "seed of the campaign (0: a random one, printed at start)")
		reportDir  = fs.String("report-dir", "./mcpconform-fuzz", "directory for report.json, junit.xml and findings.json")
		corpus     = fs.String("corpus", "", "directory where the replayable cases of the findings are saved (default: REPORT-DIR/corpus)")
		properties = fs.String("properties", "", "comma list of properties to run ("+strings.Join(fuzz.Properties(), ", ")+"; default all)")
		replay     = fs.String("replay", "", "re-send one saved case (a corpus file) and report FIXED or STILL FAILING")
		strict     = fs.Bool("strict", false, "fail on WARN findings too (SHOULD-level and unconfirmed ones)")
	)
	if done, code := parseFlags(fs, args, fuzzUsageLine, stdout, stderr); done {
		return code
	}
	tg, redactor, err := tf.build(fs, fs.Args())
	if err != nil {
		fmt.Fprintf(stderr, "mcpconform fuzz: %v (see 'mcpconform fuzz --help')\n", err)
		return exitUsage
	}
	var rev catalog.Revision
	if *revision != "auto" {
		rev = catalog.Revision(strings.TrimSpace(*revision))
		if !rev.Known() {
			fmt.Fprintf(stderr, "mcpconform fuzz: unknown revision %q (known: %v)\n", rev, catalog.AllRevisions)
			return exitUsage
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()

	if *replay != "" {
		f, err := fuzz.Load(*replay)
		if err != nil {
			fmt.Fprintf(stderr, "mcpconform fuzz: --replay: %v\n", err)
			return exitUsage
		}
		if rev != "" {
			f.Revision = string(rev)
		}
		problems, err := fuzz.Replay(ctx, tg, f)
		if err != nil {
			fmt.Fprintf(stderr, "mcpconform fuzz: %s\n", redactor.String(err.Error()))
			return exitUsage
		}
		for _, p := range problems {
			if strings.HasPrefix(p, f.Layer+"/"+f.Code+":") {
				fmt.Fprintf(stdout, "STILL FAILING: %s (%s)\n", f.Signature(), redactor.String(p))
				return exitFail
			}
		}
		if len(problems) > 0 {
			fmt.Fprintf(stdout, "FIXED: %s no longer fails, but the case now shows: %s\n", f.Signature(), redactor.String(strings.Join(problems, "; ")))
			return exitFail
		}
		fmt.Fprintf(stdout, "FIXED: %s\n", f.Signature())
		return exitOK
	}

	var props []string
	for _, p := range strings.Split(*properties, ",") {
		if p = strings.TrimSpace(p); p != "" {
			props = append(props, p)
		}
	}
	if *checks <= 0 || *duration <= 0 {
		fmt.Fprintf(stderr, "mcpconform fuzz: --checks and --duration must be positive\n")
		return exitUsage
	}
	if *seed == 0 {
		var b [8]byte
		_, _ = rand.Read(b[:])
		*seed = binary.LittleEndian.Uint64(b[:])>>12 + 1
	}
	dir, _ := filepath.Abs(*reportDir)
	corpusDir := filepath.Join(dir, "corpus")
	if *corpus != "" {
		corpusDir, _ = filepath.Abs(*corpus)
	}
	fmt.Fprintf(stderr, "mcpconform %s: fuzzing %s (%s), seed %d, budget %s, %d checks per property\n", toolVersion(), tg.Describe(), tg.Transport(), *seed, *duration, *checks)
	started := time.Now()
	res, err := fuzz.Run(ctx, fuzz.Config{
		Target: tg, Revision: rev, Policy: tf.policy, Checks: *checks, Seed: *seed,
		Duration: *duration, Properties: props, Out: redactingWriter{stderr, redactor.String},
		Status: true, Live: isTerminal(stderr), Strict: *strict,
		CatalogChange: catalogTrigger(tf.catalogChange),
	})
	if err != nil {
		fmt.Fprintf(stderr, "mcpconform fuzz: %s\n", redactor.String(err.Error()))
		return exitUsage
	}
	for i := range res.Findings {
		f := &res.Findings[i]
		name := fmt.Sprintf("%s-%s-%s.json", f.Property, f.Layer, f.Code)
		f.File = filepath.Join(corpusDir, sanitize(name))
		if err := fuzz.Save(f.File, *f); err != nil {
			fmt.Fprintf(stderr, "mcpconform fuzz: saving %s: %v\n", f.File, err)
			f.File = ""
		}
	}
	if err := writeFindings(filepath.Join(dir, "findings.json"), res); err != nil {
		fmt.Fprintf(stderr, "mcpconform fuzz: %v\n", err)
	}
	rep := fuzzReport(tg.Transport(), tg.Describe(), string(tf.policy), res, started, *strict)
	for _, path := range reports.Write(rep, reports.Options{Dir: dir, Formats: map[string]bool{"json": true, "junit": true}, Errors: stderr}) {
		if filepath.Base(path) == "report.json" {
			fmt.Fprintf(stderr, "report: %s\n", path)
		}
	}
	fmt.Fprintf(stdout, "fuzzed %s (%s) for %s: %d cases, %d exchanges (%.0f/s), seed %d: %d finding(s)\n",
		tg.Describe(), res.Revision, res.Elapsed.Round(time.Millisecond), res.Cases, res.Exchanges,
		float64(res.Exchanges)/max(res.Elapsed.Seconds(), 1e-9), res.Seed, len(res.Findings))
	for _, f := range res.Findings {
		unconfirmed := ""
		if f.Unconfirmed {
			unconfirmed = " (unconfirmed)"
		}
		fmt.Fprintf(stdout, "  %s %s %s%s %s: %s\n    replay: mcpconform fuzz --replay %s -- …\n", f.Verdict, f.Requirement, f.Level, unconfirmed, f.Signature(), redactor.String(f.Detail), f.File)
	}
	for _, s := range res.Skipped {
		fmt.Fprintf(stdout, "  skipped %s\n", s)
	}
	if !rep.Summary.Passed {
		return exitFail
	}
	return exitOK
}

func sanitize(name string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == ' ' || r == ':' {
			return '_'
		}
		return r
	}, name)
}

// redactingWriter passes progress through the redactor.
type redactingWriter struct {
	w      io.Writer
	redact func(string) string
}

func (r redactingWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(r.w, r.redact(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

func writeFindings(path string, res *fuzz.Result) error {
	type out struct {
		Revision string         `json:"revision"`
		Seed     uint64         `json:"seed"`
		Cases    int            `json:"cases"`
		Findings []fuzz.Finding `json:"findings"`
		Skipped  []string       `json:"skipped,omitempty"`
	}
	return writeJSONFile(path, out{string(res.Revision), res.Seed, res.Cases, nonNil(res.Findings), res.Skipped})
}

func writeJSONFile(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

func nonNil(fs []fuzz.Finding) []fuzz.Finding {
	if fs == nil {
		return []fuzz.Finding{}
	}
	return fs
}

// isTerminal reports whether w is a terminal (the live status line).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
