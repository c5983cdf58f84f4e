package schemadiff

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mcpconform/mcpconform/internal/msgcheck"
)

// mutation switches a defect into the comparison, for the test that
// proves the soundness property can fail ("" in every real use):
// "required" ignores the outer schema's required, "maximum" its maximum.
var mutation string

// allTypes are the JSON Schema types ("integer" is a kind of "number").
var allTypes = []string{"null", "boolean", "object", "array", "number", "integer", "string"}

// Contains reports how an instance valid under inner can be invalid under
// outer. Every constraint of outer is a conjunct; inner's constraints a
// comparison does not model only make inner smaller, so ignoring them
// keeps the answer sound, while outer's are Undecided.
func Contains(outer, inner *Schema) Result {
	return (&checker{}).result(outer, inner)
}

// tooComplex is the Undecided detail past maxSteps.
var tooComplex = fmt.Sprintf("the comparison stopped after %d steps (nested alternatives)", maxSteps)

// maxSteps bounds a comparison: nested anyOf and allOf on both sides
// compare alternatives pairwise, which a schema crafted for it can make
// explode. Past it every further step is Undecided.
const maxSteps = 100_000

// checker is one comparison: its steps so far, shared by the comparisons
// of alternatives it makes.
type checker struct{ steps int }

// result is a comparison of its own, within c's budget.
func (c *checker) result(outer, inner *Schema) Result {
	var r Result
	c.contains(&r, outer, inner, "")
	return r
}

// any is the schema that accepts everything.
var anySchema = &Schema{}

