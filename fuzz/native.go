package fuzz

import (
	"context"
	"flag"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/internal/catalog"
	"github.com/mcpconform/mcpconform/internal/policy"
	"github.com/mcpconform/mcpconform/internal/target"
	"github.com/mcpconform/mcpconform/internal/wire"
	mcptarget "github.com/mcpconform/mcpconform/target"
	"pgregory.net/rapid"

	"github.com/mcpconform/mcpconform/internal/rapidrun"
)

// Option tunes Fuzz.
type Option func(*nativeConfig)

type nativeConfig struct {
	env        []string
	dir        string
	bearer     string
	timeout    time.Duration
	revision   catalog.Revision
	properties []string
	callTools  string
	strict     bool
}

// WithEnv adds environment variables (NAME=value) for a stdio server.
func WithEnv(kv ...string) Option { return func(c *nativeConfig) { c.env = append(c.env, kv...) } }

// WithDir sets the working directory of a stdio server.
func WithDir(dir string) Option { return func(c *nativeConfig) { c.dir = dir } }

// WithBearerEnv sends the bearer token held by environment variable name.
func WithBearerEnv(name string) Option {
	return func(c *nativeConfig) { c.bearer = os.Getenv(name) }
}

// WithTimeout sets the per-response deadline (default 5s).
func WithTimeout(d time.Duration) Option { return func(c *nativeConfig) { c.timeout = d } }

// WithRevision fuzzes one revision (default: the newest the server
// supports).
func WithRevision(rev string) Option {
	return func(c *nativeConfig) { c.revision = catalog.Revision(rev) }
}

// WithProperties selects properties by name (default: all; see
// Properties).
func WithProperties(names ...string) Option {
	return func(c *nativeConfig) { c.properties = append(c.properties, names...) }
}

// WithCallTools sets the call policy, "none", "readonly" (the default) or
// "all": which tools the fuzzer may call.
func WithCallTools(p string) Option { return func(c *nativeConfig) { c.callTools = p } }

// WithStrict fails on every finding, SHOULD-level ones included (by
// default those are logged as WARN and the input passes).
func WithStrict() Option { return func(c *nativeConfig) { c.strict = true } }

// Fuzz runs the fuzzer's properties as a Go fuzz target, for a server's
// own repository:
//
//	func FuzzServer(f *testing.F) {
//		fuzz.Fuzz(f, target.Stdio("go", "run", "./cmd/server"))
//	}
//
// Plain `go test` replays the seed inputs and testdata/fuzz/FuzzServer;
// `go test -fuzz=FuzzServer` runs an open-ended campaign: Go's engine
// mutates the input, which drives the same generators (rapid's MakeFuzz
// reads it as its random bits: the property, then the case), and each case
// is judged by the same oracle and rules as `mcpconform fuzz` and the
// suite. The first finding that fails (a MUST, a crash or a hang; every
// finding WithStrict) fails the input: its message is the finding with its
// requirement, level and transcript, and Go writes the input to
// testdata/fuzz/FuzzServer, where plain `go test` replays it. A SHOULD-level
// finding is logged as WARN. The server is started once per fuzzing worker
// and again after a crash.
func Fuzz(f *testing.F, tg mcptarget.Target, opts ...Option) {
	f.Helper()
	c := &nativeConfig{timeout: 5 * time.Second}
	for _, o := range opts {
		o(c)
	}
	for _, p := range c.properties {
		if !contains(Properties(), p) {
			f.Fatalf("mcpconform fuzz: unknown property %q (known: %s)", p, strings.Join(Properties(), ", "))
		}
	}
	if c.revision != "" && !c.revision.Known() {
		f.Fatalf("mcpconform fuzz: unknown revision %q (known: %v)", c.revision, catalog.AllRevisions)
	}
	pol, err := policy.Parse(c.callTools)
	if err != nil {
		f.Fatalf("mcpconform fuzz: WithCallTools: %v", err)
	}
	trg := &target.Target{Command: tg.Command(), URL: tg.URL(), Env: c.env, Dir: c.dir, Bearer: c.bearer,
		Timeout: c.timeout, Recorder: wire.NewRecorder(wire.NewRedactor(c.bearer))}
	if err := trg.Validate(); err != nil {
		f.Fatalf("mcpconform fuzz: %v", err)
	}
	// Go's engine minimizes every input that reaches new coverage of this
	// process for up to -test.fuzzminimizetime (60 s by default), without
	// reporting meanwhile; the behaviour that matters is in the server's
	// process, and a finding's transcript is already minimal enough to
	// read, so unless the flag was given, minimization gets 10 execs.
	minimize := false
	flag.Visit(func(fl *flag.Flag) { minimize = minimize || fl.Name == "test.fuzzminimizetime" })
	if !minimize {
		_ = flag.Set("test.fuzzminimizetime", "10x")
	}

	n := &native{cfg: c, tg: trg, pol: pol}
	f.Cleanup(n.close)
	for seed := range 4 { // rapid reads the input as its random bits: give it enough
		b := make([]byte, 4096)
		r := rand.New(rand.NewPCG(uint64(seed), 7))
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		f.Add(b)
	}
	f.Fuzz(rapid.MakeFuzz(n.run))
}

// native is the state of one fuzzing process: the harness is opened at
// the first input (the coordinating process of `go test -fuzz` never opens
// one), and kept for the following inputs.
type native struct {
	cfg   *nativeConfig
	tg    *target.Target
	pol   policy.CallPolicy
	once  sync.Once
	h     *harness
	err   error
	props []string
	gens  map[string]caseFunc
	why   []string
}

