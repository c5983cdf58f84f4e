// Package schemadiff compares two JSON Schemas by direction (issue 33, the
// contract gate): does every instance one schema accepts validate under
// the other? A tool's new input schema must accept everything its old one
// did (Contains(new, old)); its new output schema must produce nothing the
// old one did not allow (Contains(old, new)).
//
// Contains is sound: when it reports neither a finding nor an undecided
// point, containment holds (the property test proves it with a real
// validator as the oracle). Each finding names a way the inner schema
// escapes the outer one, at a JSON pointer; what the comparison does not
// model (a keyword it does not know, a pattern it cannot compare, anyOf it
// cannot decide) is Undecided, never silently passed.
//
// The model covers what tool schemas use: true/false schemas, type,
// enum/const, properties, required, additionalProperties,
// items, minItems/maxItems, the numeric bounds, minLength/maxLength,
// pattern, format, anyOf, allOf, and local $ref to #/$defs or
// #/definitions; an inner oneOf (compared as anyOf). Others (an outer oneOf, not, if/then/else, prefixItems,
// unevaluatedProperties, dependentRequired …) are Undecided in the outer
// schema and ignored in the inner one (which they only make smaller).
package schemadiff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
)

// Schema is a parsed schema: the keywords the comparison models. A nil
// field (or nil slice) is the keyword's absence.
type Schema struct {
	// Never: the false schema (nothing validates).
	Never bool
	// Types: the type keyword ("integer" kept apart from "number").
	Types []string
	// Enum: the allowed values, canonical JSON (const is an enum of one).
	Enum       []string
	Properties map[string]*Schema
	Required   []string
	// Additional: additionalProperties (nil: absent, any value).
	Additional *Schema
	Items      *Schema
	MinItems   *float64
	MaxItems   *float64
	Minimum    *float64
	Maximum    *float64
	ExclMin    *float64
	ExclMax    *float64
	MinLength  *float64
	MaxLength  *float64
	Pattern    *string
	Format     *string
	AnyOf      []*Schema
	AllOf      []*Schema
	// OneOf: its alternatives (exactly one must match). An outer oneOf is
	// undecided (it is also in Unknown); an inner one holds only
	// instances of one of its alternatives, so it is compared as anyOf.
	OneOf []*Schema
	// src is the schema's canonical JSON when it holds no $ref (two
	// schemas with the same src accept the same instances).
	src string
	// Unknown: keywords present that the comparison does not model (an
	// outer schema with any is undecided).
	Unknown []string
}

// ignored keywords constrain nothing (annotations and the schema's
// bookkeeping).
var ignored = map[string]bool{"$schema": true, "$id": true, "$comment": true, "$defs": true, "definitions": true,
	"title": true, "description": true, "default": true, "examples": true, "readOnly": true, "writeOnly": true, "deprecated": true}

// maxRefDepth bounds $ref expansion (a recursive schema is cut there, and
// the cut is Unknown).
const maxRefDepth = 16

// Parse reads a schema (its local $refs resolved against the document).
func Parse(raw json.RawMessage) (*Schema, error) {
	var doc any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("not JSON: %v", err)
	}
	return (&parser{root: doc}).parse(doc, 0)
}

// maxNodes bounds the schemas a Parse builds: each $ref is expanded where
// it is used, and a schema crafted for it (many references to "#" at each
// level) would otherwise grow without end. Past it a schema is Unknown.
const maxNodes = 10_000

// parser is one Parse: the document and the schemas built so far.
type parser struct {
	root  any
	nodes int
}

func (p *parser) parse(v any, depth int) (*Schema, error) {
	if p.nodes++; p.nodes > maxNodes {
		return &Schema{Unknown: []string{fmt.Sprintf("the schema past %d subschemas", maxNodes)}}, nil
	}
	switch t := v.(type) {
	case bool:
		return &Schema{Never: !t}, nil
	case map[string]any:
		return p.parseObject(t, depth)
	}
	return nil, fmt.Errorf("a schema is an object or a boolean, not %T", v)
}

