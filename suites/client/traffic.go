// Package client holds the checks of the client half (issue 32): each
// judges, through the same T and grader as the server checks, the
// traffic a client under test sent to the scenario servers mcpconform
// played to it (internal/scenario; `mcpconform client`).
package client

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"

	c "github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/jsonrpc"
	"github.com/mcpconform/mcpconform/internal/scenario"
	"github.com/mcpconform/mcpconform/internal/wire"
)

// MetaProtocolVersion and the other per-request _meta keys (2026-07-28).
const (
	MetaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	MetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	MetaClientInfo         = "io.modelcontextprotocol/clientInfo"
)

// msg is one recorded message (or HTTP request without a body) of a run:
// the client's (From: the party under test) or the scenario server's.
type msg struct {
	F wire.Frame
	// M is the decoded message (nil: the payload is no JSON object, or an
	// HTTP request or reply without a body).
	M *jsonrpc.Message
	// Err says why M is nil for a payload that is not empty.
	Err error
}

// client reports whether the client sent it.
func (m msg) client() bool { return m.F.Dir == wire.In }

// header of an HTTP frame ("" on stdio).
func (m msg) header(name string) string {
	if m.F.HTTP == nil || m.F.HTTP.Header == nil {
		return ""
	}
	return m.F.HTTP.Header.Get(name)
}

// method of an HTTP request frame ("" on stdio or for a reply).
func (m msg) httpMethod() string {
	if m.F.HTTP == nil {
		return ""
	}
	return m.F.HTTP.Method
}

func (m msg) quote() string {
	if len(m.F.Raw) == 0 && m.F.HTTP != nil && m.F.HTTP.Method != "" { // a GET
		return fmt.Sprintf("#%d %s %s", m.F.Seq, m.F.HTTP.Method, c.Clip([]byte(m.F.HTTP.URL)))
	}
	return fmt.Sprintf("#%d %s", m.F.Seq, c.Clip(m.F.Raw))
}

// runTraffic caches traffic by run: a run's frames are fixed once it was
// played, and some seventy checks read each run (read-only).
var runTraffic sync.Map // *scenario.Run → []msg

// traffic returns every frame of the run's connections with a payload or
// an HTTP head, in order, decoded.
func traffic(t *c.T, r *scenario.Run) []msg {
	if v, ok := runTraffic.Load(r); ok {
		return v.([]msg)
	}
	var out []msg
	for _, f := range t.Env.Recorder().Since(r.From, 0) {
		if f.Seq > r.To {
			break
		}
		if !onRun(r, f.Conn) || (f.Kind != wire.KindMessage && f.Kind != wire.KindBody) {
			continue
		}
		m := msg{F: f}
		if f.Kind == wire.KindMessage {
			m.M, m.Err = jsonrpc.Decode(f.Raw)
		}
		out = append(out, m)
	}
	runTraffic.Store(r, out)
	return out
}

func onRun(r *scenario.Run, conn string) bool {
	for _, cn := range r.Conns {
		if cn == conn {
			return true
		}
	}
	return false
}

// requests are the client's JSON-RPC requests in m.
func requests(ms []msg) []msg {
	var out []msg
	for _, m := range ms {
		if m.client() && m.M != nil && m.M.Kind() == jsonrpc.KindRequest {
			out = append(out, m)
		}
	}
	return out
}

// modernShaped reports whether a client message carries the 2026-07-28
// per-request metadata (a dual-era client's probe, or a modern request).
func modernShaped(m *jsonrpc.Message) bool {
	_, ok := metaOf(m)[MetaProtocolVersion]
	return ok
}

// metaOf returns params._meta of m (nil when absent).
func metaOf(m *jsonrpc.Message) map[string]json.RawMessage {
	if m == nil || !m.HasParams {
		return nil
	}
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(m.Params, &p) != nil {
		return nil
	}
	return p.Meta
}

// answer finds the response of the other party to request m (same id,
// same connection, after it); ok false when none came.
func answer(ms []msg, m msg) (msg, bool) {
	for _, x := range ms {
		if x.F.Seq <= m.F.Seq || x.F.Conn != m.F.Conn || x.client() == m.client() || x.M == nil || x.M.Kind() != jsonrpc.KindResponse {
			continue
		}
		if x.M.ID.Key() == m.M.ID.Key() && (m.F.HTTP == nil || !m.client() || x.F.Exchange == m.F.Exchange) {
			return x, true
		}
	}
	return msg{}, false
}

