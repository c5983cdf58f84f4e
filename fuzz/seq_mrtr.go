package fuzz

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcpconform/mcpconform/internal/jsonrpc"
	"github.com/mcpconform/mcpconform/internal/session"
	"pgregory.net/rapid"
)

// MRTR rounds as state-machine steps (2026-07-28): a step starts a
// multi-round-trip flow (a tools/call the server answered input_required
// when the campaign prepared the mrtr property), later steps retry it —
// with any other steps in between — with the scripted answers to the
// round's inputRequests and the requestState the server gave last. The
// model: a correct retry is answered with a result (complete, or
// input_required for another round), never refused (MRTR-005, a MUST),
// however many steps came between the rounds.
//
// A retry step is saved without inputResponses and requestState, which
// the replay takes from the server again (like a page step's cursor).

// Step ops of the MRTR rounds.
const (
	opMRTRStart = "mrtr-start"
	opMRTRRetry = "mrtr-retry"
)

// maxMRTRRounds bounds the rounds of one flow the model follows.
const maxMRTRRounds = 8

// mrtrFlow is the flow in progress on a state machine's connection.
type mrtrFlow struct {
	start  json.RawMessage // the first request's params
	in     *session.Interim
	rounds int
}

// mrtrRequest draws a tools/call of an MRTR target declaring every client
// capability (the original request of a flow, and the template of its
// retries).
func (m *seqModel) mrtrRequest(t *rapid.T, tg mrtrTarget) []byte {
	p := m.h.params(t, map[string]any{"name": tg.tool, "arguments": tg.args})
	meta, _ := p["_meta"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
		p["_meta"] = meta
	}
	for k, v := range m.s.MetaWithCapabilities(session.AllClientCapabilities()) {
		meta[k] = v
	}
	return request(m.id(t), "tools/call", p)
}

// mrtrActions adds the MRTR steps when the campaign found MRTR targets.
func (m *seqModel) mrtrActions(ctx context.Context, fail failFunc, a map[string]func(*rapid.T)) {
	if len(m.h.mrtr) == 0 || m.legacy {
		return
	}
	a[opMRTRStart] = func(t *rapid.T) {
		tg := m.h.mrtr[rapid.IntRange(0, len(m.h.mrtr)-1).Draw(t, "flow")]
		st := Step{Op: opMRTRStart, Messages: []Raw{RawOf(m.mrtrRequest(t, tg))}}
		m.run(t, fail, st, m.exec(ctx, st))
	}
	a[opMRTRRetry] = func(t *rapid.T) {
		if m.flow == nil {
			t.Skip("no flow in progress")
		}
		var p struct {
			Name      string         `json:"name"`
			Arguments map[string]any `json:"arguments"`
		}
		_ = json.Unmarshal(m.flow.start, &p)
		st := Step{Op: opMRTRRetry, Messages: []Raw{RawOf(m.mrtrRequest(t, mrtrTarget{tool: p.Name, args: p.Arguments}))}}
		m.run(t, fail, st, m.exec(ctx, st))
	}
}

// mrtrRetry fills a retry step's request with the flow's answers and
// state (ok false: no flow in progress, the step is skipped).
func (m *seqModel) mrtrRetry(msg []byte) ([]byte, bool) {
	if m.flow == nil {
		return nil, false
	}
	var req map[string]json.RawMessage
	if json.Unmarshal(msg, &req) != nil {
		return nil, false
	}
	var p map[string]json.RawMessage
	if json.Unmarshal(req["params"], &p) != nil {
		return nil, false
	}
	answers := map[string]json.RawMessage{}
	for _, k := range m.flow.in.Keys() {
		a, err := session.ScriptedAnswer(k, m.flow.in.Requests[k])
		if err != nil {
			a = json.RawMessage(`{}`)
		}
		answers[k] = a
	}
	if len(answers) > 0 || m.flow.in.RequestsRaw != nil {
		p["inputResponses"], _ = json.Marshal(answers)
	}
	if m.flow.in.State != nil {
		p["requestState"] = m.flow.in.State
	}
	req["params"], _ = json.Marshal(p)
	b, _ := json.Marshal(req)
	return b, true
}

// mrtrJudge updates the flow from the answer to a start or retry step
// and returns what the model finds.
func (m *seqModel) mrtrJudge(op string, msg []byte, out outcome) []problem {
	d, err := jsonrpc.Decode(msg)
	if err != nil {
		return nil
	}
	resp := out.resp[d.ID.Key()]
	if resp == nil || out.broken {
		m.flow = nil
		return nil // no answer at all is the oracle's
	}
	in, interim := session.ParseInterim(&session.Response{Msg: resp})
	if op == opMRTRStart {
		m.flow = nil
		if interim {
			m.flow = &mrtrFlow{start: d.Params, in: in}
		}
		return nil
	}
	round := m.flow.rounds + 1
	switch {
	case interim && round < maxMRTRRounds:
		m.flow.in, m.flow.rounds = in, round
		return nil
	case resp.HasResult:
		m.flow = nil
		return nil
	}
	m.flow = nil
	return []problem{{"model", "retry-refused", fmt.Sprintf("the retry of round %d of tools/call (id %s) with the scripted inputResponses and the requestState the server gave was answered %s", round, clip([]byte(d.ID.String())), describe(resp, out.status[d.ID.Key()]))}}
}
