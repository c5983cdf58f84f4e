package conform

import (
	"context"
	"fmt"
	"path"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega/format"

	"github.com/mcpconform/mcpconform/internal/catalog"
	"github.com/mcpconform/mcpconform/internal/result"
	"github.com/mcpconform/mcpconform/internal/wire"
)

// Verdict of one check (the result model's).
type Verdict = result.Verdict

// Verdicts.
const (
	PASS  = result.PASS
	FAIL  = result.FAIL
	WARN  = result.WARN
	NA    = result.NA
	ERROR = result.ERROR
)

// EntryName is the name of the report entry carrying a check's Outcome.
const EntryName = "mcpconform"

// Outcome is attached to every spec as a report entry.
type Outcome struct {
	Requirement string           `json:"requirement"`
	Level       catalog.Level    `json:"level"`
	Revision    catalog.Revision `json:"revision,omitempty"`
	Transport   string           `json:"transport"`
	Verdict     Verdict          `json:"verdict"`
	Message     string           `json:"message,omitempty"`
	Expected    string           `json:"expected,omitempty"`
	Actual      string           `json:"actual,omitempty"`
	// Notes are tolerated deviations and observations (each a WARN reason
	// when the verdict is WARN).
	Notes []string `json:"notes,omitempty"`
	// Frames is the part of the transcript this check produced.
	Frames []wire.Frame `json:"-"`
	// Evidence are the frames (Seq) a FAIL or WARN rests on (T.Evidence,
	// or found in finish: the server frames its Actual or Message quotes).
	Evidence []int64 `json:"-"`
	// Started and Elapsed time the check itself (with lanes, a spec waits
	// for its lane before it: Ginkgo's run time is not the check's);
	// Lane names the lane worker that ran it ("": no lanes).
	Started time.Time     `json:"-"`
	Elapsed time.Duration `json:"-"`
	Lane    string        `json:"-"`
	// Waited is the part of Elapsed the check spent waiting for work
	// another check was doing for it (a shared exercise, T's Memo).
	Waited time.Duration `json:"-"`
	// Judged names the scenario runs a client check judged (T.Judged).
	Judged []string `json:"-"`
	// Claim is what the violation asserted about one answer (the helpers
	// ExpectErrorCode, ExpectStatus, ResultObject set it), for repro.
	Claim *result.Claim `json:"-"`
}

// String is the one-line form of an outcome, so that a formatter printing
// it (Ginkgo's %+v of report entries) never prints its transcript.
func (o *Outcome) String() string {
	return fmt.Sprintf("%s %s (%s, %s): %s", o.Verdict, o.Requirement, o.Revision, o.Transport, o.Message)
}

// Label keys, the only ones a spec may carry.
var LabelKeys = []string{"req", "level", "rev", "area", "transport"}

func init() {
	format.MaxLength = 4000
}

var (
	regMu sync.Mutex
	// registered[id] = revisions it was registered for in this tree build.
	registered = map[string]map[catalog.Revision]bool{}
	known      = map[string]bool{}
	// sources[id] = the file:line positions (module-relative) of its It calls.
	sources    = map[string][]string{}
	curRev     catalog.Revision
	curArea    string
	areaBodies []func()
	collecting bool
)

// CheckedIDs returns the ids of every requirement that has a check, by
// running the area bodies in a collecting mode (no Ginkgo tree is built).
func CheckedIDs() []string {
	regMu.Lock()
	bodies := append([]func(){}, areaBodies...)
	collecting = true
	regMu.Unlock()
	for _, b := range bodies {
		b()
	}
	regMu.Lock()
	collecting = false
	regMu.Unlock()
	return Known()
}

// Area registers an area's specs. body runs at tree construction, once for
// each revision of the run; inside it, It registers the checks.
func Area(area string, body func()) bool { return areaOf(area, body, false) }

// areaOf registers an area's specs for server runs, or (client) for
// client runs.
func areaOf(area string, body func(), client bool) bool {
	regMu.Lock()
	areaBodies = append(areaBodies, body)
	regMu.Unlock()
	return ginkgo.Describe(area, func() {
		env := CurrentEnv()
		if env == nil || (env.Client != nil) != client {
			return
		}
		for _, rev := range env.Revisions {
			ginkgo.Context(string(rev), func() {
				regMu.Lock()
				curRev, curArea = rev, area
				regMu.Unlock()
				body()
			})
		}
	})
}

