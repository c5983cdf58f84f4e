package schemadiff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"pgregory.net/rapid"

	"github.com/mcpconform/mcpconform/internal/toolschema"
)

func mustParse(t testing.TB, s string) *Schema {
	t.Helper()
	sch, err := Parse(json.RawMessage(s))
	if err != nil {
		t.Fatalf("Parse(%s): %v", s, err)
	}
	return sch
}

// kinds are the finding kinds of r, then "undecided" once when anything
// was undecided.
func kinds(r Result) []string {
	var out []string
	for _, f := range r.Findings {
		if !slices.Contains(out, f.Kind) {
			out = append(out, f.Kind)
		}
	}
	if len(r.Undecided) > 0 {
		out = append(out, "undecided")
	}
	slices.Sort(out)
	return out
}

// TestDirections: each change between an old and a new schema, judged as
// an input schema (the new one must accept every instance the old one
// did: Contains(new, old)) and as an output schema (the new one must
// produce nothing the old one did not allow: Contains(old, new)).
func TestDirections(t *testing.T) {
	obj := func(props, extra string) string {
		return `{"type":"object","properties":` + props + extra + `}`
	}
	ab := `{"a":{"type":"string"},"b":{"type":"integer"}}`
	for _, c := range []struct {
		name, old, new string
		input, output  []string // finding kinds (nil: contained)
	}{
		{"identical", obj(ab, `,"required":["a"]`), obj(ab, `,"required":["a"]`), nil, nil},
		{"required added", obj(ab, `,"required":["a"]`), obj(ab, `,"required":["a","b"]`), []string{"required-added"}, nil},
		{"required removed", obj(ab, `,"required":["a","b"]`), obj(ab, `,"required":["a"]`), nil, []string{"required-added"}},
		{"enum narrowed", `{"enum":["x","y","z"]}`, `{"enum":["x","y"]}`, []string{"enum-narrowed"}, nil},
		{"enum widened", `{"enum":["x"]}`, `{"enum":["x","y"]}`, nil, []string{"enum-narrowed"}},
		{"const to enum", `{"const":"x"}`, `{"enum":["x","y"]}`, nil, []string{"enum-narrowed"}},
		{"enum added", `{"type":"string"}`, `{"type":"string","enum":["x"]}`, []string{"enum-narrowed"}, nil},
		{"type narrowed", `{"type":["string","number"]}`, `{"type":"string"}`, []string{"type-narrowed"}, nil},
		{"integer to number", `{"type":"integer"}`, `{"type":"number"}`, nil, []string{"type-narrowed"}},
		{"maximum lowered", `{"type":"integer","maximum":10}`, `{"type":"integer","maximum":5}`, []string{"bound-tightened"}, nil},
		{"minimum added", `{"type":"number"}`, `{"type":"number","minimum":0}`, []string{"bound-tightened"}, nil},
		{"exclusive to inclusive", `{"type":"number","exclusiveMinimum":0}`, `{"type":"number","minimum":0}`, nil, []string{"bound-tightened"}},
		{"maxLength added", `{"type":"string"}`, `{"type":"string","maxLength":8}`, []string{"bound-tightened"}, nil},
		{"maxItems raised", `{"type":"array","maxItems":2}`, `{"type":"array","maxItems":4}`, nil, []string{"bound-tightened"}},
		{"pattern added", `{"type":"string"}`, `{"type":"string","pattern":"^a"}`, []string{"pattern-added"}, nil},
		{"format added", `{"type":"string"}`, `{"type":"string","format":"email"}`, []string{"format-added"}, nil},
		{"object closed", obj(ab, ``), obj(ab, `,"additionalProperties":false`), []string{"property-closed"}, nil},
		{"property removed from a closed object", obj(ab, `,"additionalProperties":false`), obj(`{"a":{"type":"string"}}`, `,"additionalProperties":false`), []string{"property-closed"}, nil},
		{"property removed from an open object", obj(ab, ``), obj(`{"a":{"type":"string"}}`, ``), nil, []string{"type-narrowed"}},
		{"property type narrowed", obj(`{"a":{"type":["string","null"]}}`, ``), obj(`{"a":{"type":"string"}}`, ``), []string{"type-narrowed"}, nil},
		{"items narrowed", `{"type":"array","items":{"type":["string","integer"]}}`, `{"type":"array","items":{"type":"string"}}`, []string{"type-narrowed"}, nil},
		{"local $ref, same schema", `{"$defs":{"s":{"type":"string","maxLength":3}},"type":"object","properties":{"a":{"$ref":"#/$defs/s"}}}`,
			`{"type":"object","properties":{"a":{"type":"string","maxLength":3}}}`, nil, nil},
		{"oneOf inner within", `{"oneOf":[{"type":"string"},{"type":"integer"}]}`, `{"type":["string","number"]}`, nil, []string{"undecided"}},
		{"oneOf outer undecided", `{"type":["string","number"]}`, `{"oneOf":[{"type":"string"},{"type":"integer"}]}`, []string{"undecided"}, nil},
		{"an alternative added", `{"type":"string"}`, `{"anyOf":[{"type":"string"},{"type":"integer"}]}`, nil, []string{"type-narrowed"}},
		{"a oneOf alternative added", `{"type":"string"}`, `{"oneOf":[{"type":"string"},{"type":"integer"}]}`, []string{"undecided"}, []string{"type-narrowed"}},
		{"an alternative added beside a constraint", `{"type":"string"}`, `{"maxLength":3,"anyOf":[{"type":"string"},{"type":"integer"}]}`, []string{"bound-tightened"}, []string{"undecided"}},
		{"draft-07 positional items", `{"type":"array"}`, `{"type":"array","items":[{"type":"string"}]}`, []string{"undecided"}, nil},
		{"anyOf inner within", `{"anyOf":[{"type":"string"},{"type":"integer"}]}`, `{"type":["string","number"]}`, nil, []string{"undecided"}},
		{"a keyword not modelled", `{"type":"string"}`, `{"type":"string","not":{"const":"x"}}`, []string{"undecided"}, nil},
		{"false schema", `{"type":"string"}`, `false`, []string{"rejects-all"}, nil},
		{"allOf part added", `{"type":"string"}`, `{"allOf":[{"type":"string"},{"maxLength":4}]}`, []string{"bound-tightened"}, nil},
		{"allOf as a whole", `{"allOf":[{"type":"object"},{"required":["a"]}]}`, `{"type":"object","required":["a"]}`, nil, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			old, new := mustParse(t, c.old), mustParse(t, c.new)
			if got := kinds(Contains(new, old)); !slices.Equal(got, c.input) {
				t.Errorf("as an input schema: %v, want %v (%v)", got, c.input, Contains(new, old))
			}
			if got := kinds(Contains(old, new)); !slices.Equal(got, c.output) {
				t.Errorf("as an output schema: %v, want %v (%v)", got, c.output, Contains(old, new))
			}
		})
	}
}

