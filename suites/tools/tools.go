// Package tools checks tools/list and tools/call (TOOL): the tool
// catalog's shape and schemas, results of real calls (only tools the call
// policy allows, with arguments from --config or derived from the
// inputSchema), the error layers of malformed and schema-violating calls,
// and the server's robustness against fuzzed arguments.
package tools

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/mcpconform/mcpconform/internal/catalog"
	c "github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/jsonrpc"
)

var _ = c.Area("tools", func() {
	catalogChecks()
	callChecks()
	errorChecks()
	fuzzChecks()
})

var toolName = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)

func catalogChecks() {
	c.It("TOOL-001", "tools/list succeeds and every tool has a string name and an object inputSchema", func(t *c.T) {
		s := t.Shared()
		if !c.Declared(s, "tools") {
			t.NA("the server does not declare the tools capability (TOOL-002 checks the undeclared case)")
		}
		w := t.WalkList(s, "tools/list")
		if len(w.Pages) == 0 {
			// a well-formed error is an answer: the item rules judge the
			// tools of a successful list, and none came
			t.NoResult("tools/list (the server declares tools)", w.Failed)
		}
		if w.Failed != nil || len(w.Pages) == 0 {
			actual := w.Problem
			if w.Failed != nil {
				actual = w.Failed.Describe()
			}
			t.Violation("a tools/list result on every page", actual, "tools/list failed although the server declares tools (%s)", w.Problem)
		}
		if w.Problem != "" {
			t.Note("the walk stopped early (%s; the pagination checks judge it); judging the %d tools read", w.Problem, len(w.Items))
		}
		for i, p := range w.Pages {
			if raw := p.Result["tools"]; len(raw) == 0 || raw[0] != '[' {
				t.Note("page %d has no tools array (PAG-001 judges it)", i+1)
			}
		}
		var bad problems
		for i, tl := range parseTools(w.Items) {
			switch {
			case tl.Obj == nil:
				bad.add("tool #%d is not an object: %s", i+1, c.Clip(tl.Raw))
			case !c.IsString(tl.Obj["name"]):
				bad.add("tool #%d has no string name: %s", i+1, c.Clip(tl.Raw))
			case !c.IsObject(tl.schema("inputSchema")):
				got := "absent"
				if raw := tl.schema("inputSchema"); raw != nil {
					got = c.Clip(raw)
				}
				bad.add("tool %s: inputSchema is %s", tl.label(), got)
			}
			if len(bad) > 0 {
				if r := w.PageOf(i); r != nil {
					t.ModelClaim(r) // the first page with a bad tool
				}
			}
		}
		bad.report(t, `every tool: {"name": string, "inputSchema": object, …}`, "%d of %d listed tools lack a string name or an object inputSchema", len(bad), len(w.Items))
	})

	c.It("TOOL-002", "tools/list and tools/call get -32601 when tools is not declared", func(t *c.T) {
		s := t.Shared()
		if c.Declared(s, "tools") {
			t.NA("the server declares the tools capability (TOOL-001 checks tools/list)")
		}
		t.ClaimsUndeclared("tools")
		calls := []struct {
			method string
			params any
		}{
			{"tools/list", map[string]any{}},
			{"tools/call", callParams("mcpconform_probe", map[string]any{})},
		}
		for _, k := range calls {
			t.Step(k.method + " without the tools capability")
			resp := t.Call(s, k.method, k.params, nil)
			if resp.IsResult() {
				t.RefusedWith(resp, []int64{jsonrpc.CodeMethodNotFound}, "JSON-RPC error -32601 (method not found)", resp.Describe(),
					"%s was served although the server did not declare the tools capability", k.method)
			}
			t.ExpectErrorCode(k.method+" without the tools capability", resp, jsonrpc.CodeMethodNotFound)
			if t.Modern() {
				t.ExpectStatus(k.method+" without the tools capability", resp, http.StatusNotFound)
			}
		}
	})

	c.It("TOOL-003", "every inputSchema (and a 2025-06-18/2025-11-25 outputSchema) has type object at its root", func(t *c.T) {
		tools := listTools(t, t.Shared())
		checkOutput := t.Rev == catalog.R20250618 || t.Rev == catalog.R20251125
		var bad problems
		for _, tl := range tools {
			in := tl.schema("inputSchema")
			if c.IsObject(in) && !rootTypeObject(in) {
				bad.add("tool %s: inputSchema %s", tl.label(), c.Clip(in))
			}
			if out := tl.schema("outputSchema"); checkOutput && out != nil && !rootTypeObject(out) {
				bad.add("tool %s: outputSchema %s", tl.label(), c.Clip(out))
			}
		}
		expected := `inputSchema {"type": "object", …}`
		if checkOutput {
			expected += `; outputSchema, when present, {"type": "object", …}`
		}
		bad.report(t, expected, "%d tool schemas lack \"type\": \"object\" at their root", len(bad))
	})

	c.It("TOOL-004", "tool schemas are valid under their JSON Schema dialect", func(t *c.T) {
		tools := listTools(t, t.Shared())
		var bad problems
		checked := 0
		for _, tl := range tools {
			for _, member := range []string{"inputSchema", "outputSchema"} {
				raw := tl.schema(member)
				if raw == nil || (member == "inputSchema" && !c.IsObject(raw)) {
					continue // TOOL-001 judges a missing or non-object inputSchema
				}
				if declared, known, ok := declaredDialect(raw); ok && known == "" {
					t.Warn("tool %s: the %s declares $schema %q, a dialect this harness cannot check and clients may not support (known: 2020-12, 2019-09, draft-07, draft-06, draft-04)", tl.label(), member, declared)
					continue
				}
				checked++
				_, err := compileSchema(raw)
				switch {
				case err == nil:
				case externalRef(err):
					t.Note("tool %s: the %s refers to an external document that was not fetched (%s)", tl.label(), member, oneLine(err))
				default:
					bad.add("tool %s: %s: %s", tl.label(), member, oneLine(err))
				}
			}
		}
		if checked == 0 && len(bad) == 0 {
			t.Note("no schema could be checked")
		}
		bad.report(t, "every inputSchema and outputSchema valid against its metaschema ($schema, or 2020-12)", "%d tool schemas are not valid JSON Schema", len(bad))
	})

	c.It("TOOL-005", "tool names are 1-128 characters of [A-Za-z0-9_.-] and unique across pages", func(t *c.T) {
		tools := listTools(t, t.Shared())
		var bad problems
		seen := map[string]int{}
		for _, tl := range tools {
			if tl.Obj == nil || !c.IsString(tl.Obj["name"]) {
				continue // TOOL-001 judges a missing or non-string name
			}
			seen[tl.Name]++
			n := utf8.RuneCountInString(tl.Name)
			switch {
			case n == 0 || n > 128:
				bad.add("%q has %d characters", clipName(tl.Name), n)
			case !toolName.MatchString(tl.Name):
				bad.add("%q has characters outside [A-Za-z0-9_.-]", clipName(tl.Name))
			}
		}
		for _, name := range sortedKeys(seen) {
			if seen[name] > 1 {
				bad.add("%q is listed %d times", clipName(name), seen[name])
			}
		}
		bad.report(t, "unique names of 1-128 characters matching ^[A-Za-z0-9_.-]+$", "%d tool names break the naming rules", len(bad))
	})

	c.It("TOOL-013", "x-mcp-header annotations are non-empty unique tokens on string, integer or boolean properties", func(t *c.T) {
		tools := listTools(t, t.Shared())
		var bad problems
		uses := 0
		for _, tl := range tools {
			var schema any
			if json.Unmarshal(tl.schema("inputSchema"), &schema) != nil {
				continue
			}
			var found []headerUse
			findHeaders(schema, "", true, 0, &found)
			uses += len(found)
			seen := map[string]string{}
			for _, u := range found {
				at := "/" + strings.TrimPrefix(u.path, "/")
				if u.path == "" || !u.viaProperties {
					bad.add("tool %s: x-mcp-header at %s is not on a property reached through properties only", tl.label(), at)
					continue
				}
				name, ok := u.value.(string)
				if !ok || name == "" {
					bad.add("tool %s: x-mcp-header at %s is %s, not a non-empty string", tl.label(), at, jsonText(u.value))
					continue
				}
				if r, bad1 := firstNonToken(name); bad1 {
					bad.add("tool %s: x-mcp-header %q at %s has the character %q, not allowed in an HTTP token", tl.label(), name, at, r)
				}
				if prev, dup := seen[strings.ToLower(name)]; dup {
					bad.add("tool %s: x-mcp-header %q at %s repeats %q at %s (names are compared ignoring case)", tl.label(), name, at, name, prev)
				}
				seen[strings.ToLower(name)] = at
				switch typ := u.schema["type"].(type) {
				case string:
					if typ != "string" && typ != "integer" && typ != "boolean" {
						bad.add("tool %s: x-mcp-header %q is on a property of type %q (only string, integer or boolean)", tl.label(), name, typ)
					}
				case []any:
					if !nullablePrimitive(typ) {
						bad.add("tool %s: x-mcp-header %q is on a property of type %s (only string, integer or boolean)", tl.label(), name, jsonText(typ))
					} else {
						t.Warn("tool %s: x-mcp-header %q is on a property of type %s; the spec names single primitive types and clients may drop the tool", tl.label(), name, jsonText(typ))
					}
				default:
					bad.add("tool %s: x-mcp-header %q is on a property without a type (only string, integer or boolean)", tl.label(), name)
				}
			}
		}
		if uses == 0 && len(bad) == 0 {
			t.NA("no tool uses x-mcp-header")
		}
		bad.report(t, "each x-mcp-header: a non-empty token, unique ignoring case, on a string/integer/boolean property reached through properties only",
			"%d x-mcp-header annotations are invalid (HTTP clients must drop such tools)", len(bad))
	})
}

