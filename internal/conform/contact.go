package conform

import (
	"context"
	"time"

	"github.com/mcpconform/mcpconform/internal/session"
	"github.com/mcpconform/mcpconform/internal/wire"
	"github.com/mcpconform/mcpconform/internal/wire/stdio"
)

// A Contact is the first contact of a legacy client with a pristine
// connection, made once per revision and transport and judged by several
// checks, each on its own part: initialize's answer (LIFE-001), what came
// before notifications/initialized (LIFE-004), the answer to it, if any
// (LIFE-003), everything the session sent while the client used only what
// it declared, nothing (LIFE-005), the lists walked on a connection other
// than the shared one (STALE-006) and, on stdio, how the process ends on
// stdin EOF (STD-002). Each of those checks used to start a process (or
// open an HTTP session) of its own for the same sequence: on a server that
// takes a Node or .NET start-up per process, five start-ups.
//
// The sequence, on a connection nothing was sent to: initialize (the run's
// revision, no client capabilities), the barrier,
// notifications/initialized, the barrier, the era's probe and, when it was
// answered, a walk of every declared list (resources/templates/list too),
// a request for an unknown method and the barrier. Nothing in it is a
// stimulus another step could be blamed for: it is what every client does
// first. It never judges; the checks do, and each one's transcript holds
// the contact's frames (T.attach).
type Contact struct {
	S *session.Session
	// Init is initialize's response (InitErr when there is none, or it is
	// an error: session.Initialize).
	Init    *session.Response
	InitErr error
	// Initialized is the HTTP reply to notifications/initialized (nil on
	// stdio); InitializedErr a failure to send it.
	Initialized    *wire.Reply
	InitializedErr error
	// Answers counts the battery's requests that got a JSON-RPC response.
	Answers int
	// Walks are the lists walked, by method (the declared ones).
	Walks map[string]*Walk
	// Marks: the recorder's position before initialize (Start), after the
	// barrier that followed it (Initialize: just before
	// notifications/initialized was sent), after the barrier that
	// followed that (Operating), and after the last step (End).
	Start, Initialize, Operating, End int64
	// CatalogGen is the catalog generation the walks saw (Env.catalogGen).
	CatalogGen int64
	// Problem, when set, is why the contact stopped early (its steps after
	// it did not happen).
	Problem string
	// Unanswered: the probe after the handshake got no answer, so the
	// lists were not walked (each request would have waited the timeout).
	Unanswered bool
	// Retried says why this contact is a second one, made with a plain
	// handshake on a fresh connection ("" for the first).
	Retried string

	ended bool // the connection ended after a successful initialize (made again)

	eof     chan struct{} // closed once the process ended after stdin EOF (stdio)
	eofDone EOFOutcome
}

// EOFOutcome is how a stdio process ended after its stdin was closed.
type EOFOutcome struct {
	// Exited: within the wait after stdin EOF, after Took; Terminated:
	// not then, but within the wait after SIGTERM, Took after the EOF.
	Exited, Terminated bool
	Took               time.Duration
	State              string // the exit state (stdio.Conn.ExitState)
	End                int64  // the recorder's position once decided
}

// Shutdown windows of the contact's stdin EOF (STD-002): "a few seconds"
// after stdin EOF, and how long a legacy server gets after SIGTERM.
const (
	EOFWait     = 3 * time.Second
	SIGTERMWait = 2 * time.Second
)

// contactKey is the memo namespace of the contacts.
type contactKey struct{}

// FirstContact returns the revision's first contact (legacy revisions
// only), making it on first use; the check's transcript holds its frames.
func (t *T) FirstContact() *Contact {
	if t.Modern() {
		t.Error("harness: the first contact is a legacy client's (a check of 2026-07-28 asked for it)")
	}
	k := memoKey{memo: contactKey{}, rev: t.Rev, transport: t.Transport}
	v, ok, waited := t.Env.memos.get(t.Ctx, k, func() any { return t.makeContact() }, t.lane)
	t.waited += waited
	if !ok {
		t.Error("the check's budget ran out while it waited for the first contact (made by another check)")
	}
	ct := v.(*Contact)
	if ct.S != nil {
		t.attach(ct.S.Conn().Name(), ct.Start, ct.End)
	}
	if ct.Retried != "" {
		t.Note("%s", ct.Retried)
	}
	return ct
}

// makeContact makes the contact; when the server's process or connection
// ended during it (on the barrier ping before notifications/initialized, or
// on the unknown method), it makes it again on a fresh one with a plain
// handshake: that probe's own check judges the crash (LIFE-016, RPC-007,
// and the liveness requirement through them), and the checks that judge
// the contact's other parts are not left without a contact to judge.
func (t *T) makeContact() *Contact {
	ct := t.contactOnce(false)
	if !ct.ended {
		return ct
	}
	first := ct.Problem
	if first == "" {
		first = "the connection ended during the contact"
	}
	ct = t.contactOnce(true)
	ct.Retried = "the first contact's connection ended (" + first + "); this one was made on a fresh connection with a plain handshake: initialize, notifications/initialized, no ping before it and no unknown method"
	return ct
}

