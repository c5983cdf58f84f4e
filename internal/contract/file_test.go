package contract

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestRevisionsAndPolicy(t *testing.T) {
	sec := func(s string) map[string]any { v, _ := decodeAny([]byte(s)); return v.(map[string]any) }
	old := &File{Sections: map[string]map[string]map[string]any{
		"2025-06-18": {"default": sec(`{}`)},
		"2025-11-25": {"default": sec(`{"tools":{"get_issue":{"description":"a"},"b":{}}}`), "admin": sec(`{}`)},
	}}
	live := &File{Sections: map[string]map[string]map[string]any{
		"2025-11-25": {"default": sec(`{"tools":{"issue_read":{"description":"b"}}}`)},
		"2026-07-28": {"default": sec(`{}`)},
	}}
	fs := Compare(old, live)
	// no rename is guessed between tools without arguments
	if g, w := got(fs), want("REVISION_NO_DROP:ERR", "REVISION_ADDED:INFO", "PROFILE_MISSING:ERR", "TOOL_NO_DELETE:ERR", "TOOL_ADDED:INFO"); !slices.Equal(g, w) {
		t.Errorf("got %v, want %v", g, w)
	}
	// a declared rename is WARN and compares the two definitions
	old.Policy.Renamed = map[string]string{"get_issue": "issue_read"}
	fs = Compare(old, live)
	if g := got(fs); !slices.Contains(g, "TOOL_RENAMED:WARN") || !slices.Contains(g, "TOOL_DESCRIPTION_CHANGED:WARN") || !slices.Contains(g, "TOOL_NO_DELETE:ERR") {
		t.Errorf("declared rename: %v", g)
	}
	// overrides: none drops, info lowers
	old.Policy.Overrides = map[string]string{"TOOL_NO_DELETE": "info", "REVISION_NO_DROP": "none"}
	fs = Compare(old, live)
	if g := got(fs); !slices.Contains(g, "TOOL_NO_DELETE:INFO") || slices.Contains(g, "REVISION_NO_DROP:ERR") {
		t.Errorf("overrides: %v", g)
	}
	// an acceptance by fingerprint, and one past its date
	var prof Finding
	for _, f := range fs {
		if f.Rule == "PROFILE_MISSING" {
			prof = f
		}
	}
	if !Failing(fs) {
		t.Fatal("PROFILE_MISSING should fail the gate")
	}
	defer func(n func() time.Time) { now = n }(now)
	now = func() time.Time { return time.Date(2027, 1, 2, 0, 0, 0, 0, time.UTC) }
	old.Policy.Accept = []Accept{{Fingerprint: prof.Fingerprint, Reason: "admin profile retired", Until: "2027-01-01"}}
	if !Failing(Compare(old, live)) {
		t.Error("an acceptance past its until date still accepted")
	}
	old.Policy.Accept[0].Until = "2027-02-01"
	fs = Compare(old, live)
	if Failing(fs) {
		t.Errorf("accepted finding still fails: %v", fs)
	}
	s := Summary("c.json", fs, nil)
	if !s.Passed || s.Accepted != 1 {
		t.Errorf("summary %+v", s)
	}
}

func TestEncodeCanonicalAndRoundTrip(t *testing.T) {
	sec := func(s string) map[string]any { v, _ := decodeAny([]byte(s)); return v.(map[string]any) }
	body := `{"server":{"name":"s","instructions":"use\u200b me\u202e and \udb40\udc41 \u00e9t\u00e9"},"tools":{"b":{"description":"x"},"a":{"inputSchema":{"type":"object"}}}}`
	f := &File{Policy: Policy{Renamed: map[string]string{"x": "y"}}, Sections: map[string]map[string]map[string]any{
		"2025-11-25": {"default": sec(body)}, "2025-06-18": {"default": sec(body)}, "2026-07-28": {"default": sec(`{"tools":{}}`)},
	}}
	b1, _ := f.Encode()
	b2, _ := f.Encode()
	if !bytes.Equal(b1, b2) {
		t.Fatal("two encodings differ")
	}
	s := string(b1)
	for _, w := range []string{`\u200b`, `\u202e`, `\udb40\udc41`, "été", `"sameAs": "2025-11-25/default"`, `"digest": "sha256:`} {
		if !strings.Contains(s, w) {
			t.Errorf("encoding lacks %q:\n%s", w, s)
		}
	}
	if strings.ContainsRune(s, '\u200b') || strings.Contains(s, "\r") {
		t.Error("a hidden character was written as itself")
	}
	if strings.Index(s, `"a": {`) > strings.Index(s, `"b": {`) {
		t.Error("keys not sorted")
	}
	g, err := Decode(b1)
	if err != nil {
		t.Fatal(err)
	}
	if fs := Compare(f, g); len(fs) != 0 {
		t.Errorf("a decoded file differs from its source: %v", fs)
	}
	if g.Policy.Renamed["x"] != "y" {
		t.Error("policy lost")
	}
	b3, _ := g.Encode()
	if !bytes.Equal(b1, b3) {
		t.Error("decode then encode changed the bytes")
	}
	if _, err := Decode([]byte(`{"format":"other"}`)); err == nil {
		t.Error("a foreign format decoded")
	}
	if _, err := Decode([]byte(`{"format":"mcpconform.contract/v1","revisions":{"r":{"profiles":{"default":{"sameAs":"r/default"}}}}}`)); err == nil {
		t.Error("a sameAs loop decoded")
	}
	if _, err := Decode([]byte(`{"format":"mcpconform.contract/v1","policy":{"overrides":{"NO_SUCH":"none"}},"revisions":{}}`)); err == nil {
		t.Error("an override of an unknown rule decoded")
	}
	// the line of a pointer, through a sameAs section to its profile
	if l := LineOf(b1, "/revisions/2025-11-25/profiles/default/tools/b"); l == 0 || !strings.Contains(strings.Split(s, "\n")[l-1], `"b": {`) {
		t.Errorf("LineOf tools/b = %d", l)
	}
	if l := LineOf(b1, "/revisions/2025-06-18/profiles/default/tools/b"); l == 0 || !strings.Contains(strings.Split(s, "\n")[l-1], `"default"`) {
		t.Errorf("LineOf through sameAs = %d", l)
	}
}

func TestCanonicalSurface(t *testing.T) {
	tool := map[string]any{"inputSchema": map[string]any{"type": "object", "required": []any{"b", "a"},
		"properties": map[string]any{"e": map[string]any{"enum": []any{"z", "y"}, "type": []any{"string", "null"}}}},
		"_meta": map[string]any{"io.modelcontextprotocol/ui": "keep", "traceparent": "drop"},
		"icons": []any{map[string]any{"src": "data:image/png;base64,AAAA"}}}
	canonTool(tool)
	s := canonical(tool)
	for _, w := range []string{`"required":["a","b"]`, `"enum":["y","z"]`, `"type":["null","string"]`, `"readOnlyHint":false`, `"destructiveHint":true`,
		`"openWorldHint":true`, `"idempotentHint":false`, `io.modelcontextprotocol/ui`, `data:image/png;sha256=`, `bytes=3`} {
		if !strings.Contains(s, w) {
			t.Errorf("canonical tool lacks %s: %s", w, s)
		}
	}
	if strings.Contains(s, "traceparent") || strings.Contains(s, "AAAA") {
		t.Errorf("volatile kept: %s", s)
	}
}