func (c *checker) contains(r *Result, outer, inner *Schema, path string) {
	if c.steps++; c.steps > maxSteps {
		if n := len(r.Undecided); n == 0 || r.Undecided[n-1].Detail != tooComplex {
			r.Undecided = append(r.Undecided, Finding{Path: path, Kind: "undecided", Detail: tooComplex})
		}
		return
	}
	if inner == nil {
		inner = anySchema
	}
	if outer == nil || inner.Never || outer.src != "" && outer.src == inner.src {
		return
	}
	if outer.Never {
		r.Findings = append(r.Findings, Finding{Path: path, Kind: "rejects-all", Detail: "the schema accepts nothing"})
		return
	}
	if len(outer.Unknown) > 0 {
		r.Undecided = append(r.Undecided, Finding{Path: path, Kind: "undecided", Detail: "keywords the comparison does not model: " + strings.Join(outer.Unknown, ", ")})
	}
	if outer.AllOf != nil {
		// every one of outer's parts must contain inner
		for _, part := range outer.AllOf {
			c.contains(r, part, inner, path)
		}
		rest := *outer
		rest.AllOf = nil
		c.contains(r, &rest, inner, path)
		return
	}
	if inner.AllOf != nil {
		// an instance of inner is valid under each of its parts: any one
		// part (or the rest) inside outer proves it
		merged := merge(inner)
		mergedR := c.result(outer, merged)
		if mergedR.Contained() || slices.ContainsFunc(inner.AllOf, func(p *Schema) bool { return c.result(outer, p).Contained() }) {
			return
		}
		undecided(r, mergedR, path, "with allOf: ")
		return
	}
	if inner.AnyOf == nil && inner.OneOf != nil {
		// an instance of a oneOf matches one of its alternatives
		alt := *inner
		alt.AnyOf, alt.OneOf = inner.OneOf, nil
		alt.Unknown = slices.DeleteFunc(slices.Clone(inner.Unknown), func(k string) bool { return k == "oneOf" })
		inner = &alt
	}
	if inner.AnyOf != nil {
		c.containsAnyOfInner(r, outer, inner, path)
		return
	}
	if outer.AnyOf != nil && !slices.ContainsFunc(outer.AnyOf, func(b *Schema) bool { return c.result(b, inner).Contained() }) {
		r.Undecided = append(r.Undecided, Finding{Path: path, Kind: "undecided", Detail: "anyOf: no one alternative of the schema is shown to accept every instance"})
	}
	if inner.Enum != nil {
		// the instances are among the listed values: each one is checked
		for _, v := range inner.Enum {
			if ok, why := accepts(outer, v); !ok {
				r.Findings = append(r.Findings, Finding{Path: path, Kind: "enum-narrowed", Detail: fmt.Sprintf("%s is no longer accepted (%s)", v, why)})
			} else if why != "" {
				r.Undecided = append(r.Undecided, Finding{Path: path, Kind: "undecided", Detail: fmt.Sprintf("%s: %s", v, why)})
			}
		}
		return
	}
	if outer.Enum != nil {
		r.Findings = append(r.Findings, Finding{Path: path, Kind: "enum-narrowed", Detail: "the values are now limited to " + strings.Join(outer.Enum, ", ")})
	}
	types := inner.Types
	if types == nil {
		types = allTypes
	}
	if outer.Types != nil {
		for _, t := range types {
			if !slices.Contains(outer.Types, t) && !(t == "integer" && slices.Contains(outer.Types, "number")) {
				r.Findings = append(r.Findings, Finding{Path: path, Kind: "type-narrowed", Detail: fmt.Sprintf("a %s is no longer accepted (type %s)", t, strings.Join(outer.Types, ", "))})
			}
		}
	}
	has := func(t ...string) bool {
		return slices.ContainsFunc(types, func(x string) bool { return slices.Contains(t, x) })
	}
	if has("number", "integer") {
		lowerBound(r, path, outer, inner)
		upperBound(r, path, outer, inner)
	}
	if has("string") {
		atLeast(r, path, "minLength", outer.MinLength, inner.MinLength)
		atMost(r, path, "maxLength", outer.MaxLength, inner.MaxLength)
		if outer.Pattern != nil && (inner.Pattern == nil || *inner.Pattern != *outer.Pattern) {
			r.Findings = append(r.Findings, Finding{Path: path, Kind: "pattern-added", Detail: "strings must now match " + *outer.Pattern})
		}
		if outer.Format != nil && (inner.Format == nil || *inner.Format != *outer.Format) {
			r.Findings = append(r.Findings, Finding{Path: path, Kind: "format-added", Detail: "strings must now be " + *outer.Format})
		}
	}
	if has("array") {
		atLeast(r, path, "minItems", outer.MinItems, inner.MinItems)
		atMost(r, path, "maxItems", outer.MaxItems, inner.MaxItems)
		if outer.Items != nil {
			c.contains(r, outer.Items, inner.Items, path+"/*")
		}
	}
	if has("object") {
		c.containsObject(r, outer, inner, path)
	}
}

// merge folds an inner schema's allOf parts into one schema that holds
// every instance of it: required and types are combined exactly (union,
// intersection), every other keyword is taken from the first of the
// schema and its parts that has it. Dropping a constraint of an inner
// schema only makes it larger, so a containment proven for the merge
// holds for the schema.
func merge(s *Schema) *Schema {
	m := *s
	m.AllOf = nil
	for _, p := range s.AllOf {
		if p == nil {
			continue
		}
		if p.AllOf != nil {
			p = merge(p)
		}
		m.Never = m.Never || p.Never
		for _, name := range p.Required {
			if !slices.Contains(m.Required, name) {
				m.Required = append(slices.Clone(m.Required), name)
			}
		}
		switch {
		case m.Types == nil:
			m.Types = p.Types
		case p.Types != nil:
			var both []string
			for _, t := range m.Types {
				if slices.Contains(p.Types, t) || t == "integer" && slices.Contains(p.Types, "number") {
					both = append(both, t)
				} else if t == "number" && slices.Contains(p.Types, "integer") {
					both = append(both, "integer")
				}
			}
			m.Types = both
		}
		if m.Properties == nil {
			m.Properties = p.Properties
		} else if p.Properties != nil {
			props := map[string]*Schema{}
			for k, v := range p.Properties {
				props[k] = v
			}
			for k, v := range m.Properties {
				props[k] = v // the first one's, where both have it
			}
			m.Properties = props
		}
		first := func(a, b **float64) {
			if *a == nil {
				*a = *b
			}
		}
		first(&m.Minimum, &p.Minimum)
		first(&m.Maximum, &p.Maximum)
		first(&m.ExclMin, &p.ExclMin)
		first(&m.ExclMax, &p.ExclMax)
		first(&m.MinLength, &p.MinLength)
		first(&m.MaxLength, &p.MaxLength)
		first(&m.MinItems, &p.MinItems)
		first(&m.MaxItems, &p.MaxItems)
		if m.Enum == nil {
			m.Enum = p.Enum
		}
		if m.Additional == nil {
			m.Additional = p.Additional
		}
		if m.Items == nil {
			m.Items = p.Items
		}
		if m.Pattern == nil {
			m.Pattern = p.Pattern
		}
		if m.Format == nil {
			m.Format = p.Format
		}
		if m.AnyOf == nil {
			m.AnyOf = p.AnyOf
		}
	}
	return &m
}

