package fuzz

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/mcpconform/mcpconform/internal/catalog"
	"github.com/mcpconform/mcpconform/internal/jsonrpc"
	"github.com/mcpconform/mcpconform/internal/msgcheck"
	"github.com/mcpconform/mcpconform/internal/session"
	"github.com/mcpconform/mcpconform/internal/wire"
	"pgregory.net/rapid"
)

// The state-machine property (PropSeq): each case opens a fresh
// connection and runs a random sequence of steps (rapid's Repeat) — list,
// page, call, cancel, bursts of concurrent requests, the run's
// catalog_change trigger and its restore (seq_catalog.go), MRTR rounds
// with steps between them (2026-07-28, seq_mrtr.go) and, in the legacy
// era, lifecycle steps (requests before initialize, double initialize,
// missing initialized; over HTTP, DELETE of the session and its reuse) —
// each judged by the exchange oracle and against a model of what the
// revision allows:
//
//   - legacy: the first initialize is answered with a result; before the
//     operation phase (initialize answered and initialized sent) any answer
//     to a request is fine (no revision says what a server must do with an
//     early request, the lifecycle page's "Initialization"), but there must be one;
//   - in the operation phase (always, in 2026-07-28) the liveness method
//     and the list methods of declared capabilities are answered with a
//     result, and a page cursor the server gave is accepted;
//   - a request cancelled with notifications/cancelled may get no answer,
//     now or later;
//   - legacy HTTP: after a DELETE answered 2xx, a request carrying the
//     ended session's id is answered 404.
//
// A case is saved as its steps: page steps hold the list request without
// its cursor, which the replay takes from the server again.

// Step is one step of a state-machine case.
type Step struct {
	// Op is send (Messages back to back), initialize (legacy: the
	// session's handshake request the first time, so that the session
	// knows its id and version; a plain initialize request afterwards),
	// page (Messages[0] is a list request sent with the cursor of the
	// list's last page), delete (legacy
	// HTTP: DELETE the session) or reuse (a ping carrying the deleted
	// session's id).
	Op       string `json:"op"`
	Messages []Raw  `json:"messages,omitempty"`
	// Command is a change or restore step's catalog_change command (a
	// tool trigger is its tools/call in Messages).
	Command []string `json:"command,omitempty"`
}

// Step ops.
const (
	opSend   = "send"
	opInit   = "initialize"
	opPage   = "page"
	opDelete = "delete"
	opReuse  = "reuse"
)

// Model phases.
const (
	phaseNew      = "new"      // legacy: no initialize answered yet
	phaseAnswered = "answered" // legacy: initialize answered, initialized not sent
	phaseReady    = "ready"    // operation phase
	phaseDeleted  = "deleted"  // legacy HTTP: the session was ended by DELETE
)

// seqModel is one case's connection and what the model expects of it.
type seqModel struct {
	h          *harness
	s          *session.Session
	legacy     bool
	http       bool
	phase      string
	inits      int // initialize requests answered with a result
	sid        string
	negotiated catalog.Revision
	cursors    map[string]string // list method → nextCursor of its last page
	cancelled  map[string]bool   // id keys of cancelled requests
	changes    int               // catalog changes made (change and restore steps)
	flow       *mrtrFlow         // the MRTR flow in progress (seq_mrtr.go)
	n          int
	steps      []Step
	transcript []string
	together   bool // each step's messages in flight together (xopts.together)
}

func (h *harness) newSeq(ctx context.Context) (*seqModel, error) {
	s, err := h.tg.Session(h.rev)
	if err != nil {
		return nil, err
	}
	m := &seqModel{h: h, s: s, legacy: h.rev.IsLegacy(), http: s.Transport() == wire.HTTP,
		phase: phaseReady, negotiated: h.rev, cursors: map[string]string{}, cancelled: map[string]bool{}}
	if m.legacy {
		m.phase = phaseNew
	}
	return m, nil
}

func (m *seqModel) close() { m.s.Close() }

func (m *seqModel) headers(method string, params json.RawMessage) http.Header {
	if !m.http {
		return http.Header{}
	}
	return session.HTTPHeaders(!m.legacy, m.sid, m.negotiated, method, params)
}

