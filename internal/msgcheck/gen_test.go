package msgcheck

import (
	"fmt"
	"sort"
	"strings"

	"pgregory.net/rapid"
)

// gen builds instances of an official schema definition by walking the
// schema document itself (read at test time), so the valid messages of the
// differential test do not come from the model under test. While it builds,
// it records mutation sites: single edits that each break one schema rule
// (drop a required member, wrong type, wrong const, bad enum, out of range,
// too many items, bad format). The test applies one and compares again.
type gen struct {
	t     *rapid.T
	o     *oracle
	sites []site
	defs  []string // definitions being generated, innermost last
}

type site struct {
	desc  string
	apply func()
}

const maxDepth = 5

func newGen(t *rapid.T, o *oracle) *gen { return &gen{t: t, o: o} }

func (g *gen) site(desc string, apply func()) {
	g.sites = append(g.sites, site{desc: desc, apply: apply})
}

// def generates an instance of a named definition.
func (g *gen) def(name string) any {
	var v any
	g.defInto(name, func(x any) { v = x })
	return v
}

// defInto generates an instance of a named definition into set, which
// mutations of the whole value call again.
func (g *gen) defInto(name string, set func(any)) {
	g.defs = append(g.defs, name)
	g.value(g.o.defs[name], "", 0, set)
	g.defs = g.defs[:len(g.defs)-1]
}

func refName(r string) string { return r[strings.LastIndexByte(r, '/')+1:] }

// value generates a value for schema s at path and hands it to set.
func (g *gen) value(s any, path string, depth int, set func(any)) {
	m, ok := s.(map[string]any)
	if !ok { // true, or a missing schema: anything goes
		set(g.anyJSON(depth))
		return
	}
	if r, ok := m["$ref"].(string); ok {
		name := refName(r)
		g.defs = append(g.defs, name)
		g.value(g.o.defs[name], path, depth, set)
		g.defs = g.defs[:len(g.defs)-1]
		return
	}
	if branches, ok := m["anyOf"].([]any); ok {
		i := g.choose(len(branches), depth, branches)
		g.value(branches[i], path, depth, set)
		return
	}
	if _, ok := m["allOf"]; ok {
		target := map[string]any{}
		set(target)
		g.fillPart(m, target, path, depth)
		return
	}
	if c, ok := m["const"]; ok {
		set(c)
		g.site("wrong const at "+path, func() { set(wrongConst(c)) })
		g.typeSite(m, path, set)
		return
	}
	if e, ok := m["enum"].([]any); ok {
		set(rapid.SampledFrom(e).Draw(g.t, "enum"))
		g.site("bad enum at "+path, func() { set("bogus-enum-value") })
		g.typeSite(m, path, set)
		return
	}
	switch g.pickType(m) {
	case "object":
		obj := map[string]any{}
		set(obj)
		g.fillObject(m, obj, path, depth)
	case "array":
		g.array(m, path, depth, set)
	case "string":
		set(g.str(m, path, set))
	case "integer":
		set(g.integer(m, path, set))
	case "number":
		set(g.number(m, path, set))
	case "boolean":
		set(rapid.Bool().Draw(g.t, "bool"))
	case "null":
		set(nil)
	default:
		set(g.anyJSON(depth))
		return
	}
	g.typeSite(m, path, set)
}

// fillPart adds the members of an object schema (following $ref and allOf)
// to target: allOf of object shapes merges into one object.
func (g *gen) fillPart(s any, target map[string]any, path string, depth int) {
	m, ok := s.(map[string]any)
	if !ok {
		return
	}
	if r, ok := m["$ref"].(string); ok {
		name := refName(r)
		g.defs = append(g.defs, name)
		g.fillPart(g.o.defs[name], target, path, depth)
		g.defs = g.defs[:len(g.defs)-1]
		return
	}
	if parts, ok := m["allOf"].([]any); ok {
		for _, p := range parts {
			g.fillPart(p, target, path, depth)
		}
		return
	}
	g.fillObject(m, target, path, depth)
}

// choose picks an anyOf branch, preferring branches that do not recurse
// once deep.
func (g *gen) choose(n, depth int, branches []any) int {
	if depth >= maxDepth {
		for i, b := range branches {
			if bm, ok := b.(map[string]any); ok {
				if t, ok := bm["type"]; ok && t != "object" && t != "array" {
					return i
				}
			}
		}
	}
	return rapid.IntRange(0, n-1).Draw(g.t, "branch")
}