// containsAnyOfInner: an instance of inner is valid under inner's other
// keywords and under one of its alternatives, so either proves it.
func (c *checker) containsAnyOfInner(r *Result, outer, inner *Schema, path string) {
	rest := *inner
	rest.AnyOf = nil
	restR := c.result(outer, &rest)
	if restR.Contained() {
		return
	}
	all := true
	var alts []Result
	for _, b := range inner.AnyOf {
		br := c.result(outer, b)
		alts = append(alts, br)
		all = all && br.Contained()
	}
	if all {
		return
	}
	if rest.empty() {
		// the alternatives alone are inner: an instance of one that
		// escapes outer is an instance of inner that does
		for _, br := range alts {
			r.Findings = append(r.Findings, at(path, br.Findings)...)
			r.Undecided = append(r.Undecided, at(path, br.Undecided)...)
		}
		return
	}
	// neither alone proves it: what the rest found may hold for no
	// instance of an alternative, so it is undecided
	undecided(r, restR, path, "with anyOf: ")
}

// empty reports whether s has no keyword the comparison models or not
// (it accepts every instance).
func (s *Schema) empty() bool {
	return !s.Never && s.Types == nil && s.Enum == nil && s.Properties == nil && s.Required == nil && s.Additional == nil &&
		s.Items == nil && s.MinItems == nil && s.MaxItems == nil && s.Minimum == nil && s.Maximum == nil && s.ExclMin == nil &&
		s.ExclMax == nil && s.MinLength == nil && s.MaxLength == nil && s.Pattern == nil && s.Format == nil &&
		s.AnyOf == nil && s.AllOf == nil && s.OneOf == nil && len(s.Unknown) == 0
}

// undecided adds what sub (a comparison of the schemas at path) found to r
// as undecided (it may hold for no instance of the whole inner schema).
func undecided(r *Result, sub Result, path, prefix string) {
	for _, f := range at(path, append(sub.Findings, sub.Undecided...)) {
		f.Detail = prefix + f.Detail
		f.Kind = "undecided"
		r.Undecided = append(r.Undecided, f)
	}
}

// at rebases the findings of a comparison of the schemas at path (their
// paths start at the compared schemas) onto path.
func at(path string, fs []Finding) []Finding {
	out := make([]Finding, len(fs))
	for i, f := range fs {
		f.Path = path + f.Path
		out[i] = f
	}
	return out
}