// genSchema draws a schema of the modelled keywords over a small domain
// (depth bounds nesting).
func genSchema(t *rapid.T, label string, depth int) map[string]any {
	s := map[string]any{}
	if rapid.Bool().Draw(t, label+"/typed") {
		types := rapid.SliceOfNDistinct(rapid.SampledFrom(allTypes), 1, 3, rapid.ID[string]).Draw(t, label+"/types")
		if len(types) == 1 {
			s["type"] = types[0]
		} else {
			s["type"] = types
		}
	}
	small := rapid.IntRange(-2, 3)
	for _, k := range []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"} {
		if rapid.IntRange(0, 4).Draw(t, label+"/has-"+k) == 0 {
			s[k] = small.Draw(t, label+"/"+k)
		}
	}
	for _, k := range []string{"minLength", "maxLength", "minItems", "maxItems"} {
		if rapid.IntRange(0, 4).Draw(t, label+"/has-"+k) == 0 {
			s[k] = rapid.IntRange(0, 3).Draw(t, label+"/"+k)
		}
	}
	if rapid.IntRange(0, 5).Draw(t, label+"/has-enum") == 0 {
		s["enum"] = rapid.SliceOfN(genValue(0), 1, 3).Draw(t, label+"/enum")
	}
	if rapid.IntRange(0, 6).Draw(t, label+"/has-pattern") == 0 {
		s["pattern"] = rapid.SampledFrom([]string{"^a", "b$", "^[ab]*$"}).Draw(t, label+"/pattern")
	}
	if depth > 0 {
		if rapid.IntRange(0, 2).Draw(t, label+"/has-props") == 0 {
			props := map[string]any{}
			for _, name := range []string{"a", "b"} {
				if rapid.Bool().Draw(t, label+"/has-"+name) {
					props[name] = genSchema(t, label+"/"+name, depth-1)
				}
			}
			s["properties"] = props
		}
		if rapid.IntRange(0, 3).Draw(t, label+"/has-required") == 0 {
			s["required"] = rapid.SliceOfNDistinct(rapid.SampledFrom([]string{"a", "b", "c"}), 1, 2, rapid.ID[string]).Draw(t, label+"/required")
		}
		if rapid.IntRange(0, 3).Draw(t, label+"/has-additional") == 0 {
			if rapid.Bool().Draw(t, label+"/additional-bool") {
				s["additionalProperties"] = rapid.Bool().Draw(t, label+"/additional")
			} else {
				s["additionalProperties"] = genSchema(t, label+"/additional", depth-1)
			}
		}
		if rapid.IntRange(0, 3).Draw(t, label+"/has-items") == 0 {
			s["items"] = genSchema(t, label+"/items", depth-1)
		}
		if rapid.IntRange(0, 6).Draw(t, label+"/has-anyOf") == 0 {
			s["anyOf"] = []any{genSchema(t, label+"/any0", depth-1), genSchema(t, label+"/any1", depth-1)}
		}
		if rapid.IntRange(0, 8).Draw(t, label+"/has-oneOf") == 0 {
			s["oneOf"] = []any{genSchema(t, label+"/one0", depth-1), genSchema(t, label+"/one1", depth-1)}
		}
		if rapid.IntRange(0, 6).Draw(t, label+"/has-allOf") == 0 {
			s["allOf"] = []any{genSchema(t, label+"/all0", depth-1), genSchema(t, label+"/all1", depth-1)}
		}
	}
	return s
}

