// Package fuzz is mcpconform's protocol fuzzer: rapid generators of the
// messages a client can send (valid and invalid), properties checked on
// every exchange (one response per request with the same id and JSON
// type, none for notifications, every server message valid for the
// revision, the server alive afterwards — a liveness probe after each case
// the server did not answer whole —, no crash, no hang), shrinking of
// each failure to a minimal case, re-runs of each failure's case for how
// often it shows (rerun.go: a timing-dependent defect is confirmed by any
// re-run that shows it again), deduplication by signature, and replay of
// saved cases.
//
// A case is a list of raw messages sent back to back; the oracle judges a
// case from those bytes alone, so a saved case replays without its
// generator. Each finding is graded like the suite grades a check, by the
// rules they share (internal/judge): the requirement it breaks, its level,
// FAIL or WARN.
//
// Entry points: Run (a campaign, mcpconform fuzz), Fuzz (Go's native
// engine, go test -fuzz) and NewTarget (a function of bytes, for engines
// that replace the testing package: ClusterFuzzLite, OSS-Fuzz).
package fuzz

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/internal/catalog"
	"github.com/mcpconform/mcpconform/internal/judge"
	"github.com/mcpconform/mcpconform/internal/policy"
	"github.com/mcpconform/mcpconform/internal/target"
	"github.com/mcpconform/mcpconform/internal/trigger"
	"pgregory.net/rapid"
)

// Config is one campaign.
type Config struct {
	Target *target.Target
	// Revision to fuzz; "" detects the newest one the server supports.
	Revision catalog.Revision
	// Policy decides which tools are called (the zero value is readonly).
	Policy policy.CallPolicy
	// Checks is the number of cases per property and round (default 100).
	Checks int
	// Seed makes the campaign repeatable (0: the caller picks one).
	Seed uint64
	// Duration bounds the whole campaign (default 30s).
	Duration time.Duration
	// Properties selects properties by name (nil: all).
	Properties []string
	// Rounds caps the rapid runs per property: after a finding the
	// property runs again, its known signatures tolerated, to find others
	// (default 4).
	Rounds int
	// ShrinkTime bounds the shrinking of each finding (0: half the time
	// left to the property, between 1 s and 20 s).
	ShrinkTime time.Duration
	// Out receives progress and findings (nil: discarded).
	Out io.Writer
	// Strict grades unconfirmed findings (seen once, never again) by
	// their requirement's level instead of WARN.
	Strict bool
	// CatalogChange is the run's catalog_change trigger (the config key the
	// suite's STALE and SUB checks use; nil: none): the state machines fire
	// it, and its restore step, between their other steps.
	CatalogChange *trigger.Trigger
	// Status turns on the status line on Out: rewritten in place when Live
	// (a terminal), otherwise a plain line every PlainEvery.
	Status, Live bool
}

// Finding is one failure, shrunk, judged like the suite judges a check:
// the catalog requirement it breaks, that requirement's level (or its
// sub-case's) and the verdict (internal/judge).
type Finding struct {
	Property string `json:"property"`
	Layer    string `json:"layer"`
	Code     string `json:"code"`
	// Requirement is the catalog id the finding breaks, Level its
	// grading level, Verdict FAIL (a MUST, a crash or a hang) or WARN (a
	// SHOULD, or unconfirmed); Note explains a verdict below the
	// requirement's level.
	Requirement string `json:"requirement,omitempty"`
	Level       string `json:"level,omitempty"`
	Verdict     string `json:"verdict,omitempty"`
	Note        string `json:"note,omitempty"`
	// Unconfirmed: the defect showed once and never again (Flaky, and
	// none of its re-runs reproduced it).
	Unconfirmed bool   `json:"unconfirmed,omitempty"`
	Detail      string `json:"detail"`
	Revision    string `json:"revision"`
	Transport   string `json:"transport"`
	Seed        uint64 `json:"seed"`
	// Messages is the shrunk case of a message property, replayable with
	// --replay; Steps that of the state-machine property.
	Messages []Raw  `json:"messages,omitempty"`
	Steps    []Step `json:"steps,omitempty"`
	// Transcript is the minimal exchange, one line per frame.
	Transcript []string `json:"transcript"`
	// Flaky: the failure did not show again (or showed as another
	// defect) when rapid re-ran the case, a timing-dependent defect, so
	// the case is as first found, not shrunk; a replay may pass without
	// the defect being fixed.
	Flaky bool `json:"flaky,omitempty"`
	// Reruns counts the re-runs of the failure after it was first found
	// (rapid's confirming re-run and the replays of the case, rerun.go),
	// Reproduced those that showed it again: "reproduced in 3 of 5
	// re-runs". A finding reproduced at least once is confirmed, Flaky or
	// not.
	Reruns     int `json:"reruns,omitempty"`
	Reproduced int `json:"reproduced,omitempty"`
	// File is where the case was saved (set by the caller).
	File string `json:"file,omitempty"`

	rule judge.Rule
}

