// Package runner runs the Ginkgo specs in-process against one target and
// returns the run's result model (internal/result); it writes no report:
// its callers render the model with reports.Write (RunSpecs
// from a main binary).
package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/formatter"
	"github.com/onsi/ginkgo/v2/reporters"
	"github.com/onsi/ginkgo/v2/types"
	"github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/internal/catalog"
	"github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/msgcheck"
	"github.com/mcpconform/mcpconform/internal/observe"
	"github.com/mcpconform/mcpconform/internal/policy"
	"github.com/mcpconform/mcpconform/internal/result"
	"github.com/mcpconform/mcpconform/internal/target"
	"github.com/mcpconform/mcpconform/internal/wire"
	"github.com/mcpconform/mcpconform/internal/wire/stdio"
)

// Config is one run.
type Config struct {
	Target *target.Target
	// Revisions to run; nil means auto-detect.
	Revisions []catalog.Revision
	// LabelFilter is a Ginkgo label expression selecting checks.
	LabelFilter string
	Strict      bool
	// Progress receives one line per finished check.
	Progress io.Writer
	// GinkgoOutput keeps Ginkgo's own console reporter (go test); otherwise it is silenced.
	GinkgoOutput bool
	Version      string
	// Budget bounds the whole run (default 10m); Window the quiet windows.
	Budget time.Duration
	Window time.Duration
	// MaxPages caps each pagination walk (0: conform.DefaultMaxPages).
	MaxPages int
	// Schema adds validation against a user-supplied schema file (RPC-013).
	Schema     *msgcheck.SchemaValidator
	SchemaFile string
	// Baseline lists known failures (nil: none); BaselineFile names it.
	Baseline     *result.Baseline
	BaselineFile string
	// Policy is the call policy (--call-tools; zero: readonly); SampleArgs
	// the config file's sample arguments per tool; ConfigFile names the
	// config file ("" when none).
	Policy     policy.CallPolicy
	SampleArgs map[string]map[string]any
	ConfigFile string
	// Parallel is how many checks may run at once (--parallel): above 1,
	// each revision's checks run in a lane of their own beside the other
	// revisions' (conform.Env.UseLanes); 0 or 1: one check at a time.
	Parallel int
	// T is the Ginkgo testing handle (go test); nil in the CLI.
	T ginkgo.GinkgoTestingT
	// Describe is the suite description.
	Describe string
}

// Outcome is what a run produced: the report to render (reports.Write).
type Outcome struct {
	Report *result.Report
	// Signal names the signal (SIGINT, SIGTERM) that interrupted the run
	// ("" when none did); the report holds the checks that finished.
	Signal string
}

// ErrUnreachable means the target could not be started or reached.
var ErrUnreachable = errors.New("target unreachable")

// ErrInterrupted means a signal stopped the run before any check ran (it
// also matches ErrUnreachable, as before).
var ErrInterrupted = errors.New("interrupted")

type failRecorder struct{ failed bool }

func (f *failRecorder) Fail() { f.failed = true }

var ginkgoOnce sync.Mutex

