package scenario

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"

	"github.com/mcpconform/mcpconform/internal/catalog"
)

// The era a scenario server speaks, faithfully. The go-sdk server the
// scenarios run on speaks both eras, so a scenario of one era must refuse
// the other era's opening the way a server of that era does, or a
// dual-era client cannot tell which era it faces:
//   - a legacy (2025-11-25 and earlier) server knows no server/discover
//     and no -32022: over HTTP, a request outside a session other than
//     initialize gets 400 "Bad Request: Server not initialized" (the
//     TypeScript SDK v1's answer, the most deployed legacy server), over
//     stdio an unknown method gets -32601 (the go-sdk answers -32022,
//     which a dual-era client must read as a modern server: 2026-07-28
//     versioning, "a recognized modern JSON-RPC error … identifies a
//     modern server");
//   - a 2026-07-28-only server rejects initialize with 400 and
//     UnsupportedProtocolVersionError (-32022, supported: 2026-07-28)
//     (2026-07-28 versioning's compatibility table: legacy client, modern
//     server).

// eraRefusal is the scenario server's answer to a message of the other
// era (nil: none, serve it): the JSON-RPC answer and the HTTP status.
func eraRefusal(rev catalog.Revision, body []byte, inSession bool) (answer []byte, status int) {
	return eraRefusalCode(rev, body, inSession, -32601)
}

// eraRefusalCode is eraRefusal with the error code a legacy server
// answers server/discover with.
func eraRefusalCode(rev catalog.Revision, body []byte, inSession bool, discoverCode int) (answer []byte, status int) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &m) != nil || m.Method == "" {
		return nil, 0
	}
	hasID := len(m.ID) > 0 && string(m.ID) != "null"
	switch {
	case !rev.IsLegacy() && m.Method == "initialize" && hasID:
		data, _ := json.Marshal(map[string]any{"supported": []string{string(catalog.Modern)}, "requested": m.Params.ProtocolVersion})
		return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32022,"message":"Unsupported protocol version","data":%s}}`, m.ID, data), http.StatusBadRequest
	case rev.IsLegacy() && m.Method == "server/discover" && hasID && !inSession:
		msg := map[int]string{-32601: "Method not found", -32602: "Invalid params"}[discoverCode]
		return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%q}}`, m.ID, discoverCode, msg), http.StatusBadRequest
	}
	return nil, 0
}

// SimulatedRejectionNote starts the note of a scenario that answers the
// client's first 2026-07-28 request with UnsupportedProtocolVersionError
// (Scenario.rejectFirst).
const SimulatedRejectionNote = "the scenario server answers the client's first request with UnsupportedProtocolVersionError (-32022), supported: [2026-07-28]"

// simulatedRejection is the -32022 answer to the first modern request of a
// run whose scenario rejects it (nil: not that request), once a run.
func (r *Run) simulatedRejection(body []byte) []byte {
	if r == nil || r.Scenario == nil || !r.Scenario.rejectFirst {
		return nil
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Params struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &m) != nil || len(m.ID) == 0 || string(m.ID) == "null" {
		return nil
	}
	var requested string
	if json.Unmarshal(m.Params.Meta["io.modelcontextprotocol/protocolVersion"], &requested) != nil || !r.rejected.CompareAndSwap(false, true) {
		return nil
	}
	r.note(SimulatedRejectionNote)
	data, _ := json.Marshal(map[string]any{"supported": []string{string(catalog.Modern)}, "requested": requested})
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32022,"message":"Unsupported protocol version","data":%s}}`, m.ID, data)
}

// eraGate answers the other era's opening over HTTP (eraRefusal); a
// legacy server's answer to a request outside a session is the
// TypeScript SDK v1's 400 without the request's id.
func (r *Run) eraGate(rev catalog.Revision, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method == http.MethodPost {
			if answer := r.simulatedRejection(peekBody(req)); answer != nil {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadRequest)
				_, _ = w.Write(answer)
				return
			}
			answer, status := eraRefusal(rev, peekBody(req), req.Header.Get("Mcp-Session-Id") != "")
			if rev.IsLegacy() && answer != nil {
				answer = []byte(`{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: Server not initialized"},"id":null}`)
			}
			if answer != nil {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(status)
				_, _ = w.Write(answer)
				return
			}
		}
		next.ServeHTTP(w, req)
	})
}

// lineGate passes the client's lines to the scenario server (to), but
// answers the other era's opening itself (eraRefusal) on reply, which it
// shares with the server's own writes one whole line at a time.
type lineGate struct {
	run *Run
	rev catalog.Revision
	// discoverCode answers server/discover in a legacy run (-32601 …)
	discoverCode int
	to           io.Writer
	reply        *lineWriter
	buf          []byte
}

func (g *lineGate) Write(p []byte) (int, error) {
	g.buf = append(g.buf, p...)
	for {
		i := bytes.IndexByte(g.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := g.buf[:i+1]
		answer := g.run.simulatedRejection(line)
		if answer == nil {
			answer, _ = eraRefusalCode(g.rev, line, false, g.discoverCode)
		}
		if answer != nil {
			if _, err := g.reply.Write(append(answer, '\n')); err != nil {
				return 0, err
			}
		} else if _, err := g.to.Write(line); err != nil {
			return 0, err
		}
		g.buf = g.buf[i+1:]
	}
}

// lineWriter writes whole lines to w, one writer at a time: what a writer
// gives without a newline waits for the rest of its line.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// sdkLines buffers the scenario server's output into whole lines for a
// shared lineWriter.
type sdkLines struct {
	out *lineWriter
	buf []byte
}

func (s *sdkLines) Write(p []byte) (int, error) {
	s.buf = append(s.buf, p...)
	i := bytes.LastIndexByte(s.buf, '\n')
	if i < 0 {
		return len(p), nil
	}
	if _, err := s.out.Write(s.buf[:i+1]); err != nil {
		return 0, err
	}
	s.buf = append(s.buf[:0], s.buf[i+1:]...)
	return len(p), nil
}

func (s *sdkLines) Close() error { return nil }
