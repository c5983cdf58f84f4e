// Package conform is the small spec-writing layer between Ginkgo and the
// suites: it registers one spec per requirement and revision, gives each
// spec a T with sessions, Gomega assertions bound to the requirement's
// level, and the verdict model (PASS, FAIL, WARN, NA, ERROR).
package conform

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpconform/mcpconform/internal/catalog"
	"github.com/mcpconform/mcpconform/internal/msgcheck"
	"github.com/mcpconform/mcpconform/internal/observe"
	"github.com/mcpconform/mcpconform/internal/policy"
	"github.com/mcpconform/mcpconform/internal/session"
	"github.com/mcpconform/mcpconform/internal/target"
	"github.com/mcpconform/mcpconform/internal/wire"
)

// Env is what a run checks: the target, the revisions to run, and the
// shared sessions. The runner sets it before the tree is built.
type Env struct {
	Target *target.Target
	// Client, in a client run (mcpconform client), holds the scenarios
	// played to the client under test; nil in a server run.
	Client *ClientRuns
	// Revisions to run, in order.
	Revisions []catalog.Revision
	// NotRun explains revisions that were not run (probe results), shown as
	// the reason of NA results for requirements of those revisions.
	NotRun string
	// Legacy and Modern report which eras the server supports (as detected or
	// as the user asserted with --revision).
	SupportsLegacy, SupportsModern bool
	// Window is how long a check watches for traffic that must not come
	// (e.g. a response to a notification) after a barrier request was
	// answered (T.Settle, T.Quiet). Zero (the default): adaptive, see
	// QuietWindow; set (--window): used as given.
	Window time.Duration
	// SpecBudget bounds one check. Default 60s.
	SpecBudget time.Duration
	// Schema, when set (--schema FILE), validates every server message
	// against a user-supplied official schema file in addition to the model.
	Schema *msgcheck.SchemaValidator
	// SchemaFile names it in messages.
	SchemaFile string
	// MaxPages caps each pagination walk (--max-pages; 0: DefaultMaxPages).
	MaxPages int
	// Policy decides which tools may be called with inputs that could
	// execute (--call-tools; default readonly).
	Policy policy.CallPolicy
	// SampleArgs are user-configured arguments for particular tools
	// (--config), for checks that need a successful call.
	SampleArgs map[string]map[string]any
	// Strict is --strict: an environment-dependent outcome (T.Environment)
	// is shown as a WARN citing judge.EnvironmentTolerance instead of NA.
	Strict bool
	// stalledTools are the tools found stalling on their ordinary
	// arguments (T.ToolStall), by revision and name.
	stalledTools sync.Map
	// OnCheck, when set, is told the lane (LaneOf) and name of each check
	// as it starts (the run-wide observers name the check that provoked a
	// message; with lanes, one check runs per lane worker at a time).
	OnCheck func(lane, name string)

	// lanes, when set (UseLanes), runs each revision's checks beside the
	// other revisions'.
	lanes *lanes
	// plan holds the requirement ids the run will check, by revision
	// (SetPlan; nil: every one).
	plan map[catalog.Revision][]string
	// started holds the checks that started (under mu): with the plan, how
	// many stdio processes the checks still to come may take (demand).
	started map[specKey]bool

	mu     sync.Mutex
	shared map[sharedKey]*sharedSlot
	// owners maps the connections of a lane worker's shared session and of
	// the sessions its checks opened (T.Open, T.Fresh) to the worker
	// (lanes: several workers of one revision run at once).
	owners sync.Map
	// shareds holds every shared session opened (a set of *session.Session).
	shareds sync.Map
	// closing counts sessions being closed in the background (CloseLater).
	closing sync.WaitGroup
	// retired maps a connection handed to a background close (CloseLater,
	// the first contact's stdin EOF) to the recorder's position then: what
	// it records afterwards (its process ending, a transport problem)
	// belongs to no check that started later (T.belongs).
	retired sync.Map
	// memos holds the work checks share (Memo).
	memos memoTable
	// reasks holds the re-asks of silences made so far (reaskOnce).
	reasks sync.Map
	// catalogGen counts the catalog changes checks made (FireTrigger,
	// RestoreCatalog): T.Listing's walks are kept per generation.
	catalogGen atomic.Int64
	// liveness holds the crashes the checks saw (T.Crashed), the first
	// per revision and transport, for LivenessID's run-wide verdict.
	liveness []observe.Violation
}

// LivenessID is the liveness requirement: input the server may reject
// never ends the process, closes the connection or silences the server
// (JSON-RPC 2.0: the Server MUST reply).
const LivenessID = "RPC-014"

