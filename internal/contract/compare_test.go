package contract

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

const rev = "2025-11-25"

// file builds a contract of one section (JSON) for rev/default.
func file(t *testing.T, sec string) *File {
	t.Helper()
	v, err := decodeAny([]byte(sec))
	if err != nil {
		t.Fatalf("bad section %s: %v", sec, err)
	}
	return &File{Sections: map[string]map[string]map[string]any{rev: {"default": v.(map[string]any)}}}
}

// got lists the findings as RULE:LEVEL, sorted.
func got(fs []Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Rule+":"+f.Level)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func want(ids ...string) []string {
	slices.Sort(ids)
	return slices.Compact(ids)
}

// schemaCases: one schema change, and the rules it gives as a tool's
// input schema and as its output schema (the two directions).
var schemaCases = []struct {
	name     string
	old, new string
	in, out  []string
}{
	{"required added", `{"type":"object","properties":{"a":{"type":"string"}}}`, `{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`,
		[]string{"IN_REQUIRED_ADDED:ERR"}, []string{"OUT_TIGHTENED:INFO"}},
	{"required removed", `{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`, `{"type":"object","properties":{"a":{"type":"string"}}}`,
		[]string{"IN_LOOSENED:INFO"}, []string{"OUT_REQUIRED_REMOVED:ERR"}},
	{"new required property", `{"type":"object","properties":{"a":{"type":"string"}}}`, `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"}},"required":["b"]}`,
		[]string{"IN_REQUIRED_ADDED:ERR"}, []string{"OUT_TIGHTENED:INFO"}},
	{"optional property added to an open object", `{"type":"object","properties":{"a":{"type":"string"}}}`, `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"}}}`,
		[]string{"IN_PROPERTY_ADDED_OPEN:WARN"}, []string{"OUT_TIGHTENED:INFO"}},
	{"property moved into an alternative", `{"type":"object","properties":{"c":{"type":"object","properties":{"path":{"type":"string"},"position":{"type":"number"}},"additionalProperties":false}}}`,
		`{"type":"object","properties":{"c":{"anyOf":[{"type":"object","properties":{"path":{"type":"string"},"position":{"type":"number"}},"additionalProperties":false},{"type":"object","properties":{"path":{"type":"string"},"line":{"type":"number"}},"additionalProperties":false}]}}}`,
		[]string{"IN_LOOSENED:INFO"}, []string{"OUT_UNION_WIDENED:ERR"}},
	{"an alternative added to a closed output", `{"type":"object","properties":{"kind":{"enum":["audio","image"]}},"additionalProperties":false}`,
		`{"anyOf":[{"type":"object","properties":{"kind":{"enum":["audio","image"]}},"additionalProperties":false},{"type":"object","properties":{"kind":{"const":"resource"},"resource":{"type":"object"}},"additionalProperties":false}]}`,
		[]string{"IN_LOOSENED:INFO"}, []string{"OUT_UNION_WIDENED:ERR"}},
	{"safe-integer maximum set (zod 4)", `{"type":"integer","minimum":1}`, `{"type":"integer","minimum":1,"maximum":9007199254740991}`,
		[]string{"IN_BOUND_TIGHTENED:INFO"}, []string{"OUT_TIGHTENED:INFO"}},
	{"safe-integer maximum removed", `{"type":"integer","maximum":9007199254740991}`, `{"type":"integer"}`,
		[]string{"IN_LOOSENED:INFO"}, []string{"OUT_BOUND_LOOSENED:INFO"}},
	{"property description changed in whitespace only", `{"type":"object","properties":{"n":{"type":"integer","description":"count "}}}`, `{"type":"object","properties":{"n":{"type":"integer","description":"count"}}}`,
		[]string{"TOOL_DESCRIPTION_CHANGED:INFO"}, []string{"TOOL_DESCRIPTION_CHANGED:INFO"}},
	{"optional property added to a closed object", `{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false}`, `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"}},"additionalProperties":false}`,
		[]string{"IN_LOOSENED:INFO"}, []string{"OUT_PROPERTY_ADDED_CLOSED:ERR"}},
	{"property removed from an open object", `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"}}}`, `{"type":"object","properties":{"a":{"type":"string"}}}`,
		[]string{"IN_PROPERTY_REMOVED:WARN", "IN_LOOSENED:INFO"}, []string{"OUT_PROPERTY_REMOVED:WARN"}},
	{"property removed from a closed object", `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"}},"additionalProperties":false}`, `{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false}`,
		[]string{"IN_PROPERTY_REMOVED:ERR"}, []string{"OUT_PROPERTY_REMOVED:WARN", "OUT_TIGHTENED:INFO"}},
	{"required property removed", `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"}},"required":["b"]}`, `{"type":"object","properties":{"a":{"type":"string"}}}`,
		[]string{"IN_PROPERTY_REMOVED:WARN", "IN_LOOSENED:INFO"}, []string{"OUT_REQUIRED_REMOVED:ERR"}},
	{"object closed", `{"type":"object","properties":{"a":{"type":"string"}}}`, `{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false}`,
		[]string{"IN_OBJECT_CLOSED:ERR"}, []string{"OUT_TIGHTENED:INFO"}},
	{"object opened", `{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false}`, `{"type":"object","properties":{"a":{"type":"string"}}}`,
		[]string{"IN_LOOSENED:INFO"}, []string{"OUT_PROPERTY_ADDED_CLOSED:ERR"}},
	{"type narrowed", `{"type":["string","integer"]}`, `{"type":"string"}`, []string{"IN_TYPE_NARROWED:ERR"}, []string{"OUT_TIGHTENED:INFO"}},
	{"type widened", `{"type":"string"}`, `{"type":["string","null"]}`, []string{"IN_LOOSENED:INFO"}, []string{"OUT_TYPE_WIDENED:ERR"}},
	{"type changed", `{"type":"string"}`, `{"type":"integer"}`, []string{"IN_TYPE_NARROWED:ERR"}, []string{"OUT_TYPE_WIDENED:ERR"}},
	{"number to integer", `{"type":"number"}`, `{"type":"integer"}`, []string{"IN_TYPE_NARROWED:ERR"}, []string{"OUT_TIGHTENED:INFO"}},
	{"enum value removed", `{"type":"string","enum":["a","b"]}`, `{"type":"string","enum":["a"]}`, []string{"IN_ENUM_NARROWED:ERR"}, []string{"OUT_TIGHTENED:INFO"}},
	{"enum value added", `{"type":"string","enum":["a"]}`, `{"type":"string","enum":["a","b"]}`, []string{"IN_LOOSENED:INFO"}, []string{"OUT_ENUM_WIDENED:WARN"}},
	{"enum added", `{"type":"string"}`, `{"type":"string","enum":["a"]}`, []string{"IN_ENUM_NARROWED:ERR"}, []string{"OUT_TIGHTENED:INFO"}},
	{"const changed", `{"const":"a"}`, `{"const":"b"}`, []string{"IN_ENUM_NARROWED:ERR"}, []string{"OUT_ENUM_WIDENED:WARN"}},
	{"maximum lowered", `{"type":"integer","maximum":10}`, `{"type":"integer","maximum":5}`, []string{"IN_BOUND_TIGHTENED:ERR"}, []string{"OUT_TIGHTENED:INFO"}},
	{"maximum raised", `{"type":"integer","maximum":5}`, `{"type":"integer","maximum":10}`, []string{"IN_LOOSENED:INFO"}, []string{"OUT_BOUND_LOOSENED:ERR"}},
	{"minimum set", `{"type":"number"}`, `{"type":"number","minimum":0}`, []string{"IN_BOUND_TIGHTENED:ERR"}, []string{"OUT_TIGHTENED:INFO"}},
	{"minimum removed", `{"type":"number","minimum":0}`, `{"type":"number"}`, []string{"IN_LOOSENED:INFO"}, []string{"OUT_BOUND_LOOSENED:ERR"}},
	{"maxLength set", `{"type":"string"}`, `{"type":"string","maxLength":8}`, []string{"IN_BOUND_TIGHTENED:ERR"}, []string{"OUT_TIGHTENED:INFO"}},
	{"minLength lowered", `{"type":"string","minLength":3}`, `{"type":"string","minLength":1}`, []string{"IN_LOOSENED:INFO"}, []string{"OUT_BOUND_LOOSENED:ERR"}},
	{"maxItems lowered", `{"type":"array","maxItems":5}`, `{"type":"array","maxItems":2}`, []string{"IN_BOUND_TIGHTENED:ERR"}, []string{"OUT_TIGHTENED:INFO"}},
	{"exclusiveMinimum set", `{"type":"number"}`, `{"type":"number","exclusiveMinimum":0}`, []string{"IN_BOUND_TIGHTENED:ERR"}, []string{"OUT_TIGHTENED:INFO"}},
	{"pattern added", `{"type":"string"}`, `{"type":"string","pattern":"^a"}`, []string{"IN_PATTERN_TIGHTENED:ERR"}, []string{"OUT_TIGHTENED:INFO"}},
	{"pattern removed", `{"type":"string","pattern":"^a"}`, `{"type":"string"}`, []string{"IN_LOOSENED:INFO"}, []string{"OUT_BOUND_LOOSENED:ERR"}},
	{"pattern changed", `{"type":"string","pattern":"^a"}`, `{"type":"string","pattern":"^b"}`, []string{"IN_PATTERN_TIGHTENED:WARN"}, []string{"OUT_BOUND_LOOSENED:WARN"}},
	{"format added", `{"type":"string"}`, `{"type":"string","format":"email"}`, []string{"IN_FORMAT_CHANGED:WARN"}, []string{"OUT_TIGHTENED:INFO"}},
	{"format removed", `{"type":"string","format":"email"}`, `{"type":"string"}`, []string{"IN_LOOSENED:INFO"}, []string{"OUT_FORMAT_CHANGED:WARN"}},
	{"anyOf branch removed", `{"anyOf":[{"type":"string"},{"type":"integer"}]}`, `{"anyOf":[{"type":"string"}]}`, []string{"IN_UNION_NARROWED:ERR"}, []string{"OUT_TIGHTENED:INFO"}},
	{"anyOf branch added", `{"anyOf":[{"type":"string"}]}`, `{"anyOf":[{"type":"string"},{"type":"integer"}]}`, []string{"IN_LOOSENED:INFO"}, []string{"OUT_UNION_WIDENED:ERR"}},
	{"oneOf branch removed", `{"oneOf":[{"type":"string"},{"type":"integer"}]}`, `{"oneOf":[{"type":"string"}]}`, []string{"IN_UNION_NARROWED:ERR"}, []string{"OUT_UNDECIDED:WARN"}},
	{"allOf part added", `{"type":"string"}`, `{"type":"string","allOf":[{"maxLength":3}]}`, []string{"IN_UNION_NARROWED:ERR"}, []string{"OUT_TIGHTENED:INFO"}},
	{"anyOf branch removed but covered", `{"anyOf":[{"type":"integer"},{"type":"number"}]}`, `{"anyOf":[{"type":"number"}]}`, nil, nil},
	{"default changed", `{"type":"object","properties":{"n":{"type":"integer","default":10}}}`, `{"type":"object","properties":{"n":{"type":"integer","default":20}}}`, []string{"IN_DEFAULT_CHANGED:WARN"}, nil},
	{"default removed", `{"type":"object","properties":{"n":{"type":"integer","default":10}}}`, `{"type":"object","properties":{"n":{"type":"integer"}}}`, []string{"IN_DEFAULT_CHANGED:WARN"}, nil},
	{"property description changed", `{"type":"object","properties":{"n":{"type":"integer","description":"count"}}}`, `{"type":"object","properties":{"n":{"type":"integer","description":"how many"}}}`,
		[]string{"TOOL_DESCRIPTION_CHANGED:WARN"}, []string{"TOOL_DESCRIPTION_CHANGED:WARN"}},
	{"x-mcp-header removed", `{"type":"object","properties":{"o":{"type":"string","x-mcp-header":"owner"}}}`, `{"type":"object","properties":{"o":{"type":"string"}}}`, []string{"IN_HEADER_REMOVED:ERR"}, nil},
	{"oneOf branch added", `{"oneOf":[{"type":"string"}]}`, `{"oneOf":[{"type":"string"},{"type":"integer"}]}`, []string{"IN_UNDECIDED:WARN"}, []string{"OUT_UNION_WIDENED:ERR"}},
	{"x-mcp-header renamed", `{"type":"object","properties":{"o":{"type":"string","x-mcp-header":"owner"}}}`, `{"type":"object","properties":{"o":{"type":"string","x-mcp-header":"org"}}}`, []string{"IN_HEADER_REMOVED:ERR"}, nil},
	{"x-mcp-header added", `{"type":"object","properties":{"o":{"type":"string"}}}`, `{"type":"object","properties":{"o":{"type":"string","x-mcp-header":"owner"}}}`, []string{"IN_HEADER_ADDED:WARN"}, nil},
	{"dialect changed", `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"string"}`, `{"$schema":"http://json-schema.org/draft-07/schema#","type":"string"}`,
		[]string{"SCHEMA_DIALECT_CHANGED:WARN"}, []string{"SCHEMA_DIALECT_CHANGED:WARN"}},
	{"nested property type narrowed", `{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":["string","null"]}}}}}`, `{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"string"}}}}}`,
		[]string{"IN_TYPE_NARROWED:ERR"}, []string{"OUT_TIGHTENED:INFO"}},
	{"items type widened", `{"type":"array","items":{"type":"string"}}`, `{"type":"array","items":{"type":["string","integer"]}}`, []string{"IN_LOOSENED:INFO"}, []string{"OUT_TYPE_WIDENED:ERR"}},
	{"same schema through a $ref", `{"type":"object","properties":{"a":{"type":"string"}}}`, `{"$defs":{"s":{"type":"string"}},"type":"object","properties":{"a":{"$ref":"#/$defs/s"}}}`, nil, nil},
	{"not added", `{"type":"string"}`, `{"type":"string","not":{"const":"x"}}`, []string{"IN_UNDECIDED:WARN"}, []string{"OUT_TIGHTENED:INFO"}},
	{"reordered, same set", `{"type":["string","null"],"enum":["a","b",null]}`, `{"enum":[null,"b","a"],"type":["null","string"]}`, nil, nil},
}