func (m *seqModel) id(t *rapid.T) jsonrpc.ID {
	m.n++
	if rapid.Bool().Draw(t, "int-id") {
		return jsonrpc.IntID(int64(1_000_000_000 + m.n)) // above the session's own ids
	}
	return jsonrpc.StringID(fmt.Sprintf("mcpconform-seq-%d", m.n))
}

func (m *seqModel) note(format string, args ...any) {
	m.transcript = append(m.transcript, fmt.Sprintf(format, args...))
}

// exec runs one step and returns what the oracle and the model found.
func (m *seqModel) exec(ctx context.Context, st Step) []problem {
	m.steps = append(m.steps, st)
	m.note("# step %d: %s", len(m.steps), st.Op)
	var msgs [][]byte
	for _, r := range st.Messages {
		b, err := r.Bytes()
		if err != nil {
			return []problem{{"harness", "bad-step", err.Error()}}
		}
		msgs = append(msgs, b)
	}
	switch st.Op {
	case opDelete:
		return m.delete(ctx)
	case opReuse:
		return m.reuse(ctx)
	case opChange, opRestore:
		return m.catalogChange(ctx, st, msgs)
	case opMRTRStart:
		if len(msgs) != 1 {
			return []problem{{"harness", "bad-step", "an MRTR step holds one tools/call"}}
		}
	case opMRTRRetry:
		if len(msgs) != 1 {
			return []problem{{"harness", "bad-step", "an MRTR step holds one tools/call"}}
		}
		b, ok := m.mrtrRetry(msgs[0])
		if !ok {
			m.note("   (no MRTR flow in progress: step skipped)")
			return nil
		}
		msgs = [][]byte{b}
	case opPage:
		if len(msgs) != 1 {
			return []problem{{"harness", "bad-step", "a page step holds one list request"}}
		}
		method, _ := methodOf(msgs[0])
		cursor := m.cursors[method]
		if cursor == "" || m.phase != phaseReady {
			m.note("   (no cursor for %s: step skipped)", method)
			return nil
		}
		var req map[string]any
		if json.Unmarshal(msgs[0], &req) != nil {
			return []problem{{"harness", "bad-step", "the page request is not an object"}}
		}
		p, _ := req["params"].(map[string]any)
		if p == nil {
			p = map[string]any{}
		}
		p["cursor"] = cursor
		req["params"] = p
		b, _ := json.Marshal(req)
		msgs = [][]byte{b}
	case opInit:
		if m.inits == 0 && m.phase == phaseNew {
			return m.firstInitialize(ctx)
		}
		msgs = [][]byte{request(jsonrpc.StringID(fmt.Sprintf("mcpconform-seq-init-%d", len(m.steps))), "initialize", session.InitializeParams(string(m.h.rev)))}
	case opSend:
	default:
		return []problem{{"harness", "bad-step", "unknown op " + st.Op}}
	}
	before := m.phase
	out := m.h.exchangeOn(ctx, msgs, xopts{s: m.s, headers: m.headers, lateOK: m.cancelled, rejectOK: true, together: m.together})
	m.transcript = append(m.transcript, out.transcript...)
	if len(m.transcript) > 10*maxTranscript { // a finding keeps the last lines
		m.transcript = append([]string(nil), m.transcript[len(m.transcript)-2*maxTranscript:]...)
	}
	probs := out.probs
	if st.Op == opMRTRStart || st.Op == opMRTRRetry {
		probs = append(probs, m.mrtrJudge(st.Op, msgs[0], out)...)
	}
	cancelled := map[string]bool{}
	for _, raw := range msgs {
		if d, err := jsonrpc.Decode(raw); err == nil && d.Kind() == jsonrpc.KindNotification && d.Method == "notifications/cancelled" {
			var p struct {
				RequestID json.RawMessage `json:"requestId"`
			}
			if json.Unmarshal(d.Params, &p) == nil && len(p.RequestID) > 0 {
				k := jsonrpc.RawID(p.RequestID).Key()
				cancelled[k], m.cancelled[k] = true, true
			}
		}
	}
	for _, raw := range msgs {
		d, err := jsonrpc.Decode(raw)
		if err != nil || !d.ID.Valid() && d.Kind() == jsonrpc.KindRequest {
			continue
		}
		if d.Kind() == jsonrpc.KindNotification {
			if d.Method == "notifications/initialized" && m.phase == phaseAnswered {
				m.phase = phaseReady
			}
			continue
		}
		if d.Kind() != jsonrpc.KindRequest {
			continue
		}
		key := d.ID.Key()
		resp := out.resp[key]
		if d.Method == "initialize" {
			switch {
			case resp != nil && resp.HasResult:
				m.inits++
				if before == phaseNew {
					var res struct {
						ProtocolVersion string `json:"protocolVersion"`
					}
					_ = json.Unmarshal(resp.Result, &res)
					if r := catalog.Revision(res.ProtocolVersion); r.Known() {
						m.negotiated = r
					}
					if hd := out.header[key]; hd != nil {
						m.sid = hd.Get(session.HeaderSessionID)
					}
				}
				if m.phase != phaseDeleted {
					m.phase = phaseAnswered // a server may want initialized again after a second initialize
				}
			case before == phaseNew && m.inits == 0 && !out.broken:
				probs = append(probs, problem{"lifecycle", "initialize-refused", fmt.Sprintf("the first initialize (after %d earlier step(s)) was not answered with a result: %s", len(m.steps)-1, describe(resp, out.status[key]))})
			}
			continue
		}
		if before != phaseReady || cancelled[key] || out.broken || !contains(m.h.answer, d.Method) {
			continue
		}
		if resp == nil || !resp.HasResult {
			code := "not-served"
			what := fmt.Sprintf("%s (id %s) in the operation phase was answered %s", d.Method, clip([]byte(d.ID.String())), describe(resp, out.status[key]))
			if st.Op == opPage {
				code = "cursor-refused"
				what = fmt.Sprintf("%s with the nextCursor the server gave for its previous page was answered %s", d.Method, describe(resp, out.status[key]))
			}
			if resp != nil || out.status[key] != 0 { // no answer at all is the oracle's no-response
				probs = append(probs, problem{"model", code, what})
			}
			continue
		}
		if strings.HasSuffix(d.Method, "/list") {
			var res struct {
				NextCursor *string `json:"nextCursor"`
			}
			_ = json.Unmarshal(resp.Result, &res)
			if res.NextCursor != nil && *res.NextCursor != "" {
				m.cursors[d.Method] = *res.NextCursor
			} else {
				delete(m.cursors, d.Method)
			}
		}
	}
	return probs
}