// contactOnce makes one contact; plain leaves out the probes a server may
// die on that no handshake needs (the barrier ping before
// notifications/initialized on stdio, the unknown method).
func (t *T) contactOnce(plain bool) *Contact {
	ct := &Contact{Walks: map[string]*Walk{}, Start: t.Mark(), CatalogGen: t.Env.catalogGen.Load()}
	defer func() {
		ct.End = t.Mark()
		if ct.S != nil && !plain && ct.eof == nil {
			closed, _ := ct.S.Closed()
			ct.ended = closed && ct.Init != nil && ct.InitErr == nil
		}
	}()
	s, err := t.Env.Target.SessionStarting(t.Rev) // its first answer includes a start-up
	if err != nil {
		ct.Problem = "could not connect to the target: " + err.Error()
		return ct
	}
	t.claim(s)
	ct.S = s
	stop := func(why string, err error) *Contact {
		ct.Problem = why + ": " + err.Error()
		t.Env.CloseLater(s)
		return ct
	}
	if ct.Init, ct.InitErr = s.Initialize(t.Ctx, string(t.Rev)); ct.InitErr != nil {
		return stop("initialize failed", ct.InitErr)
	}
	if plain {
		ctx, cancel := context.WithTimeout(t.Ctx, t.Window())
		s.WaitIdle(ctx)
		cancel()
	} else {
		t.Settle(s)
	}
	ct.Initialize = t.Mark()
	if ct.Initialized, ct.InitializedErr = s.Initialized(t.Ctx); ct.InitializedErr != nil {
		return stop("sending notifications/initialized", ct.InitializedErr)
	}
	t.Settle(s)
	ct.Operating = t.Mark()
	try := func(method string, params any) bool {
		if resp, err := t.TryCall(s, method, params, nil); err == nil && resp.Msg != nil {
			ct.Answers++
			return true
		}
		return false
	}
	m, p := t.Probe()
	if try(m, p) {
		for _, l := range []struct{ capability, method string }{
			{"tools", "tools/list"}, {"prompts", "prompts/list"}, {"resources", "resources/list"}, {"resources", "resources/templates/list"},
		} {
			if Declared(s, l.capability) {
				w := t.WalkList(s, l.method)
				ct.Walks[l.method] = w
				if len(w.Pages) > 0 {
					ct.Answers++
				}
			}
		}
		if !plain {
			try("mcpconform/no-such-method", map[string]any{})
		}
		t.Settle(s)
	} else {
		// A server that does not answer the probe would let every request
		// of the battery wait the timeout: the checks judge what came.
		ct.Unanswered = true
	}
	conn, isStdio := s.Conn().(*stdio.Conn)
	if closed, _ := s.Closed(); closed && !plain {
		return ct // made again (makeContact): its EOF is the fresh process's
	}
	if !isStdio || !t.Env.Planned("STD-002", t.Rev) {
		t.Env.CloseLater(s)
		return ct
	}
	// STD-002 judges how the process ends on stdin EOF: it ends now, in
	// the background; the run waits for it before its reports.
	ct.eof = make(chan struct{})
	t.Env.retire(s)
	t.Env.closing.Add(1)
	go func() {
		defer t.Env.closing.Done()
		defer s.Close()
		defer close(ct.eof)
		start := time.Now()
		o := &ct.eofDone
		if conn.CloseStdinAndWait(EOFWait) {
			o.Exited = true
		} else {
			o.Terminated = conn.TerminateAndWait(SIGTERMWait)
		}
		o.Took, o.State, o.End = time.Since(start), conn.ExitState(), t.Env.Recorder().Seq()
	}()
	return ct
}

// Current reports whether the contact got to its end and its walks still
// show the catalog: no check changed it since (a catalog_change trigger or
// its restore).
func (ct *Contact) Current(t *T) bool {
	return ct.S != nil && ct.Problem == "" && !ct.Unanswered && ct.CatalogGen == t.Env.catalogGen.Load()
}

// EOF waits for the contact's process to end after stdin EOF (stdio, and
// only when STD-002 is part of the run); ok is false when the contact did
// not get that far, or t's budget ran out. The check's transcript holds
// the frames until then.
func (ct *Contact) EOF(t *T) (o EOFOutcome, ok bool) {
	if ct.eof == nil {
		return o, false
	}
	select {
	case <-ct.eof:
	case <-t.Ctx.Done():
		return o, false
	}
	t.attach(ct.S.Conn().Name(), ct.Start, ct.eofDone.End)
	return ct.eofDone, true
}

// Events returns the contact session's events between the marks from and
// to (recorder positions, Contact's fields).
func (ct *Contact) Events(from, to int64) []session.Event {
	var out []session.Event
	for _, e := range ct.S.Events(from) {
		if e.Frame.Seq <= to {
			out = append(out, e)
		}
	}
	return out
}

// evidence is a span of another check's (or a memo's) frames on one
// connection that a check judged: its transcript holds them.
type evidence struct {
	conn     string
	from, to int64 // Seq in (from, to]
}

// attach adds the frames of conn recorded after from, up to to, to the
// check's transcript (work another check did for it: T.FirstContact).
func (t *T) attach(conn string, from, to int64) {
	for i, e := range t.evidence {
		if e.conn == conn && e.from == from {
			t.evidence[i].to = max(e.to, to)
			return
		}
	}
	t.evidence = append(t.evidence, evidence{conn: conn, from: from, to: to})
}

// inEvidence reports whether f is among the frames attached to the check.
func (t *T) inEvidence(f *wire.Frame) bool {
	for _, e := range t.evidence {
		if f.Conn == e.conn && f.Seq > e.from && f.Seq <= e.to {
			return true
		}
	}
	return false
}
