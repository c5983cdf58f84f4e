package stdio

import (
	"fmt"
	"time"

	c "github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/wire/stdio"
)

// Shutdown windows of STD-002: "a few seconds" after stdin EOF, and how
// long a legacy server gets after SIGTERM.
const (
	eofWait     = c.EOFWait
	sigtermWait = c.SIGTERMWait
)

var _ = c.Area("stdio", func() {
	c.It("STD-002", "the server exits promptly on stdin EOF (legacy: at the latest after SIGTERM)", std002)
})

// std002 closes the stdin of a handshaken process (in legacy revisions the
// first contact's, T.FirstContact: handshake, lists, EOF, as a host does;
// in 2026-07-28 one of its own) and waits for the process to exit, without
// any signal. 2026-07-28 says the server
// SHOULD exit promptly on stdin EOF: still running after eofWait is a
// violation (SHOULD: WARN). Legacy revisions only describe the client's
// sequence (close stdin, wait, SIGTERM, SIGKILL): a server that needs the
// SIGTERM passes with a note; one that survives SIGTERM too violates it.
func std002(t *c.T) {
	var o c.EOFOutcome
	if t.Modern() {
		o = ownEOF(t)
	} else {
		// the first contact's process (T.FirstContact): handshake, lists,
		// then stdin EOF, as a host that is done with the server
		ct := t.FirstContact()
		if ct.S == nil || ct.Problem != "" {
			t.Error("the first contact did not get to its end (%s); the shutdown is judged on a process that did", ct.Problem)
		}
		t.Step("close the server's stdin and wait for it to exit")
		var ok bool
		if o, ok = ct.EOF(t); !ok {
			t.Error("the first contact's process was not shut down by stdin EOF (not a stdio process, or the check's budget ran out)")
		}
	}
	if o.Exited {
		t.Note("the server exited %s after stdin EOF (%s)", o.Took.Round(time.Millisecond), o.State)
		return
	}
	expected := fmt.Sprintf("the process exits within %s of stdin EOF", eofWait)
	if t.Modern() {
		t.Violation(expected, fmt.Sprintf("still running %s after stdin EOF", eofWait),
			"the server did not exit within %s of stdin EOF (2026-07-28: it SHOULD exit promptly)", eofWait)
	}
	if o.Terminated {
		t.Note("the server did not exit within %s of stdin EOF, but did %s after SIGTERM (%s), which the legacy shutdown sequence allows",
			eofWait, o.Took.Round(time.Millisecond)-eofWait, o.State)
		return
	}
	t.Violation(expected+", or at the latest after SIGTERM",
		fmt.Sprintf("still running %s after stdin EOF and %s after SIGTERM", eofWait, sigtermWait),
		"the server exited neither on stdin EOF nor within %s of SIGTERM", sigtermWait)
}

// ownEOF opens a handshaken process of its own, closes its stdin and waits
// for the process to exit, then (when it did not) sends SIGTERM and waits
// again, unless the revision is 2026-07-28 (the violation is decided
// then).
func ownEOF(t *c.T) (o c.EOFOutcome) {
	s := t.Open()
	conn, ok := s.Conn().(*stdio.Conn)
	if !ok {
		t.Error("STD-002 needs a stdio connection, got %T", s.Conn())
	}
	t.Settle(s) // idle: nothing of the handshake is still in flight
	t.Step("close the server's stdin and wait for it to exit")
	start := time.Now()
	defer func() { o.Took, o.State = time.Since(start), conn.ExitState() }()
	if o.Exited = conn.CloseStdinAndWait(eofWait); o.Exited || t.Modern() {
		return o
	}
	t.Step("send SIGTERM, as a legacy client's shutdown sequence does next")
	o.Terminated = conn.TerminateAndWait(sigtermWait)
	return o
}
