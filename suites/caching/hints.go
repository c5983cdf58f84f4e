package caching

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	c "github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/session"
)

// Caching hints (2026-07-28, SEP-2549): ttlMs and cacheScope on complete
// results of discover, the lists and resources/read; none on interim
// input_required results.

const (
	// maxReads caps the resources/read calls of CACHE-001.
	maxReads = 3
	// maxProvoke caps the prompts/get and resources/read calls CACHE-002
	// makes to provoke input_required results.
	maxProvoke = 20
)

var _ = c.Area("caching", func() {
	c.It("CACHE-001", "complete discover, list and read results carry an integer ttlMs ≥ 0 and cacheScope public or private", func(t *c.T) {
		s := t.Shared()
		judged := 0
		judge := func(what string, resp *session.Response) {
			res := resp.Msg.ResultObject()
			if res == nil {
				t.Note("%s: the result is not an object; not judged here", what)
				return
			}
			if rt := c.ResultType(res); rt != "" && rt != "complete" {
				t.Note("%s: resultType %q is not a complete result; not judged here", what, rt)
				return
			}
			judged++
			if why := checkTTL(res["ttlMs"]); why != "" {
				t.ModelClaim(resp)
				t.Violation("ttlMs: an integer ≥ 0", c.OrAbsent(res["ttlMs"]), "%s: %s", what, why)
			}
			if why := checkScope(res["cacheScope"]); why != "" {
				t.ModelClaim(resp)
				t.Violation(`cacheScope: "public" or "private"`, c.OrAbsent(res["cacheScope"]), "%s: %s", what, why)
			}
		}

		t.Step("server/discover")
		if resp, err := t.TryCall(s, "server/discover", nil, nil); err == nil && resp.IsResult() {
			judge("server/discover", resp)
		} else {
			t.Note("server/discover gave no result (%s); LIFE-006 judges it", c.Clip([]byte(c.Describe(resp, err))))
		}
		var resources []json.RawMessage
		for _, k := range c.ListKinds {
			if !c.Declared(s, k.Capability) {
				continue
			}
			t.Step("walk " + k.Method)
			w := t.WalkList(s, k.Method)
			if !w.Complete() {
				t.Note("%s: the walk stopped early (%s); judged the pages that came", k.Method, w.Problem)
			}
			for i, p := range w.Pages {
				judge(fmt.Sprintf("%s page %d", k.Method, i+1), p.Resp)
			}
			if k.Method == "resources/list" {
				resources = w.Items
			}
		}
		reads := 0
		for _, r := range resources {
			uri := c.ItemKey(r, "uri")
			if uri == "" {
				continue
			}
			if reads == maxReads {
				break
			}
			reads++
			t.Step("resources/read " + uri)
			resp, err := t.TryCall(s, "resources/read", map[string]any{"uri": uri}, nil)
			if err != nil || !resp.IsResult() {
				t.Note("resources/read of a listed resource gave no result (%s); the resources area judges it", c.Clip([]byte(c.Describe(resp, err))))
				continue
			}
			judge("resources/read "+uri, resp)
		}
		if c.Declared(s, "resources") && reads == 0 {
			t.Note("resources/list listed no resource to read")
		}
		if judged == 0 {
			t.NA("no cacheable result came to judge")
		}
	})

	c.It("CACHE-002", "input_required results carry no ttlMs or cacheScope", func(t *c.T) {
		s := t.Shared()
		// A client that could answer any input request: servers ask only
		// clients that declared the capability (LIFE-011).
		meta := s.ModernMeta()
		meta[session.MetaClientCapabilities] = map[string]any{
			"elicitation": map[string]any{"form": map[string]any{}, "url": map[string]any{}},
			"sampling":    map[string]any{},
			"roots":       map[string]any{},
		}
		opts := &session.CallOptions{Meta: meta}
		type probe struct {
			what, method string
			params       map[string]any
		}
		var probes []probe
		if c.Declared(s, "prompts") {
			w := t.WalkList(s, "prompts/list")
			for _, p := range w.Items {
				name := c.ItemKey(p, "name")
				if name == "" {
					continue
				}
				probes = append(probes, probe{"prompts/get " + name, "prompts/get", map[string]any{"name": name, "arguments": c.RequiredPromptArgs(p)}})
			}
		}
		if c.Declared(s, "resources") {
			w := t.WalkList(s, "resources/list")
			for _, r := range w.Items {
				if uri := c.ItemKey(r, "uri"); uri != "" {
					probes = append(probes, probe{"resources/read " + uri, "resources/read", map[string]any{"uri": uri}})
				}
			}
		}
		if len(probes) == 0 {
			t.NA("the server lists no prompt and no resource: nothing can answer input_required")
		}
		if len(probes) > maxProvoke {
			t.Note("%d prompts and resources; asked the first %d", len(probes), maxProvoke)
			probes = probes[:maxProvoke]
		}
		seen := 0
		for _, p := range probes {
			resp, err := t.TryCall(s, p.method, p.params, opts)
			if err != nil || !resp.IsResult() {
				continue // errors are the prompts and resources areas' concern
			}
			res := resp.Msg.ResultObject()
			if res == nil || c.ResultType(res) != "input_required" {
				continue
			}
			seen++
			for _, k := range []string{"ttlMs", "cacheScope"} {
				if raw, ok := res[k]; ok {
					t.Violation("an input_required result without ttlMs and cacheScope", fmt.Sprintf("%s: %s", k, c.Clip(raw)),
						"%s: the interim input_required result carries the caching hint %s", p.what, k)
				}
			}
		}
		if seen == 0 {
			t.NA("none of %d prompts/get and resources/read requests (from a client declaring elicitation, sampling and roots) was answered input_required", len(probes))
		}
	})
})

// checkTTL reports why ttlMs is not an integer ≥ 0 ("" when it is). A JSON
// number with a zero fraction (5.0) is an integer for JSON Schema.
func checkTTL(raw json.RawMessage) string {
	if raw == nil {
		return "ttlMs is missing"
	}
	var n json.Number
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if dec.Decode(&n) != nil {
		return "ttlMs is not a number"
	}
	f, err := strconv.ParseFloat(string(n), 64)
	switch {
	case err != nil || math.IsInf(f, 0):
		return "ttlMs is not a usable number"
	case f != math.Trunc(f):
		return "ttlMs is not an integer"
	case f < 0:
		return "ttlMs is negative"
	}
	return ""
}

// checkScope reports why cacheScope is not "public" or "private" ("" when
// it is).
func checkScope(raw json.RawMessage) string {
	if raw == nil {
		return "cacheScope is missing"
	}
	var s string
	if json.Unmarshal(raw, &s) != nil || (s != "public" && s != "private") {
		return `cacheScope is not "public" or "private"`
	}
	return ""
}
