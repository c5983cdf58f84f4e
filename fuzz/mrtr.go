package fuzz

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mcpconform/mcpconform/internal/session"
	"pgregory.net/rapid"
)

// The mrtr property (2026-07-28): retries of the tool calls the server
// answers input_required, with generated inputResponses (the scripted
// answers, some left out, unknown keys, wrong values, not an object) and
// requestState (echoed, left out, altered byte-wise, truncated, another
// string, not a string). The oracle is the common one: one valid response,
// the server alive, no hang. Whether an altered requestState is rejected
// needs a baseline flow and is judged by MRTR-006/007 in the suite.

// mrtrTarget is a tools/call the server answered input_required.
type mrtrTarget struct {
	tool    string
	args    map[string]any
	keys    []string                   // the input requests' keys, sorted
	answers map[string]json.RawMessage // the scripted answer to each
	state   json.RawMessage            // requestState as received (nil: absent)
	stateS  string                     // its string value
}

// maxMRTRTargets bounds the flows the property retries.
const maxMRTRTargets = 4

// prepareMRTR calls each callable tool once with its derived arguments,
// declaring every client capability, and keeps those answered
// input_required; it stops probing at until. It needs prepareTools first.
func (h *harness) prepareMRTR(ctx context.Context, until time.Time) (bool, string) {
	if !h.s.Modern() {
		return false, "input_required results exist only in 2026-07-28 (this campaign fuzzes " + string(h.rev) + ")"
	}
	if len(h.tools) == 0 {
		return false, "no tool may be called (see the tools property)"
	}
	probed := 0
	for _, t := range h.tools {
		left := time.Until(until)
		if len(h.mrtr) >= maxMRTRTargets || left <= 0 {
			break
		}
		probed++
		resp, err := h.s.CallMRTR(ctx, "tools/call", map[string]any{"name": t.name, "arguments": t.base}, session.AllClientCapabilities(), session.Retry{}, min(h.timeout, left))
		if err != nil {
			continue
		}
		in, ok := session.ParseInterim(resp)
		if !ok {
			continue
		}
		tg := mrtrTarget{tool: t.name, args: t.base, state: in.State, stateS: in.StateString, answers: map[string]json.RawMessage{}}
		for _, k := range in.Keys() {
			a, err := session.ScriptedAnswer(k, in.Requests[k])
			if err != nil {
				a = json.RawMessage(`{}`)
			}
			tg.keys = append(tg.keys, k)
			tg.answers[k] = a
		}
		h.mrtr = append(h.mrtr, tg)
	}
	if len(h.mrtr) == 0 {
		why := fmt.Sprintf("none of the %d callable tools probed answered input_required to a call with derived arguments", probed)
		if probed < len(h.tools) {
			why += fmt.Sprintf(" (%d not probed: the probing may take a quarter of the budget)", len(h.tools)-probed)
		}
		return false, why
	}
	return true, ""
}

// genMRTRCase: one or two retries of input_required flows.
func (h *harness) genMRTRCase(t *rapid.T) [][]byte {
	return dedupeIDs(rapid.SliceOfN(rapid.Custom(h.genRetry), 1, 2).Draw(t, "retries"))
}

func (h *harness) genRetry(t *rapid.T) []byte {
	id := genID(t, "id")
	tg := h.mrtr[rapid.IntRange(0, len(h.mrtr)-1).Draw(t, "flow")]
	extra := map[string]any{"name": tg.tool, "arguments": tg.args}
	if ir, ok := genInputResponses(t, tg); ok {
		extra["inputResponses"] = ir
	}
	if st, ok := genRequestState(t, tg); ok {
		extra["requestState"] = st
	}
	p := h.params(t, extra)
	if meta, ok := p["_meta"].(map[string]any); ok {
		meta[session.MetaClientCapabilities] = session.AllClientCapabilities()
	}
	return request(id, "tools/call", p)
}

// genInputResponses draws the inputResponses member (false: left out).
func genInputResponses(t *rapid.T, tg mrtrTarget) (any, bool) {
	answers := map[string]any{}
	for _, k := range tg.keys {
		answers[k] = tg.answers[k]
	}
	switch rapid.SampledFrom([]string{"scripted", "drop-key", "extra-key", "wrong-value", "not-an-object", "absent"}).Draw(t, "responses") {
	case "drop-key":
		if len(tg.keys) > 0 {
			delete(answers, rapid.SampledFrom(tg.keys).Draw(t, "drop"))
		}
	case "extra-key":
		answers[rapid.String().Draw(t, "key")] = genValue(t, "extra")
	case "wrong-value":
		if len(tg.keys) > 0 {
			answers[rapid.SampledFrom(tg.keys).Draw(t, "key")] = genValue(t, "value")
		}
	case "not-an-object":
		return genValue(t, "responses"), true
	case "absent":
		return nil, false
	}
	return answers, true
}

// genRequestState draws the requestState member (false: left out).
func genRequestState(t *rapid.T, tg mrtrTarget) (any, bool) {
	s := tg.stateS
	switch rapid.SampledFrom([]string{"echo", "absent", "flip-byte", "truncate", "append", "other-string", "not-a-string"}).Draw(t, "state") {
	case "echo":
		if tg.state == nil {
			return nil, false
		}
		return tg.state, true
	case "absent":
		return nil, false
	case "flip-byte":
		if s == "" {
			return rapid.String().Draw(t, "state-string"), true
		}
		b := []byte(s)
		i := rapid.IntRange(0, len(b)-1).Draw(t, "at")
		b[i] ^= byte(rapid.IntRange(1, 255).Draw(t, "xor"))
		return string(b), true // invalid UTF-8 is replaced when marshalled
	case "truncate":
		if s == "" {
			return "", true
		}
		return s[:rapid.IntRange(0, len(s)-1).Draw(t, "cut")], true
	case "append":
		return s + rapid.String().Draw(t, "suffix"), true
	case "other-string":
		return rapid.String().Draw(t, "state-string"), true
	}
	return genValue(t, "state-value"), true
}