func (c *checker) containsObject(r *Result, outer, inner *Schema, path string) {
	for _, name := range outer.Required {
		if !slices.Contains(inner.Required, name) && mutation != "required" {
			r.Findings = append(r.Findings, Finding{Path: path, Kind: "required-added", Detail: fmt.Sprintf("property %q is now required", name), Property: name})
		}
	}
	// innerOf is what inner allows as the value of a property name (nil:
	// the property never occurs)
	innerOf := func(name string) *Schema {
		if p, ok := inner.Properties[name]; ok {
			return p
		}
		if inner.Additional != nil {
			if inner.Additional.Never {
				return nil
			}
			return inner.Additional
		}
		return anySchema
	}
	for _, name := range slices.Sorted(maps.Keys(outer.Properties)) {
		if p := innerOf(name); p != nil {
			c.contains(r, outer.Properties[name], p, path+"/"+escape(name))
		}
	}
	if outer.Additional == nil {
		return
	}
	for _, name := range slices.Sorted(maps.Keys(inner.Properties)) {
		if _, ok := outer.Properties[name]; !ok {
			sub := len(r.Findings)
			c.contains(r, outer.Additional, inner.Properties[name], path+"/"+escape(name))
			closed(r, sub, name)
		}
	}
	if inner.Additional == nil || !inner.Additional.Never {
		sub := len(r.Findings)
		c.contains(r, outer.Additional, inner.Additional, path+"/*")
		closed(r, sub, "")
	}
}

// closed renames a rejects-all finding from additionalProperties: false.
func closed(r *Result, from int, name string) {
	for i := from; i < len(r.Findings); i++ {
		if r.Findings[i].Kind == "rejects-all" {
			r.Findings[i].Kind = "property-closed"
			if name != "" {
				r.Findings[i].Detail = fmt.Sprintf("property %q is no longer allowed", name)
				r.Findings[i].Property = name
			} else {
				r.Findings[i].Detail = "properties not listed are no longer allowed"
			}
		}
	}
}

func escape(name string) string {
	return strings.ReplaceAll(strings.ReplaceAll(name, "~", "~0"), "/", "~1")
}

// lowerBound: every number inner allows is at least outer's minimum and
// above its exclusive minimum.
func lowerBound(r *Result, path string, outer, inner *Schema) {
	lo, loExcl, ok := inner.lower()
	if outer.Minimum != nil && !(ok && lo >= *outer.Minimum) {
		r.Findings = append(r.Findings, Finding{Path: path, Kind: "bound-tightened", Detail: fmt.Sprintf("minimum %v", *outer.Minimum)})
	}
	if outer.ExclMin != nil && !(ok && (lo > *outer.ExclMin || loExcl && lo >= *outer.ExclMin)) {
		r.Findings = append(r.Findings, Finding{Path: path, Kind: "bound-tightened", Detail: fmt.Sprintf("exclusiveMinimum %v", *outer.ExclMin)})
	}
}

func upperBound(r *Result, path string, outer, inner *Schema) {
	hi, hiExcl, ok := inner.upper()
	if outer.Maximum != nil && !(ok && hi <= *outer.Maximum) && mutation != "maximum" {
		r.Findings = append(r.Findings, Finding{Path: path, Kind: "bound-tightened", Detail: fmt.Sprintf("maximum %v", *outer.Maximum)})
	}
	if outer.ExclMax != nil && !(ok && (hi < *outer.ExclMax || hiExcl && hi <= *outer.ExclMax)) {
		r.Findings = append(r.Findings, Finding{Path: path, Kind: "bound-tightened", Detail: fmt.Sprintf("exclusiveMaximum %v", *outer.ExclMax)})
	}
}

// lower is the schema's tightest lower bound (excl: exclusive).
func (s *Schema) lower() (v float64, excl, ok bool) {
	if s.Minimum != nil {
		v, ok = *s.Minimum, true
	}
	if s.ExclMin != nil && (!ok || *s.ExclMin >= v) {
		v, excl, ok = *s.ExclMin, true, true
	}
	return
}

func (s *Schema) upper() (v float64, excl, ok bool) {
	if s.Maximum != nil {
		v, ok = *s.Maximum, true
	}
	if s.ExclMax != nil && (!ok || *s.ExclMax <= v) {
		v, excl, ok = *s.ExclMax, true, true
	}
	return
}

