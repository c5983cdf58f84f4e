package lifecycle

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	c "github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/session"
)

// Per-request client capabilities (2026-07-28): judged on the requests the
// server answers with input_required when every capability is declared
// (the MRTR targets, c.MRTRTargets), re-sent declaring less.
var _ = c.Area("lifecycle", func() {
	c.It("LIFE-011", "a request needing an undeclared client capability gets -32021 with data.requiredCapabilities as an object", func(t *c.T) {
		tgs := c.MRTRTargets(t)
		s := t.Open()
		seen := 0
		for _, tg := range tgs {
			for _, caps := range []map[string]any{{}, {"sampling": map[string]any{}}} {
				resp, err := sendDeclaring(t, s, tg.Method, tg.Params, caps, session.Retry{})
				if err != nil {
					continue
				}
				code, isErr := resp.ErrorCode()
				if !isErr || code != -32021 {
					continue
				}
				seen++
				capsText, _ := json.Marshal(caps)
				what := fmt.Sprintf("%s declaring %s", tg.What(), capsText)
				var data map[string]json.RawMessage
				_ = json.Unmarshal(resp.Msg.Error.Data, &data)
				rc := strings.TrimSpace(string(data["requiredCapabilities"]))
				if !strings.HasPrefix(rc, "{") {
					t.Violation(`error.data.requiredCapabilities: an object such as {"elicitation":{}}`, resp.Describe(),
						"%s: -32021 without data.requiredCapabilities as an object", what)
				}
				t.ExpectStatus(what, resp, http.StatusBadRequest)
				var named map[string]json.RawMessage
				_ = json.Unmarshal(data["requiredCapabilities"], &named)
				for k := range named {
					if _, declared := caps[k]; declared {
						t.Note("%s: requiredCapabilities names %q, which the request declared", what, k)
					}
				}
			}
		}
		if seen == 0 {
			t.NA("no MRTR request was answered -32021 when the harness declared {} or only sampling (%d targets): every one could go on without the missing capability", len(tgs))
		}
	})

	c.It("LIFE-012", "client capabilities do not carry over from an earlier request", func(t *c.T) {
		var tgs []*c.MRTRTarget
		for _, tg := range c.MRTRTargets(t) {
			if tg.AsksFor("elicitation/create") {
				tgs = append(tgs, tg)
			}
		}
		if len(tgs) == 0 {
			t.NA("no MRTR request asked for elicitation with every capability declared")
		}
		s := t.Open()
		// Baseline on the fresh connection: a target that asks for
		// elicitation from a client declaring {} before any other request
		// breaks MRTR-004, not this requirement.
		var kept []*c.MRTRTarget
		for _, tg := range tgs {
			resp, err := sendDeclaring(t, s, tg.Method, tg.Params, map[string]any{}, session.Retry{})
			if in, ok := session.ParseInterim(resp); err == nil && ok && c.InterimAsks(in, "elicitation/create") {
				t.Note("%s asks for elicitation from a client declaring {} even before any other request; MRTR-004 judges it", tg.What())
				continue
			}
			kept = append(kept, tg)
		}
		if len(kept) == 0 {
			t.NA("every MRTR request that asks for elicitation asks for it even from a client declaring {} (MRTR-004)")
		}
		for _, tg := range kept {
			t.Step(tg.What() + " declaring elicitation, then {} on the same connection")
			first, err := sendDeclaring(t, s, tg.Method, tg.Params, nil, session.Retry{})
			if in, ok := session.ParseInterim(first); err != nil || !ok || in.Requests == nil {
				t.Note("%s: with every capability declared the answer was %s this time; skipped", tg.What(), c.Clip([]byte(c.Describe(first, err))))
				continue
			}
			resp, err := sendDeclaring(t, s, tg.Method, tg.Params, map[string]any{}, session.Retry{})
			in, ok := session.ParseInterim(resp)
			if err != nil || !ok {
				continue
			}
			for _, k := range in.Keys() {
				if in.RequestMethod(k) == "elicitation/create" {
					t.Violation("-32021 or a result needing no elicitation (the second request declared {})", resp.Describe(),
						"%s: after a request that declared elicitation, a request declaring {} was asked for elicitation (key %q)", tg.What(), k)
				}
			}
		}
	})
})

// sendDeclaring sends a target's request declaring caps as its client
// capabilities (nil: every capability), without retry members.
func sendDeclaring(t *c.T, s *session.Session, method string, params map[string]any, caps map[string]any, r session.Retry) (*session.Response, error) {
	if caps == nil {
		caps = session.AllClientCapabilities()
	}
	return s.CallMRTR(t.Ctx, method, params, caps, r, 0)
}
