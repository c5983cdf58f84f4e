package conform

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/internal/catalog"
	"github.com/mcpconform/mcpconform/internal/judge"
	"github.com/mcpconform/mcpconform/internal/session"
	"github.com/mcpconform/mcpconform/internal/wire"
)

// A silence is graded only once it survived a re-ask (issue 31): a check
// that ends FAIL, WARN (a SHOULD's silence: LOG-002, LIFE-007) or ERROR
// after one of its requests went unanswered for
// the whole per-response timeout (or a POSTed notification got no reply),
// the one thing the harness's own load can cause, is held until the
// re-ask decided it. The run is held quiet (session.Quiet.Hush: the other
// lanes' requests wait at their next request boundary, processes are no
// longer started ahead of need, and the requests in flight end), then
// each silent request is sent again on its own connection with the full
// timeout: the same method and params with a fresh id, a raw request as
// it was, a ping (server/discover) for a notification. When a re-ask is
// answered, the silence was ours — slow under load, not reproduced — and
// the verdict is at most a WARN through the one grader (an unconfirmed
// judgement), the liveness FAIL the check recorded is dropped. When none
// is, the verdict stands and says that the silence was confirmed.
//
// This is the one place where silences become verdicts: T.Call's "no
// response", T.NoAnswer, T.Crashed, an Open that timed out, and every
// check's own handling of a timeout all end here.

// UnderLoad starts the message (or the note) of a verdict whose silence the
// re-ask showed was the harness's own: no claim about the server, so the
// kill matrix and the third-party corpus do not count it.
const UnderLoad = "slow under load, not reproduced"

// maxReasks bounds the connections whose silences one check re-asks.
const maxReasks = 3

// pendingCrash is a liveness finding a check recorded (T.recordCrash),
// committed to the run once the check's silences were confirmed.
type pendingCrash struct{ msg, actual string }

// confirmSilences re-asks the check's silences when its verdict rests on
// them (see above), then commits its liveness findings.
func (t *T) confirmSilences() {
	// a WARN still pending as a note (T.Warn; T.finish makes it the
	// verdict) that rests on a silence is decided here like any other
	if n := t.pendingWarn(); n != "" && t.out.Verdict == PASS && silenceWords(n) {
		t.out.Verdict, t.out.Message = WARN, n
	}
	memoSpans := t.Env.memos.spans(t.Ctx)
	crashes := t.crashes
	t.crashes = nil
	defer func() {
		for _, c := range crashes {
			t.Env.recordLiveness(t, c.msg, c.actual)
		}
	}()
	if t.out.Verdict != FAIL && t.out.Verdict != ERROR && !(t.out.Verdict == WARN && t.restsOnSilence()) && len(crashes) == 0 || t.Ctx.Err() != nil || t.Env.Target == nil {
		return
	}
	q := t.Env.Target.Quiet()
	// The check's own silences, and those of the work it took from a memo
	// (computed by another check: its error may be what this check
	// reports).
	sil := q.Since(t.startSeq, t.mineConn)
	for _, sp := range memoSpans {
		for _, x := range q.Since(sp.from, t.sameRev) {
			if x.Seq <= sp.to {
				sil = append(sil, x)
			}
		}
	}
	var last []session.Silence // the newest silence per connection
	for _, x := range sil {
		if !x.Full && !x.Notification {
			continue // a check's own short wait for what may never come
		}
		if i := indexSession(last, x.Session); i >= 0 {
			last[i] = x
			continue
		}
		last = append(last, x)
	}
	if len(last) == 0 {
		return
	}
	if len(last) > maxReasks {
		last = last[len(last)-maxReasks:]
	}
	timeout := t.Env.Target.Timeout
	// A server that answered no re-ask with the harness idle, and has
	// said nothing since, is silent: this silence is confirmed without
	// holding the run quiet once more (a hung server made every check
	// re-ask in turn, and the run's budget ran out on the re-asks).
	if at := q.SilentAt(); at > 0 && !t.serverSpokeSince(at) {
		t.out.Message += fmt.Sprintf(" (confirmed: re-asks with the harness otherwise idle got no answer at #%d, and the server has sent nothing since)", at)
		return
	}
	// the requests in flight end by their deadlines: a connection's first
	// has the start-up deadline, the longest
	// waiting for the run to be quiet (another check's re-ask, the
	// requests in flight) is the harness's time, not the check's budget
	resume := session.Pause(t.Ctx)
	release := q.Hush(t.Ctx, t.Env.Target.StartupDeadline())
	resume()
	ctx := session.Unhushed(t.Ctx)
	var answered, silent []string
	anyAnswered := false // a re-ask got an answer (to itself, if not to what it re-asked)
	for _, x := range last {
		r := t.reaskOnce(ctx, x)
		anyAnswered = anyAnswered || r.Answered || r.Late
		switch {
		case t.notReproduced(x, r):
			answered = append(answered, fmt.Sprintf("%s on %s (%s)", r.What, x.Conn, r.how()))
		case r.Answered:
			silent = append(silent, fmt.Sprintf("a re-ask of %s on %s was answered, but the request it re-asked never was", r.What, x.Conn))
		case r.Hung:
			silent = append(silent, fmt.Sprintf("%s: no re-ask, it left an earlier one unanswered", x.Conn))
		case r.Ended:
			silent = append(silent, fmt.Sprintf("%s: no re-ask, the connection had ended", x.Conn))
		default:
			silent = append(silent, fmt.Sprintf("a re-ask of %s on %s got no response within %s either", r.What, x.Conn, timeout))
		}
	}
	release()
	if t.Ctx.Err() != nil {
		// The check's own budget ended during the re-ask of a silence
		// that came while other checks ran (lanes): nothing decided, and
		// a silence becomes a FAIL only once its re-ask decided it. A run
		// that ended (Ctrl-C, its budget) decides nothing either way: the
		// check is reported interrupted, with its last verdict.
		if t.lane != nil && errors.Is(context.Cause(t.Ctx), context.DeadlineExceeded) {
			t.undecided(crashes)
			crashes = nil
		}
		return
	}
	if len(answered) == 0 {
		t.out.Message += fmt.Sprintf(" (confirmed with the harness otherwise idle: %s)", strings.Join(silent, "; "))
		if !anyAnswered {
			q.MarkSilent(t.Env.Recorder().Seq())
		}
		return
	}
	t.unconfirmed(crashes, answered)
	crashes = nil
}

