package conform

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/onsi/ginkgo/v2"

	"github.com/mcpconform/mcpconform/internal/catalog"
	"github.com/mcpconform/mcpconform/internal/judge"
	"github.com/mcpconform/mcpconform/internal/scenario"
	"github.com/mcpconform/mcpconform/internal/session"
	"github.com/mcpconform/mcpconform/internal/wire"
)

// T is a check in progress.
type T struct {
	Ctx       context.Context
	Req       catalog.Requirement
	Rev       catalog.Revision
	Transport string
	Env       *Env

	out      *Outcome
	startSeq int64
	owned    []*session.Session
	// lane is the check's lane (nil: no lanes, its steps go to ginkgo.By
	// at once).
	lane *laneCheck
	// waited is how long the check waited for work another check was
	// doing for it (a Memo being computed).
	waited time.Duration
	// evidence are spans of frames other checks' work (a memo) recorded
	// that the check judged: its transcript holds them (attach).
	evidence []evidence
	// crashes are the liveness findings of the check, committed once its
	// silences were confirmed (confirmSilences).
	crashes []pendingCrash
	// timedOut names the waits of the check that ran out and were not a
	// request's own deadline (TimedOut): a FAIL or ERROR after one is
	// confirmed by a re-run of the check (rerunQuiet).
	timedOut []string
	// rerun: this is that re-run.
	rerun bool
	// runs are the scenario runs a client check looked at (Runs): their
	// traffic joins its transcript when it judged them (attachRuns).
	runs []*scenario.Run
	// orResult: ExpectErrorCodeIfError is asserting (its claim takes a
	// result as a conforming answer too)
	orResult bool
	// undeclared: the capability the check's claims need undeclared
	// (ClaimsUndeclared)
	undeclared string
}

func newT(ctx context.Context, env *Env, req catalog.Requirement, rev catalog.Revision, transport string) *T {
	t := &T{
		Ctx: ctx, Req: req, Rev: rev, Transport: transport, Env: env,
		out: &Outcome{
			Requirement: req.ID, Level: req.LevelFor(rev), Revision: rev, Transport: transport, Verdict: PASS,
		},
		startSeq: env.Recorder().Seq(),
	}
	return t
}

// Modern reports whether the check runs under 2026-07-28.
func (t *T) Modern() bool { return !t.Rev.IsLegacy() }

// HTTP reports whether the target is a Streamable HTTP endpoint.
func (t *T) HTTP() bool { return t.Transport == wire.HTTP }

// Step names the next step of the check (shown in Ginkgo's timeline).
func (t *T) Step(text string) {
	if t.lane != nil {
		t.lane.mu.Lock()
		t.lane.steps = append(t.lane.steps, text)
		t.lane.mu.Unlock()
		return
	}
	ginkgo.By(text)
}

// Alone says that the check is about to change what the server shows
// every session (a catalog change, a log level, a task listed to every
// session): in a run with lanes (--parallel), the other checks pause from
// now until this one ends, as they would in a run of one check at a time.
// On stdio every session is a process of its own, which shows no other
// what one session changed: the other checks go on (a catalog_change
// command, which changes what every process shows, pauses them itself:
// FireTrigger).
func (t *T) Alone() {
	if t.HTTP() {
		t.aloneEverywhere()
	}
}

// aloneEverywhere is Alone on every transport: for a change every process
// of the server shows.
func (t *T) aloneEverywhere() {
	if t.lane != nil {
		t.lane.alone(t.Ctx)
	}
}

// Exclusive says that the check is about to change something of the
// server's that only some checks depend on (name: "log level", a level a
// server may keep for every session): in a run with lanes over HTTP, it
// waits for the other check holding name to end, and holds it until it
// ends itself; the other checks go on. On stdio (a process per session),
// and without lanes, it does nothing.
func (t *T) Exclusive(name string) {
	if t.lane != nil && t.HTTP() {
		t.lane.exclusive(t.Ctx, name)
	}
}

// TasksLock is the Exclusive name of the checks that create tasks.
const TasksLock = "tasks"

// Violation ends the check: the server broke the requirement.
func (t *T) Violation(expected, actual, format string, args ...any) {
	t.violation(expected, actual, fmt.Sprintf(format, args...))
}

func (t *T) violation(expected, actual, message string) {
	t.out.Verdict = Verdict(judge.Grade(t.out.Level, false)) // the grading the fuzzer shares
	t.out.Message, t.out.Expected, t.out.Actual = message, expected, actual
	panic(stopSignal{})
}