// livenessFrames is how many of a crashing check's last frames its
// liveness finding keeps: the input that killed the server and the probe
// that went unanswered.
const livenessFrames = 16

// recordLiveness records that the server stopped answering during t.
func (e *Env) recordLiveness(t *T, msg, actual string) {
	var frames []wire.Frame
	if e.lanes != nil {
		frames = e.Recorder().ClippedWhere(t.startSeq, livenessFrames, transcriptRawMax, t.mine)
	} else {
		frames = e.Recorder().Clipped(t.startSeq, livenessFrames, transcriptRawMax)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	for i := range e.liveness {
		if v := &e.liveness[i]; v.Revision == t.Rev && v.Transport == t.Transport {
			v.Count++
			return
		}
	}
	e.liveness = append(e.liveness, observe.Violation{
		Requirement: LivenessID, Revision: t.Rev, Transport: t.Transport,
		Check:   fmt.Sprintf("%s [%s] (%s)", t.Req.ID, t.Rev, t.Req.Title),
		Message: e.Recorder().Redactor().String(msg), Frames: frames, Count: 1,
		Expected: "the server keeps answering after input it may reject (JSON-RPC 2.0: the Server MUST reply with a Response to every request)",
		Actual:   e.Recorder().Redactor().String(actual),
	})
}

// Liveness returns the crashes the checks saw (see T.Crashed), as
// run-wide violations of LivenessID for observe.Apply.
func (e *Env) Liveness() []observe.Violation {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.liveness)
}

// CloseLater closes s in the background: a server that keeps its process
// alive while work it started runs (or ignores stdin EOF) does not hold the
// check up. Close waits for every such close.
func (e *Env) CloseLater(s *session.Session) {
	e.retire(s)
	e.closing.Add(1)
	go func() {
		defer e.closing.Done()
		s.Close()
	}()
}

// retire notes that s is handed to a background close (Env.retired).
func (e *Env) retire(s *session.Session) {
	e.retired.LoadOrStore(s.Conn().Name(), e.Recorder().Seq())
}

// sharedKey names a shared session: a revision's, for one of its lane's
// workers (0 without lanes).
type sharedKey struct {
	rev    catalog.Revision
	worker int
}

// sharedSlot holds one shared session; its lock is held while the session
// is opened, so that workers open theirs at once.
type sharedSlot struct {
	mu  sync.Mutex
	cur *sharedSession
}

type sharedSession struct {
	s   *session.Session
	err error
	// stalls counts shared sessions of the revision in a row that stopped
	// answering (the second one ends the revision's shared sessions).
	stalls int
}

// maxStalls is how many shared sessions in a row may stop answering before
// the run stops reconnecting: the server is hung, and every later check
// that needs the shared session ends at once with the reason.
const maxStalls = 2

var (
	envMu   sync.Mutex
	current *Env
)

// SetEnv installs the environment for the next tree construction.
func SetEnv(e *Env) {
	if e.SpecBudget <= 0 {
		e.SpecBudget = 60 * time.Second
	}
	if e.Target != nil {
		e.memos.seq = e.Target.Recorder.Seq
	}
	envMu.Lock()
	current = e
	envMu.Unlock()
}

// CurrentEnv returns the installed environment (nil when none).
func CurrentEnv() *Env {
	envMu.Lock()
	defer envMu.Unlock()
	return current
}

// Recorder returns the target's recorder.
func (e *Env) Recorder() *wire.Recorder { return e.Target.Recorder }

// Shared returns the shared, handshaken session for rev, opening (or
// re-opening, when the previous one died) it on demand.
func (e *Env) Shared(ctx context.Context, rev catalog.Revision) (*session.Session, error) {
	return e.sharedOf(ctx, rev, 0)
}