// firstInitialize performs the session's initialize request: it must be
// answered with a valid result.
func (m *seqModel) firstInitialize(ctx context.Context) []problem {
	mark := m.h.tg.Recorder.Seq()
	m.h.exchanges.Add(1)
	resp, err := m.s.Initialize(ctx, string(m.h.rev))
	m.transcript = append(m.transcript, m.h.transcript(m.s, mark)...)
	var probs []problem
	if closed, cerr := m.s.Closed(); closed {
		return []problem{{"transport", "crash", fmt.Sprintf("the connection ended: %v", cerr)}}
	}
	if resp == nil || resp.Msg == nil {
		return []problem{{"lifecycle", "initialize-unanswered", fmt.Sprintf("the first initialize (after %d earlier step(s)) got no answer: %v", len(m.steps)-1, err)}}
	}
	if ps := msgcheck.ValidateServerMessage(string(m.h.rev), resp.Msg.Raw, "initialize"); len(ps) > 0 && resp.IsResult() {
		probs = append(probs, problem{"message", "invalid-initialize", fmt.Sprintf("%s (%d problems) in %s", ps[0].String(), len(ps), clip(resp.Msg.Raw))})
	}
	if !resp.IsResult() {
		return append(probs, problem{"lifecycle", "initialize-refused", fmt.Sprintf("the first initialize (after %d earlier step(s)) was not answered with a result: %s", len(m.steps)-1, describe(resp.Msg, resp.Status()))})
	}
	m.inits++
	m.phase = phaseAnswered
	m.sid = m.s.SessionID()
	if r := m.s.Revision(); r.Known() {
		m.negotiated = r
	}
	return probs
}

