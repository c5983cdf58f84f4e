package fuzz

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/internal/jsonrpc"
	"github.com/mcpconform/mcpconform/internal/session"
	"github.com/mcpconform/mcpconform/internal/wire"
	"pgregory.net/rapid"
)

// Catalog-change steps of the state machines: the run's catalog_change
// trigger (the config key the suite's STALE and SUB checks use,
// trigger.Trigger) fired in the middle of a sequence, its restore step
// too, any number of times. The model: on a legacy session, a list whose
// capability declares listChanged and that the step changed (its items
// before and after differ) is announced with its
// notifications/…/list_changed (STALE-002, a SHOULD; 2026-07-28 announces
// on listen streams, SUB-007, which the state machines do not open); the
// operation-phase rules hold after the change as before it; a page cursor
// given before a change may be refused after it (it is forgotten).
//
// A tool trigger is saved in the step as its tools/call message; a
// command trigger as its command: a saved case replays without the
// config.

// Step ops of the catalog.
const (
	opChange  = "change"  // the catalog_change trigger
	opRestore = "restore" // its restore step
)

// listKinds are the lists a catalog change may touch.
var listKinds = []struct{ capability, method, field, key, notification string }{
	{"tools", "tools/list", "tools", "name", "notifications/tools/list_changed"},
	{"prompts", "prompts/list", "prompts", "name", "notifications/prompts/list_changed"},
	{"resources", "resources/list", "resources", "uri", "notifications/resources/list_changed"},
}

// catalogStep draws nothing: it is the trigger (or its restore) as a step.
func (h *harness) catalogStep(op string) (Step, bool) {
	tr := h.trigger
	if op == opRestore && tr != nil {
		tr = tr.Restore
	}
	if tr == nil {
		return Step{}, false
	}
	st := Step{Op: op, Command: tr.Command}
	if tr.Tool != "" {
		args := tr.Arguments
		if args == nil {
			args = map[string]any{}
		}
		st.Messages = []Raw{RawOf(request(jsonrpc.StringID("mcpconform-seq-"+op), "tools/call", map[string]any{"name": tr.Tool, "arguments": args}))}
	}
	return st, true
}

// snapshot returns the item keys of each list whose capability declares
// listChanged (first maxListPages pages), or nil when the session cannot
// list.
func (m *seqModel) snapshot(ctx context.Context) map[string][]string {
	out := map[string][]string{}
	for _, k := range listKinds {
		if !listChangedDeclared(m.s, k.capability) {
			continue
		}
		var keys []string
		cursor := ""
		for range maxListPages {
			params := map[string]any{}
			if cursor != "" {
				params["cursor"] = cursor
			}
			m.h.exchanges.Add(1)
			resp, err := m.s.Call(ctx, k.method, params, nil)
			if err != nil || !resp.IsResult() {
				return nil
			}
			var page map[string]json.RawMessage
			if resp.Result(&page) != nil {
				return nil
			}
			var items []map[string]any
			_ = json.Unmarshal(page[k.field], &items)
			for _, it := range items {
				keys = append(keys, fmt.Sprint(it[k.key]))
			}
			var next string
			if json.Unmarshal(page["nextCursor"], &next) != nil || next == "" {
				break
			}
			cursor = next
		}
		slices.Sort(keys)
		out[k.method] = keys
	}
	return out
}

func listChangedDeclared(s *session.Session, capability string) bool {
	c, ok := s.Capabilities()[capability]
	if !ok {
		return false
	}
	var sub struct {
		ListChanged bool `json:"listChanged"`
	}
	_ = json.Unmarshal(c, &sub)
	return sub.ListChanged
}