// Run detects the eras (unless given), runs the selected checks and
// returns the report. When the run ends before any check ran (target
// unreachable, interrupted while probing) it returns an error and an
// Outcome whose report has no result and says why (its summary does not
// pass), so that the caller still writes the reports.
func Run(cfg Config) (*Outcome, error) {
	ginkgoOnce.Lock()
	defer ginkgoOnce.Unlock()
	if cfg.Budget <= 0 {
		cfg.Budget = 10 * time.Minute
	}
	if cfg.Progress == nil {
		cfg.Progress = io.Discard
	}
	if cfg.Describe == "" {
		cfg.Describe = "mcpconform"
	}
	started := time.Now()
	tg := cfg.Target

	// Until Ginkgo takes over signal handling (RunSpecs), Ctrl-C cancels
	// the probes; every connection they opened is closed and reaped.
	sigCtx, stopSignals := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stopSignals()
	// Every frame of the run, detection included, passes the run-wide observers.
	obs := observe.New()
	tg.Recorder.SetObserver(obs.Frame)
	defer tg.Recorder.SetObserver(nil)
	// stdio server processes started ahead of need (target.StartPool);
	// not before the era probes, whose start-up they would slow.
	defer tg.ClosePool()
	ctx, cancel := context.WithTimeout(sigCtx, 2*tg.Timeout+10*time.Second)
	det := tg.Detect(ctx)
	cancel()
	tg.StartPool()
	// The probes' notes quote server replies: redact them once, here.
	det.Notes = redactAll(tg.Recorder.Redactor(), det.Notes)
	if sigCtx.Err() != nil {
		for _, s := range det.Sessions {
			s.Close()
		}
		err := fmt.Errorf("%w: %w while probing the target, before any check ran", ErrUnreachable, ErrInterrupted)
		return unreachable(cfg, det.Notes, started, err), err
	}
	if det.Unreachable != nil {
		err := fmt.Errorf("%w: %v\n  %s", ErrUnreachable, det.Unreachable, strings.Join(det.Notes, "\n  "))
		return unreachable(cfg, det.Notes, started, fmt.Errorf("%w: %v", ErrUnreachable, det.Unreachable)), err
	}
	env := &conform.Env{Target: tg, Window: cfg.Window, Schema: cfg.Schema, SchemaFile: cfg.SchemaFile,
		Policy: cfg.Policy, SampleArgs: cfg.SampleArgs, MaxPages: cfg.MaxPages, Strict: cfg.Strict,
		OnCheck: func(_, name string) { obs.SetCheck(name) }}
	env.SupportsModern = slices.Contains(det.Revisions, catalog.Modern)
	for _, r := range det.Revisions {
		if r.IsLegacy() {
			env.SupportsLegacy = true
		}
	}
	revs := det.Revisions
	if cfg.Revisions != nil {
		revs = cfg.Revisions
		for _, r := range revs {
			if r.IsLegacy() {
				env.SupportsLegacy = true
			} else {
				env.SupportsModern = true
			}
		}
	}
	labelFilter := cfg.LabelFilter
	authOnly := false
	if len(revs) == 0 && len(det.Unauthorized) > 0 && tg.Bearer == "" {
		// Every probe got 401 and no token was given: the checks that
		// need no token (the authorization area's own probes) still run;
		// the rest needs a token, and the run says so.
		revs = det.Unauthorized
		env.SupportsModern = slices.Contains(revs, catalog.Modern)
		env.SupportsLegacy = slices.ContainsFunc(revs, catalog.Revision.IsLegacy)
		det.Notes = append(det.Notes, "every request without a token was answered HTTP 401 and no token was given: only the authorization checks that need none ran (AUTH-001…004 and the token-free parts of the others); give one with --bearer-env NAME or --bearer-file PATH to run the rest")
		authOnly = true
		labelFilter = "area:auth"
		if cfg.LabelFilter != "" {
			labelFilter = "(" + cfg.LabelFilter + ") && area:auth"
		}
	}
	if len(revs) == 0 {
		return unreachable(cfg, det.Notes, started, fmt.Errorf("%w: the target supports no revision mcpconform knows", ErrUnreachable)), fmt.Errorf("%w: the target supports no revision mcpconform knows\n  %s", ErrUnreachable, strings.Join(det.Notes, "\n  "))
	}
	env.Revisions = revs
	for rev, s := range det.Sessions {
		if slices.Contains(revs, rev) {
			env.Adopt(rev, s)
		} else {
			s.Close()
		}
	}
	var notRun []string
	for _, n := range det.Notes {
		if strings.Contains(n, "not supported") || strings.Contains(n, "not run") || strings.Contains(n, "no answer") {
			notRun = append(notRun, n)
		}
	}
	env.NotRun = strings.Join(notRun, "; ")
	defer env.Close()

	rep := &result.Report{
		SchemaVersion: result.SchemaVersion,
		Tool:          result.Tool{Name: "mcpconform", Version: cfg.Version},
		Target:        targetOf(tg, cfg.ConfigFile),
		CallPolicy:    cfg.Policy.String(),
		Detection:     det.Notes,
		StartedAt:     started,
	}
	for _, r := range revs {
		rep.Revisions = append(rep.Revisions, string(r))
		era := result.Era{Revision: string(r)}
		ectx, ecancel := context.WithTimeout(sigCtx, 2*tg.Timeout+5*time.Second)
		s, err := env.Shared(ectx, r)
		ecancel()
		if err != nil {
			era.Error = err.Error()
		} else {
			red := tg.Recorder.Redactor()
			era.ServerInfo = validUTF8(red.Bytes(s.ServerInfo()))
			if b, err := json.Marshal(s.Capabilities()); err == nil && s.Capabilities() != nil {
				era.Capabilities = validUTF8(red.Bytes(b))
			}
		}
		era.Error = tg.Recorder.Redactor().String(era.Error)
		rep.Eras = append(rep.Eras, era)
	}
	for _, e := range rep.Eras { // newest revision first in revs order: take the first usable
		if e.Error == "" {
			rep.Revision, rep.ServerInfo, rep.Capabilities = e.Revision, e.ServerInfo, e.Capabilities
			break
		}
	}
	if rep.Revision == "" {
		rep.Revision = string(revs[0])
	}

	if sigCtx.Err() != nil {
		err := fmt.Errorf("%w: %w while opening sessions, before any check ran", ErrUnreachable, ErrInterrupted)
		return unreachable(cfg, det.Notes, started, err), err
	}
	stopSignals() // Ginkgo's interrupt handler takes over: it ends the running check and still reports the others
	// Watch for the signal beside Ginkgo, to tell the caller which one.
	sigSeen := make(chan os.Signal, 1)
	signal.Notify(sigSeen, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigSeen)

	var out Outcome
	err := runSpecs(cfg, env, labelFilter, func(preview types.Report) {
		order := laneOrder(preview, revs)
		env.SetPlan(order)
		if cfg.Parallel > 1 && len(order) > 0 {
			// One lane per revision: the run-wide observers and the
			// transcripts tell them apart by connection.
			env.UseLanes(cfg.Parallel, order)
			obs.SetLanes(env.LaneOf)
			env.OnCheck = func(lane, name string) {
				obs.SetCheckIn(lane, name)
				if rev, _, ok := strings.Cut(lane, "/"); ok {
					obs.SetCheckIn(rev, name) // the connections no worker claimed
				}
			}
		}
	}, func(gr ginkgo.Report) {
		if interrupted(gr) {
			// the lanes' checks Ginkgo no longer waits for stop now: one
			// opening a shared session holds the lock the report needs
			env.CancelLanes()
		}
		rep.Results = resultsOf(gr, started)
		// The systematic faults the sessions recognised, judged over the
		// whole run, then the run-wide invariants, judged over every
		// message of the run (including what arrived after a
		// requirement's own check ran).
		conform.ApplyFaults(rep.Results, tg.Faults(), tg.Recorder.Redactor())
		observe.Apply(rep.Results, append(obs.Violations(), env.Liveness()...), rep.Revisions)
		result.CiteTolerances(rep.Results)
		result.SortResults(rep.Results)
		rep.Summary = result.Summarize(rep.Results, cfg.Strict)
		if cfg.Baseline != nil {
			rep.ApplyBaseline(cfg.Baseline, cfg.BaselineFile)
		}
		if authOnly {
			rep.Summary.Hollow = true
			rep.Summary.HollowReason = "every request without a token was answered HTTP 401 and no token was given: only the authorization checks that need no token ran; give one (--bearer-env NAME or --bearer-file PATH) to run the rest"
		}
		rep.DurationMs = time.Since(started).Milliseconds()
		rep.Interrupted = interrupted(gr)
		rep.Stderr = tg.Recorder.Redactor().String(stderrOf(env))
		rep.Performance = performanceOf(env)
		if b := backoffOf(env); b.Any() {
			rep.Summary.Backoff = b
		}
		validReport(rep)
		out.Report = rep
	})
	defer env.StopLanes()
	if err != nil {
		return nil, err
	}
	if out.Report == nil {
		return nil, errors.New("the run ended without a report")
	}
	select {
	case sig := <-sigSeen:
		out.Signal = signalName(sig)
		out.Report.Interrupted = true
	default:
	}
	return &out, nil
}

