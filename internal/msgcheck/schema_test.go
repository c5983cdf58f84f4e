package msgcheck

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func writeSchema(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "schema.json")
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadSchemaDetectsDialectAndContainer(t *testing.T) {
	const body = `{"A":{"type":"object","required":["x"],"properties":{"x":{"type":"string","format":"uri"},"b":{"type":"string","format":"byte"}}}}`
	cases := []struct {
		name, file, dialect, container string
	}{
		{"draft-07", `{"$schema":"http://json-schema.org/draft-07/schema#","definitions":` + body + `}`, "draft-07", "definitions"},
		{"2020-12", `{"$schema":"https://json-schema.org/draft/2020-12/schema","$defs":` + body + `}`, "2020-12", "$defs"},
		{"no $schema", `{"$defs":` + body + `}`, "2020-12", "$defs"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v, err := LoadSchema(writeSchema(t, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			if v.Dialect() != tc.dialect || v.Container() != tc.container {
				t.Fatalf("dialect %s container %s, want %s %s", v.Dialect(), v.Container(), tc.dialect, tc.container)
			}
			if !slices.Equal(v.Definitions(), []string{"A"}) {
				t.Fatalf("definitions %v", v.Definitions())
			}
			if p := v.Validate("A", []byte(`{"x":"https://example.com","b":"QUJD"}`)); p != nil {
				t.Errorf("valid instance: %v", p)
			}
			if p := v.Validate("A", []byte(`{}`)); len(p) != 1 || p[0].Rule != "schema.required" {
				t.Errorf("missing member: %v", p)
			}
			// Formats are asserted whatever the dialect, byte as base64.
			if p := v.Validate("A", []byte(`{"x":"relative"}`)); len(p) != 1 || p[0].Rule != "schema.format" || p[0].Path != "/x" {
				t.Errorf("relative uri: %v", p)
			}
			if p := v.Validate("A", []byte(`{"x":"https://example.com","b":"***"}`)); len(p) != 1 || p[0].Rule != "schema.format" {
				t.Errorf("bad base64: %v", p)
			}
			if p := v.Validate("B", []byte(`{}`)); len(p) != 1 || p[0].Rule != "definition" {
				t.Errorf("unknown definition: %v", p)
			}
			if p := v.Validate("A", []byte(`{`)); len(p) != 1 || p[0].Rule != "json.syntax" {
				t.Errorf("bad JSON: %v", p)
			}
		})
	}
}

func TestLoadSchemaErrors(t *testing.T) {
	for name, content := range map[string]string{
		"not JSON":            `{`,
		"not an object":       `[]`,
		"no definitions":      `{"$schema":"http://json-schema.org/draft-07/schema#"}`,
		"unknown dialect":     `{"$schema":"https://example.com/my-dialect","$defs":{}}`,
		"broken definition":   `{"$defs":{"JSONRPCMessage":{"type":5}}}`,
		"remote $ref refused": `{"$defs":{"JSONRPCMessage":{"$ref":"https://example.com/x.json"}}}`,
	} {
		if _, err := LoadSchema(writeSchema(t, content)); err == nil {
			t.Errorf("%s: loaded", name)
		}
	}
	if _, err := LoadSchema(filepath.Join(t.TempDir(), "missing.json")); err == nil {
		t.Error("missing file loaded")
	}
}

func TestLoadSchemaOfficial(t *testing.T) {
	dir := schemaDir(t)
	want := map[string][2]string{
		v241105: {"draft-07", "definitions"},
		v250326: {"draft-07", "definitions"},
		v250618: {"draft-07", "definitions"},
		v251125: {"2020-12", "$defs"},
		v260728: {"2020-12", "$defs"},
	}
	for _, rev := range Revisions() {
		v, err := LoadSchema(filepath.Join(dir, rev, "schema.json"))
		if err != nil {
			t.Fatal(err)
		}
		if got := [2]string{v.Dialect(), v.Container()}; got != want[rev] {
			t.Errorf("%s: %v, want %v", rev, got, want[rev])
		}
		if len(v.Definitions()) != len(loadOracle(t, rev).defs) {
			t.Errorf("%s: %d definitions", rev, len(v.Definitions()))
		}
		// A message with a relative resource URI and bad base64 fails the
		// full validation in every revision.
		msg := `{"jsonrpc":"2.0","id":1,"result":{"contents":[{"uri":"x","blob":"***"}]}}`
		got := v.ValidateServerMessage([]byte(msg), "resources/read")
		if len(got) == 0 {
			t.Errorf("%s: bad resources/read result accepted", rev)
		}
		for _, p := range got {
			if !strings.HasPrefix(p.Path, "/result") {
				t.Errorf("%s: problem outside the result: %v", rev, p)
			}
		}
	}
}

func TestSchemaValidatorOnExamples(t *testing.T) {
	dir := filepath.Join(schemaDir(t), v260728)
	v, err := LoadSchema(filepath.Join(dir, "schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "examples", "*", "*.json"))
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if p := v.Validate(filepath.Base(filepath.Dir(f)), raw); p != nil {
			t.Errorf("%s: %v", f, p)
		}
	}
}

func TestSchemaValidatorServerMessage(t *testing.T) {
	v, err := LoadSchema(filepath.Join(schemaDir(t), v260728, "schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		method, msg string
		valid       bool
	}{
		{"tools/list", `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[],"ttlMs":0,"cacheScope":"public"}}`, true},
		{"tools/list", `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[]}}`, false},
		{"tools/call", `{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","requestState":"s"}}`, true},
		{"tools/call", `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete"}}`, false},
		{"", `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete"}}`, true},
		{"", `{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"m"}}`, false},
		{"", `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"loud","data":1}}`, false},
		{"", `{"jsonrpc":"2.0","id":null,"result":{"resultType":"complete"}}`, false},
		{"", `[{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete"}}]`, false},
	}
	for _, tc := range cases {
		p := v.ValidateServerMessage([]byte(tc.msg), tc.method)
		if (p == nil) != tc.valid {
			t.Errorf("%s %s: valid=%v, want %v: %v", tc.method, tc.msg, p == nil, tc.valid, p)
		}
	}
}

// TestOfficialJSONValueFinding records where schema.json is stricter than
// schema.ts: JSONValue (capability settings, sampling metadata...) drops
// null and non-integer numbers. The model follows schema.ts.
func TestOfficialJSONValueFinding(t *testing.T) {
	o := loadOracle(t, v260728)
	for _, raw := range []string{
		`{"logging":{"level":null}}`,
		`{"experimental":{"x":{"ratio":0.5}}}`,
		`{"extensions":{"com.example/ext":{"list":[1.5]}}}`,
	} {
		if err := o.validate("ServerCapabilities", []byte(raw)); err == nil {
			t.Errorf("official schema accepts %s: the finding is fixed; drop the generator's JSONValue exclusion", raw)
		}
		if p := ValidateAs(v260728, "ServerCapabilities", []byte(raw)); p != nil {
			t.Errorf("model rejects %s: %v", raw, p)
		}
	}
}
