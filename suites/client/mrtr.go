package client

import (
	"encoding/json"
	"fmt"
	"slices"

	c "github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/jsonrpc"
	"github.com/mcpconform/mcpconform/internal/scenario"
	"github.com/mcpconform/mcpconform/internal/wire"
)

// retryFields are what an MRTR retry carries.
type retryFields struct {
	Name           string                     `json:"name"`
	URI            string                     `json:"uri"`
	RequestState   *string                    `json:"requestState"`
	InputResponses map[string]json.RawMessage `json:"inputResponses"`
}

func retryOf(m *jsonrpc.Message) retryFields {
	var p retryFields
	_ = json.Unmarshal(m.Params, &p)
	return p
}

// inputRequired reads an input_required result: its inputRequests keys and
// requestState (nil when absent); ok false for any other answer.
func inputRequired(a msg) (keys []string, state *string, ok bool) {
	if a.M == nil || !a.M.HasResult {
		return nil, nil, false
	}
	var r struct {
		ResultType    string                     `json:"resultType"`
		InputRequests map[string]json.RawMessage `json:"inputRequests"`
		RequestState  *string                    `json:"requestState"`
	}
	if json.Unmarshal(a.M.Result, &r) != nil || r.ResultType != "input_required" {
		return nil, nil, false
	}
	for k := range r.InputRequests {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys, r.RequestState, true
}

var _ = c.ClientArea("client", func() {
	c.It("CLI-015", "an input_required retry has a new id, requestState verbatim, keyed inputResponses", func(t *c.T) {
		var bad findings
		rounds := 0
		for _, r := range t.Runs(nil) {
			ms := traffic(t, r)
			reqs := requests(ms)
			for i, first := range reqs {
				a, ok := answer(ms, first)
				if !ok {
					continue
				}
				keys, state, ok := inputRequired(a)
				if !ok {
					continue
				}
				f := retryOf(first.M)
				// the retry: the next request of the same method and name
				// after the input_required result
				var retry *msg
				for j := i + 1; j < len(reqs); j++ {
					x := reqs[j]
					if x.F.Seq > a.F.Seq && x.M.Method == first.M.Method && retryOf(x.M).Name == f.Name && retryOf(x.M).URI == f.URI {
						retry = &reqs[j]
						break
					}
				}
				if retry == nil {
					t.Note("%s: the client did not retry %s %s after its input_required result", describeRunOf(r), first.M.Method, f.Name)
					continue
				}
				rounds++
				t.Judged(r)
				p := retryOf(retry.M)
				switch {
				case retry.M.ID.Key() == first.M.ID.Key():
					bad.add(*retry, fmt.Sprintf("%s: the retry of %s reuses the id %s", describeRunOf(r), f.Name, retry.M.ID))
				case state != nil && (p.RequestState == nil || *p.RequestState != *state):
					bad.add(*retry, fmt.Sprintf("%s: the retry of %s carries requestState %s, not %q as handed out", describeRunOf(r), f.Name, strOr(p.RequestState), *state))
				case state == nil && p.RequestState != nil:
					bad.add(*retry, fmt.Sprintf("%s: the retry of %s carries requestState %q although none was handed out", describeRunOf(r), f.Name, *p.RequestState))
				case !sameKeys(p.InputResponses, keys):
					bad.add(*retry, fmt.Sprintf("%s: the retry of %s answers %v, not the input requests %v", describeRunOf(r), f.Name, mapKeys(p.InputResponses), keys))
				}
				// isolation: no other call carries what this round handed out
				for _, x := range reqs {
					if x.F.Seq <= a.F.Seq || x.F.Seq == retry.F.Seq {
						continue
					}
					q := retryOf(x.M)
					if q.Name != f.Name && state != nil && q.RequestState != nil && *q.RequestState == *state {
						bad.add(x, fmt.Sprintf("%s: %s %s carries the requestState handed out for %s", describeRunOf(r), x.M.Method, q.Name, f.Name))
					}
				}
			}
		}
		bad.report(t, "a retry with a new id, the requestState echoed exactly (or omitted when none came) and inputResponses for each input request")
		if rounds == 0 {
			t.NA("the client retried no input_required result (no scenario of this revision asked for input, or the client did not retry)")
		}
	})
})

func sameKeys(m map[string]json.RawMessage, keys []string) bool {
	return slices.Equal(mapKeys(m), keys)
}

func mapKeys(m map[string]json.RawMessage) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func strOr(s *string) string {
	if s == nil {
		return "(none)"
	}
	return fmt.Sprintf("%q", *s)
}

var _ = c.ClientArea("client", func() {
	c.It("CLI-036", "an endless multi round-trip is given up: the client bounds a request the server never completes", func(t *c.T) {
		var capped []wire.Frame
		var last []msg
		judged := 0
		for _, r := range t.Runs(nil) {
			ms := traffic(t, r)
			var calls []msg
			for _, m := range requests(ms) {
				if m.M.Method != "tools/call" || retryOf(m.M).Name != scenario.EndlessTool {
					continue
				}
				if a, ok := answer(ms, m); ok {
					if _, _, ok := inputRequired(a); ok {
						calls = append(calls, m)
					}
				}
			}
			if len(calls) == 0 {
				continue // never called, or never got an input_required
			}
			judged++
			t.Judged(r)
			if hit := notes(t, r, r.Conn, scenario.EndlessCapNote); len(hit) > 0 {
				capped = append(capped, hit...)
				last = append(last, calls[len(calls)-1])
			}
		}
		if len(capped) > 0 {
			t.Evidence(capped...)
			evidence(t, last)
			t.Violation("the request given up before the scenario server's cap", capped[0].Note,
				"the client went on retrying %s for %d rounds of input_required, until the scenario server stopped it: with no bound of its own (a maximum timeout whatever the server does, or a cap on the rounds), a server that never completes the request holds it forever", scenario.EndlessTool, scenario.EndlessRounds)
		}
		if judged == 0 {
			t.NA("the client never got an input_required from %s (the mrtr-endless scenario and the black-box server have it, 2026-07-28; a client written for the official harness calls only the tools its scenario names)", scenario.EndlessTool)
		}
	})
})