func toolSection(schemaKey, schema string) string {
	return fmt.Sprintf(`{"capabilities":{"tools":{}},"tools":{"t":{"annotations":{"readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false},"inputSchema":%s%s}}}`,
		map[bool]string{true: schema, false: `{"type":"object"}`}[schemaKey == "inputSchema"],
		map[bool]string{true: `,"outputSchema":` + schema, false: ""}[schemaKey == "outputSchema"])
}

// TestSchemaChangesByDirection: every schema change as a tool's input
// schema and as its output schema, each with the rule and level of its
// direction.
func TestSchemaChangesByDirection(t *testing.T) {
	for _, tc := range schemaCases {
		for _, d := range []struct {
			key  string
			want []string
		}{{"inputSchema", tc.in}, {"outputSchema", tc.out}} {
			t.Run(tc.name+"/"+d.key, func(t *testing.T) {
				fs := Compare(file(t, toolSection(d.key, tc.old)), file(t, toolSection(d.key, tc.new)))
				if g, w := got(fs), want(d.want...); !slices.Equal(g, w) {
					t.Errorf("got %v, want %v", g, w)
					for _, f := range fs {
						t.Logf("  %s", f)
					}
				}
			})
		}
	}
}

// surfaceCases: changes outside schemas.
var surfaceCases = []struct {
	name     string
	old, new string
	want     []string
}{
	{"tool removed", `{"capabilities":{"tools":{}},"tools":{"a":{"inputSchema":{"type":"object"}},"b":{"inputSchema":{"type":"object","properties":{"x":{"type":"string"}}}}}}`,
		`{"capabilities":{"tools":{}},"tools":{"a":{"inputSchema":{"type":"object"}}}}`, []string{"TOOL_NO_DELETE:ERR"}},
	{"tool added", `{"capabilities":{"tools":{}},"tools":{}}`, `{"capabilities":{"tools":{}},"tools":{"a":{"inputSchema":{"type":"object"}}}}`, []string{"TOOL_ADDED:INFO"}},
	{"tool renamed (heuristic)", `{"capabilities":{"tools":{}},"tools":{"get_issue":{"inputSchema":{"type":"object","properties":{"n":{"type":"integer"}}}}}}`,
		`{"capabilities":{"tools":{}},"tools":{"issue_read":{"inputSchema":{"type":"object","properties":{"n":{"type":"integer"}}}}}}`, []string{"TOOL_RENAMED:ERR"}},
	{"tool description changed", `{"capabilities":{"tools":{}},"tools":{"a":{"description":"adds","inputSchema":{"type":"object"}}}}`,
		`{"capabilities":{"tools":{}},"tools":{"a":{"description":"adds two numbers","inputSchema":{"type":"object"}}}}`, []string{"TOOL_DESCRIPTION_CHANGED:WARN"}},
	{"tool title changed", `{"capabilities":{"tools":{}},"tools":{"a":{"title":"Add","inputSchema":{"type":"object"}}}}`,
		`{"capabilities":{"tools":{}},"tools":{"a":{"title":"Sum","inputSchema":{"type":"object"}}}}`, []string{"TOOL_DESCRIPTION_CHANGED:WARN"}},
	{"output schema removed", `{"tools":{"a":{"inputSchema":{"type":"object"},"outputSchema":{"type":"object"}}}}`, `{"tools":{"a":{"inputSchema":{"type":"object"}}}}`, []string{"OUT_SCHEMA_REMOVED:ERR"}},
	{"output schema added", `{"tools":{"a":{"inputSchema":{"type":"object"}}}}`, `{"tools":{"a":{"inputSchema":{"type":"object"},"outputSchema":{"type":"object"}}}}`, []string{"OUT_SCHEMA_ADDED:INFO"}},
	{"task support required", `{"tools":{"a":{"execution":{"taskSupport":"optional"}}}}`, `{"tools":{"a":{"execution":{"taskSupport":"required"}}}}`, []string{"TOOL_TASK_SUPPORT_REQUIRED:ERR"}},
	{"_meta key removed", `{"tools":{"a":{"_meta":{"io.modelcontextprotocol/ui":{"resourceUri":"ui://a"}}}}}`, `{"tools":{"a":{}}}`, []string{"TOOL_META_CHANGED:WARN"}},
	{"_meta key changed", `{"tools":{"a":{"_meta":{"io.modelcontextprotocol/ui":{"resourceUri":"ui://a"}}}}}`, `{"tools":{"a":{"_meta":{"io.modelcontextprotocol/ui":{"resourceUri":"ui://b"}}}}}`, []string{"TOOL_META_CHANGED:WARN"}},
	{"icon origin changed", `{"tools":{"a":{"icons":[{"src":"https://a.example/i.png"}]}}}`, `{"tools":{"a":{"icons":[{"src":"https://cdn.example/i.png"}]}}}`, []string{"ICON_ORIGIN_CHANGED:WARN"}},
	{"server icon origin changed", `{"server":{"icons":[{"src":"https://a.example/i.png"}]}}`, `{"server":{"icons":[{"src":"data:image/png;sha256=00;bytes=3"}]}}`, []string{"ICON_ORIGIN_CHANGED:WARN"}},
	{"annotations.title changed", `{"tools":{"a":{"annotations":{"title":"Add"}}}}`, `{"tools":{"a":{"annotations":{"title":"Sum"}}}}`, []string{"TOOL_DESCRIPTION_CHANGED:WARN"}},
	{"description changed in whitespace only", `{"tools":{"a":{"description":"Query tips: \n"}}}`, `{"tools":{"a":{"description":"Query tips:\n"}}}`, []string{"TOOL_DESCRIPTION_CHANGED:INFO"}},
	{"server title changed", `{"server":{"name":"a","title":"Everything"}}`, `{"server":{"name":"a","title":"Everything Server"}}`, []string{"SERVER_TEXT_CHANGED:WARN"}},
	{"icon re-encoded", `{"tools":{"a":{"icons":[{"src":"https://a.example/i.png"}]}}}`, `{"tools":{"a":{"icons":[{"src":"https://a.example/j.png"}]}}}`, nil},
	{"readOnly revoked", ann(true, false, true, false), ann(false, false, true, false), []string{"ANN_READONLY_REVOKED:ERR"}},
	{"readOnly granted", ann(false, false, true, false), ann(true, false, true, false), []string{"ANN_READONLY_GRANTED:WARN"}},
	{"destructive granted", ann(false, false, true, false), ann(false, true, true, false), []string{"ANN_DESTRUCTIVE_GRANTED:ERR"}},
	{"destructive revoked", ann(false, true, true, false), ann(false, false, true, false), []string{"ANN_DESTRUCTIVE_REVOKED:WARN"}},
	{"idempotent revoked", ann(false, false, true, false), ann(false, false, false, false), []string{"ANN_IDEMPOTENT_REVOKED:ERR"}},
	{"idempotent granted", ann(false, false, false, false), ann(false, false, true, false), []string{"ANN_HINT_CHANGED:INFO"}},
	{"open world granted", ann(true, false, true, false), ann(true, false, true, true), []string{"ANN_OPEN_WORLD_GRANTED:WARN"}},
	{"open world revoked", ann(true, false, true, true), ann(true, false, true, false), []string{"ANN_HINT_CHANGED:INFO"}},
	{"destructive on a read-only tool", ann(true, false, true, false), ann(true, true, true, false), []string{"ANN_HINT_CHANGED:INFO"}},
	{"capability removed", `{"capabilities":{"tools":{},"prompts":{}}}`, `{"capabilities":{"tools":{}}}`, []string{"CAPABILITY_NO_DELETE:ERR"}},
	{"capability added", `{"capabilities":{"tools":{}}}`, `{"capabilities":{"tools":{},"logging":{}}}`, []string{"CAPABILITY_ADDED:INFO"}},
	{"listChanged revoked", `{"capabilities":{"tools":{"listChanged":true}}}`, `{"capabilities":{"tools":{}}}`, []string{"CAPABILITY_LIST_CHANGED_REVOKED:WARN"}},
	{"subscribe revoked", `{"capabilities":{"resources":{"subscribe":true}}}`, `{"capabilities":{"resources":{}}}`, []string{"CAPABILITY_SUBSCRIBE_REVOKED:ERR"}},
	{"extension removed", `{"capabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}`, `{"capabilities":{"extensions":{}}}`, []string{"CAPABILITY_NO_DELETE:ERR"}},
	{"extension settings changed", `{"capabilities":{"extensions":{"x.example/y":{"v":1}}}}`, `{"capabilities":{"extensions":{"x.example/y":{"v":2}}}}`, []string{"EXTENSION_SETTINGS_CHANGED:WARN"}},
	{"server renamed", `{"server":{"name":"a","version":"1"}}`, `{"server":{"name":"b","version":"1"}}`, []string{"SERVER_NAME_CHANGED:WARN"}},
	{"server version", `{"server":{"name":"a","version":"1"}}`, `{"server":{"name":"a","version":"2"}}`, []string{"SERVER_VERSION_CHANGED:INFO"}},
	{"instructions changed", `{"server":{"instructions":"use a"}}`, `{"server":{"instructions":"use b"}}`, []string{"INSTRUCTIONS_CHANGED:WARN"}},
	{"cacheScope widened", `{"cacheScope":{"tools/list":"private"}}`, `{"cacheScope":{"tools/list":"public"}}`, []string{"CACHE_SCOPE_WIDENED:WARN"}},
	{"cacheScope narrowed", `{"cacheScope":{"tools/list":"public"}}`, `{"cacheScope":{"tools/list":"private"}}`, nil},
	{"list incomplete: no removal judged", `{"tools":{"a":{}}}`, `{"tools":{},"incomplete":["tools/list"]}`, []string{"LIST_INCOMPLETE:WARN"}},
	{"prompt removed", `{"prompts":{"p":{}}}`, `{"prompts":{}}`, []string{"PROMPT_NO_DELETE:ERR"}},
	{"prompt added", `{"prompts":{}}`, `{"prompts":{"p":{}}}`, []string{"PROMPT_ADDED:INFO"}},
	{"prompt argument became required", `{"prompts":{"p":{"arguments":{"x":{"required":false}}}}}`, `{"prompts":{"p":{"arguments":{"x":{"required":true}}}}}`, []string{"PROMPT_ARG_REQUIRED_ADDED:ERR"}},
	{"prompt argument added, required", `{"prompts":{"p":{"arguments":{}}}}`, `{"prompts":{"p":{"arguments":{"x":{"required":true}}}}}`, []string{"PROMPT_ARG_REQUIRED_ADDED:ERR"}},
	{"prompt argument added, optional", `{"prompts":{"p":{"arguments":{}}}}`, `{"prompts":{"p":{"arguments":{"x":{"required":false}}}}}`, nil},
	{"prompt argument removed", `{"prompts":{"p":{"arguments":{"x":{"required":false}}}}}`, `{"prompts":{"p":{"arguments":{}}}}`, []string{"PROMPT_ARG_REMOVED:WARN"}},
	{"prompt description changed", `{"prompts":{"p":{"description":"a"}}}`, `{"prompts":{"p":{"description":"b"}}}`, []string{"PROMPT_DESCRIPTION_CHANGED:WARN"}},
	{"template removed", `{"resourceTemplates":{"r://{id}":{}}}`, `{"resourceTemplates":{}}`, []string{"TEMPLATE_NO_DELETE:ERR"}},
	{"template added", `{"resourceTemplates":{}}`, `{"resourceTemplates":{"r://{id}":{}}}`, []string{"TEMPLATE_ADDED:INFO"}},
	{"resource removed", `{"resources":{"r://a":{}}}`, `{"resources":{}}`, []string{"RESOURCE_NO_DELETE:WARN"}},
	{"resource added", `{"resources":{}}`, `{"resources":{"r://a":{}}}`, []string{"RESOURCE_ADDED:INFO"}},
	{"resource mime changed", `{"resources":{"r://a":{"mimeType":"text/plain"}}}`, `{"resources":{"r://a":{"mimeType":"application/json"}}}`, []string{"RESOURCE_MIME_CHANGED:WARN"}},
	{"template description changed", `{"resourceTemplates":{"r://{id}":{"description":"a"}}}`, `{"resourceTemplates":{"r://{id}":{"description":"b"}}}`, []string{"RESOURCE_DESCRIPTION_CHANGED:INFO"}},
	{"nothing changed", `{"tools":{"a":{"inputSchema":{"type":"object"}}}}`, `{"tools":{"a":{"inputSchema":{"type":"object"}}}}`, nil},
}