func describe(resp *jsonrpc.Message, status int) string {
	switch {
	case resp != nil && resp.IsError():
		code, _ := resp.ErrorCode()
		return fmt.Sprintf("with error %d: %s", code, clip(resp.Raw))
	case resp != nil:
		return clip(resp.Raw)
	case status != 0:
		return fmt.Sprintf("with HTTP %d and no JSON-RPC response", status)
	default:
		return "not at all"
	}
}

// delete ends the legacy HTTP session; a 2xx reply ends it in the model
// (405: the server does not let clients end sessions).
func (m *seqModel) delete(ctx context.Context) []problem {
	d, ok := m.s.Conn().(wire.HTTPDoer)
	if !ok || m.sid == "" {
		m.note("   (no HTTP session: step skipped)")
		return nil
	}
	cctx, cancel := context.WithTimeout(ctx, m.h.timeout)
	defer cancel()
	m.h.exchanges.Add(1)
	reply, err := d.Do(cctx, http.MethodDelete, nil, &wire.SendOptions{Header: m.headers("", nil)})
	if err != nil {
		return []problem{{"http", "delete-failed", "DELETE of the session failed: " + err.Error()}}
	}
	select {
	case <-reply.Done:
	case <-cctx.Done():
	}
	m.note("-> DELETE (session) <- HTTP %d", reply.Status)
	if reply.Status >= 200 && reply.Status < 300 {
		m.phase = phaseDeleted
	}
	return nil
}

// reuse sends a ping with the deleted session's id: the server MUST answer
// 404 (the transports page's "Session Management": after the server ends a session).
func (m *seqModel) reuse(ctx context.Context) []problem {
	if m.phase != phaseDeleted {
		m.note("   (the session was not deleted: step skipped)")
		return nil
	}
	cctx, cancel := context.WithTimeout(ctx, m.h.timeout)
	defer cancel()
	payload := jsonrpc.Request(jsonrpc.StringID(fmt.Sprintf("mcpconform-seq-reuse-%d", len(m.steps))), "ping", nil)
	m.h.exchanges.Add(1)
	reply, err := m.s.Conn().Send(cctx, payload, &wire.SendOptions{Header: m.headers("ping", nil)})
	if err != nil {
		return []problem{{"http", "reuse-failed", "the request after DELETE failed: " + err.Error()}}
	}
	select {
	case <-reply.Done:
	case <-cctx.Done():
	}
	m.note("-> %s (deleted session) <- HTTP %d", clip(payload), reply.Status)
	if reply.Status != http.StatusNotFound {
		return []problem{{"http", "ended-session-served", fmt.Sprintf("after DELETE of the session was answered 2xx, a request carrying its id was answered HTTP %d, not 404", reply.Status)}}
	}
	return nil
}

// ---- generation ----

func (m *seqModel) send(ctx context.Context, t *rapid.T, fail failFunc, msgs ...[]byte) {
	st := Step{Op: opSend}
	for _, b := range msgs {
		st.Messages = append(st.Messages, RawOf(b))
	}
	m.run(t, fail, st, m.exec(ctx, st))
}

func (m *seqModel) run(t *rapid.T, fail failFunc, st Step, probs []problem) {
	if len(probs) > 0 {
		fail(t, probs, m.transcript, nil, m.steps)
	}
}

// listRequest draws a request the server must answer (the liveness method
// or a declared list).
func (m *seqModel) listRequest(t *rapid.T) []byte {
	method := rapid.SampledFrom(m.h.answer).Draw(t, "method")
	return request(m.id(t), method, m.h.params(t, nil))
}

func (m *seqModel) callRequest(t *rapid.T) []byte {
	tool := m.h.tools[rapid.IntRange(0, len(m.h.tools)-1).Draw(t, "tool")]
	args := map[string]any{}
	for k, v := range tool.base {
		args[k] = v
	}
	return request(m.id(t), "tools/call", m.h.params(t, map[string]any{"name": tool.name, "arguments": args}))
}