func (g *gen) pickType(m map[string]any) string {
	switch t := m["type"].(type) {
	case string:
		return t
	case []any:
		return rapid.SampledFrom(t).Draw(g.t, "type").(string)
	}
	if _, ok := m["properties"]; ok {
		return "object"
	}
	return ""
}

func (g *gen) inJSONValue() bool {
	for _, d := range g.defs {
		if d == "JSONValue" || d == "JSONObject" || d == "JSONArray" {
			return true
		}
	}
	return false
}

func (g *gen) currentDef() string {
	if len(g.defs) == 0 {
		return ""
	}
	return g.defs[len(g.defs)-1]
}

func (g *gen) fillObject(m map[string]any, obj map[string]any, path string, depth int) {
	props, _ := m["properties"].(map[string]any)
	required := map[string]bool{}
	if r, ok := m["required"].([]any); ok {
		for _, x := range r {
			required[x.(string)] = true
		}
	}
	names := make([]string, 0, len(props))
	for n := range props {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		if !required[name] && (depth >= maxDepth || !rapid.Bool().Draw(g.t, "include "+name)) {
			continue
		}
		name := name
		p := path + "/" + name
		if name == "resultType" {
			obj[name] = g.resultType()
			g.site("wrong type at "+p, func() { obj[name] = 7 })
		} else {
			g.value(props[name], p, depth+1, func(x any) { obj[name] = x })
		}
		if required[name] {
			g.site("drop required "+p, func() { delete(obj, name) })
		}
	}
	switch ap := m["additionalProperties"].(type) {
	case map[string]any:
		if len(ap) == 0 {
			g.extraMembers(obj, path, depth)
			break
		}
		if depth < maxDepth {
			n := rapid.IntRange(0, 2).Draw(g.t, "entries")
			for i := 0; i < n; i++ {
				k := rapid.SampledFrom(entryKeys).Draw(g.t, "key")
				if _, taken := obj[k]; taken {
					continue
				}
				g.value(ap, path+"/"+k, depth+1, func(x any) { obj[k] = x })
			}
		}
	case bool:
		if ap {
			g.extraMembers(obj, path, depth)
		}
	case nil:
		g.extraMembers(obj, path, depth)
	}
	if strings.HasSuffix(path, "/_meta") {
		g.metaKeys(obj)
	}
}

// entryKeys are keys for map-like objects (additionalProperties schemas).
var entryKeys = []string{"a", "b_c", "x-y", "com.example/setting", "io.modelcontextprotocol/ui"}

// metaKeysSample mixes valid and invalid _meta keys; the invalid ones break
// only the model-only key grammar rule.
var metaKeysSample = []string{"com.example/trace", "progress", "io.modelcontextprotocol/related", "bad key", "-lead", "9a.b/x", "a.b/"}

func (g *gen) metaKeys(obj map[string]any) {
	if !rapid.Bool().Draw(g.t, "meta keys") {
		return
	}
	k := rapid.SampledFrom(metaKeysSample).Draw(g.t, "meta key")
	if _, taken := obj[k]; !taken {
		obj[k] = "v"
	}
}

// extraMembers sometimes adds a member the schema does not name; open
// objects must accept it.
func (g *gen) extraMembers(obj map[string]any, path string, depth int) {
	if depth >= maxDepth || !rapid.Bool().Draw(g.t, "extra member") {
		return
	}
	if _, taken := obj["x-extra"]; !taken {
		obj["x-extra"] = g.anyJSON(depth + 1)
	}
}

func (g *gen) array(m map[string]any, path string, depth int, set func(any)) {
	maxItems := 2
	limit := -1
	if mi, ok := m["maxItems"]; ok {
		limit = toInt(mi)
	}
	n := 0
	if depth < maxDepth {
		n = rapid.IntRange(0, maxItems).Draw(g.t, "len")
	}
	a := make([]any, n)
	set(a)
	items := m["items"]
	for i := range a {
		i := i
		g.value(items, fmt.Sprintf("%s/%d", path, i), depth+1, func(x any) { a[i] = x })
	}
	if limit >= 0 {
		g.site("too many items at "+path, func() {
			b := make([]any, limit+1)
			for i := range b {
				if len(a) > 0 {
					b[i] = a[0]
				} else {
					b[i] = fmt.Sprintf("v%d", i)
				}
			}
			set(b)
		})
	}
}

var plainStrings = []string{"", "a", "hello world", "ünïcødé ✓", "x/y", "2.0", "get_weather"}

