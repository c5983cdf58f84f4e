package client

import (
	"encoding/json"
	"strings"
	"testing"
)

// The x-mcp-header constraints of 2026-07-28's Schema Extension: each
// invalid definition is found with its reason, a valid one (nesting
// through properties included) gives its marks.
func TestHeaderMarks(t *testing.T) {
	for _, c := range []struct {
		schema string
		marks  int
		reason string // a part of the problem ("": valid)
	}{
		{`{"type":"object","properties":{"r":{"type":"string","x-mcp-header":"Region"},"o":{"type":"object","properties":{"p":{"type":"integer","x-mcp-header":"Prio"}}}}}`, 2, ""},
		{`{"type":"object","properties":{"r":{"type":"number","x-mcp-header":"Region"}}}`, 0, `"number" property`},
		{`{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"Region"},"b":{"type":"string","x-mcp-header":"REGION"}}}`, 1, "duplicate"},
		{`{"type":"object","properties":{"r":{"type":"string","x-mcp-header":""}}}`, 0, "empty"},
		{`{"type":"object","properties":{"r":{"type":"string","x-mcp-header":"Re gion"}}}`, 0, "token"},
		{`{"type":"object","properties":{"l":{"type":"array","items":{"type":"string","x-mcp-header":"Region"}}}}`, 0, "through properties alone"},
		{`{"type":"object","oneOf":[{"properties":{"r":{"type":"string","x-mcp-header":"Region"}}}]}`, 0, "through properties alone"},
		{`{"type":"object","x-mcp-header":"Root"}`, 0, "through properties alone"},
	} {
		marks, problem := headerMarks(json.RawMessage(c.schema))
		if c.reason == "" && (problem != "" || len(marks) != c.marks) || c.reason != "" && !strings.Contains(problem, c.reason) {
			t.Errorf("%s: marks %v, problem %q; want %d marks, problem with %q", c.schema, marks, problem, c.marks, c.reason)
		}
	}
}

// Value encoding: which values need the Base64 sentinel, and how a header
// is decoded before comparing.
func TestHeaderValueEncoding(t *testing.T) {
	for _, c := range []struct {
		raw, want string
		sentinel  bool
		ok        bool
	}{
		{`"us-west1"`, "us-west1", false, true},
		{`"has inner space"`, "has inner space", false, true},
		{`" padded "`, " padded ", true, true},
		{`"Zürich"`, "Zürich", true, true},
		{`"line1\nline2"`, "line1\nline2", true, true},
		{`"=?base64?literal?="`, "=?base64?literal?=", true, true},
		{`42`, "42", false, true},
		{`-7`, "-7", false, true},
		{`true`, "true", false, true},
		{`4.5`, "", false, false},
		{`null`, "", false, false},
		{`{"a":1}`, "", false, false},
	} {
		got, sentinel, ok := headerValue(json.RawMessage(c.raw))
		if got != c.want || sentinel != c.sentinel || ok != c.ok {
			t.Errorf("headerValue(%s) = %q, %v, %v; want %q, %v, %v", c.raw, got, sentinel, ok, c.want, c.sentinel, c.ok)
		}
	}
	if got := decodeHeader("=?base64?SGVsbG8sIOS4lueVjA==?="); got != "Hello, 世界" {
		t.Errorf("decodeHeader: %q", got)
	}
	if got := decodeHeader("plain"); got != "plain" {
		t.Errorf("decodeHeader(plain): %q", got)
	}
}