// loosen drops some of s's keywords (a schema that often contains s).
func loosen(t *rapid.T, label string, s map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range s {
		if rapid.IntRange(0, 2).Draw(t, label+"/drop-"+k) == 0 {
			continue
		}
		if sub, ok := v.(map[string]any); ok && k != "properties" {
			v = loosen(t, label+"/"+k, sub)
		}
		out[k] = v
	}
	return out
}

// tighten adds one constraint to s, as a change that breaks an input
// schema does: a required property, or a lower maximum.
func tighten(t *rapid.T, label string, s map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range s {
		out[k] = v
	}
	switch rapid.SampledFrom([]string{"required", "maximum"}).Draw(t, label+"/tighten") {
	case "required":
		req, _ := out["required"].([]string)
		if name := rapid.SampledFrom([]string{"a", "b", "c"}).Draw(t, label+"/required-added"); !slices.Contains(req, name) {
			out["required"] = append(slices.Clone(req), name)
		}
	case "maximum":
		out["maximum"] = rapid.IntRange(-2, 3).Draw(t, label+"/maximum-set")
	}
	return out
}

// genValue draws an instance over the schemas' domain.
func genValue(depth int) *rapid.Generator[any] {
	return rapid.Custom(func(t *rapid.T) any {
		kinds := []string{"null", "bool", "int", "frac", "string"}
		if depth > 0 {
			kinds = append(kinds, "array", "object")
		}
		switch rapid.SampledFrom(kinds).Draw(t, "kind") {
		case "null":
			return nil
		case "bool":
			return rapid.Bool().Draw(t, "b")
		case "int":
			return rapid.IntRange(-3, 4).Draw(t, "i")
		case "frac":
			return rapid.SampledFrom([]float64{-1.5, 0.5, 2.5}).Draw(t, "f")
		case "string":
			return rapid.SampledFrom([]string{"", "a", "b", "ab", "ba", "abc", "é"}).Draw(t, "s")
		case "array":
			return rapid.SliceOfN(genValue(depth-1), 0, 3).Draw(t, "items")
		}
		m := map[string]any{}
		for _, k := range []string{"a", "b", "c"} {
			if rapid.Bool().Draw(t, "has-"+k) {
				m[k] = genValue(depth-1).Draw(t, k)
			}
		}
		return m
	})
}

// TestContainsIsSound: whenever Contains proves that outer contains inner,
// every instance the validator accepts under inner it accepts under outer
// (the validator, santhosh-tekuri/jsonschema, is the oracle).
func TestContainsIsSound(t *testing.T) {
	proven, checked := 0, 0
	defer func() { t.Logf("containment proven for %d of %d drawn pairs", proven, checked) }()
	rapid.Check(t, func(t *rapid.T) {
		checked++
		if bad, ok := counterexample(t); ok {
			proven++
			if bad != "" {
				t.Fatal(bad)
			}
		}
	})
}

