package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpconform/mcpconform/internal/catalog"
	"github.com/mcpconform/mcpconform/internal/wire"
)

// InitializeParams builds legacy initialize params for version.
func InitializeParams(version string) map[string]any {
	return map[string]any{
		"protocolVersion": version,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": ClientName, "version": ClientVersion},
	}
}

// Initialize sends initialize requesting version and, on a result, records
// the negotiated version and (HTTP) the session id. It does not send
// notifications/initialized.
func (s *Session) Initialize(ctx context.Context, version string) (*Response, error) {
	return s.InitializeWith(ctx, version, nil)
}

// InitializeWith is Initialize declaring the client capabilities caps
// (nil: none), for checks that depend on what the client declared. Like
// Initialize it records the session id, so the harness's own answers to
// server requests carry it.
func (s *Session) InitializeWith(ctx context.Context, version string, caps map[string]any) (*Response, error) {
	params := InitializeParams(version)
	if name := s.clientName(); name != ClientName {
		params["clientInfo"] = map[string]any{"name": name, "version": ClientVersion}
	}
	if caps != nil {
		params["capabilities"] = caps
	}
	resp, err := s.Call(ctx, "initialize", params, &CallOptions{NoMeta: true})
	if err != nil {
		return resp, err
	}
	if !resp.IsResult() {
		return resp, fmt.Errorf("initialize failed: %s", resp.Describe())
	}
	var res struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	_ = resp.Result(&res)
	s.mu.Lock()
	s.initResult = resp.Msg.Result
	if res.ProtocolVersion != "" {
		s.negotiated = catalog.Revision(res.ProtocolVersion)
	}
	if resp.Reply != nil {
		if sid := resp.Reply.Header.Get(HeaderSessionID); sid != "" {
			s.sessionID = sid
		}
	}
	s.mu.Unlock()
	return resp, nil
}

// Initialized sends notifications/initialized.
func (s *Session) Initialized(ctx context.Context) (*wire.Reply, error) {
	reply, err := s.Notify(ctx, "notifications/initialized", nil)
	if err == nil && reply != nil {
		select {
		case <-reply.Done:
		case <-ctx.Done():
		}
	}
	return reply, err
}

// OpenLegacy performs the full legacy handshake for the session's revision.
// It fails when the server answers with a version the harness does not know.
func (s *Session) OpenLegacy(ctx context.Context) error {
	resp, err := s.Initialize(ctx, string(s.opts.Revision))
	if err != nil {
		return err
	}
	if rev := s.Revision(); !rev.Known() || !rev.IsLegacy() {
		return fmt.Errorf("initialize negotiated %q, which is not a legacy revision mcpconform knows: %s", rev, resp.Describe())
	}
	_, err = s.Initialized(ctx)
	return err
}

// InitResult returns the raw initialize result (legacy).
func (s *Session) InitResult() json.RawMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.initResult
}

// SessionID returns the HTTP session id (legacy).
func (s *Session) SessionID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sessionID
}

// Discover sends server/discover and records its result.
func (s *Session) Discover(ctx context.Context) (*Response, error) {
	resp, err := s.Call(ctx, "server/discover", nil, nil)
	if err != nil {
		return resp, err
	}
	if resp.IsResult() {
		s.mu.Lock()
		s.discover = resp.Msg.Result
		s.mu.Unlock()
	}
	return resp, nil
}

// OpenModern sends server/discover. A first attempt that is not answered
// with a result is retried once (a real client retries a failed probe; the
// failure stays in the transcript and STD-003 judges it on its own).
func (s *Session) OpenModern(ctx context.Context) error {
	resp, err := s.Discover(ctx)
	if err == nil && resp.IsResult() {
		return nil
	}
	resp, err = s.Discover(ctx)
	if err != nil {
		return err
	}
	if !resp.IsResult() {
		return fmt.Errorf("server/discover failed: %s", resp.Describe())
	}
	return nil
}

// DiscoverResult returns the raw discover result (modern).
func (s *Session) DiscoverResult() json.RawMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.discover
}

// Capabilities returns the server capabilities the session learned
// (initialize or discover), or nil.
func (s *Session) Capabilities() map[string]json.RawMessage {
	raw := s.InitResult()
	if s.Modern() {
		raw = s.DiscoverResult()
	}
	var res struct {
		Capabilities map[string]json.RawMessage `json:"capabilities"`
	}
	if json.Unmarshal(raw, &res) != nil {
		return nil
	}
	return res.Capabilities
}

// ServerInfo returns serverInfo from initialize (legacy) or the
// _meta serverInfo of discover (modern), or nil.
func (s *Session) ServerInfo() json.RawMessage {
	if s.Modern() {
		var res struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		}
		if json.Unmarshal(s.DiscoverResult(), &res) != nil {
			return nil
		}
		return res.Meta[MetaServerInfo]
	}
	var res struct {
		ServerInfo json.RawMessage `json:"serverInfo"`
	}
	if json.Unmarshal(s.InitResult(), &res) != nil {
		return nil
	}
	return res.ServerInfo
}

// ErrNotModern says the modern probe did not find a 2026-07-28 server.
var ErrNotModern = errors.New("server did not answer the 2026-07-28 probe")