// catalogChange runs a change or restore step: the lists before, the
// trigger (a tool call judged by the oracle like any step, or a command),
// the lists after, and the announcements the model expects.
func (m *seqModel) catalogChange(ctx context.Context, st Step, msgs [][]byte) []problem {
	if m.phase != phaseReady {
		m.note("   (not in the operation phase: step skipped)")
		return nil
	}
	m.cursors = map[string]string{} // a cursor from before the change may be refused after it
	announce := m.legacy            // 2026-07-28 announces on listen streams only
	var before map[string][]string
	if announce {
		before = m.snapshot(ctx)
	}
	mark := m.h.tg.Recorder.Seq()
	var probs []problem
	switch {
	case len(msgs) == 1:
		out := m.h.exchangeOn(ctx, msgs, xopts{s: m.s, headers: m.headers, lateOK: m.cancelled, rejectOK: true})
		m.transcript = append(m.transcript, out.transcript...)
		probs = out.probs
		d, _ := jsonrpc.Decode(msgs[0])
		resp := out.resp[d.ID.Key()]
		var res struct {
			IsError bool `json:"isError"`
		}
		if resp == nil || !resp.HasResult || json.Unmarshal(resp.Result, &res) != nil || res.IsError || out.broken {
			m.note("   (the catalog_change trigger did not succeed: no change to judge)")
			return probs
		}
	case len(st.Command) > 0:
		cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		cmd := exec.CommandContext(cctx, st.Command[0], st.Command[1:]...)
		var buf bytes.Buffer
		cmd.Stdout, cmd.Stderr = &buf, &buf
		cmd.WaitDelay = time.Second
		if err := cmd.Run(); err != nil {
			return []problem{{"harness", "trigger-failed", fmt.Sprintf("the catalog_change command %s failed: %v; output: %s", strings.Join(st.Command, " "), err, clip(buf.Bytes()))}}
		}
		m.note("   (ran %s)", strings.Join(st.Command, " "))
	default:
		return []problem{{"harness", "bad-step", "a catalog step holds one tools/call or a command"}}
	}
	m.changes++
	if !announce || before == nil {
		return probs
	}
	after := m.snapshot(ctx)
	if after == nil {
		return probs // a list refused: the list steps judge it
	}
	// One deadline for all the announcements of the step: the suite's
	// patience for what a server may never send (10 × the p99 of the
	// answer times observed, at least 250 ms, at most the timeout).
	patience := m.h.tg.Patience()
	wctx, cancel := context.WithTimeout(ctx, patience)
	defer cancel()
	for _, k := range listKinds {
		if _, ok := before[k.method]; !ok || slices.Equal(before[k.method], after[k.method]) {
			continue
		}
		_, got := m.s.WaitEvent(wctx, mark, func(e session.Event) bool {
			return e.Msg != nil && e.Msg.Kind() == jsonrpc.KindNotification && e.Msg.Method == k.notification
		})
		m.note("   (%s: %d → %d items; %s %s)", k.method, len(before[k.method]), len(after[k.method]), k.notification, map[bool]string{true: "came", false: "did not come"}[got])
		if !got {
			probs = append(probs, problem{"model", "unannounced-change", fmt.Sprintf("%s changed at step %d (%s, %d → %d items) and %s.listChanged is declared, but no %s came within %s",
				k.method, len(m.steps), st.Op, len(before[k.method]), len(after[k.method]), k.capability, k.notification, patience)})
		}
	}
	return probs
}

// catalogActions adds the change and restore steps when the run has a
// catalog_change trigger.
func (m *seqModel) catalogActions(ctx context.Context, fail failFunc, a map[string]func(*rapid.T)) {
	for _, op := range []string{opChange, opRestore} {
		st, ok := m.h.catalogStep(op)
		if !ok {
			continue
		}
		a[op] = func(t *rapid.T) {
			if m.phase != phaseReady {
				t.Skip("not in the operation phase")
			}
			m.run(t, fail, st, m.exec(ctx, st))
		}
	}
}

// restoreCatalog puts the catalog back at the end of a case that changed
// it (not judged): the next case, on the same server over HTTP, starts
// from the catalog the campaign found.
func (m *seqModel) restoreCatalog(ctx context.Context) {
	if m.changes == 0 {
		return
	}
	st, ok := m.h.catalogStep(opRestore)
	if !ok || len(st.Messages) != 1 {
		return
	}
	b, _ := st.Messages[0].Bytes()
	b = bytes.Replace(b, []byte(`"mcpconform-seq-restore"`), []byte(`"mcpconform-seq-restore-end"`), 1)
	_, params := methodOf(b)
	_, _ = m.s.CallRaw(ctx, jsonrpc.StringID("mcpconform-seq-restore-end"), b, &wire.SendOptions{Header: m.headers("tools/call", params)}, m.h.timeout)
}