// TestSoundnessCanFail: with a defect switched into the comparison (it
// ignores the outer schema's required, or its maximum), the property
// finds an instance that proves it wrong.
func TestSoundnessCanFail(t *testing.T) {
	for _, m := range []string{"required", "maximum"} {
		t.Run(m, func(t *testing.T) {
			mutation = m
			defer func() { mutation = "" }()
			found := ""
			// a run of checks misses it about one time in thirty: up to
			// ten runs (each with a seed of its own) until one finds it
			for range 10 {
				rapid.Check(t, func(t *rapid.T) {
					if bad, _ := counterexample(t); bad != "" && found == "" {
						found = bad
					}
				})
				if found != "" {
					break
				}
			}
			if found == "" {
				t.Errorf("mutation %q: no counterexample in the drawn pairs", m)
			} else {
				t.Logf("mutation %q caught: %s", m, found)
			}
		})
	}
}

// counterexample draws a pair of schemas and instances: proven reports
// whether Contains proved containment, bad describes an instance valid
// under the inner schema and not under the outer one ("" when none was
// drawn).
func counterexample(t *rapid.T) (bad string, proven bool) {
	inner := genSchema(t, "inner", 2)
	var outer map[string]any
	switch rapid.SampledFrom([]string{"loosened", "tightened", "drawn"}).Draw(t, "outer-from") {
	case "loosened":
		outer = loosen(t, "outer", inner)
	case "tightened":
		outer = tighten(t, "outer", loosen(t, "outer", inner))
	default:
		outer = genSchema(t, "outer", 2)
	}
	rawIn, _ := json.Marshal(inner)
	rawOut, _ := json.Marshal(outer)
	in, err1 := Parse(rawIn)
	out, err2 := Parse(rawOut)
	if err1 != nil || err2 != nil {
		t.Fatalf("Parse: %v, %v", err1, err2)
	}
	if !Contains(out, in).Contained() {
		return "", false
	}
	vin, err1 := toolschema.Compile(rawIn)
	vout, err2 := toolschema.Compile(rawOut)
	if err1 != nil || err2 != nil {
		t.Fatalf("a drawn schema the validator does not compile: %v, %v", err1, err2)
	}
	values := rapid.SliceOfN(genValue(2), 20, 20).Draw(t, "values")
	if e, ok := inner["enum"].([]any); ok {
		values = append(values, e...)
	}
	for _, v := range values {
		// through JSON, as the validator reads instances
		b, _ := json.Marshal(v)
		inst, err := jsonUnmarshal(b)
		if err != nil {
			t.Fatal(err)
		}
		if vin.Validate(inst) == nil && vout.Validate(inst) != nil {
			return fmt.Sprintf("Contains(%s, %s) proved containment, but %s is valid under the inner schema and not under the outer one", rawOut, rawIn, b), true
		}
	}
	return "", true
}

// jsonUnmarshal decodes an instance as the validator wants it (numbers
// as json.Number).
func jsonUnmarshal(b []byte) (any, error) { return jsonschema.UnmarshalJSON(bytes.NewReader(b)) }

// TestBoundedOnCraftedSchemas: a schema whose every property refers to
// the root again, and alternatives nested in alternatives, are parsed and
// compared within the bounds (maxNodes, maxSteps): undecided, not proven
// and not endless.
func TestBoundedOnCraftedSchemas(t *testing.T) {
	props := []string{}
	for _, n := range "abcdefghij" {
		props = append(props, `"`+string(n)+`":{"$ref":"#"}`)
	}
	refBomb := `{"type":"object","properties":{` + strings.Join(props, ",") + `}}`
	nest := func(leaf string) string {
		alt := leaf
		for range 6 { // 4^6 copies of the leaf; compared pairwise, far past maxSteps
			alt = `{"anyOf":[` + alt + `,` + alt + `,{"allOf":[` + alt + `,` + alt + `]}]}`
		}
		return alt
	}
	// the inner leaves differ from the outer ones: identical subschemas
	// are contained at once (src), these must be compared
	for name, pair := range map[string][2]string{"refs to the root": {refBomb, refBomb},
		"nested alternatives": {nest(`{"type":"string"}`), nest(`{"type":"string","minLength":1}`)}} {
		r := Contains(mustParse(t, pair[0]), mustParse(t, pair[1]))
		if r.Contained() {
			t.Errorf("%s: proven contained past the bounds", name)
		}
		t.Logf("%s: %d findings, %d undecided", name, len(r.Findings), len(r.Undecided))
	}
}
