package fuzz

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
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
			res := campaign(t, stdioTarget(), Config{Revision: rev, Checks: 60})
			if len(res.Findings) > 0 || res.Cases < 3*60 {
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
		res := campaign(t, tg, Config{Checks: 40})
		if len(res.Findings) > 0 || res.Cases < 3*40 {
			t.Fatalf("%d cases, findings: %+v", res.Cases, res.Findings)
		}
	})
}

// The fuzz-only mutants: each is found within the budget, its case is
// shrunk to one message, saved, and replays as STILL FAILING against the
// mutant and FIXED against the reference.
func TestFuzzOnlyMutantsAreFound(t *testing.T) {
	want := map[string]struct {
		property, signature string
	}{
		"fuzz-truncate-long-ids":                 {PropIDs, "ids/correlation/unknown-id"},
		"fuzz-untyped-content-on-deep-arguments": {PropTools, "tools/message/invalid-tools/call"},
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
			res := campaign(t, stdioTarget("--mutant", m.Name), Config{Checks: 100, Rounds: 1, Properties: []string{w.property}})
			var f *Finding
			for i := range res.Findings {
				if res.Findings[i].Signature() == w.signature {
					f = &res.Findings[i]
				}
			}
			if f == nil {
				t.Fatalf("no finding %s; findings: %+v", w.signature, res.Findings)
			}
			if len(f.Messages) != 1 {
				t.Errorf("the case was not shrunk to one message: %d", len(f.Messages))
			}
			path := filepath.Join(t.TempDir(), "case.json")
			if err := Save(path, *f); err != nil {
				t.Fatal(err)
			}
			saved, err := Load(path)
			if err != nil {
				t.Fatal(err)
			}
			ps, err := Replay(context.Background(), stdioTarget("--mutant", m.Name), saved)
			if err != nil {
				t.Fatal(err)
			}
			if !hasSignature(ps, saved) {
				t.Errorf("replay against the mutant: %v, want STILL FAILING %s", ps, saved.Signature())
			}
			ps, err = Replay(context.Background(), stdioTarget(), saved)
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

// A crashing stdio target is a finding, and the campaign goes on with a
// new process.
func TestCrashIsAFindingAndTheCampaignGoesOn(t *testing.T) {
	res := campaign(t, stdioTarget("--mutant", "exit-on-parse-error"), Config{Checks: 50, Rounds: 1, Properties: []string{PropRaw, PropTools}})
	if len(res.Findings) != 1 || res.Findings[0].Signature() != "raw/transport/crash" {
		t.Fatalf("findings: %+v", res.Findings)
	}
	if res.PerProperty[PropTools] != 50 {
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
func FuzzIDs(f *testing.F)   { fuzzProperty(f, PropIDs) }
func FuzzRaw(f *testing.F)   { fuzzProperty(f, PropRaw) }
func FuzzTools(f *testing.F) { fuzzProperty(f, PropTools) }

func fuzzProperty(f *testing.F, prop string) {
	ctx := context.Background()
	h, err := newHarness(ctx, stdioTarget(), "")
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(h.close)
	gen := map[string]func(*rapid.T) [][]byte{PropIDs: h.genIDsCase, PropRaw: h.genRawCase, PropTools: h.genToolsCase}[prop]
	if ok, why := h.prepareTools(ctx, ""); !ok && prop == PropTools {
		f.Skip(why)
	}
	for seed := range 3 { // rapid reads the input as its random bits: give it enough
		b := make([]byte, 4096)
		r := rand.New(rand.NewPCG(uint64(seed), 7))
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		f.Add(b)
	}
	f.Fuzz(rapid.MakeFuzz(func(t *rapid.T) {
		if ps, transcript := h.exchange(ctx, gen(t)); len(ps) > 0 {
			t.Fatalf("%v\n%s", ps, strings.Join(transcript, "\n"))
		}
	}))
}