// runSpecs runs the spec tree for env (SetEnv) with Ginkgo in-process:
// prepare sees the preview of the specs that will run (lanes are set up
// there), finish the whole report, to build the run's result model. It
// returns an error only when the tree is malformed.
func runSpecs(cfg Config, env *conform.Env, labelFilter string, prepare func(types.Report), finish func(ginkgo.Report)) error {
	conform.SetEnv(env)
	suiteConfig, reporterConfig := ginkgo.GinkgoConfiguration()
	suiteConfig.LabelFilter = labelFilter
	suiteConfig.RandomSeed = 1
	suiteConfig.Timeout = cfg.Budget
	suiteConfig.FailOnEmpty = false
	reporterConfig.NoColor = true
	if !cfg.GinkgoOutput {
		formatter.ColorableStdOut = io.Discard
		reporterConfig.Succinct = true
	}

	preview := ginkgo.PreviewSpecs(cfg.Describe, suiteConfig, reporterConfig)
	if err := validateReport(preview); err != nil {
		return err
	}
	conform.ResetRegistrations()
	prepare(preview)

	var total, done int
	ginkgo.ReportBeforeSuite(func(r ginkgo.Report) { total = r.PreRunStats.SpecsThatWillRun })
	ginkgo.ReportAfterEach(func(sr ginkgo.SpecReport) {
		if sr.LeafNodeType != types.NodeTypeIt {
			return
		}
		if o := outcomeOf(sr); o != nil { // specs filtered out (--only, --skip) have none
			done++
			fmt.Fprintf(cfg.Progress, "[%3d/%d] %-5s %-12s %-9s %-10s %s\n", done, total, o.Verdict, catalog.AreaOf(o.Requirement), o.Requirement, o.Revision, sr.LeafNodeText)
		}
	})
	ginkgo.ReportAfterSuite("mcpconform results", finish)

	gomega.RegisterFailHandler(ginkgo.Fail)
	t := cfg.T
	if t == nil {
		t = &failRecorder{}
	}
	ginkgo.RunSpecs(t, cfg.Describe, suiteConfig, reporterConfig)
	return nil
}

