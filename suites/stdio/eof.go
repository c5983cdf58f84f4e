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
	eofWait     = 3 * time.Second
	sigtermWait = 2 * time.Second
)

var _ = c.Area("stdio", func() {
	c.It("STD-002", "the server exits promptly on stdin EOF (legacy: at the latest after SIGTERM)", std002)
})

// std002 opens a handshaken process of its own, closes its stdin and waits
// for the process to exit, without any signal. 2026-07-28 says the server
// SHOULD exit promptly on stdin EOF: still running after eofWait is a
// violation (SHOULD: WARN). Legacy revisions only describe the client's
// sequence (close stdin, wait, SIGTERM, SIGKILL): a server that needs the
// SIGTERM passes with a note; one that survives SIGTERM too violates it.
func std002(t *c.T) {
	s := t.Open()
	conn, ok := s.Conn().(*stdio.Conn)
	if !ok {
		t.Error("STD-002 needs a stdio connection, got %T", s.Conn())
	}
	t.Settle(s) // idle: nothing of the handshake is still in flight
	t.Step("close the server's stdin and wait for it to exit")
	start := time.Now()
	if conn.CloseStdinAndWait(eofWait) {
		t.Note("the server exited %s after stdin EOF (%s)", time.Since(start).Round(time.Millisecond), conn.ExitState())
		return
	}
	expected := fmt.Sprintf("the process exits within %s of stdin EOF", eofWait)
	if t.Modern() {
		t.Violation(expected, fmt.Sprintf("still running %s after stdin EOF", eofWait),
			"the server did not exit within %s of stdin EOF (2026-07-28: it SHOULD exit promptly)", eofWait)
	}
	t.Step("send SIGTERM, as a legacy client's shutdown sequence does next")
	if conn.TerminateAndWait(sigtermWait) {
		t.Note("the server did not exit within %s of stdin EOF, but did %s after SIGTERM (%s), which the legacy shutdown sequence allows",
			eofWait, time.Since(start).Round(time.Millisecond)-eofWait, conn.ExitState())
		return
	}
	t.Violation(expected+", or at the latest after SIGTERM",
		fmt.Sprintf("still running %s after stdin EOF and %s after SIGTERM", eofWait, sigtermWait),
		"the server exited neither on stdin EOF nor within %s of SIGTERM", sigtermWait)
}