func (g *gen) str(m map[string]any, path string, set func(any)) string {
	switch m["format"] {
	case "uri":
		g.site("bad uri at "+path, func() { set("relative/path") })
		return rapid.SampledFrom([]string{"https://example.com/a", "file:///tmp/x.txt", "urn:example:1", "data:image/png;base64,AAAA"}).Draw(g.t, "uri")
	case "uri-template":
		g.site("bad uri-template at "+path, func() { set("file:///{a{b}}") })
		return rapid.SampledFrom([]string{"file:///{path}", "https://example.com/{id}/x", "users/{id}"}).Draw(g.t, "uritemplate")
	case "byte":
		// "not base64!" is schema-valid: only the model checks base64.
		g.site("bad base64 at "+path, func() { set("***") })
		return rapid.SampledFrom([]string{"", "QUJD", "aGVsbG8=", "iVBORw0KGgo=", "not base64!"}).Draw(g.t, "b64")
	}
	return rapid.SampledFrom(plainStrings).Draw(g.t, "string")
}

func (g *gen) resultType() string {
	if g.currentDef() == "InputRequiredResult" {
		return "input_required"
	}
	return rapid.SampledFrom([]string{"complete", "complete", "complete", "task", "other"}).Draw(g.t, "resultType")
}

func (g *gen) integer(m map[string]any, path string, set func(any)) any {
	if mn, ok := m["minimum"]; ok {
		lo := toInt(mn)
		g.site("below minimum at "+path, func() { set(lo - 1) })
		return rapid.SampledFrom([]int{lo, lo + 1, lo + 60000}).Draw(g.t, "int")
	}
	return rapid.SampledFrom([]int{-2, 0, 1, 42, 100000}).Draw(g.t, "int")
}

func (g *gen) number(m map[string]any, path string, set func(any)) any {
	_, hasMin := m["minimum"]
	_, hasMax := m["maximum"]
	if hasMin {
		lo := toFloat(m["minimum"])
		g.site("below minimum at "+path, func() { set(lo - 0.5) })
	}
	if hasMax {
		hi := toFloat(m["maximum"])
		g.site("above maximum at "+path, func() { set(hi + 0.5) })
	}
	if hasMin && hasMax {
		return rapid.SampledFrom([]float64{toFloat(m["minimum"]), toFloat(m["maximum"]), 0.25, 0.5}).Draw(g.t, "num")
	}
	return rapid.SampledFrom([]float64{0, 0.5, 1, 2.5, -1, 1e3}).Draw(g.t, "num")
}

// typeSite records "replace with a value of another JSON type".
func (g *gen) typeSite(m map[string]any, path string, set func(any)) {
	declared := map[string]bool{}
	switch t := m["type"].(type) {
	case string:
		declared[t] = true
	case []any:
		for _, x := range t {
			declared[x.(string)] = true
		}
	}
	if len(declared) == 0 {
		return
	}
	var options []any
	for _, cand := range []struct {
		t string
		v any
	}{{"null", nil}, {"boolean", true}, {"string", "s"}, {"integer", 3}, {"number", 2.5}, {"array", []any{}}, {"object", map[string]any{}}} {
		if declared[cand.t] || cand.t == "integer" && declared["number"] {
			continue
		}
		options = append(options, cand.v)
	}
	if g.inJSONValue() {
		// Finding: schema.json's JSONValue omits null and non-integer
		// numbers, which schema.ts allows; the model follows schema.ts.
		// TestOfficialJSONValueFinding pins the difference down.
		var kept []any
		for _, o := range options {
			if o != nil && o != 2.5 {
				kept = append(kept, o)
			}
		}
		options = kept
	}
	if len(options) == 0 {
		return
	}
	g.site("wrong type at "+path, func() {
		set(rapid.SampledFrom(options).Draw(g.t, "wrong type"))
	})
}

// anyJSON is a small arbitrary JSON value, for schemas that allow anything.
func (g *gen) anyJSON(depth int) any {
	choices := []any{nil, true, 1, 2.5, "s"}
	if depth < maxDepth {
		choices = append(choices, []any{"x", 1}, map[string]any{"k": "v", "n": 1.5})
	}
	return rapid.SampledFrom(choices).Draw(g.t, "json")
}

func wrongConst(c any) any {
	switch x := c.(type) {
	case string:
		return x + "-x"
	default:
		return -1
	}
}

func toInt(v any) int {
	switch x := v.(type) {
	case float64:
		return int(x)
	case int:
		return x
	case interface{ Int64() (int64, error) }:
		n, _ := x.Int64()
		return int(n)
	}
	return 0
}

func toFloat(v any) float64 {
	switch x := v.(type) {
	case float64:
		return x
	case int:
		return float64(x)
	case interface{ Float64() (float64, error) }:
		f, _ := x.Float64()
		return f
	}
	return 0
}