// It registers the check for requirement id under the current revision. It
// is registered only when the requirement applies to that revision and to
// the target's transport. text describes the observable behaviour.
func It(id, text string, fn func(t *T)) {
	req := catalog.MustGet(id)
	env := CurrentEnv()
	pos := callerPos(2)
	regMu.Lock()
	rev := curRev
	known[id] = true
	if !slices.Contains(sources[id], pos) {
		sources[id] = append(sources[id], pos)
	}
	collect := collecting
	regMu.Unlock()
	if collect {
		return
	}
	if env == nil || !req.AppliesTo(rev, env.Transport()) || req.Client() != (env.Client != nil) {
		return
	}
	regMu.Lock()
	if registered[id] == nil {
		registered[id] = map[catalog.Revision]bool{}
	}
	registered[id][rev] = true
	regMu.Unlock()
	transport := env.Transport()
	// A lane's check is bounded by its lane (lanes.run); its spec only
	// waits for it, behind the checks before it in the lane.
	args := []any{labelsFor(req, rev, transport), ginkgo.Offset(1)}
	if env.lanes != nil {
		env.lanes.register(req, rev, transport, fn)
	} else {
		args = append(args, ginkgo.SpecTimeout(env.SpecBudget+laneGrace))
	}
	args = append(args, func(sctx ginkgo.SpecContext) {
		run(sctx, env, req, rev, transport, fn)
	})
	ginkgo.It(text, args...)
}

func labelsFor(req catalog.Requirement, rev catalog.Revision, transport string) ginkgo.Labels {
	return ginkgo.Label(
		"req:"+req.ID,
		"level:"+string(req.LevelFor(rev)),
		"rev:"+string(rev),
		"area:"+req.Area(),
		"transport:"+transport,
	)
}

// NotApplicable registers, after every area was built, one NA spec for each
// known requirement that applies to the target's transport but was
// registered for none of the run's revisions. Call it last (suites/all).
func NotApplicable() bool {
	return ginkgo.Describe("not applicable", func() {
		env := CurrentEnv()
		if env == nil {
			return
		}
		regMu.Lock()
		var ids []string
		for id := range known {
			if len(registered[id]) == 0 {
				ids = append(ids, id)
			}
		}
		regMu.Unlock()
		sort.Strings(ids)
		transport := env.Transport()
		for _, id := range ids {
			req := catalog.MustGet(id)
			if !req.AppliesToTransport(transport) || req.Client() != (env.Client != nil) {
				continue
			}
			rev := req.Revisions[len(req.Revisions)-1]
			reason := fmt.Sprintf("applies to revision %s; this run covers %s", req.RevisionsString(), revList(env.Revisions))
			if env.NotRun != "" {
				reason += " (" + env.NotRun + ")"
			}
			ginkgo.It(req.Title, labelsFor(req, rev, transport), func(sctx ginkgo.SpecContext) {
				out := &Outcome{Requirement: req.ID, Level: req.LevelFor(rev), Revision: rev, Transport: transport, Verdict: NA, Message: reason}
				ginkgo.AddReportEntry(EntryName, out, ginkgo.ReportEntryVisibilityNever)
				ginkgo.Skip("NA: " + reason)
			})
		}
	})
}

// ResetRegistrations forgets what the previous tree build registered (the
// tree is built twice: PreviewSpecs, then RunSpecs).
func ResetRegistrations() {
	regMu.Lock()
	registered = map[string]map[catalog.Revision]bool{}
	regMu.Unlock()
}

// Sources returns, for each requirement with a check, the module-relative
// file:line of the It calls that register it (call CheckedIDs first).
func Sources() map[string][]string {
	regMu.Lock()
	defer regMu.Unlock()
	out := make(map[string][]string, len(sources))
	for id, ps := range sources {
		out[id] = slices.Sorted(slices.Values(ps))
	}
	return out
}

// callerPos is the module-relative file:line of the caller skip frames up.
func callerPos(skip int) string {
	_, file, line, ok := runtime.Caller(skip)
	if !ok {
		return "?"
	}
	file = filepath.ToSlash(file)
	if i := strings.LastIndex(file, "/suites/"); i >= 0 {
		file = file[i+1:]
	} else if _, self, _, ok := runtime.Caller(0); ok {
		// the module root is two levels above this file (internal/conform)
		root := path.Dir(path.Dir(path.Dir(filepath.ToSlash(self))))
		file = strings.TrimPrefix(file, root+"/")
	}
	return fmt.Sprintf("%s:%d", file, line)
}