// reask re-asks x (session.Session.Reask). On a connection that ended, a
// connection's first request (a handshake that timed out: "could not
// open a session") is re-asked by opening a new session, with the
// start-up deadline; over HTTP, where a connection is ours to end, any
// request is re-asked on a new session.
func (t *T) reask(ctx context.Context, x session.Silence) reasked {
	closed, _ := x.Session.Closed()
	if !closed || !(x.First || x.Session.Transport() == wire.HTTP) {
		return reasked{x.Session.Reask(ctx, x, t.Window()), false}
	}
	began := time.Now()
	s, err := t.Env.Target.Open(ctx, t.Rev)
	r := reasked{session.Reasked{What: "a new " + string(t.Rev) + " session", Took: time.Since(began)}, true}
	if err != nil {
		return r
	}
	t.claim(s)
	defer t.Env.CloseLater(s)
	if x.First {
		r.Answered = true
		return r
	}
	y := x
	y.Session, y.First = s, false
	r.Reasked = s.Reask(ctx, y, t.Window())
	r.What = y.Method + " on a new " + string(t.Rev) + " session"
	if y.Method == "" {
		r.What = "the request on a new " + string(t.Rev) + " session"
	}
	return r
}

// reaskOnce is reask, once per silence: the checks that took a memo's
// value share the re-ask of its silences.
func (t *T) reaskOnce(ctx context.Context, x session.Silence) reasked {
	key := silenceKey{x.Conn, x.Seq}
	if r, ok := t.Env.reasks.Load(key); ok {
		return r.(reasked)
	}
	r := t.reask(ctx, x)
	if ctx.Err() == nil {
		t.Env.reasks.Store(key, r)
	}
	return r
}

type silenceKey struct {
	conn string
	seq  int64
}

// reasked is what a re-ask found; reopened: it opened a new session.
type reasked struct {
	session.Reasked
	reopened bool
}

func (r reasked) how() string {
	if r.Late {
		return "the request itself was answered late; the re-ask in " + r.Took.Round(time.Millisecond).String()
	}
	return "answered in " + r.Took.Round(time.Millisecond).String()
}

// notReproduced decides a re-ask: the silence was the harness's load when
// the request itself got its answer late (the re-ask, sent after it on
// the same connection, was its barrier), or, where a late answer cannot
// come — an HTTP request is abandoned at its deadline, a notification's
// POST has no answer to wait for, a handshake's connection ended — when
// the re-ask was answered. A request left unanswered while its re-ask was
// answered was dropped: that silence is the server's (RPC-002).
func (t *T) notReproduced(x session.Silence, r reasked) bool {
	switch {
	case r.Late:
		return true
	case !r.Answered:
		return false
	}
	return r.reopened || x.Notification || x.Session.Transport() == wire.HTTP
}