// Deviation ends the check with the verdict the one grader gave a
// deviation (internal/judge: the fuzzer grades the same input the same
// way).
func (t *T) Deviation(j judge.Judgement, expected, actual, format string, args ...any) {
	t.out.Verdict = Verdict(j.Verdict)
	t.out.Message, t.out.Expected, t.out.Actual = fmt.Sprintf(format, args...), expected, actual
	if j.Note != "" {
		t.out.Notes = append(t.out.Notes, "note: "+j.Note)
	}
	panic(stopSignal{})
}

// Crashed ends the check: the server stopped answering (exited, closed
// the connection, went silent) after the input the check sent. The check
// is graded by its own requirement's level (a SHOULD check WARNs: the
// server did not do what it should have); the crash itself breaks the
// liveness requirement (LivenessID, a MUST judged over the whole run),
// which gets a FAIL naming this check, with the exchange that killed the
// server. Robustness is never optional, and a FAIL always cites a MUST.
func (t *T) Crashed(expected, actual, format string, args ...any) {
	t.CrashedAt(t.out.Level, expected, actual, format, args...)
}

// CrashedAt is Crashed for a crash after a sub-case of the requirement that
// binds the server only at level (e.g. RPC-006's envelope rules, which bind
// the sender: a server's failure to answer them is a SHOULD at most).
func (t *T) CrashedAt(level catalog.Level, expected, actual, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	t.recordCrash(msg, actual)
	if t.Req.ID != LivenessID {
		msg += " (a FAIL of the liveness requirement " + LivenessID + ")"
	}
	t.out.Verdict = Verdict(judge.Grade(level, false))
	t.out.Message, t.out.Expected, t.out.Actual = msg, expected, actual
	panic(stopSignal{})
}

// RecordCrash records, without ending the check, that the server stopped
// answering after the check's input: the liveness requirement's run-wide
// FAIL, naming this check.
func (t *T) RecordCrash(format string, args ...any) {
	t.recordCrash(fmt.Sprintf(format, args...), "")
}

func (t *T) recordCrash(msg, actual string) {
	if t.Req.ID != LivenessID {
		t.crashes = append(t.crashes, pendingCrash{msg, actual})
	}
}

// NoAnswer ends the check when a request got no answer within the
// timeout: if the server still answers the era's probe request, it is
// alive and the silence is a violation of the check's own requirement;
// if not, it stopped answering (Crashed).
func (t *T) NoAnswer(s *session.Session, expected, format string, args ...any) {
	what := fmt.Sprintf(format, args...)
	m, _ := t.Probe()
	if ok, _ := t.alive(s); ok {
		t.violation(expected, "silence, while the server answered a "+m+" sent after it", what)
	}
	t.Crashed(expected, "silence, and no answer to a "+m+" sent after it", "%s, and the server stopped answering", what)
}

// alive sends s's probe request (ping / server/discover) and reports
// whether it was answered; actual describes what came instead. A silence
// the harness's own load caused is decided when the check ends: its
// silences are re-asked on a quiet connection before they become a
// verdict (confirmSilences).
func (t *T) alive(s *session.Session) (ok bool, actual string) {
	m, p := t.Probe()
	resp, err := s.Call(t.Ctx, m, p, nil)
	if err == nil && resp.Msg != nil {
		return true, ""
	}
	if closed, cerr := s.Closed(); closed {
		return false, fmt.Sprintf("the connection ended (%v)", cerr)
	}
	if err != nil {
		return false, err.Error()
	}
	return false, "silence"
}

// ExpectAlive sends the probe request (ping / server/discover) on s and
// fails the check as Crashed when it is not answered.
func (t *T) ExpectAlive(s *session.Session, after string) {
	t.ExpectAliveAt(t.out.Level, s, after)
}

// ExpectAliveAt is ExpectAlive for input whose sentence binds the server
// only at level (CAN-002: invalid cancellations SHOULD be ignored): the
// check is graded at that level, and the crash itself is the liveness
// requirement's FAIL (CrashedAt).
func (t *T) ExpectAliveAt(level catalog.Level, s *session.Session, after string) {
	ok, actual := t.alive(s)
	if ok {
		return
	}
	m, _ := t.Probe()
	t.CrashedAt(level, "the server keeps answering ("+m+")", actual, "the server stopped answering after %s", after)
}

// Evidence names the frames a FAIL or WARN of the check rests on (the
// server messages it judged), when its Actual does not quote them.
func (t *T) Evidence(frames ...wire.Frame) {
	for _, f := range frames {
		t.out.Evidence = append(t.out.Evidence, f.Seq)
	}
}