// actions returns the state machine's actions for this case.
func (m *seqModel) actions(ctx context.Context, fail failFunc) map[string]func(*rapid.T) {
	skipDeleted := func(t *rapid.T) {
		if m.phase == phaseDeleted {
			t.Skip("the session was deleted")
		}
	}
	a := map[string]func(*rapid.T){
		"list": func(t *rapid.T) {
			skipDeleted(t)
			m.send(ctx, t, fail, m.listRequest(t))
		},
		"page": func(t *rapid.T) {
			skipDeleted(t)
			var have []string
			for k := range m.cursors {
				have = append(have, k)
			}
			if len(have) == 0 || m.phase != phaseReady {
				t.Skip("no cursor to follow")
			}
			sort.Strings(have)
			method := rapid.SampledFrom(have).Draw(t, "list")
			st := Step{Op: opPage, Messages: []Raw{RawOf(request(m.id(t), method, m.h.params(t, nil)))}}
			m.run(t, fail, st, m.exec(ctx, st))
		},
		"burst": func(t *rapid.T) {
			skipDeleted(t)
			n := rapid.IntRange(2, 4).Draw(t, "burst")
			var msgs [][]byte
			for range n {
				if len(m.h.tools) > 0 && rapid.IntRange(0, 3).Draw(t, "burst-call") == 0 {
					msgs = append(msgs, m.callRequest(t))
				} else {
					msgs = append(msgs, m.listRequest(t))
				}
			}
			m.send(ctx, t, fail, msgs...)
		},
	}
	if len(m.h.tools) > 0 {
		a["call"] = func(t *rapid.T) {
			skipDeleted(t)
			m.send(ctx, t, fail, m.callRequest(t))
		}
	}
	if !m.http || m.legacy { // 2026-07-28 HTTP cancels by closing the stream: no notification
		a["cancel"] = func(t *rapid.T) {
			skipDeleted(t)
			var req []byte
			if len(m.h.tools) > 0 && rapid.Bool().Draw(t, "cancel-call") {
				req = m.callRequest(t)
			} else {
				req = m.listRequest(t)
			}
			d, _ := jsonrpc.Decode(req)
			note := notification("notifications/cancelled", m.h.params(t, map[string]any{"requestId": d.ID, "reason": "mcpconform fuzz"}))
			m.send(ctx, t, fail, req, note)
		}
	}
	m.catalogActions(ctx, fail, a)
	m.mrtrActions(ctx, fail, a)
	if m.legacy {
		a["initialize"] = func(t *rapid.T) {
			skipDeleted(t)
			st := Step{Op: opInit}
			m.run(t, fail, st, m.exec(ctx, st))
		}
		a["initialized"] = func(t *rapid.T) {
			skipDeleted(t)
			m.send(ctx, t, fail, notification("notifications/initialized", nil))
		}
		if m.http {
			a["delete"] = func(t *rapid.T) {
				if m.phase == phaseDeleted || m.sid == "" {
					t.Skip("no session to delete")
				}
				st := Step{Op: opDelete}
				m.run(t, fail, st, m.exec(ctx, st))
			}
			a["reuse"] = func(t *rapid.T) {
				if m.phase != phaseDeleted {
					t.Skip("the session was not deleted")
				}
				st := Step{Op: opReuse}
				m.run(t, fail, st, m.exec(ctx, st))
			}
		}
	}
	return a
}

// seqCase is the state-machine property's case: a fresh connection, then
// the steps.
func (h *harness) seqCase(ctx context.Context, t *rapid.T, fail failFunc) {
	m, err := h.newSeq(ctx)
	if err != nil {
		fail(t, []problem{{"transport", "connect-failed", err.Error()}}, nil, nil, nil)
		return
	}
	defer m.close()
	defer m.restoreCatalog(ctx)
	if m.legacy && m.http {
		// Over HTTP a request before initialize has no session to go to:
		// the case starts with initialize.
		st := Step{Op: opInit}
		m.run(t, fail, st, m.exec(ctx, st))
	}
	t.Repeat(m.actions(ctx, fail))
}

// replaySeq re-runs saved steps on a fresh connection (together: each
// step's messages in flight together), and puts back a catalog they
// changed.
func (h *harness) replaySeq(ctx context.Context, steps []Step, together bool) ([]problem, error) {
	m, err := h.newSeq(ctx)
	if err != nil {
		return nil, err
	}
	defer m.close()
	defer m.restoreCatalog(ctx)
	m.together = together
	var all []problem
	for _, st := range steps {
		ps := m.exec(ctx, st)
		all = append(all, ps...)
		if len(ps) > 0 {
			break
		}
	}
	return all, nil
}