func atLeast(r *Result, path, kw string, outer, inner *float64) {
	if outer != nil && *outer > 0 && (inner == nil || *inner < *outer) {
		r.Findings = append(r.Findings, Finding{Path: path, Kind: "bound-tightened", Detail: fmt.Sprintf("%s %v", kw, *outer)})
	}
}

func atMost(r *Result, path, kw string, outer, inner *float64) {
	if outer != nil && (inner == nil || *inner > *outer) {
		r.Findings = append(r.Findings, Finding{Path: path, Kind: "bound-tightened", Detail: fmt.Sprintf("%s %v", kw, *outer)})
	}
}

// accepts validates one value (canonical JSON) against s: ok false with
// why when s rejects it; ok true with a why when s has a keyword the
// check cannot apply (undecided).
func accepts(s *Schema, value string) (ok bool, why string) {
	if s == nil {
		return true, ""
	}
	if s.Never {
		return false, "the schema accepts nothing"
	}
	if len(s.Unknown) > 0 {
		return true, "keywords the comparison does not model: " + strings.Join(s.Unknown, ", ")
	}
	var v any
	dec := json.NewDecoder(strings.NewReader(value))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return true, "not JSON"
	}
	if s.Enum != nil && !slices.Contains(s.Enum, value) {
		return false, "not among " + strings.Join(s.Enum, ", ")
	}
	t := msgcheck.JSONType(v)
	if s.Types != nil && !slices.Contains(s.Types, t) && !(t == "integer" && slices.Contains(s.Types, "number")) {
		return false, "type " + strings.Join(s.Types, ", ")
	}
	undecided := ""
	for _, part := range s.AllOf {
		if ok, w := accepts(part, value); !ok {
			return false, "allOf: " + w
		} else if w != "" {
			undecided = w
		}
	}
	if s.AnyOf != nil {
		one := false
		for _, b := range s.AnyOf {
			ok, w := accepts(b, value)
			one = one || ok && w == ""
		}
		if !one {
			undecided = "anyOf: no alternative shown to accept it"
		}
	}
	switch x := v.(type) {
	case json.Number:
		f, _ := x.Float64()
		switch {
		case s.Minimum != nil && f < *s.Minimum, s.ExclMin != nil && f <= *s.ExclMin,
			s.Maximum != nil && f > *s.Maximum, s.ExclMax != nil && f >= *s.ExclMax:
			return false, "out of bounds"
		}
	case string:
		n := float64(utf8.RuneCountInString(x))
		if s.MinLength != nil && n < *s.MinLength || s.MaxLength != nil && n > *s.MaxLength {
			return false, "length out of bounds"
		}
		if s.Pattern != nil {
			re, err := regexp.Compile(*s.Pattern)
			switch {
			case err != nil:
				undecided = "pattern " + *s.Pattern + " (not a Go regular expression)"
			case !re.MatchString(x):
				return false, "does not match " + *s.Pattern
			}
		}
		if s.Format != nil {
			undecided = "format " + *s.Format
		}
	case []any:
		n := float64(len(x))
		if s.MinItems != nil && n < *s.MinItems || s.MaxItems != nil && n > *s.MaxItems {
			return false, "item count out of bounds"
		}
		for _, item := range x {
			if ok, w := accepts(s.Items, canonical(item)); !ok {
				return false, "an item: " + w
			} else if w != "" {
				undecided = w
			}
		}
	case map[string]any:
		for _, name := range s.Required {
			if _, ok := x[name]; !ok {
				return false, fmt.Sprintf("no property %q", name)
			}
		}
		for name, pv := range x {
			ps, listed := s.Properties[name]
			if !listed {
				ps = s.Additional
			}
			if ok, w := accepts(ps, canonical(pv)); !ok {
				return false, fmt.Sprintf("property %q: %s", name, w)
			} else if w != "" {
				undecided = w
			}
		}
	}
	return true, undecided
}
