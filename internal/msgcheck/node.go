package msgcheck

import (
	"encoding/json"
	"fmt"
	"math/big"
	"sort"
	"strconv"
	"strings"
)

// The model is a tree of small typed nodes, written by hand per revision in
// model_*.go. Values are decoded with json.Decoder.UseNumber, so a node sees
// map[string]any, []any, string, json.Number, bool or nil.

type node interface {
	check(c *checker, v any, at loc)
}

// loc is where a value sits: its JSON pointer, and the rule id that problems
// found there carry. Entering a definition resets the rule to the definition's
// name; entering an object member appends ".member". A problem with the value
// as a whole (wrong type, not one of the enum) keeps the rule of the member
// that holds it, top, so a bad "level" reads loggingMessageNotification.params.level
// rather than loggingLevel.
type loc struct{ ptr, rule, top string }

func (l loc) field(name string) loc {
	return loc{ptr: l.ptr + "/" + escapePointer(name), rule: l.rule + "." + name}
}

func (l loc) index(i int) loc { return loc{ptr: l.ptr + "/" + strconv.Itoa(i), rule: l.rule} }

func (l loc) entry(k string) loc { return loc{ptr: l.ptr + "/" + escapePointer(k), rule: l.rule} }

// ruleHere is the rule for a problem with the value at l itself.
func (l loc) ruleHere() string {
	if l.top != "" {
		return l.top
	}
	return l.rule
}