// interrupted reports whether Ginkgo ended the suite early (Ctrl-C, the
// run's budget).
func interrupted(gr ginkgo.Report) bool {
	return slices.ContainsFunc(gr.SpecialSuiteFailureReasons, func(s string) bool {
		return strings.Contains(strings.ToLower(s), "interrupt") || strings.Contains(strings.ToLower(s), "timeout")
	})
}

// unreachable is the outcome of a run that ended before any check ran
// (target unreachable, interrupted while probing): no results, the
// detection notes, and a summary that does not pass and says why.
func unreachable(cfg Config, notes []string, started time.Time, cause error) *Outcome {
	tg := cfg.Target
	red := tg.Recorder.Redactor()
	rep := &result.Report{
		SchemaVersion: result.SchemaVersion,
		Tool:          result.Tool{Name: "mcpconform", Version: cfg.Version},
		Target:        targetOf(tg, cfg.ConfigFile),
		CallPolicy:    cfg.Policy.String(),
		Detection:     append(redactAll(red, notes), red.String(cause.Error())),
		StartedAt:     started,
		DurationMs:    time.Since(started).Milliseconds(),
		Results:       []result.Result{},
		Eras:          []result.Era{},
		Revisions:     []string{},
		Interrupted:   errors.Is(cause, ErrInterrupted),
	}
	rep.Summary = result.Summarize(nil, cfg.Strict)
	rep.Summary.Passed = false
	rep.Summary.HollowReason = "no check ran: " + red.String(cause.Error())
	validReport(rep)
	return &Outcome{Report: rep}
}

// timeline renders what Ginkgo recorded while a check that failed ran
// (its steps, where it stopped) for the result's Log, as Ginkgo's JUnit
// reporter renders it. Each check's outcome entry is replaced by its
// one-line summary: Ginkgo renders report entries with %+v, which for an
// Outcome would spell out every transcript byte as a decimal number (a
// 16 MiB message became 67 MB of junit.xml). The transcript is in the
// result.
func timeline(sr types.SpecReport) string {
	if sr.State.Is(types.SpecStatePassed | types.SpecStateSkipped) {
		return ""
	}
	entries := make(types.ReportEntries, len(sr.ReportEntries))
	for j, e := range sr.ReportEntries {
		if o, ok := e.GetRawValue().(*conform.Outcome); ok && e.Name == conform.EntryName {
			e.Value = types.WrapEntryValue(o.String())
		}
		entries[j] = e
	}
	sr.ReportEntries = entries
	return reporters.RenderTimeline(sr, true)
}

