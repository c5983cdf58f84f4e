package target

import (
	"bytes"
	"context"
	"errors"
	"weak"

	"github.com/mcpconform/mcpconform/internal/jsonrpc"
	"github.com/mcpconform/mcpconform/internal/session"
	"github.com/mcpconform/mcpconform/internal/wire"
	"github.com/mcpconform/mcpconform/internal/wire/streamhttp"
)

// gatedHTTP is an HTTP connection whose requests pass the run's quiet
// gate even when a check writes on it directly (Session.Conn().Send, a
// raw request or notification): while the run is held quiet they wait at
// the gate like a session's, and a POST whose reply head did not come in
// time is recorded as a silence of the connection's session, to be
// re-asked before it is graded. A session's own requests passed the gate
// already (session.Gated).
type gatedHTTP struct {
	*streamhttp.Conn
	t *Target
}

func (c *gatedHTTP) Send(ctx context.Context, payload []byte, opts *wire.SendOptions) (*wire.Reply, error) {
	if session.Gated(ctx) {
		return c.Conn.Send(ctx, payload, opts)
	}
	q := &c.t.quiet
	if err := q.Enter(ctx); err != nil {
		return nil, err
	}
	defer q.Leave()
	reply, err := c.Conn.Send(ctx, payload, opts)
	if err != nil && errors.Is(err, wire.ErrTimeout) {
		if s := c.t.sessionOf(c.Name()); s != nil {
			x := session.Silence{Payload: payload, Send: opts, Timeout: s.Timeout()}
			if m, derr := jsonrpc.Decode(bytes.TrimSpace(payload)); derr == nil && m.HasID {
				x.ID = m.ID
			} else {
				x.Notification = true
			}
			s.RecordSilence(x)
		}
	}
	return reply, err
}

func (c *gatedHTTP) Do(ctx context.Context, method string, body []byte, opts *wire.SendOptions) (*wire.Reply, error) {
	if session.Gated(ctx) {
		return c.Conn.Do(ctx, method, body, opts)
	}
	q := &c.t.quiet
	if err := q.Enter(ctx); err != nil {
		return nil, err
	}
	defer q.Leave()
	return c.Conn.Do(ctx, method, body, opts)
}

// sessionOf returns the session wrapped around the connection named conn
// (nil: none).
func (t *Target) sessionOf(conn string) *session.Session {
	if v, ok := t.sessionsByConn.Load(conn); ok {
		return v.(weak.Pointer[session.Session]).Value()
	}
	return nil
}
