package conform

import (
	"encoding/json"
	"testing"
)

func TestDeriveArgs(t *testing.T) {
	cases := map[string]string{
		`{"type":"object"}`: `{}`,
		`{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"}},"required":["a"]}`:                                                                     `{"a":"mcpconform"}`,
		`{"type":"object","properties":{"id":{"type":"string","examples":["A1001"]},"n":{"type":"number","default":3}},"required":["id","n"]}`:                               `{"id":"A1001","n":3}`,
		`{"type":"object","properties":{"k":{"enum":["x","y"]},"o":{"type":"object","properties":{"f":{"type":["null","boolean"]}},"required":["f"]}},"required":["k","o"]}`: `{"k":"x","o":{"f":true}}`,
		`{"type":"object","properties":{"l":{"type":"array","minItems":2,"items":{"type":"integer"}}},"required":["l"]}`:                                                     `{"l":[1,1]}`,
	}
	for schema, want := range cases {
		got, err := DeriveArgs(json.RawMessage(schema))
		if err != nil {
			t.Errorf("%s: %v", schema, err)
			continue
		}
		b, _ := json.Marshal(got)
		if string(b) != want {
			t.Errorf("%s: got %s, want %s", schema, b, want)
		}
	}
	for _, bad := range []string{`{"type":"string"}`, `{"type":"object","required":["x"]}`, `[1]`} {
		if _, err := DeriveArgs(json.RawMessage(bad)); err == nil {
			t.Errorf("%s: want an error", bad)
		}
	}
}

func TestPlausibleString(t *testing.T) {
	cases := []struct{ name, desc, format, known, want string }{
		{"resourceUri", "", "", "", FallbackURI},
		{"resource_uri", "", "", "test://static/1", "test://static/1"},
		{"url", "", "", "", FallbackURI},
		{"homepageURL", "", "", "", FallbackURI},
		{"target", "", "uri", "", FallbackURI},
		{"target", "The URI of the resource to embed", "", "", FallbackURI},
		{"curl", "", "", "", "mcpconform"},
		{"name", "a name for the URL", "", "", "mcpconform"},
		{"email", "", "", "", "mcpconform@example.com"},
		{"when", "", "date-time", "", "2025-01-01T00:00:00Z"},
		{"query", "", "", "", "mcpconform"},
	}
	for _, c := range cases {
		if got := PlausibleString(c.name, c.desc, c.format, c.known); got != c.want {
			t.Errorf("%q %q %q: got %q, want %q", c.name, c.desc, c.format, got, c.want)
		}
	}
	got, err := DeriveArgs(json.RawMessage(`{"type":"object","properties":{"resourceUri":{"type":"string"},"code":{"type":"string","minLength":12}},"required":["resourceUri","code"]}`))
	if err != nil || got["resourceUri"] != FallbackURI || len(got["code"].(string)) < 12 {
		t.Errorf("derived %v, %v", got, err)
	}
}