func (n *native) open() {
	ctx := context.Background()
	n.h, n.err = newHarness(ctx, n.tg, n.cfg.revision)
	if n.err != nil {
		return
	}
	props := n.cfg.properties
	if len(props) == 0 {
		props = Properties()
	}
	n.gens, n.why = n.h.caseFuncs(ctx, props, n.pol, time.Now().Add(10*time.Second))
	for _, p := range props {
		if n.gens[p] != nil {
			n.props = append(n.props, p)
		}
	}
	if len(n.props) == 0 {
		n.err = fmt.Errorf("no property can run: %s", strings.Join(n.why, "; "))
	}
}

func (n *native) close() {
	if n.h != nil {
		n.h.close()
	}
}

func (n *native) run(t *rapid.T) {
	n.check(t, func(t *rapid.T, f Finding, text string) {
		if f.Failed() || n.cfg.strict {
			t.Fatalf("mcpconform fuzz: %s", text)
		}
		t.Logf("mcpconform fuzz: %s", text)
	})
}

// check runs one case, drawn from t, and hands each finding to report
// (graded, with its text).
func (n *native) check(t *rapid.T, report func(t *rapid.T, f Finding, text string)) {
	n.once.Do(n.open)
	if n.err != nil {
		t.Fatalf("mcpconform fuzz: %v", n.err)
	}
	prop := rapid.SampledFrom(n.props).Draw(t, "property")
	n.gens[prop](context.Background(), t, func(t *rapid.T, ps []problem, transcript []string, msgs [][]byte, steps []Step) {
		var fs []Finding
		for _, p := range ps {
			f := Finding{Property: prop, Layer: p.Layer, Code: p.Code, Detail: n.tg.Recorder.Redactor().String(p.Detail),
				Revision: string(n.h.rev), Transport: n.tg.Transport(), Transcript: clipLines(transcript),
				rule: ruleFor(prop, n.tg.Transport(), n.h.probe, p, msgs, steps)}
			for _, m := range msgs {
				f.Messages = append(f.Messages, RawOf(m))
			}
			f.Steps = append([]Step(nil), steps...)
			f.grade(n.cfg.strict)
			fs = append(fs, f)
		}
		// the failing ones first: report may end the case
		sort.SliceStable(fs, func(i, j int) bool { return fs[i].Failed() && !fs[j].Failed() })
		for _, f := range fs {
			var b strings.Builder
			PrintFinding(&b, f)
			report(t, f, b.String())
		}
	})
}

// Target is the fuzzer as a function of bytes, for fuzzing engines that
// cannot hand a *testing.F to Fuzz: OSS-Fuzz and ClusterFuzzLite build Go
// fuzz tests with go-118-fuzz-build, which replaces the testing package
// of the fuzz test's file with its own, so the server's test calls
//
//	tg := fuzz.NewTarget(target.Stdio(server))
//	f.Fuzz(func(t *testing.T, data []byte) {
//		if err := tg.Input(data); err != nil {
//			t.Fatal(err)
//		}
//	})
//
// Each input seeds one case (of a property drawn like Fuzz draws it),
// judged by the same oracle and rules. Fuzz, where it can be used, lets
// Go's engine steer the generators bit by bit instead.
type Target struct{ n *native }

// NewTarget returns the target; the server is started at the first input.
// A configuration error is returned by every Input.
func NewTarget(tg mcptarget.Target, opts ...Option) *Target {
	c := &nativeConfig{timeout: 5 * time.Second}
	for _, o := range opts {
		o(c)
	}
	n := &native{cfg: c}
	n.tg = &target.Target{Command: tg.Command(), URL: tg.URL(), Env: c.env, Dir: c.dir, Bearer: c.bearer,
		Timeout: c.timeout, Recorder: wire.NewRecorder(wire.NewRedactor(c.bearer))}
	n.pol, n.err = policy.Parse(c.callTools)
	if n.err == nil {
		n.err = n.tg.Validate()
	}
	if n.err != nil {
		n.once.Do(func() {}) // never opened
	}
	return &Target{n: n}
}

// Close stops the server.
func (t *Target) Close() { t.n.close() }

// FindingError is the error of an input that showed a failing finding.
type FindingError struct {
	Finding Finding
	text    string
}

func (e *FindingError) Error() string { return "mcpconform fuzz: " + e.text }

// Input runs the case data seeds and returns the first failing finding (a
// *FindingError; every finding WithStrict), or nil.
func (t *Target) Input(data []byte) error {
	if t.n.err != nil {
		return t.n.err
	}
	h := fnv.New64a()
	_, _ = h.Write(data)
	var found *FindingError
	tb := &rapidrun.TB{Label: "mcpconform-fuzz"}
	rapidrun.Check(rapidrun.Options{Checks: 1, Seed: h.Sum64(), ShrinkTime: time.Millisecond, Steps: seqSteps}, tb, func(rt *rapid.T) {
		t.n.check(rt, func(rt *rapid.T, f Finding, text string) {
			if (f.Failed() || t.n.cfg.strict) && found == nil {
				found = &FindingError{Finding: f, text: text}
				rt.Fatalf("%s", f.Signature())
			}
		})
	})
	if found != nil {
		return found
	}
	if t.n.err != nil {
		return t.n.err
	}
	return nil
}
