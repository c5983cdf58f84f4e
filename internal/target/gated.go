package target

import (
	"bytes"
	"context"
	"errors"
	"time"
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
	ctx, done, err := c.enter(ctx)
	if err != nil {
		return nil, err
	}
	defer done()
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
	ctx, done, err := c.enter(ctx)
	if err != nil {
		return nil, err
	}
	defer done()
	return c.Conn.Do(ctx, method, body, opts)
}

// enter passes the gate. The caller's deadline is for the request, not
// for the wait at the gate: the request gets what was left of it when it
// arrived at the gate (the caller's cancellation still ends it).
func (c *gatedHTTP) enter(ctx context.Context) (context.Context, func(), error) {
	q := &c.t.quiet
	dl, hasDL := ctx.Deadline()
	left := time.Until(dl)
	began := time.Now()
	if err := q.Enter(context.WithoutCancel(ctx)); err != nil {
		return ctx, func() {}, err
	}
	if !hasDL || time.Since(began) < time.Millisecond {
		return ctx, q.Leave, nil
	}
	nctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), left)
	stop := context.AfterFunc(ctx, func() {
		if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
			cancel() // cancelled by the caller, not timed out at the gate
		}
	})
	return nctx, func() { stop(); cancel(); q.Leave() }, nil
}

// sessionOf returns the session wrapped around the connection named conn
// (nil: none).
func (t *Target) sessionOf(conn string) *session.Session {
	if v, ok := t.sessionsByConn.Load(conn); ok {
		return v.(weak.Pointer[session.Session]).Value()
	}
	return nil
}