func ann(ro, de, id, ow bool) string {
	return fmt.Sprintf(`{"tools":{"a":{"annotations":{"readOnlyHint":%v,"destructiveHint":%v,"idempotentHint":%v,"openWorldHint":%v}}}}`, ro, de, id, ow)
}

func TestSurfaceChanges(t *testing.T) {
	for _, tc := range surfaceCases {
		t.Run(tc.name, func(t *testing.T) {
			fs := Compare(file(t, tc.old), file(t, tc.new))
			if g, w := got(fs), want(tc.want...); !slices.Equal(g, w) {
				t.Errorf("got %v, want %v", g, w)
				for _, f := range fs {
					t.Logf("  %s", f)
				}
			}
		})
	}
}

// TestEveryRuleIsExercised: each change rule (the lints aside, which
// their own tests cover) is given by at least one case above, and the
// cases number at least 80.
func TestEveryRuleIsExercised(t *testing.T) {
	seen := map[string]bool{}
	n := 0
	for _, tc := range schemaCases {
		n += 2
		for _, id := range append(slices.Clone(tc.in), tc.out...) {
			seen[strings.Split(id, ":")[0]] = true
		}
	}
	for _, tc := range surfaceCases {
		n++
		for _, id := range tc.want {
			seen[strings.Split(id, ":")[0]] = true
		}
	}
	for _, id := range []string{"REVISION_NO_DROP", "REVISION_ADDED", "PROFILE_MISSING"} { // TestRevisionsAndPolicy
		seen[id] = true
	}
	if n < 80 {
		t.Errorf("%d change cases, want at least 80", n)
	}
	for _, r := range Rules {
		if !strings.HasPrefix(r.ID, "LINT_") && !seen[r.ID] {
			t.Errorf("rule %s is exercised by no case", r.ID)
		}
	}
}

var _ = json.Marshal
