package tools

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

func TestParamHeaders(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{
		"region":{"type":"string","x-mcp-header":"Region"},
		"count":{"type":"integer","x-mcp-header":"Count"},
		"dry":{"type":"boolean","x-mcp-header":"Dry"},
		"note":{"type":"string","x-mcp-header":"Note"},
		"gone":{"type":"string","x-mcp-header":"Gone"},
		"plain":{"type":"string"},
		"nested":{"type":"object","properties":{"tenant":{"type":"string","x-mcp-header":"Tenant"}}}}}`)
	h := paramHeaders(schema, map[string]any{
		"region": "east", "count": float64(42), "dry": false, "note": "café", "gone": nil, "plain": "x",
		"nested": map[string]any{"tenant": "acme"},
	})
	want := map[string]string{
		"Mcp-Param-Region": "east", "Mcp-Param-Count": "42", "Mcp-Param-Dry": "false",
		"Mcp-Param-Note": "=?base64?Y2Fmw6k=?=", "Mcp-Param-Tenant": "acme",
	}
	for k, v := range want {
		if got := h.Get(k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	if len(h) != len(want) {
		t.Errorf("headers %v, want exactly %v", h, want)
	}
}

func TestFindHeaders(t *testing.T) {
	var schema any
	_ = json.Unmarshal([]byte(`{"type":"object","properties":{
		"a":{"type":"string","x-mcp-header":"A"},
		"o":{"type":"object","properties":{"b":{"type":"integer","x-mcp-header":"B"}}},
		"l":{"type":"array","items":{"type":"string","x-mcp-header":"C"}},
		"e":{"type":"string","examples":[{"x-mcp-header":"NotASchema"}]}},
		"$defs":{"d":{"type":"string","x-mcp-header":"D"}}}`), &schema)
	var found []headerUse
	findHeaders(schema, "", true, 0, &found)
	got := map[string]bool{}
	for _, u := range found {
		got[u.value.(string)] = u.viaProperties
	}
	want := map[string]bool{"A": true, "B": true, "C": false, "D": false}
	if len(got) != len(want) {
		t.Fatalf("found %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: viaProperties %v, want %v", k, got[k], v)
		}
	}
	for s, bad := range map[string]bool{"Region": false, "X-Tenant_1.2~": false, "a b": true, "a:b": true, "ü": true} {
		if _, b := firstNonToken(s); b != bad {
			t.Errorf("firstNonToken(%q) bad=%v, want %v", s, b, bad)
		}
	}
}

func TestCompileSchema(t *testing.T) {
	if _, err := compileSchema(json.RawMessage(`{"type":"object","properties":{"q":{"type":"string","pattern":"^(?=a)"}},"x-mcp-header":1}`)); err != nil {
		t.Errorf("a valid schema (ECMA-only pattern, unknown keyword): %v", err)
	}
	_, err := compileSchema(json.RawMessage(`{"type":"object","properties":{"q":{"type":"text"}}}`))
	var sve *jsonschema.SchemaValidationError
	if !errors.As(err, &sve) {
		t.Errorf("an invalid type: %v, want a metaschema violation", err)
	}
	if _, err := compileSchema(json.RawMessage(`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","required":"q"}`)); err == nil {
		t.Errorf("draft-07 with required a string: no error")
	}
	if _, err := compileSchema(json.RawMessage(`{"type":"object","properties":{"q":{"$ref":"https://example.com/s.json"}}}`)); !externalRef(err) {
		t.Errorf("an external $ref: %v, want a load error", err)
	}
	for raw, want := range map[string]string{
		`{"$schema":"https://json-schema.org/draft/2020-12/schema"}`: "2020-12",
		`{"$schema":"http://json-schema.org/draft-07/schema#"}`:      "draft-07",
		`{"$schema":"https://example.com/my-dialect"}`:               "",
	} {
		if _, known, ok := declaredDialect(json.RawMessage(raw)); !ok || known != want {
			t.Errorf("declaredDialect(%s) = %q, %v; want %q", raw, known, ok, want)
		}
	}
	if _, _, ok := declaredDialect(json.RawMessage(`{"type":"object"}`)); ok {
		t.Errorf("no $schema reported as declared")
	}
	sch, _ := compileSchema(json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`))
	if validate(sch, map[string]any{"n": 3}) != nil || validate(sch, map[string]any{"n": "3"}) == nil || validate(sch, json.RawMessage(`{}`)) == nil {
		t.Errorf("instance validation is wrong")
	}
}

func TestFuzzCases(t *testing.T) {
	cd := candidate{
		tool: tool{Name: "t", Obj: map[string]json.RawMessage{"inputSchema": json.RawMessage(`{"type":"object","properties":{
			"q":{"type":"string"},"n":{"type":"integer"},"region":{"type":"string","x-mcp-header":"Region"}},"required":["q","region"]}`)}},
		Args: map[string]any{"q": "mcpconform", "region": "east"},
	}
	cases := fuzzCases(cd, true)
	if len(cases) != 5 {
		t.Fatalf("%d cases, want 5", len(cases))
	}
	for _, fc := range cases {
		if fc.args["region"] != "east" {
			t.Errorf("%s: the x-mcp-header property changed: %v", fc.what, fc.args["region"])
		}
	}
	if cases[0].args["q"] != 12345 || cases[0].args["n"] != "mcpconform-not-a-integer" {
		t.Errorf("wrong types: %v", cases[0].args)
	}
	if s, _ := cases[4].args["q"].(string); len(s) != hugeString {
		t.Errorf("huge case: %d bytes", len(s))
	}
	b, _ := json.Marshal(cases[3].args)
	if depth := strings.Count(string(b), "["); depth < nestDepth/2 {
		t.Errorf("nesting: %d arrays", depth)
	}
	noProps := candidate{tool: tool{Obj: map[string]json.RawMessage{"inputSchema": json.RawMessage(`{"type":"object"}`)}}, Args: map[string]any{}}
	if c := fuzzCases(noProps, false); len(c) != 4 || c[1].args["mcpconform_fuzz"] != traversal {
		t.Errorf("a tool without properties: %v", c)
	}
}

func TestSmallHelpers(t *testing.T) {
	for s, ok := range map[string]bool{"AAAA": true, "AA==": true, "AA": true, "AA\n==": false, "%%": false, "A-_A": false} {
		if got := base64Problem(s) == ""; got != ok {
			t.Errorf("base64Problem(%q) ok=%v, want %v", s, got, ok)
		}
	}
	p, ok := requiredTyped(json.RawMessage(`{"type":"object","properties":{"b":{"type":["integer","null"]},"a":{"type":"string","x-mcp-header":"A"}},"required":["a","b"]}`))
	if !ok || p.name != "b" || p.typ != "integer" {
		t.Errorf("requiredTyped = %v, %v", p, ok)
	}
	res := map[string]json.RawMessage{"content": json.RawMessage(`[{"type":"text","text":"{\"a\": 1.0, \"b\": [true]}"}]`)}
	if !hasMirror(res, json.RawMessage(`{"b":[true],"a":1}`)) || hasMirror(res, json.RawMessage(`{"a":2}`)) {
		t.Errorf("hasMirror is wrong")
	}
	if explains(map[string]json.RawMessage{"content": json.RawMessage(`[{"type":"text","text":"  "}]`)}) {
		t.Errorf("an empty text explains")
	}
}
