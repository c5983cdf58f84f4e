// Package suites is the Go test API of mcpconform: a Go MCP server project
// calls Run from its own `go test` to check its server with the whole
// suite, fail the test with the failing requirement ids, and write the
// same reports as the CLI.
//
//	func TestConformance(t *testing.T) {
//		suites.Run(t, suites.Stdio("go", "run", "./cmd/server"))
//	}
//
// Run uses Ginkgo in-process, which allows one suite run per test binary:
// call Run once per package (check several targets from the CLI or from
// several packages).
package suites

import (
	"bytes"
	"net/http"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/internal/catalog"
	"github.com/mcpconform/mcpconform/internal/policy"
	"github.com/mcpconform/mcpconform/internal/runner"
	"github.com/mcpconform/mcpconform/internal/target"
	"github.com/mcpconform/mcpconform/internal/wire"
	"github.com/mcpconform/mcpconform/reports"
	_ "github.com/mcpconform/mcpconform/suites/all" // the checks
	mcptarget "github.com/mcpconform/mcpconform/target"
)

// Target is the server under test (package target's Target: the fuzzer takes the
// same description).
type Target = mcptarget.Target

// Stdio checks a server launched as command with args, speaking stdio
// (package target's Stdio).
func Stdio(command string, args ...string) Target { return mcptarget.Stdio(command, args...) }

// HTTP checks a Streamable HTTP endpoint (package target's HTTP).
func HTTP(url string) Target { return mcptarget.HTTP(url) }

// Option tunes a Run.
type Option func(*config)

type config struct {
	env         []string
	dir         string
	bearer      string
	source      string
	header      http.Header
	revisions   []catalog.Revision
	reportDir   string
	strict      bool
	labelFilter string
	timeout     time.Duration
	callTools   string
	samples     map[string]map[string]any
	second      string
	weak        string
	expired     string
	foreign     string
}

// WithEnv adds environment variables (NAME=value) for a stdio server.
func WithEnv(kv ...string) Option { return func(c *config) { c.env = append(c.env, kv...) } }

// WithDir sets the working directory of a stdio server.
func WithDir(dir string) Option { return func(c *config) { c.dir = dir } }

// WithBearerEnv sends the bearer token held by environment variable name.
func WithBearerEnv(name string) Option {
	return func(c *config) { c.bearer, c.source = os.Getenv(name), "env "+name }
}

// WithHeader adds an HTTP header to every request.
func WithHeader(name, value string) Option {
	return func(c *config) {
		if c.header == nil {
			c.header = http.Header{}
		}
		c.header.Add(name, value)
	}
}

// WithRevisions runs the given revisions instead of detecting them.
func WithRevisions(revs ...string) Option {
	return func(c *config) {
		for _, r := range revs {
			c.revisions = append(c.revisions, catalog.Revision(r))
		}
	}
}

// WithReportDir writes junit.xml and report.json there (default: the
// directory named by MCPCONFORM_REPORT_DIR, else a temporary directory).
func WithReportDir(dir string) Option { return func(c *config) { c.reportDir = dir } }

// WithStrict makes WARN fail the test.
func WithStrict() Option { return func(c *config) { c.strict = true } }

// WithLabelFilter selects checks with a Ginkgo label expression, e.g.
// "area:lifecycle && level:MUST".
func WithLabelFilter(expr string) Option { return func(c *config) { c.labelFilter = expr } }

// WithTimeout sets the per-response deadline (default 5s).
func WithTimeout(d time.Duration) Option { return func(c *config) { c.timeout = d } }

// WithCallTools sets the call policy, "none", "readonly" (the default:
// only tools annotated readOnlyHint true) or "all": which tools may be
// called with inputs that could execute.
func WithCallTools(p string) Option { return func(c *config) { c.callTools = p } }

// WithSampleArguments gives the arguments checks use when they need a
// successful call of the named tool (like sample_arguments in --config).
func WithSampleArguments(tool string, args map[string]any) Option {
	return func(c *config) {
		if c.samples == nil {
			c.samples = map[string]map[string]any{}
		}
		c.samples[tool] = args
	}
}