func stderrOf(env *conform.Env) string {
	var b strings.Builder
	env.EachShared(func(c wire.Conn) {
		if sc, ok := c.(*stdio.Conn); ok {
			if s := sc.Stderr(); s != "" {
				fmt.Fprintf(&b, "--- %s stderr ---\n%s\n", sc.Name(), s)
			}
		}
	})
	return b.String()
}

func targetOf(t *target.Target, configFile string) result.Target {
	rt := result.Target{Transport: t.Transport(), URL: t.Recorder.Redactor().String(t.URL), Config: configFile}
	for _, a := range t.Command {
		rt.Command = append(rt.Command, t.Recorder.Redactor().String(a))
	}
	if len(t.Command) > 0 {
		rt.Cwd = t.Dir
		for _, e := range t.Env {
			name, _, _ := strings.Cut(e, "=")
			rt.Env = append(rt.Env, name) // the name only: a value may be secret
		}
	}
	if t.Bearer != "" {
		rt.Auth = "bearer token from " + t.BearerSource
	}
	if t.SecondBearer != "" {
		if rt.Auth != "" {
			rt.Auth += "; "
		}
		rt.Auth += "second principal's bearer token from " + t.SecondBearerSource
	}
	for _, extra := range []struct{ value, what, source string }{
		{t.WeakBearer, "weaker token", t.WeakBearerSource},
		{t.ExpiredBearer, "expired token", t.ExpiredBearerSource},
		{t.ForeignBearer, "foreign-audience token", t.ForeignBearerSource},
	} {
		if extra.value != "" {
			if rt.Auth != "" {
				rt.Auth += "; "
			}
			rt.Auth += extra.what + " from " + extra.source
		}
	}
	for k := range t.Header {
		rt.Headers = append(rt.Headers, k)
	}
	slices.Sort(rt.Headers)
	return rt
}

func outcomeOf(sr types.SpecReport) *conform.Outcome {
	for _, e := range sr.ReportEntries {
		if e.Name == conform.EntryName {
			if o, ok := e.GetRawValue().(*conform.Outcome); ok {
				return o
			}
		}
	}
	return nil
}

func resultsOf(gr ginkgo.Report, started time.Time) []result.Result {
	var out []result.Result
	for _, sr := range gr.SpecReports {
		if sr.LeafNodeType != types.NodeTypeIt {
			continue
		}
		o := outcomeOf(sr)
		req, rev, transport := labelValue(sr, "req"), labelValue(sr, "rev"), labelValue(sr, "transport")
		if o == nil {
			if sr.State == types.SpecStateSkipped || sr.State == types.SpecStatePending {
				continue // not selected
			}
			o = &conform.Outcome{Requirement: req, Revision: catalog.Revision(rev), Transport: transport, Verdict: conform.ERROR,
				Message: fmt.Sprintf("check ended %s: %s", sr.State, sr.Failure.Message)}
			if r, ok := catalog.Get(req); ok {
				o.Level = r.LevelFor(catalog.Revision(rev))
			}
		}
		res := o.Result()
		res.DurationMs = float64(sr.RunTime.Microseconds()) / 1000
		if !o.Started.IsZero() {
			res.DurationMs = float64(o.Elapsed.Microseconds()) / 1000
			res.StartMs = float64(o.Started.Sub(started).Microseconds()) / 1000
			res.WaitMs = float64(o.Waited.Microseconds()) / 1000
			res.Lane = o.Lane
		}
		res.Log = timeline(sr)
		out = append(out, res)
	}
	return out
}

func labelValue(sr types.SpecReport, key string) string {
	for _, l := range sr.Labels() {
		if v, ok := strings.CutPrefix(l, key+":"); ok {
			return v
		}
	}
	return ""
}

// laneOrder returns, from a preview of the run, the requirement ids of the
// checks of revs that will run, by revision, in the order Ginkgo will run
// them (the not-applicable specs of other revisions run no check).
func laneOrder(preview types.Report, revs []catalog.Revision) map[catalog.Revision][]string {
	order := map[catalog.Revision][]string{}
	for _, sr := range preview.SpecReports {
		if sr.LeafNodeType != types.NodeTypeIt || sr.State.Is(types.SpecStateSkipped|types.SpecStatePending) {
			continue
		}
		if id, rev := labelValue(sr, "req"), labelValue(sr, "rev"); id != "" && slices.Contains(revs, catalog.Revision(rev)) {
			order[catalog.Revision(rev)] = append(order[catalog.Revision(rev)], id)
		}
	}
	return order
}