// Failed reports whether the finding fails the campaign (FAIL or ERROR).
func (f Finding) Failed() bool {
	return f.Verdict == string(judge.FAIL) || f.Verdict == string(judge.ERROR)
}

// Failed reports whether any finding fails the campaign.
func (r *Result) Failed() bool {
	for _, f := range r.Findings {
		if f.Failed() {
			return true
		}
	}
	return false
}

// Signature deduplicates findings: property, layer, code.
func (f Finding) Signature() string { return f.Property + "/" + f.Layer + "/" + f.Code }

// Result is a campaign's outcome.
type Result struct {
	Revision catalog.Revision
	Seed     uint64
	Cases    int
	// PerProperty counts the cases of each property (shrinking included).
	PerProperty map[string]int
	Exchanges   int
	Elapsed     time.Duration
	Findings    []Finding
	// Strict: the campaign graded unconfirmed findings by their level.
	Strict bool
	// Skipped explains properties that did not run (no tools callable…).
	Skipped []string
}

// Property names.
const (
	PropIDs       = "ids"       // envelope and id correlation
	PropRaw       = "raw"       // byte-level faults
	PropTools     = "tools"     // tool arguments from inputSchema
	PropPrompts   = "prompts"   // prompts/get arguments from the declared ones
	PropResources = "resources" // resources/read URIs: listed, template expansions, altered
	PropMRTR      = "mrtr"      // retries of input_required flows: inputResponses and requestState (2026-07-28)
	PropSeq       = "seq"       // state machines: sequences of steps against a model of the revision
)

// Properties lists the property names in campaign order.
func Properties() []string {
	return []string{PropIDs, PropRaw, PropTools, PropPrompts, PropResources, PropMRTR, PropSeq}
}

// seqSteps is the average number of steps of a state-machine case.
const seqSteps = 12

// Run runs a campaign.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if cfg.Checks <= 0 {
		cfg.Checks = 100
	}
	if cfg.Duration <= 0 {
		cfg.Duration = 30 * time.Second
	}
	if cfg.Rounds <= 0 {
		cfg.Rounds = 4
	}
	if cfg.Out == nil {
		cfg.Out = io.Discard
	}
	for _, p := range cfg.Properties {
		if !contains(Properties(), p) {
			return nil, fmt.Errorf("unknown property %q (known: %s)", p, strings.Join(Properties(), ", "))
		}
	}
	start := time.Now()
	h, err := newHarness(ctx, cfg.Target, cfg.Revision)
	if err != nil {
		return nil, err
	}
	defer h.close()
	h.trigger = cfg.CatalogChange
	prog := newProgress(cfg.Out, cfg.Live, cfg.Status, cfg.Duration)
	cfg.Out = prog
	if cfg.Status {
		prog.run(h)
	}
	defer prog.finish()
	res := &Result{Revision: h.rev, Seed: cfg.Seed, PerProperty: map[string]int{}, Strict: cfg.Strict}
	deadline := start.Add(cfg.Duration)
	props := cfg.Properties
	if len(props) == 0 {
		props = Properties()
	}
	gens, skipped := h.caseFuncs(ctx, props, cfg.Policy, start.Add(cfg.Duration/4))
	for _, why := range skipped {
		res.Skipped = append(res.Skipped, why)
		fmt.Fprintf(cfg.Out, "property %s\n", strings.Replace(why, ": ", " skipped: ", 1))
	}
	seen := map[string]bool{}
	for i, p := range props {
		gen := gens[p]
		if gen == nil {
			continue
		}
		prog.property.Store(p)
		// Each property gets an equal share of the time left.
		share := time.Until(deadline) / time.Duration(len(props)-i)
		pdl := time.Now().Add(share)
		for round := 0; round < cfg.Rounds && time.Now().Before(pdl); round++ {
			seed := cfg.Seed + uint64(i)*1000 + uint64(round)
			f, cases := h.check(ctx, p, gen, seed, cfg.Checks, pdl, deadline, cfg.ShrinkTime, seen)
			res.Cases += cases
			res.PerProperty[p] += cases
			if f == nil {
				break
			}
			f.Seed = cfg.Seed
			f.grade(cfg.Strict)
			seen[f.Signature()] = true
			prog.findings.Add(1)
			res.Findings = append(res.Findings, *f)
			PrintFinding(cfg.Out, *f)
		}
		fmt.Fprintf(cfg.Out, "property %s: done (%d cases so far, %d findings)\n", p, res.Cases, len(res.Findings))
	}
	res.Exchanges = int(h.exchanges.Load())
	res.Elapsed = time.Since(start)
	sort.SliceStable(res.Findings, func(a, b int) bool { return res.Findings[a].Signature() < res.Findings[b].Signature() })
	return res, nil
}