// KeepsAnswering sends the probe request on s after input whose
// requirement says nothing of liveness (RPC-004: a notification must get no
// response; dying is not a response). It reports whether the server
// answered; when it did not, the crash is the liveness requirement's FAIL
// (RecordCrash) and a note of this check's, which goes on judging what its
// own sentence covers.
func (t *T) KeepsAnswering(s *session.Session, after string) bool {
	m, _ := t.Probe()
	if ok, _ := t.alive(s); ok {
		return true
	}
	t.RecordCrash("the server stopped answering after %s", after)
	t.Note("the server did not answer a %s after %s: unless a re-ask on a quiet connection is answered, a FAIL of the liveness requirement %s, not of this one", m, after, LivenessID)
	return false
}

// Warn records a tolerated deviation (a spec ambiguity, a SHOULD sub-part of
// a MUST requirement). The check goes on; its verdict is WARN unless it
// fails.
func (t *T) Warn(format string, args ...any) {
	t.out.Notes = append(t.out.Notes, fmt.Sprintf(format, args...))
}

// Note records an observation without changing the verdict.
func (t *T) Note(format string, args ...any) {
	t.out.Notes = append(t.out.Notes, "note: "+fmt.Sprintf(format, args...))
}

// NA ends the check as not applicable, with the reason.
func (t *T) NA(format string, args ...any) {
	t.out.Verdict = NA
	t.out.Message = fmt.Sprintf(format, args...)
	panic(stopSignal{})
}

// Error ends the check with ERROR: the harness or the target's process
// failed in a way that is not a protocol verdict.
func (t *T) Error(format string, args ...any) {
	t.out.Verdict = ERROR
	t.out.Message = fmt.Sprintf(format, args...)
	panic(stopSignal{})
}

// Check fails the check (by level) when ok is false.
func (t *T) Check(ok bool, expected, actual string, format string, args ...any) {
	if !ok {
		t.violation(expected, actual, fmt.Sprintf(format, args...))
	}
}

// transcriptRawMax is how much of each payload an outcome's transcript
// keeps: one byte past result.MaxBodyInReport, so that the reports still
// see, and mark, the cut.
const transcriptRawMax = 16<<10 + 1

func (t *T) finish() {
	for _, s := range t.owned {
		t.Env.CloseLater(s)
	}
	if n := t.pendingWarn(); n != "" && t.out.Verdict == PASS {
		t.out.Verdict = WARN
		if t.out.Message == "" {
			t.out.Message = n
		}
	}
	t.attachRuns()
	// The reports keep a body's first 16 KiB (result.MaxBodyInReport):
	// the outcome shares the recorder's payloads, cut just past that.
	switch {
	case len(t.evidence) > 0:
		from := t.startSeq
		for _, e := range t.evidence {
			from = min(from, e.from)
		}
		t.out.Frames = t.Env.Recorder().ClippedWhere(from, 400, transcriptRawMax, func(f *wire.Frame, size int) bool {
			return t.inEvidence(f) || (f.Seq > t.startSeq && t.belongs(f, size))
		})
	default:
		t.out.Frames = t.Env.Recorder().ClippedWhere(t.startSeq, 400, transcriptRawMax, t.belongs)
	}
	if (t.out.Verdict == FAIL || t.out.Verdict == WARN) && len(t.out.Evidence) == 0 {
		t.out.Evidence = quotedFrames(t.out.Frames, t.out.Actual, t.out.Message)
	}
	// Messages quote what the server sent: redact them like the transcript.
	r := t.Env.Recorder().Redactor()
	t.out.Message, t.out.Expected, t.out.Actual = r.String(t.out.Message), r.String(t.out.Expected), r.String(t.out.Actual)
	for i, n := range t.out.Notes {
		t.out.Notes[i] = r.String(n)
	}
}

// Shared returns the shared handshaken session of this revision. A failure
// to open it is an ERROR of the check.
func (t *T) Shared() *session.Session {
	s, err := t.Env.sharedOf(t.Ctx, t.Rev, t.worker())
	if err != nil {
		t.Error("%v", err)
	}
	return s
}

// worker is the lane worker running the check (0 without lanes).
func (t *T) worker() int {
	if t.lane == nil {
		return 0
	}
	return t.lane.worker
}

// claim marks s as used by the check's lane worker (T.mine, Env.LaneOf).
func (t *T) claim(s *session.Session) {
	if s != nil && t.Env.lanes != nil {
		t.Env.owners.Store(s.Conn().Name(), t.worker())
	}
}

// Fresh opens a new connection (a new process on stdio) without any
// handshake; it is closed when the check ends.
func (t *T) Fresh() *session.Session {
	s, err := t.Env.Target.Session(t.Rev)
	if err != nil {
		t.Error("could not connect to the target: %v", err)
	}
	t.claim(s)
	t.owned = append(t.owned, s)
	return s
}