// sharedOf is Shared for one worker of rev's lane: each has its own.
func (e *Env) sharedOf(ctx context.Context, rev catalog.Revision, worker int) (*session.Session, error) {
	key := sharedKey{rev, worker}
	slot := e.slot(key)
	slot.mu.Lock()
	defer slot.mu.Unlock()
	stalls := 0
	if sh := slot.cur; sh != nil {
		if sh.s != nil {
			if closed, _ := sh.s.Closed(); !closed {
				if !sh.s.Stalled() {
					return sh.s, nil
				}
				if e.answers(ctx, sh.s, rev) {
					sh.stalls = 0
					return sh.s, nil
				}
				e.CloseLater(sh.s)
				stalls = sh.stalls + 1
				if stalls >= maxStalls {
					err := fmt.Errorf("the server stopped answering: %d %s sessions in a row went silent after a request timed out, and a probe got no answer within %s", stalls, rev, e.Patience())
					e.Target.Recorder.Note(sh.s.Conn().Name(), err.Error()+"; no more reconnecting")
					slot.cur = &sharedSession{err: err, stalls: stalls}
					return nil, err
				}
				e.Target.Recorder.Note(sh.s.Conn().Name(), "the shared session stopped answering (silent since a request timed out, and a probe went unanswered); reconnecting")
			} else {
				sh.s.Close()
				e.Target.Recorder.Note(sh.s.Conn().Name(), "shared session lost; reconnecting")
			}
		} else {
			return nil, sh.err
		}
	}
	s, err := e.OpenQuietly(ctx, rev)
	if err != nil {
		err = fmt.Errorf("could not open a %s session: %w", rev, err)
	}
	slot.cur = &sharedSession{s: s, err: err, stalls: stalls}
	if s != nil {
		e.owners.Store(s.Conn().Name(), worker)
		e.shareds.Store(s, true)
	}
	return s, err
}

// slot returns the slot of key, making it on first use.
func (e *Env) slot(key sharedKey) *sharedSlot {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.shared == nil {
		e.shared = map[sharedKey]*sharedSlot{}
	}
	sl := e.shared[key]
	if sl == nil {
		sl = &sharedSlot{}
		e.shared[key] = sl
	}
	return sl
}

// answers probes a stalled shared session with a cheap request (ping, or
// server/discover in 2026-07-28), waiting Patience.
func (e *Env) answers(ctx context.Context, s *session.Session, rev catalog.Revision) bool {
	m := "ping"
	if !rev.IsLegacy() {
		m = "server/discover"
	}
	resp, err := s.Call(ctx, m, nil, &session.CallOptions{Timeout: e.Patience()})
	return err == nil && resp.Msg != nil
}

// Adopt installs an already handshaken session as the shared session of
// rev (the era probes' sessions).
func (e *Env) Adopt(rev catalog.Revision, s *session.Session) {
	sl := e.slot(sharedKey{rev, 0})
	sl.mu.Lock()
	defer sl.mu.Unlock()
	sl.cur = &sharedSession{s: s}
	e.owners.Store(s.Conn().Name(), 0)
}

// SetPlan tells the Env which checks the run will run (requirement ids by
// revision): shared work done only for a check (the first contact's stdin
// EOF for STD-002) is not done when that check is not part of the run.
func (e *Env) SetPlan(order map[catalog.Revision][]string) {
	e.mu.Lock()
	e.plan = order
	d := e.demand()
	e.mu.Unlock()
	if e.Target != nil {
		e.Target.SetPoolDemand(d)
	}
}

// Planned reports whether the run will check requirement id in rev (true
// when no plan was set).
func (e *Env) Planned(id string, rev catalog.Revision) bool {
	return e.plan == nil || slices.Contains(e.plan[rev], id)
}

// Close ends the shared sessions (concurrently) and waits for the
// background closes.
func (e *Env) Close() {
	e.mu.Lock()
	slots := e.shared
	e.shared = nil
	e.mu.Unlock()
	for _, sl := range slots {
		sl.mu.Lock()
		if sl.cur != nil && sl.cur.s != nil {
			e.CloseLater(sl.cur.s)
		}
		sl.mu.Unlock()
	}
	e.closing.Wait()
}

// LaneOf names the lane worker whose check uses connection conn
// ("REVISION/N"), or the revision alone when no worker claimed it (a
// connection a check opened through the target directly), or "".
func (e *Env) LaneOf(conn string) string {
	rev, ok := e.Target.RevisionOf(conn)
	if !ok {
		return ""
	}
	if w, ok := e.owners.Load(conn); ok {
		return laneName(rev, w.(int))
	}
	return string(rev)
}

func laneName(rev catalog.Revision, worker int) string { return fmt.Sprintf("%s/%d", rev, worker) }

// EachShared calls fn with the connection of every shared session.
func (e *Env) EachShared(fn func(wire.Conn)) {
	e.mu.Lock()
	slots := make([]*sharedSlot, 0, len(e.shared))
	for _, sl := range e.shared {
		slots = append(slots, sl)
	}
	e.mu.Unlock()
	for _, sl := range slots {
		sl.mu.Lock()
		if sl.cur != nil && sl.cur.s != nil {
			fn(sl.cur.s.Conn())
		}
		sl.mu.Unlock()
	}
}