func (p *parser) parseObject(obj map[string]any, depth int) (*Schema, error) {
	if ref, ok := obj["$ref"].(string); ok {
		if depth >= maxRefDepth {
			return &Schema{Unknown: []string{"$ref (recursive)"}}, nil
		}
		target, err := resolve(ref, p.root)
		if err != nil {
			return nil, err
		}
		s, err := p.parse(target, depth+1)
		if err != nil {
			return nil, err
		}
		if len(obj) > 1 {
			s.Unknown = append(s.Unknown, "$ref with siblings")
		}
		return s, nil
	}
	s := &Schema{}
	if c := canonical(obj); !strings.Contains(c, `"$ref"`) {
		s.src = c
	}
	var err error
	sub := func(v any) *Schema {
		if err != nil {
			return nil
		}
		var out *Schema
		out, err = p.parse(v, depth)
		return out
	}
	num := func(k string) *float64 {
		n, ok := obj[k].(json.Number)
		if !ok {
			s.Unknown = append(s.Unknown, k+" (not a number)")
			return nil
		}
		f, ferr := n.Float64()
		if ferr != nil || math.IsInf(f, 0) {
			s.Unknown = append(s.Unknown, k)
			return nil
		}
		return &f
	}
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		v := obj[k]
		switch {
		case ignored[k], strings.HasPrefix(k, "x-"): // x-: extensions (x-mcp-header) constrain nothing
		case k == "type":
			switch t := v.(type) {
			case string:
				s.Types = []string{t}
			case []any:
				s.Types = []string{}
				for _, x := range t {
					if str, ok := x.(string); ok {
						s.Types = append(s.Types, str)
					}
				}
			}
		case k == "enum":
			list, _ := v.([]any)
			s.Enum = []string{}
			for _, x := range list {
				s.Enum = append(s.Enum, canonical(x))
			}
		case k == "const":
			s.Enum = []string{canonical(v)}
		case k == "properties":
			props, _ := v.(map[string]any)
			s.Properties = map[string]*Schema{}
			for name, p := range props {
				s.Properties[name] = sub(p)
			}
		case k == "required":
			list, _ := v.([]any)
			for _, x := range list {
				if str, ok := x.(string); ok {
					s.Required = append(s.Required, str)
				}
			}
		case k == "additionalProperties":
			s.Additional = sub(v)
		case k == "items":
			if _, tuple := v.([]any); tuple { // draft-07's positional items
				s.Unknown = append(s.Unknown, "items (array form)")
				continue
			}
			s.Items = sub(v)
		case k == "minItems":
			s.MinItems = num(k)
		case k == "maxItems":
			s.MaxItems = num(k)
		case k == "minimum":
			s.Minimum = num(k)
		case k == "maximum":
			s.Maximum = num(k)
		case k == "exclusiveMinimum":
			s.ExclMin = num(k)
		case k == "exclusiveMaximum":
			s.ExclMax = num(k)
		case k == "minLength":
			s.MinLength = num(k)
		case k == "maxLength":
			s.MaxLength = num(k)
		case k == "pattern":
			p, _ := v.(string)
			s.Pattern = &p
		case k == "format":
			f, _ := v.(string)
			s.Format = &f
		case k == "anyOf", k == "allOf", k == "oneOf":
			list, _ := v.([]any)
			var parts []*Schema
			for _, x := range list {
				parts = append(parts, sub(x))
			}
			switch k {
			case "anyOf":
				s.AnyOf = parts
			case "allOf":
				s.AllOf = parts
			default:
				s.OneOf = parts
				s.Unknown = append(s.Unknown, k)
			}
		default:
			s.Unknown = append(s.Unknown, k)
		}
	}
	return s, err
}

// resolve finds a local reference ("#", "#/$defs/x", "#/definitions/x").
func resolve(ref string, root any) (any, error) {
	if ref == "#" {
		return root, nil
	}
	if !strings.HasPrefix(ref, "#/") {
		return nil, fmt.Errorf("$ref %q is not local to the document", ref)
	}
	cur := root
	for _, tok := range strings.Split(ref[2:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("$ref %q: no such location", ref)
		}
		if cur, ok = m[tok]; !ok {
			return nil, fmt.Errorf("$ref %q: no such location", ref)
		}
	}
	return cur, nil
}

// canonical is v as JSON with sorted keys, numbers as written.
func canonical(v any) string {
	b, _ := json.Marshal(v) // maps marshal with sorted keys; json.Number as written
	return string(b)
}

// Finding is one way the inner schema escapes the outer one (or, in
// Result.Undecided, a point the comparison could not decide).
type Finding struct {
	// Path is the JSON pointer, in the instance, of where it applies.
	Path string
	// Kind names the change: "type-narrowed", "enum-narrowed",
	// "required-added", "property-closed", "bound-tightened",
	// "pattern-added", "format-added", "rejects-all", "undecided".
	Kind   string
	Detail string
	// Property names the property of a "required-added" finding (at the
	// object's Path) and of a "property-closed" one (at Path's last
	// segment); "" otherwise.
	Property string
}

func (f Finding) String() string { return fmt.Sprintf("%s %s: %s", or(f.Path, "/"), f.Kind, f.Detail) }

func or(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// Result is what Contains found.
type Result struct {
	Findings  []Finding
	Undecided []Finding
}

// Contained reports whether containment was proven.
func (r Result) Contained() bool { return len(r.Findings) == 0 && len(r.Undecided) == 0 }