// Open opens a new connection and performs the era's handshake.
func (t *T) Open() *session.Session {
	s, err := t.Env.OpenQuietly(t.Ctx, t.Rev)
	if err != nil {
		t.Error("could not open a %s session: %v", t.Rev, err)
	}
	t.claim(s)
	t.owned = append(t.owned, s)
	return s
}

// Call sends a request and returns the response. A response that never
// came is a violation ("no response") unless the caller handles err itself
// via TryCall.
func (t *T) Call(s *session.Session, method string, params any, o *session.CallOptions) *session.Response {
	resp, err := s.Call(t.Ctx, method, params, o)
	if err != nil {
		t.NoResponse(method, resp, err)
	}
	return resp
}

// TryCall is Call without the implicit verdict.
func (t *T) TryCall(s *session.Session, method string, params any, o *session.CallOptions) (*session.Response, error) {
	return s.Call(t.Ctx, method, params, o)
}

// NoResponse ends the check for a request that got no JSON-RPC response
// (err says why), as Call does.
func (t *T) NoResponse(method string, resp *session.Response, err error) {
	switch {
	case errors.Is(err, session.ErrNoResponse):
		t.Violation("a JSON-RPC response to "+method, resp.Describe(), "the reply to %s carried no JSON-RPC response", method)
	case errors.Is(err, wire.ErrTimeout):
		t.Violation("a response to "+method+" within "+t.timeout().String(), "silence", "no response to %s", method)
	case errors.Is(err, wire.ErrClosed):
		t.Violation("a response to "+method, "the connection ended: "+err.Error(), "the server went away while handling %s", method)
	default:
		t.Error("%s: %v", method, err)
	}
}

func (t *T) timeout() time.Duration { return t.Env.Target.Timeout }

// Settle lets the server finish whatever it would still send on s: it sends
// a barrier request (ping in legacy, server/discover in 2026-07-28), waits
// for its answer, then waits the short grace window. A server that handles
// messages in order has by then sent anything it meant to send for earlier
// messages; the grace covers servers that answer concurrently. The barrier
// is not judged: its failures belong to other checks. On Streamable HTTP
// an event decides it without a barrier: once every exchange of s has
// ended (and no GET stream is open: Session.Idle) nothing more can come on
// s, for a server answers a request only on that request's own response.
// An exchange still open after the grace window gets the barrier.
func (t *T) Settle(s *session.Session) {
	ctx, cancel := context.WithTimeout(t.Ctx, t.Window())
	idle := s.WaitIdle(ctx)
	cancel()
	if idle {
		return
	}
	m, p := t.Probe()
	_, _ = s.Call(t.Ctx, m, p, &session.CallOptions{Timeout: t.Env.Target.Timeout})
	t.Quiet(s)
}

// Since returns the frames recorded since the check started.
func (t *T) Since() []wire.Frame { return t.FramesSince(t.startSeq) }

// FramesSince returns the frames recorded after mark (T.Mark) that belong
// to the check: with lanes, not those of another revision's connections
// or of another worker's of the same revision, whose checks run at the
// same time.
func (t *T) FramesSince(mark int64) []wire.Frame {
	return t.Env.Recorder().ClippedWhere(mark, 0, 0, t.belongs)
}

// belongs reports whether f may belong to the check: it is the check's
// (T.mine, with lanes), and not recorded on a connection that was handed to
// a background close before the check started (its process ending after
// another check's stdin EOF is no evidence of this one's: Env.retired),
// unless the check attached those frames (T.attach).
func (t *T) belongs(f *wire.Frame, size int) bool {
	if t.Env.lanes != nil && !t.mine(f, size) {
		return false
	}
	if r, ok := t.Env.retired.Load(f.Conn); ok && r.(int64) <= t.startSeq && f.Seq > r.(int64) {
		return t.inEvidence(f)
	}
	return true
}

// mine reports whether f may belong to the check: it is not on a
// connection opened for another revision, or claimed by another worker of
// the check's revision (lanes run those concurrently).
func (t *T) mine(f *wire.Frame, _ int) bool {
	rev, ok := t.Env.Target.RevisionOf(f.Conn)
	if !ok {
		return true
	}
	if rev != t.Rev {
		return false
	}
	w, ok := t.Env.owners.Load(f.Conn)
	return !ok || w.(int) == t.worker()
}

// Mark returns the current recorder position.
func (t *T) Mark() int64 { return t.Env.Recorder().Seq() }