// Known returns the ids of all requirements that have a check.
func Known() []string {
	regMu.Lock()
	defer regMu.Unlock()
	out := make([]string, 0, len(known))
	for id := range known {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

func revList(rs []catalog.Revision) string {
	if len(rs) == 0 {
		return "no revision"
	}
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = string(r)
	}
	return strings.Join(parts, ", ")
}

// signals used to end a check early.
type stopSignal struct{}

// run is a check's Ginkgo body: it runs the check (or, with lanes, takes
// its outcome from its lane) and reports the outcome to Ginkgo.
func run(sctx context.Context, env *Env, req catalog.Requirement, rev catalog.Revision, transport string, fn func(t *T)) {
	var out *Outcome
	if env.lanes != nil {
		var steps []string
		out, steps = env.lanes.await(sctx, specKey{req.ID, rev})
		for _, s := range steps {
			ginkgo.By(s)
		}
	} else {
		out = execute(sctx, env, req, rev, transport, fn, nil)
	}
	ginkgo.AddReportEntry(EntryName, out, ginkgo.ReportEntryVisibilityNever)
	switch out.Verdict {
	case FAIL:
		ginkgo.Fail(fmt.Sprintf("%s %s FAIL: %s", req.ID, out.Level, out.summary()), 0)
	case ERROR:
		ginkgo.Fail(fmt.Sprintf("%s ERROR: %s", req.ID, out.summary()), 0)
	case NA:
		ginkgo.Skip("NA: " + out.Message)
	}
}

// execute runs one check within its budget and returns its outcome. In a
// lane (lane not nil) it calls nothing of Ginkgo's: the check's steps are
// kept for its spec to report when it takes the outcome.
func execute(sctx context.Context, env *Env, req catalog.Requirement, rev catalog.Revision, transport string, fn func(t *T), lane *laneCheck) *Outcome {
	var lb *laneBudget
	if lane != nil {
		lb = &lane.budget
	}
	ctx, cancel := withBudget(sctx, env.SpecBudget, lb)
	defer cancel()
	if env.OnCheck != nil {
		w := 0
		if lane != nil {
			w = lane.worker
		}
		env.OnCheck(laneName(rev, w), fmt.Sprintf("%s [%s] (%s)", req.ID, rev, req.Title))
	}
	env.starting(req.ID, rev)
	t := newT(ctx, env, req, rev, transport)
	t.lane = lane
	t.rerun = ctx.Value(rerunKey{}) != nil
	started := time.Now()
	body(t, fn)
	crashed := len(t.crashes) > 0
	t.confirmSilences()
	t.finish()
	out := t.out
	if lane != nil && t.out.Verdict == ERROR && budgetSpent(ctx) {
		t.timedOut = append(t.timedOut, fmt.Sprintf("the check's budget of %s (the run's other checks slowing its answers)", env.SpecBudget))
	}
	if wantsRerun(sctx, t, crashed) {
		if second := rerunInline(sctx, t, fn, transport); second != nil {
			out = second
		}
	}
	out.Started, out.Elapsed, out.Waited = started, time.Since(started), t.waited
	if lane != nil {
		out.Lane = laneName(rev, lane.worker)
	}
	if sctx.Err() != nil && out.Verdict != PASS && out.Verdict != NA {
		// Ginkgo cancelled the check (Ctrl-C or the run budget): whatever
		// failed afterwards is not the server's doing.
		out.Verdict = ERROR
		out.Message = "the check was interrupted before it finished (" + context.Cause(sctx).Error() + "); last: " + out.Message
		out.Expected, out.Actual = "", ""
	} else if ctx.Err() != nil && out.Verdict == ERROR && out == t.out {
		out.Message = fmt.Sprintf("the check exceeded its budget of %s; last: %s", env.SpecBudget, out.Message)
	}
	return out
}

// body runs the check's function fn for t: a stop ends it, a panic is an
// ERROR.
func body(t *T, fn func(t *T)) {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(stopSignal); ok {
				return
			}
			t.out.Verdict = ERROR
			t.out.Message = fmt.Sprintf("check panicked: %v\n%s", r, debug.Stack())
		}
	}()
	// The label attributes a CPU profile's samples to the check
	// (MCPCONFORM_CPUPROFILE; go tool pprof -tags), the goroutines it
	// starts included.
	pprof.Do(t.Ctx, pprof.Labels("check", t.Req.ID+"/"+string(t.Rev)), func(context.Context) { fn(t) })
}

func (o *Outcome) summary() string {
	var b strings.Builder
	b.WriteString(o.Message)
	if o.Expected != "" {
		fmt.Fprintf(&b, "\n  expected: %s", o.Expected)
	}
	if o.Actual != "" {
		fmt.Fprintf(&b, "\n  actual:   %s", o.Actual)
	}
	return b.String()
}
