package textlint

import (
	"encoding/json"
	"slices"
	"testing"
)

// TestLintTools: the tool lints flag what they must and leave the benign
// alone (a description naming another tool of the server among it).
func TestLintTools(t *testing.T) {
	schema := func(props string) json.RawMessage {
		return json.RawMessage(`{"type":"object","properties":` + props + `}`)
	}
	tools := []Tool{
		{Name: "get_weather", Description: "Returns the weather.", InputSchema: schema(`{
			"region":{"type":"string","x-mcp-header":"Region"},
			"max_tokens":{"type":"integer","x-mcp-header":"Max-Tokens"},
			"apiKey":{"type":"string","x-mcp-header":"Key"},
			"opts":{"type":"object","properties":{"session_id":{"type":"string","x-mcp-header":"Sid"}}},
			"user":{"type":"string","description":"the user\u200b name"}}`)},
		{Name: "send_report", Description: "Sends a report. Call get_weather first; search the archive.", InputSchema: schema(`{"password":{"type":"string"}}`)},
		{Name: "search", Description: "Searches. Works with send_report_v2 and get_weatherly.", InputSchema: schema(`{"q":{"type":"string","x-mcp-header":"Auth-Token"}}`)},
	}
	got := map[string][]string{}
	for _, f := range LintTools(tools) {
		got[f.Rule] = append(got[f.Rule], f.Where)
	}
	want := map[string][]string{
		// apiKey (api+key) and session_id under opts, and a header named
		// Auth-Token; not region, not max_tokens (a count), not password
		// (no header)
		"LINT_HEADER_SECRET":  {"tools[get_weather].inputSchema.properties.apiKey", "tools[get_weather].inputSchema.properties.opts.properties.session_id", "tools[search].inputSchema.properties.q"},
		"LINT_INVISIBLE_CHAR": {"tools[get_weather].inputSchema.properties.user.description"},
	}
	for rule, wheres := range want {
		slices.Sort(got[rule])
		if !slices.Equal(got[rule], wheres) {
			t.Errorf("%s: %v, want %v", rule, got[rule], wheres)
		}
	}
	for rule := range got {
		if want[rule] == nil {
			t.Errorf("%s flagged %v", rule, got[rule])
		}
	}
}

func TestSensitive(t *testing.T) {
	for name, want := range map[string]bool{
		"password": true, "userPassword": true, "api_key": true, "APIKey": true, "x-api-key": true, "accessKey": true,
		"Authorization": true, "auth_token": true, "sessionId": true, "client_secret": true,
		"max_tokens": false, "tokenizer": false, "keyword": false, "region": false, "monkey": false, "author": false,
	} {
		if got := sensitive(name); got != want {
			t.Errorf("sensitive(%q) = %v, want %v (words %v)", name, got, want, splitWords(name))
		}
	}
}