// OpenQuietly is Target.Open, but a handshake that timed out (while the
// harness was busy: other lanes, other start-ups) is tried once more with
// the run held quiet before it is an error: a start-up slow under our own
// load is not "could not open a session".
func (e *Env) OpenQuietly(ctx context.Context, rev catalog.Revision) (*session.Session, error) {
	s, err := e.Target.Open(ctx, rev)
	if err == nil || !errors.Is(err, wire.ErrTimeout) || ctx.Err() != nil {
		return s, err
	}
	q := e.Target.Quiet()
	release := q.Hush(ctx, e.Target.StartupDeadline())
	defer release()
	q.CountReask()
	s, err2 := e.Target.Open(session.Unhushed(ctx), rev)
	if err2 != nil {
		return nil, fmt.Errorf("%w; and again, with the harness otherwise idle: %v", err, err2)
	}
	q.CountAnswered()
	e.Target.Recorder.Note(s.Conn().Name(), fmt.Sprintf("a %s handshake timed out while the harness was busy (%v); this one, with the harness otherwise idle, succeeded", rev, err))
	return s, nil
}

// unconfirmed turns the check's FAIL or ERROR into what the one grader
// makes of a defect that did not show again (judge: unconfirmed), at most
// a WARN: the silence it rested on was the harness's load.
func (t *T) unconfirmed(crashes []pendingCrash, answered []string) {
	was := t.out.Verdict
	if was == PASS {
		// the check's own sentence held: the silence was only a
		// liveness suspicion (KeepsAnswering), and it was not ours to
		// report
		t.out.Notes = append(t.out.Notes, fmt.Sprintf("note: "+UnderLoad+": a request went unanswered within %s while the harness was busy, and its re-ask, with the harness otherwise idle, was answered: %s", t.Env.Target.Timeout, strings.Join(answered, ", ")))
		for _, c := range crashes {
			t.out.Notes = append(t.out.Notes, "note: not reported as a liveness failure: "+c.msg)
		}
		return
	}
	if was == FAIL && len(crashes) == 0 && !t.restsOnSilence() {
		// a FAIL for what did arrive (a message on the wrong stream, a
		// malformed answer) does not rest on the silence: it stands
		t.out.Notes = append(t.out.Notes, fmt.Sprintf("note: "+UnderLoad+": another request of the check went unanswered within %s while the harness was busy, and its re-ask was answered (%s); the FAIL is about what did arrive, not that silence", t.Env.Target.Timeout, strings.Join(answered, ", ")))
		return
	}
	j := judge.Rule{Requirement: t.Req.ID}.Judge(t.Rev, true, false)
	v := Verdict(j.Verdict)
	if v == FAIL || v == ERROR || v == PASS {
		v = WARN
	}
	t.out.Verdict = v
	t.out.Message = fmt.Sprintf(UnderLoad+": a request went unanswered within %s while the harness was busy, and its re-ask, with the harness otherwise idle, was answered: %s; the %s it led to (%s) is not reported",
		t.Env.Target.Timeout, strings.Join(answered, ", "), was, t.out.Message)
	for _, c := range crashes {
		t.out.Notes = append(t.out.Notes, "note: not reported as a liveness failure: "+c.msg)
	}
}

// serverSpokeSince reports whether the target sent any message after the
// recorder's position seq.
func (t *T) serverSpokeSince(seq int64) bool {
	return len(t.Env.Recorder().ClippedWhere(seq, 1, 1, func(f *wire.Frame, _ int) bool {
		return f.Dir == wire.In && f.Kind == wire.KindMessage
	})) > 0
}

// undecided grades a check whose silence its re-ask could not decide
// (the check's budget ended first) like one not reproduced: at most a
// WARN, which says so.
func (t *T) undecided(crashes []pendingCrash) {
	was := t.out.Verdict
	if was == PASS || was == NA {
		return
	}
	t.out.Verdict = WARN
	t.out.Message = fmt.Sprintf(UnderLoad+": a request went unanswered within %s while the harness was busy, and the check's budget ended before its re-ask decided; the %s it led to (%s) is not reported",
		t.Env.Target.Timeout, was, t.out.Message)
	for _, c := range crashes {
		t.out.Notes = append(t.out.Notes, "note: not reported as a liveness failure: "+c.msg)
	}
}

// restsOnSilence reports whether the check's WARN is about an answer that
// did not come (a SHOULD's "no response"): a WARN for what an answer said
// (a wrong error code) stands whatever else of the check went unanswered.
func (t *T) restsOnSilence() bool { return silenceWords(t.out.Message + " " + t.out.Actual) }