func rootTypeObject(raw json.RawMessage) bool {
	var o map[string]json.RawMessage
	return json.Unmarshal(raw, &o) == nil && string(o["type"]) == `"object"`
}

func clipName(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// headerUse is one x-mcp-header keyword in an inputSchema.
type headerUse struct {
	path          string // JSON pointer of the schema carrying it
	value         any
	schema        map[string]any
	viaProperties bool // reached from the root through properties keys only
}

// valueKeywords hold instance values, not subschemas.
var valueKeywords = map[string]bool{"enum": true, "const": true, "default": true, "examples": true, "x-mcp-header": true}

// findHeaders records every x-mcp-header in schema, wherever it is.
func findHeaders(schema any, path string, viaProps bool, depth int, out *[]headerUse) {
	if depth > 64 {
		return
	}
	switch v := schema.(type) {
	case map[string]any:
		if hv, ok := v["x-mcp-header"]; ok {
			*out = append(*out, headerUse{path: path, value: hv, schema: v, viaProperties: viaProps})
		}
		for _, k := range sortedKeys(v) {
			if valueKeywords[k] {
				continue
			}
			sub := v[k]
			if k == "properties" {
				if props, ok := sub.(map[string]any); ok {
					for _, name := range sortedKeys(props) {
						findHeaders(props[name], path+"/properties/"+escapePointer(name), viaProps, depth+1, out)
					}
				}
				continue
			}
			findHeaders(sub, path+"/"+escapePointer(k), false, depth+1, out)
		}
	case []any:
		for i, x := range v {
			findHeaders(x, fmt.Sprintf("%s/%d", path, i), false, depth+1, out)
		}
	}
}

func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// firstNonToken returns the first character that is not an RFC 9110 tchar.
func firstNonToken(s string) (rune, bool) {
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9', r >= 'A' && r <= 'Z', r >= 'a' && r <= 'z':
		case strings.ContainsRune("!#$%&'*+-.^_`|~", r):
		default:
			return r, true
		}
	}
	return 0, false
}

// nullablePrimitive reports a type array of one allowed primitive plus "null".
func nullablePrimitive(types []any) bool {
	prim := 0
	for _, x := range types {
		switch x {
		case "string", "integer", "boolean":
			prim++
		case "null":
		default:
			return false
		}
	}
	return prim == 1
}
