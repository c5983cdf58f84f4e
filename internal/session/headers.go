package session

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/mcpconform/mcpconform/internal/catalog"
	"github.com/mcpconform/mcpconform/internal/wire"
	"github.com/mcpconform/mcpconform/internal/wire/streamhttp"
)

// HTTPHeaders returns the MCP headers of an HTTP request carrying a
// request or notification with method and params (the transport adds
// Accept, Content-Type and Authorization): before 2026-07-28, the session
// id sid when there is one and MCP-Protocol-Version from 2025-06-18 on
// (rev is the negotiated revision, "" before it is known); in the modern
// era (modern), MCP-Protocol-Version, Mcp-Method and, for tools/call,
// prompts/get and resources/read, Mcp-Name (NameFor). The one builder of
// these rules: the session's own requests and the fuzzer's raw ones use it.
func HTTPHeaders(modern bool, sid string, rev catalog.Revision, method string, params json.RawMessage) http.Header {
	h := http.Header{}
	if !modern {
		if sid != "" {
			h.Set(HeaderSessionID, sid)
		}
		if rev != "" && rev >= catalog.R20250618 {
			h.Set(HeaderProtocolVersion, string(rev))
		}
		return h
	}
	h.Set(HeaderProtocolVersion, string(catalog.Modern))
	if method != "" {
		h.Set(HeaderMethod, streamhttp.EncodeHeaderValue(method))
	}
	if name, ok := NameFor(method, params); ok {
		h.Set(HeaderName, streamhttp.EncodeHeaderValue(name))
	}
	return h
}

// NameFor returns the value of Mcp-Name for method: params.name for
// tools/call and prompts/get, params.uri for resources/read.
func NameFor(method string, params json.RawMessage) (string, bool) {
	var field string
	switch method {
	case "tools/call", "prompts/get":
		field = "name"
	case "resources/read":
		field = "uri"
	default:
		return "", false
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(params, &obj) != nil {
		return "", false
	}
	var v string
	if json.Unmarshal(obj[field], &v) != nil {
		return "", false
	}
	return v, true
}

// ModernMeta returns the _meta a well-behaved 2026-07-28 client sends.
func (s *Session) ModernMeta() map[string]any {
	return map[string]any{
		MetaProtocolVersion:    string(catalog.Modern),
		MetaClientCapabilities: map[string]any{},
		MetaClientInfo:         map[string]any{"name": s.clientName(), "version": ClientVersion},
	}
}

// SetClientName makes the session introduce itself as name in clientInfo
// (initialize's, and the per-request _meta of 2026-07-28) instead of
// ClientName: the contract gate asks whether the surface a server declares
// depends on who asks. Call it before the handshake.
func (s *Session) SetClientName(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.altName = name
}

func (s *Session) clientName() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.altName != "" {
		return s.altName
	}
	return ClientName
}

func withMeta(params any, meta map[string]any) (json.RawMessage, error) {
	obj := map[string]json.RawMessage{}
	if params != nil {
		b, err := json.Marshal(params)
		if err != nil {
			return nil, err
		}
		if string(b) != "null" {
			if err := json.Unmarshal(b, &obj); err != nil {
				return nil, fmt.Errorf("params must be a JSON object to carry _meta: %w", err)
			}
		}
	}
	merged := map[string]any{}
	if old, ok := obj["_meta"]; ok {
		_ = json.Unmarshal(old, &merged)
	}
	for k, v := range meta {
		merged[k] = v
	}
	mb, err := json.Marshal(merged)
	if err != nil {
		return nil, err
	}
	obj["_meta"] = mb
	return json.Marshal(obj)
}

// headersFor returns the MCP HTTP headers for a request or notification.
func (s *Session) headersFor(method string, params json.RawMessage) http.Header {
	if s.conn.Transport() != wire.HTTP {
		return http.Header{}
	}
	s.mu.Lock()
	sid, negotiated := s.sessionID, s.negotiated
	s.mu.Unlock()
	return HTTPHeaders(s.Modern(), sid, negotiated, method, params)
}

func (s *Session) legacyHeaders() http.Header {
	s.mu.Lock()
	defer s.mu.Unlock()
	return HTTPHeaders(false, s.sessionID, s.negotiated, "", nil)
}