// sessionOf is the Mcp-Session-Id an HTTP request names ("" without).
func sessionOf(m msg) string { return m.header("Mcp-Session-Id") }

// issuedSession is the Mcp-Session-Id the scenario server's reply to an
// initialize carried ("" when none).
func issuedSession(ms []msg, init msg) string {
	a, ok := answer(ms, init)
	if !ok || a.F.HTTP == nil {
		return ""
	}
	return a.F.HTTP.Header.Get("Mcp-Session-Id")
}

// describe renders what came for expected/actual strings.
func describe(ms []msg) string {
	var parts []string
	for i, m := range ms {
		if i == 3 {
			parts = append(parts, fmt.Sprintf("… (%d in all)", len(ms)))
			break
		}
		parts = append(parts, m.quote())
	}
	return strings.Join(parts, "; ")
}

// evidence names the frames of ms as the check's evidence.
func evidence(t *c.T, ms []msg) {
	for _, m := range ms {
		t.Evidence(m.F)
	}
}

// initializes are the client's initialize requests of the run.
func initializes(ms []msg) []msg {
	var out []msg
	for _, m := range requests(ms) {
		if m.M.Method == "initialize" {
			out = append(out, m)
		}
	}
	return out
}

// headerValues lists the comma-separated values of a header.
func headerValues(h http.Header, name string) []string {
	var out []string
	for _, v := range h.Values(name) {
		for _, p := range strings.Split(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

// describeRunOf names a run for messages.
func describeRunOf(r *scenario.Run) string { return "scenario " + r.Scenario.Name }

// modernTraffic is traffic without what a dual-era client sent after it
// fell back to initialize in a 2026-07-28 run (the scenario server
// refused its discovery, or the client speaks only the legacy era): the
// legacy messages are judged by the legacy era's requirements, not by
// the per-request ones — a connection's messages from its first
// initialize on. It notes the fallback on t.
func modernTraffic(t *c.T, r *scenario.Run) []msg {
	ms := traffic(t, r)
	legacyFrom := map[string]int64{} // conn → seq of its first initialize
	fell := false
	for _, m := range ms {
		if m.client() && m.M != nil && m.M.Method == "initialize" {
			if _, ok := legacyFrom[m.F.Conn]; !ok {
				legacyFrom[m.F.Conn] = m.F.Seq
			}
		}
	}
	var out []msg
	for _, m := range ms {
		// from its first initialize on, a connection (a stdio process, an
		// HTTP run) is the legacy era's: a client that fell back does not
		// come back in the same run
		if from, ok := legacyFrom[m.F.Conn]; ok && m.F.Seq >= from {
			fell = true
			continue
		}
		out = append(out, m)
	}
	if fell {
		t.Note("%s: the client fell back to initialize (the legacy era); its legacy messages are not judged by this revision's per-request requirements", describeRunOf(r))
	}
	return out
}

// httpCanonical is the canonical MIME header key (net/http's).
func httpCanonical(k string) string { return http.CanonicalHeaderKey(k) }

// findings are the messages a check found at fault, each with why.
type findings struct {
	ms  []msg
	why []string
}

func (f *findings) add(m msg, why string) {
	f.ms, f.why = append(f.ms, m), append(f.why, why)
}

// warn records what was found as the check's WARN (a SHOULD sub-case of
// a MUST requirement), its messages the evidence; the check goes on.
func (f *findings) warn(t *c.T) {
	if len(f.ms) == 0 {
		return
	}
	evidence(t, f.ms)
	t.Warn("%s", joinFirst(f.why))
}

// report ends the check with a violation of expected when anything was
// found: every offending message is its evidence.
func (f *findings) report(t *c.T, expected string) {
	if len(f.ms) == 0 {
		return
	}
	evidence(t, f.ms)
	t.Violation(expected, describe(f.ms), "%s", joinFirst(f.why))
}

// notes are the harness's notes on conn during run r that start with
// prefix and contain every one of also.
func notes(t *c.T, r *scenario.Run, conn, prefix string, also ...string) []wire.Frame {
	var out []wire.Frame
	for _, f := range t.Env.Recorder().OnConn(r.From, conn) {
		if f.Seq > r.To || f.Kind != wire.KindNote || !strings.HasPrefix(f.Note, prefix) {
			continue
		}
		all := true
		for _, a := range also {
			all = all && strings.Contains(f.Note, a)
		}
		if all {
			out = append(out, f)
		}
	}
	return out
}
