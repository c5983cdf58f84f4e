package fuzz

import (
	"context"
	"flag"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/fixtures"
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

// The error-layer oracle: a tool that runs on arguments breaking its
// inputSchema (the suite's TOOL-012 mutant) is a finding of the tools
// property, shrunk to the one call.
func TestToolsFindsExecutedInvalidArguments(t *testing.T) {
	res := campaign(t, stdioTarget("--mutant", "tool-invalid-args-executed"), Config{Checks: 100, Rounds: 1, Properties: []string{PropTools}})
	if len(res.Findings) != 1 || res.Findings[0].Signature() != "tools/tools/executed-invalid-arguments" || len(res.Findings[0].Messages) != 1 {
		t.Fatalf("findings: %+v", res.Findings)
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

// TestStandsAlone: the fuzzer carries neither the suite's checks nor its
// test framework (a server author's fuzz binary, a ClusterFuzzLite build).
func TestStandsAlone(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.Contains(dep, "onsi/ginkgo") || strings.Contains(dep, "onsi/gomega") ||
			strings.Contains(dep, "mcpconform/suites") && !strings.HasSuffix(dep, "/suites/mcptarget") ||
			strings.HasSuffix(dep, "/internal/conform") || strings.HasSuffix(dep, "/internal/runner") {
			t.Errorf("the fuzzer depends on %s", dep)
		}
	}
}