// PrintFinding writes a finding with its minimal transcript.
func PrintFinding(w io.Writer, f Finding) {
	size := fmt.Sprintf("%d message(s)", len(f.Messages))
	if len(f.Steps) > 0 {
		size = fmt.Sprintf("%d step(s)", len(f.Steps))
	}
	kind := "minimal case"
	switch {
	case f.Flaky && f.Reproduced > 0:
		kind = "case (not shrunk: rapid's re-run did not show the failure again, or showed another defect; its replays did)"
	case f.Flaky:
		kind = "case (unconfirmed, not shrunk: the failure did not show again, or showed as another defect, when the case was re-run)"
	}
	fmt.Fprintf(w, "%s %s %s: FINDING %s (seed %d, %s over %s)\n  %s\n", f.Verdict, f.Requirement, f.Level, f.Signature(), f.Seed, f.Revision, f.Transport, f.Detail)
	if f.Note != "" {
		fmt.Fprintf(w, "  (%s)\n", f.Note)
	}
	fmt.Fprintf(w, "  %s: %s\n", kind, size)
	for _, l := range f.Transcript {
		fmt.Fprintf(w, "    %s\n", l)
	}
	if f.File != "" {
		fmt.Fprintf(w, "  replay: mcpconform fuzz --replay %s …\n", f.File)
	}
}

// Save writes f's case to path as JSON (the replay file).
func Save(path string, f Finding) error {
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	return writeFile(path, append(b, '\n'))
}

// Load reads a replay file.
func Load(path string) (Finding, error) {
	var f Finding
	b, err := readFile(path)
	if err != nil {
		return f, err
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return f, fmt.Errorf("%s: %w", path, err)
	}
	if len(f.Messages) == 0 && len(f.Steps) == 0 {
		return f, fmt.Errorf("%s: no messages or steps to replay", path)
	}
	for i, m := range f.Messages {
		if _, err := m.Bytes(); err != nil {
			return f, fmt.Errorf("%s: message %d: %w", path, i+1, err)
		}
	}
	for i, st := range f.Steps {
		for j, m := range st.Messages {
			if _, err := m.Bytes(); err != nil {
				return f, fmt.Errorf("%s: step %d, message %d: %w", path, i+1, j+1, err)
			}
		}
	}
	return f, nil
}

// Replay re-sends a saved case against the target and judges it with the
// same oracle: it returns the problems found now (none: FIXED).
func Replay(ctx context.Context, tg *target.Target, f Finding) ([]string, error) {
	rev := catalog.Revision(f.Revision)
	if !rev.Known() {
		rev = ""
	}
	h, err := newHarness(ctx, tg, rev)
	if err != nil {
		return nil, err
	}
	defer h.close()
	// The tools' inputSchemas, for the error-layer oracle (whatever the
	// call policy: the case's calls are the user's to replay).
	h.prepareTools(ctx, policy.All)
	// A case that puts requests in flight together is sent as the
	// campaign's re-runs sent it (rerun.go).
	together := concurrent(&f)
	var ps []problem
	if len(f.Steps) > 0 {
		if ps, err = h.replaySeq(ctx, f.Steps, together); err != nil {
			return nil, err
		}
	} else {
		var msgs [][]byte
		for _, m := range f.Messages {
			b, _ := m.Bytes()
			msgs = append(msgs, b)
		}
		ps = h.exchangeOn(ctx, msgs, xopts{together: together}).probs
	}
	var out []string
	for _, p := range ps {
		out = append(out, p.String())
	}
	return out, nil
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// caseFuncs prepares the properties props (the catalogs they draw from)
// and returns their case functions, and why each property that cannot run
// is skipped ("name: reason"). Probing the tools for input_required (mrtr)
// goes on until mrtrUntil.
func (h *harness) caseFuncs(ctx context.Context, props []string, pol policy.CallPolicy, mrtrUntil time.Time) (map[string]caseFunc, []string) {
	gens := map[string]caseFunc{}
	gens[PropIDs] = h.msgCase(h.genIDsCase)
	gens[PropRaw] = h.msgCase(h.genRawCase)
	gens[PropSeq] = h.seqCase
	var skipped []string
	for _, p := range []struct {
		name    string
		prepare func() (bool, string)
		gen     func(*rapid.T) [][]byte
	}{
		{PropTools, func() (bool, string) { return h.prepareTools(ctx, pol) }, h.genToolsCase},
		{PropPrompts, func() (bool, string) { return h.preparePrompts(ctx) }, h.genPromptsCase},
		{PropResources, func() (bool, string) { return h.prepareResources(ctx) }, h.genResourcesCase},
		{PropMRTR, func() (bool, string) { return h.prepareMRTR(ctx, mrtrUntil) }, h.genMRTRCase},
	} {
		// seq and mrtr call the tools the tools property prepares
		// (seq's MRTR steps retry the flows mrtr prepares)
		if !contains(props, p.name) && !(p.name == PropTools && (contains(props, PropSeq) || contains(props, PropMRTR))) &&
			!(p.name == PropMRTR && contains(props, PropSeq)) {
			continue
		}
		if ok, why := p.prepare(); ok {
			gens[p.name] = h.msgCase(p.gen)
		} else if contains(props, p.name) {
			skipped = append(skipped, p.name+": "+why)
		}
	}
	return gens, skipped
}

func writeFile(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

func readFile(path string) ([]byte, error) { return os.ReadFile(path) }