func escapePointer(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// issue is a Problem plus whether its rule is one the official JSON Schemas
// can express (schema) or one only this model checks (semantic). anyOf needs
// the distinction: a branch that fails only semantic rules still "matches"
// as far as the schema is concerned, and is the branch worth reporting.
type issue struct {
	Problem
	semantic bool
}

type checker struct {
	m      *model
	issues []issue
}

func (c *checker) fail(at loc, format string, args ...any) {
	c.issues = append(c.issues, issue{Problem: Problem{Path: at.ptr, Rule: at.ruleHere(), Message: fmt.Sprintf(format, args...)}})
}

func (c *checker) failRule(at loc, rule, format string, args ...any) {
	c.issues = append(c.issues, issue{Problem: Problem{Path: at.ptr, Rule: rule, Message: fmt.Sprintf(format, args...)}})
}

// semantic records a problem with a rule the official schema cannot express.
func (c *checker) semantic(at loc, rule, format string, args ...any) {
	c.issues = append(c.issues, issue{Problem: Problem{Path: at.ptr, Rule: rule, Message: fmt.Sprintf(format, args...)}, semantic: true})
}

func (c *checker) sub() *checker { return &checker{m: c.m} }

// ---- JSON helpers ----

// JSONType is the JSON Schema type of a value decoded with json.Number
// ("integer" for 1, 1.0 and 1e2, exactly: not through a float).
func JSONType(v any) string { return jsonType(v) }

func jsonType(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case json.Number:
		if isInteger(x) {
			return "integer"
		}
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

func rat(n json.Number) (*big.Rat, bool) { return new(big.Rat).SetString(string(n)) }

// isInteger follows JSON Schema: 1, 1.0 and 1e2 are integers, 1.5 is not.
// A number of digits alone (the usual case: ids, counts, codes) is one
// without the big.Rat that a fraction or an exponent needs.
func isInteger(n json.Number) bool {
	digits := strings.TrimPrefix(string(n), "-")
	if digits != "" && strings.Trim(digits, "0123456789") == "" {
		return true
	}
	r, ok := rat(n)
	return ok && r.IsInt()
}

func ratOf(x int64) *big.Rat { return new(big.Rat).SetInt64(x) }

func ratStr(r *big.Rat) string {
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// ---- scalar nodes ----

type anyNode struct{}

func (anyNode) check(*checker, any, loc) {}

type boolNode struct{}

func (boolNode) check(c *checker, v any, at loc) {
	if _, ok := v.(bool); !ok {
		c.fail(at, "must be a boolean, got %s", jsonType(v))
	}
}

// strNode is a string, optionally with a const value, an enum, or a format.
type strNode struct {
	constV *string
	enum   []string
	format string // "uri", "uri-template", "byte"
}

func (n strNode) check(c *checker, v any, at loc) {
	s, ok := v.(string)
	if !ok {
		c.fail(at, "must be a string, got %s", jsonType(v))
		return
	}
	if n.constV != nil && s != *n.constV {
		c.fail(at, "must be %q, got %q", *n.constV, s)
		return
	}
	if n.enum != nil {
		found := false
		for _, e := range n.enum {
			if e == s {
				found = true
				break
			}
		}
		if !found {
			c.fail(at, "must be one of %s, got %q", quoteList(n.enum), s)
			return
		}
	}
	switch n.format {
	case "uri":
		if err := checkURI(s); err != nil {
			c.fail(at, "must be an absolute URI: %v", err)
		}
	case "uri-template":
		if err := checkURITemplate(s); err != nil {
			c.fail(at, "must be a URI template: %v", err)
		}
	case "byte":
		if err := CheckBase64(s); err != nil {
			c.semantic(at, RuleBase64, "must be base64 (RFC 4648): %v", err)
		}
	}
}

func quoteList(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = strconv.Quote(x)
	}
	return strings.Join(q, ", ")
}

// numNode is a JSON number or, with integer set, an integer; bounds inclusive.
type numNode struct {
	integer  bool
	min, max *big.Rat
	constV   *big.Rat
}

func (n numNode) check(c *checker, v any, at loc) {
	num, ok := v.(json.Number)
	if !ok {
		c.fail(at, "must be %s, got %s", n.kind(), jsonType(v))
		return
	}
	r, ok := rat(num)
	if !ok {
		c.fail(at, "must be %s, got %s", n.kind(), num)
		return
	}
	if n.integer && !r.IsInt() {
		c.fail(at, "must be an integer, got %s", num)
		return
	}
	if n.constV != nil && r.Cmp(n.constV) != 0 {
		c.fail(at, "must be %s, got %s", ratStr(n.constV), num)
		return
	}
	if n.min != nil && r.Cmp(n.min) < 0 {
		c.fail(at, "must be >= %s, got %s", ratStr(n.min), num)
	}
	if n.max != nil && r.Cmp(n.max) > 0 {
		c.fail(at, "must be <= %s, got %s", ratStr(n.max), num)
	}
}

func (n numNode) kind() string {
	if n.integer {
		return "an integer"
	}
	return "a number"
}

// typesNode accepts any of a few JSON types ("string", "integer", "boolean",
// "null", "number", "object", "array").
type typesNode []string

func (n typesNode) check(c *checker, v any, at loc) {
	t := jsonType(v)
	for _, want := range n {
		if want == t || (want == "number" && t == "integer") {
			return
		}
	}
	c.fail(at, "must be %s, got %s", strings.Join(n, " or "), t)
}

// ---- composite nodes ----

type arrNode struct {
	items    node
	maxItems int // 0: unbounded
}

func (n arrNode) check(c *checker, v any, at loc) {
	a, ok := v.([]any)
	if !ok {
		c.fail(at, "must be an array, got %s", jsonType(v))
		return
	}
	if n.maxItems > 0 && len(a) > n.maxItems {
		c.fail(at, "must have at most %d items, got %d", n.maxItems, len(a))
	}
	if n.items == nil {
		return
	}
	for i, x := range a {
		n.items.check(c, x, at.index(i))
	}
}

type prop struct {
	name string
	n    node
	req  bool
}

func req(name string, n node) prop { return prop{name: name, n: n, req: true} }
func opt(name string, n node) prop { return prop{name: name, n: n} }

// when keeps p only if cond holds; obj skips the zero prop.
func when(cond bool, p prop) prop {
	if cond {
		return p
	}
	return prop{}
}

// objCheck is a semantic rule over a whole object.
type objCheck func(c *checker, m map[string]any, at loc)

// objNode is a JSON object with known members. Members not listed are
// checked against extra when it is set, and accepted otherwise, as in the
// official schemas, none of which forbid additional properties.
type objNode struct {
	props  []prop
	extra  node
	checks []objCheck
}

func obj(ps ...prop) *objNode {
	o := &objNode{}
	for _, p := range ps {
		if p.name != "" {
			o.props = append(o.props, p)
		}
	}
	return o
}

// with returns a copy of o with more members (allOf of two object shapes).
func (o *objNode) with(ps ...prop) *objNode {
	n := &objNode{extra: o.extra, checks: append([]objCheck(nil), o.checks...)}
	n.props = append(n.props, o.props...)
	for _, p := range ps {
		if p.name == "" {
			continue
		}
		replaced := false
		for i := range n.props {
			if n.props[i].name == p.name {
				n.props[i] = p
				replaced = true
			}
		}
		if !replaced {
			n.props = append(n.props, p)
		}
	}
	return n
}

func (o *objNode) more(extra node) *objNode { o.extra = extra; return o }

func (o *objNode) also(f objCheck) *objNode { o.checks = append(o.checks, f); return o }

func (o *objNode) check(c *checker, v any, at loc) {
	m, ok := v.(map[string]any)
	if !ok {
		c.fail(at, "must be an object, got %s", jsonType(v))
		return
	}
	for _, p := range o.props {
		x, present := m[p.name]
		if !present {
			if p.req {
				where := at.field(p.name)
				if r, ok := p.n.(ruleNode); ok {
					where.rule = r.rule
				}
				c.fail(where, "missing required member %q", p.name)
			}
			continue
		}
		p.n.check(c, x, at.field(p.name))
	}
	if o.extra != nil {
		for _, k := range sortedKeys(m) {
			if o.has(k) {
				continue
			}
			o.extra.check(c, m[k], at.entry(k))
		}
	}
	for _, f := range o.checks {
		f(c, m, at)
	}
}

func (o *objNode) has(k string) bool {
	for _, p := range o.props {
		if p.name == k {
			return true
		}
	}
	return false
}

func sortedKeys(m map[string]any) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// mapOf is an object whose every member matches n.
func mapOf(n node) *objNode { return (&objNode{}).more(n) }

// anyOfNode matches if any branch matches. When none does, it reports the
// problems of the branch that came closest: one that fails only semantic
// rules first (the schema would accept it), else the one with the fewest
// schema-level problems, then the fewest problems.
type anyOfNode []node

func (n anyOfNode) check(c *checker, v any, at loc) {
	var best *checker
	for _, b := range n {
		s := c.sub()
		b.check(s, v, at)
		if len(s.issues) == 0 {
			return
		}
		if best == nil || s.closerThan(best) {
			best = s
		}
	}
	c.issues = append(c.issues, best.issues...)
}

func (c *checker) schemaIssues() int {
	n := 0
	for _, is := range c.issues {
		if !is.semantic {
			n++
		}
	}
	return n
}

func (c *checker) closerThan(o *checker) bool {
	if a, b := c.schemaIssues(), o.schemaIssues(); a != b {
		return a < b
	}
	return len(c.issues) < len(o.issues)
}

// unionNode is an anyOf whose branches each require a distinct const string
// in member key, so the member picks the branch (same verdict, clearer
// problems). dflt, if set, is the branch for an object without the member.
type unionNode struct {
	key   string
	cases map[string]node
	order []string
	dflt  node
}

func union(key string, pairs ...any) *unionNode {
	u := &unionNode{key: key, cases: map[string]node{}}
	for i := 0; i+1 < len(pairs); i += 2 {
		k := pairs[i].(string)
		if pairs[i+1] == nil {
			continue
		}
		u.cases[k] = pairs[i+1].(node)
		u.order = append(u.order, k)
	}
	return u
}

func (u *unionNode) check(c *checker, v any, at loc) {
	m, ok := v.(map[string]any)
	if !ok {
		c.fail(at, "must be an object, got %s", jsonType(v))
		return
	}
	d, present := m[u.key]
	if !present {
		if u.dflt != nil {
			u.dflt.check(c, v, at)
			return
		}
		c.fail(at.field(u.key), "missing required member %q (one of %s)", u.key, quoteList(u.order))
		return
	}
	s, ok := d.(string)
	if !ok {
		c.fail(at.field(u.key), "must be a string, got %s", jsonType(d))
		return
	}
	b, ok := u.cases[s]
	if !ok {
		c.fail(at.field(u.key), "must be one of %s, got %q", quoteList(u.order), s)
		return
	}
	b.check(c, v, at)
}

// refNode is a named definition of the checker's revision.
type refNode string

func (r refNode) check(c *checker, v any, at loc) {
	d := c.m.defs[string(r)]
	if d == nil {
		panic("msgcheck: undefined definition " + string(r) + " in " + c.m.rev.String())
	}
	d.check(c, v, loc{ptr: at.ptr, rule: ruleName(string(r)), top: at.ruleHere()})
}

// ruleNode gives a subtree a fixed rule id, for members that mean the same
// thing wherever they appear (resultType, ttlMs, _meta...).
type ruleNode struct {
	rule string
	n    node
}

func (r ruleNode) check(c *checker, v any, at loc) {
	r.n.check(c, v, loc{ptr: at.ptr, rule: r.rule})
}

// thenNode runs n, then a semantic check on the same value.
type thenNode struct {
	n node
	f func(c *checker, v any, at loc)
}

func (t thenNode) check(c *checker, v any, at loc) {
	t.n.check(c, v, at)
	t.f(c, v, at)
}

// ruleName turns a definition name into a rule prefix: CallToolResult →
// callToolResult, JSONRPCRequest → jsonrpcRequest.
func ruleName(def string) string {
	if r, ok := ruleOverrides[def]; ok {
		return r
	}
	i := 0
	for i < len(def) && def[i] >= 'A' && def[i] <= 'Z' {
		i++
	}
	switch {
	case i == 0:
		return def
	case i == 1 || i == len(def):
		return strings.ToLower(def[:i]) + def[i:]
	default:
		return strings.ToLower(def[:i-1]) + def[i-1:]
	}
}

var ruleOverrides = map[string]string{
	"JSONRPCMessage":                      "jsonrpc",
	"JSONRPCRequest":                      "jsonrpc",
	"JSONRPCNotification":                 "jsonrpc",
	"JSONRPCResponse":                     "jsonrpc",
	"JSONRPCResultResponse":               "jsonrpc",
	"JSONRPCErrorResponse":                "jsonrpc",
	"JSONRPCError":                        "jsonrpc",
	"JSONRPCBatchRequest":                 "jsonrpc",
	"JSONRPCBatchResponse":                "jsonrpc",
	"Result":                              "result",
	"EmptyResult":                         "result",
	"JSONValue":                           "json",
	"JSONObject":                          "json",
	"JSONArray":                           "json",
	"MetaObject":                          "meta",
	"RequestMetaObject":                   "meta",
	"ResultMetaObject":                    "meta",
	"NotificationMetaObject":              "meta",
	"SubscriptionsListenResultMetaObject": "meta",
}