// validateReport checks a preview of the tree (every spec, selected or
// not): every spec has exactly one requirement label, every label key is
// known, and no requirement is registered twice for one revision.
func validateReport(preview types.Report) error {
	seen := map[string]string{}
	var problems []string
	for _, sr := range preview.SpecReports {
		if sr.LeafNodeType != types.NodeTypeIt {
			continue
		}
		var reqs []string
		for _, l := range sr.Labels() {
			k, v, _ := strings.Cut(l, ":")
			if !slices.Contains(conform.LabelKeys, k) {
				problems = append(problems, fmt.Sprintf("%s: unknown label %q", sr.LeafNodeLocation, l))
			}
			if k == "req" {
				reqs = append(reqs, v)
			}
		}
		if len(reqs) != 1 {
			problems = append(problems, fmt.Sprintf("%s: spec %q has %d requirement labels, want 1", sr.LeafNodeLocation, sr.FullText(), len(reqs)))
			continue
		}
		if _, ok := catalog.Get(reqs[0]); !ok {
			problems = append(problems, fmt.Sprintf("%s: unknown requirement %s", sr.LeafNodeLocation, reqs[0]))
		}
		key := reqs[0] + "@" + labelValue(sr, "rev")
		if prev, dup := seen[key]; dup {
			problems = append(problems, fmt.Sprintf("%s: requirement %s registered twice for %s (also at %s)", sr.LeafNodeLocation, reqs[0], labelValue(sr, "rev"), prev))
		}
		seen[key] = sr.LeafNodeLocation.String()
	}
	if len(problems) > 0 {
		return fmt.Errorf("the spec tree is invalid:\n  %s", strings.Join(problems, "\n  "))
	}
	return nil
}

// validUTF8 makes a raw JSON value from the server fit for the reports:
// invalid UTF-8 (which valid JSON holds only inside strings) becomes
// U+FFFD, as encoding/json does for strings.
func validUTF8(b []byte) []byte {
	if utf8.Valid(b) {
		return b
	}
	return bytes.ToValidUTF8(b, []byte("\uFFFD"))
}

func signalName(sig os.Signal) string {
	switch sig {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return sig.String()
}

// validReport replaces invalid UTF-8 in the report's free text (server
// text quoted in detection notes, messages and stderr) with U+FFFD, so
// that every report file is valid UTF-8 whatever the server sent.
func validReport(rep *result.Report) {
	fix := func(s *string) {
		if !utf8.ValidString(*s) {
			*s = strings.ToValidUTF8(*s, "\uFFFD")
		}
	}
	for i := range rep.Detection {
		fix(&rep.Detection[i])
	}
	for i := range rep.Eras {
		fix(&rep.Eras[i].Error)
	}
	fix(&rep.Stderr)
	for i := range rep.Results {
		r := &rep.Results[i]
		fix(&r.Message)
		fix(&r.Expected)
		fix(&r.Actual)
		fix(&r.Log)
		for j := range r.Notes {
			fix(&r.Notes[j])
		}
	}
}

func redactAll(r *wire.Redactor, ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = r.String(s)
	}
	return out
}

// performanceOf reads the target's latency and connection counts.
func performanceOf(env *conform.Env) *result.Performance {
	tg := env.Target
	l, st := tg.Latency(), tg.Stats()
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	return &result.Performance{
		LatencySamples: l.Count(), LatencyP50Ms: ms(l.Quantile(0.5)), LatencyP99Ms: ms(l.Quantile(0.99)),
		PatienceMs: ms(env.Patience()), TimeoutMs: ms(tg.Timeout), WindowMs: ms(env.QuietWindow()),
		Connections: st.Connections, Handshakes: st.Handshakes, HandshakeMs: st.HandshakeMs,
		Sessions: st.Sessions, HandshakeWallMs: st.HandshakeWallMs,
		Prestarted: st.Prestarted, Unused: st.Unused, Lanes: env.Lanes(), Workers: env.Workers(),
	}
}
