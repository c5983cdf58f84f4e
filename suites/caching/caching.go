// Package caching holds the caching-hint checks of 2026-07-28 (CACHE-xxx):
// complete results carry ttlMs and cacheScope and interim ones do not
// (hints.go), and a result marked public is the same for every principal
// (CACHE-003).
package caching

import (
	"bytes"
	"encoding/json"
	"fmt"

	c "github.com/mcpconform/mcpconform/internal/conform"
)

var _ = c.Area("caching", func() {
	c.It("CACHE-003", "a result marked public is the same for every principal", func(t *c.T) {
		a := t.Shared()
		b := t.OpenSecond()
		compared := 0
		compare := func(what string, ra, rb map[string]json.RawMessage) {
			scopeA, scopeB := scope(ra), scope(rb)
			if scopeA != "public" && scopeB != "public" {
				return
			}
			compared++
			ca, cb := canonical(ra), canonical(rb)
			if !bytes.Equal(ca, cb) {
				t.Violation("a result marked public is byte-identical across principals apart from _meta (else it is marked private)",
					fmt.Sprintf("cacheScope %q / %q;\nfirst principal:  %s\nsecond principal: %s", scopeA, scopeB, c.Clip(ca), c.Clip(cb)),
					"%s differs between two principals but is marked public: a shared cache would serve one principal's result to the other", what)
			}
		}
		ra := t.ResultObject("server/discover (first principal)", t.Call(a, "server/discover", nil, nil))
		rb := t.ResultObject("server/discover (second principal)", t.Call(b, "server/discover", nil, nil))
		compare("server/discover", ra, rb)
		for _, k := range c.ListKinds {
			if !c.Declared(a, k.Capability) || !c.Declared(b, k.Capability) {
				continue
			}
			wa, wb := t.WalkList(a, k.Method), t.WalkList(b, k.Method)
			if !wa.Complete() || !wb.Complete() {
				t.Note("%s: a walk did not complete (%s%s); compared the pages both got", k.Method, wa.Problem, wb.Problem)
			}
			n := min(len(wa.Pages), len(wb.Pages))
			for i := 0; i < n; i++ {
				compare(fmt.Sprintf("%s page %d", k.Method, i+1), wa.Pages[i].Result, wb.Pages[i].Result)
			}
			if len(wa.Pages) != len(wb.Pages) && wa.Complete() && wb.Complete() {
				last := min(len(wa.Pages), len(wb.Pages)) - 1
				if last >= 0 && (scope(wa.Pages[last].Result) == "public" || scope(wb.Pages[last].Result) == "public") {
					t.Violation("the same pages for every principal when they are marked public",
						fmt.Sprintf("%d pages for the first principal, %d for the second", len(wa.Pages), len(wb.Pages)),
						"%s has a different number of pages for two principals but is marked public", k.Method)
				}
			}
		}
		t.Note("compared %d public result(s) across two principals", compared)
	})
})

func scope(r map[string]json.RawMessage) string {
	var s string
	_ = json.Unmarshal(r["cacheScope"], &s)
	return s
}

// canonical renders a result without its _meta, with object keys sorted
// (encoding/json sorts map keys), so that equal content compares equal.
func canonical(r map[string]json.RawMessage) []byte {
	m := map[string]any{}
	for k, v := range r {
		if k == "_meta" {
			continue
		}
		var x any
		if json.Unmarshal(v, &x) != nil {
			x = string(v)
		}
		m[k] = x
	}
	b, _ := json.Marshal(m)
	return b
}