// silenceWords reports whether a verdict's text is about an answer that
// did not come.
func silenceWords(s string) bool {
	s = strings.ToLower(s)
	for _, w := range []string{"silence", "no response", "no answer", "timed out", "did not end", "no http reply", "no reply",
		"stopped answering", "went away", "did not answer", "unanswered"} {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// pendingWarn is the first T.Warn of the check ("": none), which T.finish
// makes the verdict of a check that did not fail.
func (t *T) pendingWarn() string {
	for _, n := range t.out.Notes {
		if !strings.HasPrefix(n, "note: ") {
			return n
		}
	}
	return ""
}

// sameRev reports whether conn was opened for the check's revision.
func (t *T) sameRev(conn string) bool {
	rev, ok := t.Env.Target.RevisionOf(conn)
	return !ok || rev == t.Rev
}

// mineConn is T.mine for a connection name.
func (t *T) mineConn(conn string) bool {
	f := wire.Frame{Conn: conn}
	return t.mine(&f, 0)
}

func indexSession(xs []session.Silence, s *session.Session) int {
	for i, x := range xs {
		if x.Session == s {
			return i
		}
	}
	return -1
}

// TimedOut records that a wait of the check ran out that was not a
// request's own deadline — a stream's first message, a GET stream's
// reply head, the acknowledgment of a listen — what: that wait, as a
// report names it. Such a silence has no request to re-ask: a FAIL or
// ERROR the check reaches after it is confirmed by running the whole
// check again with the harness otherwise idle (rerunQuiet).
func (t *T) TimedOut(what string) {
	if t.Ctx.Err() == nil {
		t.timedOut = append(t.timedOut, what)
	}
}

// A check whose verdict came after a wait of its own ran out
// (T.TimedOut) — and that nothing else decided: no crash, no re-asked
// silence — is run again at once with the run held quiet (Quiet.Hush), as
// for a re-ask, when it is a FAIL or an ERROR: a claim about the server.
// An NA or a WARN after such a wait (a check that gave up: "no
// acknowledgment came") claims nothing a gate acts on, and re-running
// every one held a crowded run quiet until its budget ended. The other
// checks wait at the gate meanwhile, their budgets paused (budget.go).
// The re-run's verdict is the check's (rerunOutcome).

type rerunKey struct{}

// wantsRerun decides whether first's verdict is re-run (see above).
// A check in a lane whose own budget ran out (its answers slowed by the
// run's other checks) ends ERROR: that is a wait that ran out too, and
// is re-run the same way (budgetSpent).
func wantsRerun(sctx context.Context, first *T, crashed bool) bool {
	o := first.out
	failed := o.Verdict == FAIL || o.Verdict == ERROR
	return len(first.timedOut) > 0 && !first.rerun && !crashed && failed && sctx.Err() == nil &&
		(first.Ctx.Err() == nil || budgetSpent(first.Ctx)) && first.Env.Target != nil &&
		!strings.Contains(o.Message, UnderLoad) && !strings.Contains(o.Message, "confirmed with the harness otherwise idle")
}

// budgetSpent reports whether ctx, a check's, ended because its budget was
// spent (not because the run ended).
func budgetSpent(ctx context.Context) bool {
	return ctx.Err() != nil && errors.Is(context.Cause(ctx), context.DeadlineExceeded)
}

// rerunInline re-runs the check at once, the run held quiet; nil when
// the check's budget ended first.
func rerunInline(sctx context.Context, first *T, fn func(t *T), transport string) *Outcome {
	q := first.Env.Target.Quiet()
	// the re-run has a budget of its own: the lane's bound on the first
	// run waits for it (the first budget's pause tells the lane)
	defer session.Pause(first.Ctx)()
	release := q.Hush(sctx, first.Env.Target.StartupDeadline())
	defer release()
	second := execute(context.WithValue(session.Unhushed(sctx), rerunKey{}, true), first.Env, first.Req, first.Rev, transport, fn, first.lane)
	return rerunOutcome(q, first.out, second, strings.Join(first.timedOut, "; "))
}

// rerunOutcome is the verdict of a re-run check: the re-run's, which says
// it confirmed a FAIL or ERROR it reached again, or carries a note on the
// verdict it replaced. second nil (interrupted): the first verdict.
func rerunOutcome(q *session.Quiet, first, second *Outcome, waits string) *Outcome {
	q.CountReask()
	if second == nil || second.Verdict == ERROR && strings.Contains(second.Message, "interrupted") {
		return first
	}
	failed := first.Verdict == FAIL || first.Verdict == ERROR
	switch {
	case second.Verdict == first.Verdict && !failed:
	case second.Verdict == first.Verdict:
		second.Message += fmt.Sprintf(" (confirmed with the harness otherwise idle: a re-run of the check after %s ran out reached it again)", waits)
	default:
		q.CountAnswered()
		second.Notes = append(second.Notes, fmt.Sprintf("note: %s: %s ran out while the harness was busy, and the check was run again with the harness otherwise idle; the %s it led to (%s) is not reported",
			UnderLoad, waits, first.Verdict, first.Message))
	}
	return second
}
