package session

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mcpconform/mcpconform/internal/jsonrpc"
	"github.com/mcpconform/mcpconform/internal/wire"
)

// Notify sends a notification. On HTTP the reply head is returned.
func (s *Session) Notify(ctx context.Context, method string, params any) (*wire.Reply, error) {
	var p json.RawMessage
	if params != nil {
		var err error
		if p, err = json.Marshal(params); err != nil {
			return nil, err
		}
	}
	var payload []byte
	if p == nil {
		payload = jsonrpc.Notification(method, nil)
	} else {
		payload = jsonrpc.Notification(method, p)
	}
	if err := s.opts.Quiet.enter(ctx); err != nil {
		return nil, fmt.Errorf("waiting for the harness's quiet: %w", err)
	}
	defer s.opts.Quiet.leave()
	ctx = context.WithValue(ctx, gatedKey{}, true)
	hdr := s.headersFor(method, p)
	reply, err := s.sendHeld(ctx, payload, &wire.SendOptions{Header: hdr})
	if err != nil && errors.Is(err, wire.ErrTimeout) {
		s.silence(Silence{Method: method, Notification: true, Timeout: s.opts.Timeout})
	}
	return reply, err
}

// sendHeld sends payload with the session's timeout and keeps the request
// alive until its reply was read whole (Reply.Done) or the timeout ran out:
// a notification's reply body is evidence (HTTP-004 judges it, and a
// JSON-RPC response in it answers the notification), which cancelling on
// return cut short whenever the body came a moment after the status.
func (s *Session) sendHeld(ctx context.Context, payload []byte, so *wire.SendOptions) (*wire.Reply, error) {
	ctx, cancel := context.WithTimeout(ctx, s.opts.Timeout)
	reply, err := s.conn.Send(ctx, payload, so)
	if err != nil || reply == nil || reply.Done == nil {
		cancel()
		return reply, err
	}
	go func() {
		<-reply.Done // closed when the body ends, or when the timeout closes it
		cancel()
	}()
	return reply, nil
}

// SendRaw sends payload as is, with the session's headers for method
// (method may be "" for none). It does not wait for anything.
func (s *Session) SendRaw(ctx context.Context, payload []byte, so *wire.SendOptions) (*wire.Reply, error) {
	if !wellFormedNotification(bytes.TrimSuffix(payload, []byte("\n"))) && wellFormedMethod(bytes.TrimSuffix(payload, []byte("\n"))) == "" {
		s.junk.Store(true)
	}
	s.markRaw()
	if err := s.opts.Quiet.enter(ctx); err != nil {
		return nil, fmt.Errorf("waiting for the harness's quiet: %w", err)
	}
	defer s.opts.Quiet.leave()
	ctx = context.WithValue(ctx, gatedKey{}, true)
	reply, err := s.sendHeld(ctx, payload, so)
	if err != nil && errors.Is(err, wire.ErrTimeout) {
		// over HTTP, the POST got no reply head in time
		x := Silence{Payload: payload, Send: so, Timeout: s.opts.Timeout}
		if m, derr := jsonrpc.Decode(bytes.TrimSpace(payload)); derr == nil && m.HasID {
			x.ID = m.ID
		} else {
			x.Notification = true
		}
		s.silence(x)
	}
	return reply, err
}

// MarkRaw notes that a raw payload is being written on s's connection by
// other means than SendRaw or CallRaw (a check writing on s.Conn()
// directly): the answer to a request sent before the server answered
// anything after it measures that input, not the server's pace, and is
// no latency sample.
func (s *Session) MarkRaw() { s.markRaw() }

// markRaw notes that a raw payload is being written (rawAt).
func (s *Session) markRaw() {
	s.mu.Lock()
	s.rawAt = time.Now()
	s.mu.Unlock()
}