// WithSecondBearerEnv gives a second principal's token, held by
// environment variable name (HTTP), for checks that compare what two
// principals see (CACHE-003).
func WithSecondBearerEnv(name string) Option {
	return func(c *config) { c.second = os.Getenv(name) }
}

// WithWeakBearerEnv gives a valid token with fewer rights (scopes) than
// the main one, held by environment variable name (HTTP), for AUTH-006
// and STALE-007.
func WithWeakBearerEnv(name string) Option {
	return func(c *config) { c.weak = os.Getenv(name) }
}

// WithExpiredBearerEnv gives an expired token, held by environment
// variable name (HTTP), for AUTH-002.
func WithExpiredBearerEnv(name string) Option {
	return func(c *config) { c.expired = os.Getenv(name) }
}

// WithForeignBearerEnv gives a valid token issued for another audience,
// held by environment variable name (HTTP), for AUTH-005.
func WithForeignBearerEnv(name string) Option {
	return func(c *config) { c.foreign = os.Getenv(name) }
}

// Run checks the target and fails t with the ids of the failing
// requirements. The terminal summary goes to t.Log.
func Run(t *testing.T, tg Target, opts ...Option) {
	t.Helper()
	c := &config{timeout: 5 * time.Second}
	for _, o := range opts {
		o(c)
	}
	if c.reportDir == "" {
		c.reportDir = os.Getenv("MCPCONFORM_REPORT_DIR")
	}
	if c.reportDir == "" {
		c.reportDir = t.TempDir()
	}
	redactor := wire.NewRedactor(c.bearer, c.second, c.weak, c.expired, c.foreign)
	trg := &target.Target{
		Command: tg.Command(), URL: tg.URL(), Env: c.env, Dir: c.dir, Header: c.header,
		Bearer: c.bearer, BearerSource: c.source, Timeout: c.timeout, Recorder: wire.NewRecorder(redactor),
	}
	if c.second != "" {
		trg.SecondBearer, trg.SecondBearerSource = c.second, "WithSecondBearerEnv"
	}
	if c.weak != "" {
		trg.WeakBearer, trg.WeakBearerSource = c.weak, "WithWeakBearerEnv"
	}
	if c.expired != "" {
		trg.ExpiredBearer, trg.ExpiredBearerSource = c.expired, "WithExpiredBearerEnv"
	}
	if c.foreign != "" {
		trg.ForeignBearer, trg.ForeignBearerSource = c.foreign, "WithForeignBearerEnv"
	}
	if err := trg.Validate(); err != nil {
		t.Fatalf("mcpconform: %v", err)
	}
	pol, err := policy.Parse(c.callTools)
	if err != nil {
		t.Fatalf("mcpconform: WithCallTools: %v", err)
	}
	out, err := runner.Run(runner.Config{
		Target: trg, Revisions: c.revisions, LabelFilter: c.labelFilter,
		Strict: c.strict, Version: "go-test", T: &quiet{},
		Policy: pol, SampleArgs: c.samples,
	})
	var summary bytes.Buffer
	if out != nil { // also when the target was unreachable: the reports say why
		reports.Write(out.Report, reports.Options{Dir: c.reportDir, Terminal: &summary})
	}
	if err != nil {
		t.Fatalf("mcpconform: %s", redactor.String(err.Error()))
	}
	t.Log(summary.String())
	if out.Report.Summary.Passed {
		return
	}
	failing := map[string]bool{}
	for _, r := range out.Report.Results {
		if r.FailsRun(c.strict) {
			failing[r.Requirement] = true
		}
	}
	ids := make([]string, 0, len(failing))
	for id := range failing {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return catalog.Less(ids[i], ids[j]) })
	t.Errorf("mcpconform: the server fails %d requirement(s): %s (reports in %s)", len(ids), strings.Join(ids, ", "), c.reportDir)
}

// quiet receives Ginkgo's Fail(); the verdict is read from the report.
type quiet struct{}

func (quiet) Fail() {}
