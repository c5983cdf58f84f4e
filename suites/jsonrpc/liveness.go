package jsonrpc

import (
	c "github.com/mcpconform/mcpconform/internal/conform"
)

// The liveness requirement (RPC-014) is judged over the whole run: every
// check whose input ended the process, closed the connection or silenced
// the server (T.Crashed) makes it FAIL, naming that check and carrying the
// exchange that killed the server, while that check keeps its own level
// (a SHOULD check WARNs). Its own probe is the smallest input every server
// may reject: a request for a method no server has, with junk params,
// followed by the era's probe request, which must still be answered.
var _ = c.Area("jsonrpc", func() {
	c.It(c.LivenessID, "the server keeps answering after input it may reject", func(t *c.T) {
		s := t.Shared()
		t.Step("send a request for a method no server has, with junk params")
		_, _ = s.Call(t.Ctx, "mcpconform/no-such-method", map[string]any{"mcpconform": []any{nil, 1.5, "\u0000"}}, nil)
		t.Step("the server still answers")
		t.ExpectAlive(s, "a request for an unknown method")
	})
})
