package fuzz

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/fixtures"
	"github.com/mcpconform/mcpconform/internal/catalog"
	"github.com/mcpconform/mcpconform/internal/target"
	"github.com/mcpconform/mcpconform/internal/wire"
	"pgregory.net/rapid"
)

// TestMain lets the test binary serve the fixtures over stdio
// (FUZZ_AS_FIXTURE=1), so the campaigns run against a real process.
func TestMain(m *testing.M) {
	if os.Getenv("FUZZ_AS_FIXTURE") == "1" {
		os.Exit(fixtures.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

const testSeed = 7

func stdioTarget(args ...string) *target.Target {
	return &target.Target{
		Command:  append([]string{os.Args[0], "aftersales"}, args...),
		Env:      []string{"FUZZ_AS_FIXTURE=1"},
		Timeout:  2 * time.Second,
		Recorder: wire.NewRecorder(wire.NewRedactor()),
	}
}

func campaign(t *testing.T, tg *target.Target, cfg Config) *Result {
	t.Helper()
	cfg.Target = tg
	if cfg.Seed == 0 {
		cfg.Seed = testSeed
	}
	if cfg.Duration == 0 {
		cfg.Duration = 15 * time.Second
	}
	if cfg.ShrinkTime == 0 {
		// Shrinking goes on while it makes progress (a long id loses a
		// character at a time): bounded here, the sizes the tests demand
		// come within the first seconds.
		cfg.ShrinkTime = 3 * time.Second
	}
	var out strings.Builder
	cfg.Out = &out
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d cases, %d exchanges in %s\n%s", res.Cases, res.Exchanges, res.Elapsed, out.String())
	return res
}

func TestReferenceHasNoFinding(t *testing.T) {
	for _, rev := range []catalog.Revision{"", catalog.LatestLegacy} {
		t.Run("stdio/"+string(rev), func(t *testing.T) {
			res := campaign(t, stdioTarget(), Config{Revision: rev, Checks: 30})
			if len(res.Findings) > 0 || res.Cases < (len(Properties())-len(res.Skipped))*30 || len(res.Skipped) > 1 {
				t.Fatalf("%d cases, findings: %+v", res.Cases, res.Findings)
			}
		})
	}
	t.Run("http", func(t *testing.T) {
		url, stop, err := fixtures.StartHTTP("aftersales", fixtures.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer stop()
		tg := &target.Target{URL: url, Timeout: 2 * time.Second, Recorder: wire.NewRecorder(wire.NewRedactor())}
		res := campaign(t, tg, Config{Checks: 30})
		if len(res.Findings) > 0 || res.Cases < len(Properties())*30 || len(res.Skipped) > 0 {
			t.Fatalf("%d cases, findings: %+v", res.Cases, res.Findings)
		}
	})
}

// The fuzz-only mutants: each is found within the budget, its case is
// shrunk (to the smallest case that shows the defect), saved, and replays
// as STILL FAILING against the mutant and FIXED against the reference.
func TestFuzzOnlyMutantsAreFound(t *testing.T) {
	want := map[string]struct {
		property, signature string
		revision            catalog.Revision
		size                int // messages (or steps) of the shrunk case, at most
		timeout             time.Duration
		shrink              time.Duration
	}{
		"fuzz-truncate-long-ids":                  {PropIDs, "ids/correlation/unknown-id", "", 1, 0, 0},
		"fuzz-untyped-content-on-deep-arguments":  {PropTools, "tools/message/invalid-tools/call", "", 1, 0, 0},
		"fuzz-internal-error-on-unknown-argument": {PropTools, "tools/tools/invalid-arguments-wrong-error", "", 1, 0, 0},
		"fuzz-result-for-long-unknown-method":     {PropIDs, "ids/params/executed-unknown-method", "", 1, 0, 0},
		// The concurrency mutants depend on timing (a response held 40 ms
		// for a concurrent request): a loaded machine can make a shrink
		// step pass, so the shrunk case may keep a few more messages than
		// the two requests the defect needs.
		"fuzz-hang-on-concurrent-requests": {PropIDs, "ids/response/no-response", "", 5, 500 * time.Millisecond, 4 * time.Second},
		"fuzz-crossed-responses":           {PropIDs, "ids/correlation/crossed-responses", "", 5, 0, 8 * time.Second},
		"fuzz-hang-on-non-string-state":    {PropMRTR, "mrtr/response/no-response", "", 1, 500 * time.Millisecond, 2 * time.Second},
		// initialize, initialized, initialize again, a list (a process
		// per case: shrinking gets 6 s and may keep a step or two more)
		"fuzz-forget-session-on-second-initialize": {PropSeq, "seq/model/not-served", catalog.LatestLegacy, 6, 0, 6 * time.Second},
		// MRTR start, another step, the retry (2026-07-28)
		"fuzz-mrtr-state-lost-between-rounds": {PropSeq, "seq/model/retry-refused", "", 6, 0, 10 * time.Second},
		// initialize, initialized, change, restore (with the fixture's
		// catalog_change trigger, aftersalesTrigger) is minimal; a missing
		// announcement costs the suite's patience (at least 250 ms; the
		// SDK announces 10 ms after a change) and every step's generated
		// params are shrunk too: in 20 s rapid may stop several steps
		// short of the four
		"fuzz-silent-catalog-restore": {PropSeq, "seq/model/unannounced-change", catalog.LatestLegacy, 14, 0, 20 * time.Second},
	}
	n := 0
	for _, m := range fixtures.Mutants() {
		if !m.FuzzOnly || !strings.HasPrefix(m.Name, "fuzz-") {
			continue
		}
		w, ok := want[m.Name]
		if !ok {
			t.Errorf("fuzz-only mutant %s has no expectation here", m.Name)
			continue
		}
		n++
		t.Run(m.Name, func(t *testing.T) {
			tg := func(args ...string) *target.Target {
				tg := stdioTarget(args...)
				if w.timeout > 0 {
					tg.Timeout = w.timeout
				}
				return tg
			}
			// The work is bounded by Checks; Duration is only a cap. A seq
			// case starts a process and runs up to dozens of steps: on a
			// loaded machine the default cap cut its re-runs short (a
			// re-run out of budget passes at once, and rapid then calls
			// the failure unreproducible), so seq gets a higher cap.
			cfg := Config{Revision: w.revision, Checks: 100, Rounds: 1, Properties: []string{w.property}, ShrinkTime: w.shrink}
			if w.property == PropSeq {
				cfg.Duration = 90 * time.Second
			}
			if m.Name == "fuzz-silent-catalog-restore" {
				cfg.CatalogChange = aftersalesTrigger
			}
			if m.Name == "fuzz-mrtr-state-lost-between-rounds" {
				cfg.Duration = 30 * time.Second // probing the tools for input_required takes up to a quarter of it
			}
			res := campaign(t, tg("--mutant", m.Name), cfg)
			var f *Finding
			for i := range res.Findings {
				if res.Findings[i].Signature() == w.signature {
					f = &res.Findings[i]
				}
			}
			if f == nil {
				t.Fatalf("no finding %s; findings: %+v", w.signature, res.Findings)
			}
			if size := len(f.Messages) + len(f.Steps); size > w.size {
				why := ""
				if f.Flaky {
					why = fmt.Sprintf(" (rapid could not reproduce the failure in %d searches)", maxFlakyRuns)
				}
				t.Errorf("the case was not shrunk to %d messages or steps: %d%s\n%s", w.size, size, why, strings.Join(f.Transcript, "\n"))
			}
			path := filepath.Join(t.TempDir(), "case.json")
			if err := Save(path, *f); err != nil {
				t.Fatal(err)
			}
			saved, err := Load(path)
			if err != nil {
				t.Fatal(err)
			}
			ps, err := Replay(context.Background(), tg("--mutant", m.Name), saved)
			if err != nil {
				t.Fatal(err)
			}
			if !hasSignature(ps, saved) {
				t.Errorf("replay against the mutant: %v, want STILL FAILING %s", ps, saved.Signature())
			}
			ps, err = Replay(context.Background(), tg(), saved)
			if err != nil {
				t.Fatal(err)
			}
			if len(ps) > 0 {
				t.Errorf("replay against the reference: %v, want FIXED", ps)
			}
		})
	}
	if n != len(want) {
		t.Errorf("%d fuzz-only mutants registered, %d expected", n, len(want))
	}
}

// The state machines find what only a sequence shows: a ping refused
// before initialize (stdio) and, over legacy HTTP, a session still served
// after its DELETE was answered 2xx.
func TestSeqFindsLifecycleDefects(t *testing.T) {
	t.Run("ping-before-init-error", func(t *testing.T) {
		res := campaign(t, stdioTarget("--mutant", "ping-before-init-error"), Config{Revision: catalog.LatestLegacy, Checks: 30, Rounds: 1, Properties: []string{PropSeq}, Duration: 8 * time.Second})
		if len(res.Findings) != 1 || res.Findings[0].Signature() != "seq/liveness/error" || len(res.Findings[0].Steps) != 1 {
			t.Fatalf("findings: %+v", res.Findings)
		}
	})
	t.Run("http-delete-keeps-session", func(t *testing.T) {
		if !slices.ContainsFunc(fixtures.Mutants(), func(m fixtures.Mutant) bool { return m.Name == "http-delete-keeps-session" }) {
			t.Fatal("mutant http-delete-keeps-session is not registered: the fuzzer's seq property over HTTP would go unproven")
		}
		url, stop, err := fixtures.StartHTTP("aftersales", fixtures.Options{Mutant: "http-delete-keeps-session"})
		if err != nil {
			t.Fatal(err)
		}
		defer stop()
		tg := &target.Target{URL: url, Timeout: 2 * time.Second, Recorder: wire.NewRecorder(wire.NewRedactor())}
		res := campaign(t, tg, Config{Revision: catalog.LatestLegacy, Checks: 40, Rounds: 1, Properties: []string{PropSeq}, ShrinkTime: 10 * time.Second})
		// Minimal is 3 steps (initialize, delete, reuse); shrinking is
		// bounded in time, so a loaded machine may stop a step or two
		// short of it.
		if len(res.Findings) != 1 || res.Findings[0].Signature() != "seq/http/ended-session-served" || len(res.Findings[0].Steps) > 5 {
			t.Fatalf("findings: %+v", res.Findings)
		}
		steps := res.Findings[0].Steps
		if n := len(steps); n < 3 || steps[0].Op != "initialize" || steps[n-2].Op != "delete" || steps[n-1].Op != "reuse" {
			t.Fatalf("steps: %+v", steps)
		}
	})
}

// The error-layer oracle: a tool that runs on arguments breaking its
// inputSchema (the suite's TOOL-012 mutant) is a finding of the tools
// property, shrunk to the one call.
func TestToolsFindsExecutedInvalidArguments(t *testing.T) {
	res := campaign(t, stdioTarget("--mutant", "tool-invalid-args-executed"), Config{Checks: 100, Rounds: 1, Properties: []string{PropTools}})
	if len(res.Findings) != 1 || res.Findings[0].Signature() != "tools/tools/executed-invalid-arguments" || len(res.Findings[0].Messages) != 1 {
		t.Fatalf("findings: %+v", res.Findings)
	}
}

// A crashing stdio target is a finding, and the campaign goes on with a
// new process.
func TestCrashIsAFindingAndTheCampaignGoesOn(t *testing.T) {
	res := campaign(t, stdioTarget("--mutant", "exit-on-parse-error"), Config{Checks: 20, Rounds: 1, Properties: []string{PropRaw, PropTools}})
	if len(res.Findings) != 1 || res.Findings[0].Signature() != "raw/transport/crash" {
		t.Fatalf("findings: %+v", res.Findings)
	}
	if res.PerProperty[PropTools] != 20 {
		t.Errorf("the campaign did not go on after the crash: %v cases", res.PerProperty)
	}
}

func hasSignature(problems []string, f Finding) bool {
	for _, p := range problems {
		if strings.HasPrefix(p, f.Layer+"/"+f.Code+":") {
			return true
		}
	}
	return false
}

func TestRawRoundTrip(t *testing.T) {
	for _, b := range [][]byte{[]byte(`{"a":1}`), []byte("caf\xc3\x28"), []byte("two\nlines")} {
		got, err := RawOf(b).Bytes()
		if err != nil || string(got) != string(b) {
			t.Errorf("%q → %q, %v", b, got, err)
		}
	}
	if _, err := (Raw{}).Bytes(); err == nil {
		t.Error("an empty Raw decoded")
	}
}

func TestUnknownProperty(t *testing.T) {
	if _, err := Run(context.Background(), Config{Target: stdioTarget(), Properties: []string{"nope"}}); err == nil {
		t.Fatal("an unknown property was accepted")
	}
}

// The properties as Go fuzz targets (go test -fuzz=FuzzIDs ./fuzz/),
// against the reference fixture over stdio; under plain go test each runs
// its seed inputs.
func FuzzIDs(f *testing.F)       { fuzzProperty(f, PropIDs) }
func FuzzRaw(f *testing.F)       { fuzzProperty(f, PropRaw) }
func FuzzTools(f *testing.F)     { fuzzProperty(f, PropTools) }
func FuzzSeq(f *testing.F)       { fuzzProperty(f, PropSeq) }
func FuzzPrompts(f *testing.F)   { fuzzProperty(f, PropPrompts) }
func FuzzResources(f *testing.F) { fuzzProperty(f, PropResources) }

func fuzzProperty(f *testing.F, prop string) {
	// Go's fuzzing engine minimizes every input that reaches new coverage
	// of this process, for up to -test.fuzzminimizetime (60 s by default)
	// and without reporting execs meanwhile: with a real exchange per exec
	// (milliseconds) that looked like a stall. The interesting behaviour is
	// in the server's process anyway (rapid shrinks findings itself), so
	// unless the flag was given, minimization gets 10 execs.
	minimize := false
	flag.Visit(func(fl *flag.Flag) { minimize = minimize || fl.Name == "test.fuzzminimizetime" })
	if !minimize {
		_ = flag.Set("test.fuzzminimizetime", "10x")
	}
	ctx := context.Background()
	h, err := newHarness(ctx, stdioTarget(), "")
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(h.close)
	if ok, why := h.prepareTools(ctx, ""); !ok && prop == PropTools {
		f.Skip(why)
	}
	if ok, why := h.preparePrompts(ctx); !ok && prop == PropPrompts {
		f.Skip(why)
	}
	if ok, why := h.prepareResources(ctx); !ok && prop == PropResources {
		f.Skip(why)
	}
	body := map[string]caseFunc{PropIDs: h.msgCase(h.genIDsCase), PropRaw: h.msgCase(h.genRawCase), PropTools: h.msgCase(h.genToolsCase),
		PropPrompts: h.msgCase(h.genPromptsCase), PropResources: h.msgCase(h.genResourcesCase), PropSeq: h.seqCase}[prop]
	for seed := range 3 { // rapid reads the input as its random bits: give it enough
		b := make([]byte, 4096)
		r := rand.New(rand.NewPCG(uint64(seed), 7))
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		f.Add(b)
	}
	f.Fuzz(rapid.MakeFuzz(func(t *rapid.T) {
		body(ctx, t, func(t *rapid.T, ps []problem, transcript []string, _ [][]byte, _ []Step) {
			if len(ps) > 0 {
				t.Fatalf("%v\n%s", ps, strings.Join(transcript, "\n"))
			}
		})
	}))
}

// Committed findings (testdata/regressions/<mutant>/*.json, saved by
// mcpconform fuzz --corpus) replay as regression tests: STILL FAILING
// against their mutant, FIXED against the reference ("reference" holds
// cases of defects the reference fixture once had).
func TestCommittedFindingsReplay(t *testing.T) {
	dirs, err := os.ReadDir(filepath.Join("testdata", "regressions"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, d := range dirs {
		files, _ := filepath.Glob(filepath.Join("testdata", "regressions", d.Name(), "*.json"))
		for _, file := range files {
			n++
			t.Run(d.Name()+"/"+filepath.Base(file), func(t *testing.T) {
				f, err := Load(file)
				if err != nil {
					t.Fatal(err)
				}
				if d.Name() != "reference" {
					ps, err := Replay(context.Background(), stdioTarget("--mutant", d.Name()), f)
					if err != nil {
						t.Fatal(err)
					}
					if !hasSignature(ps, f) {
						t.Errorf("against %s: %v, want STILL FAILING %s", d.Name(), ps, f.Signature())
					}
				}
				ps, err := Replay(context.Background(), stdioTarget(), f)
				if err != nil {
					t.Fatal(err)
				}
				if len(ps) > 0 {
					t.Errorf("against the reference: %v, want FIXED", ps)
				}
			})
		}
	}
	if n == 0 {
		t.Fatal("no committed finding")
	}
}

// Raw faults are labelled by what the server did with them: a request
// with "jsonrpc":"1.0" that is executed is "executed-wrong-jsonrpc-version",
// not an unknown id.
func TestRawFaultsAreLabelled(t *testing.T) {
	res := campaign(t, stdioTarget("--mutant", "accept-jsonrpc-1.0"), Config{Checks: 100, Rounds: 1, Properties: []string{PropRaw}})
	// Minimal is the one message. The re-runs of rapid's reproduction and
	// shrinking send the same ids again: the answers must be judged as
	// this run's, not as late answers to the run before (which made the
	// case flaky and unshrunk).
	if len(res.Findings) != 1 || res.Findings[0].Signature() != "raw/fault/executed-wrong-jsonrpc-version" || res.Findings[0].Flaky || len(res.Findings[0].Messages) > 2 {
		t.Fatalf("findings: %+v", res.Findings)
	}
}
