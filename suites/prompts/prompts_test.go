package prompts

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/internal/catalog"
)

func TestItemProblems(t *testing.T) {
	for raw, want := range map[string]string{
		`{"name":"a"}`: "",
		`{"name":"a","arguments":[{"name":"x","required":true},{"name":"y"}]}`: "",
		`{"name":5}`:                    "name is 5",
		`[]`:                            "not an object",
		`{"name":"a","arguments":{}}`:   "arguments is {}",
		`{"name":"a","arguments":[{}]}`: "arguments[0].name is absent",
		`{"name":"a","arguments":[3]}`:  "arguments[0] is not an object",
		`{"name":"a","arguments":[{"name":"x","required":"true"}]}`: `arguments[0].required is "true"`,
	} {
		got := strings.Join(itemProblems(json.RawMessage(raw)), "; ")
		if want == "" && got != "" || want != "" && !strings.Contains(got, want) {
			t.Errorf("itemProblems(%s) = %q, want %q", raw, got, want)
		}
	}
}

func TestMessageProblem(t *testing.T) {
	for _, c := range []struct {
		rev       catalog.Revision
		raw, want string
	}{
		{catalog.R20241105, `{"role":"user","content":{"type":"text","text":"hi"}}`, ""},
		{catalog.R20250618, `{"role":"assistant","content":{"type":"resource_link","uri":"a://b","name":"b"}}`, ""},
		{catalog.R20250326, `{"role":"assistant","content":{"type":"resource_link","uri":"a://b","name":"b"}}`, "not a content block type"},
		{catalog.R20241105, `{"role":"user","content":{"type":"audio","data":"AA==","mimeType":"audio/wav"}}`, "not a content block type"},
		{catalog.R20241105, `{"role":"system","content":{"type":"text","text":"hi"}}`, `role is "system"`},
		{catalog.R20241105, `{"role":"user","content":[{"type":"text","text":"hi"}]}`, "content is an array"},
		{catalog.R20241105, `{"role":"user","content":"hi"}`, "not a content block object"},
		{catalog.R20241105, `{"role":"user"}`, "no content"},
		{catalog.R20241105, `{"role":"user","content":{"type":"text"}}`, "text is absent"},
		{catalog.R20241105, `{"role":"user","content":{"text":"x"}}`, "content.type is absent"},
		{catalog.R20241105, `{"role":"user","content":{"type":"image","data":"!!","mimeType":""}}`, ""}, // PRM-005's
	} {
		got := messageProblem(c.rev, json.RawMessage(c.raw))
		if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("%s %s: got %q, want %q", c.rev, c.raw, got, c.want)
		}
	}
}

func TestBinaryProblem(t *testing.T) {
	for _, c := range []struct {
		raw    string
		judged bool
		want   string
	}{
		{`{"type":"text","text":"x"}`, false, ""},
		{`{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"}`, true, ""},
		{`{"type":"image","data":"iVBORw0KGgo","mimeType":"image/png"}`, true, ""}, // unpadded
		{`{"type":"audio","data":"UklGRg==","mimeType":"audio/wav"}`, true, ""},
		{`{"type":"image","data":"not base64!","mimeType":"image/png"}`, true, "not base64"},
		{`{"type":"image","data":"a-_b","mimeType":"image/png"}`, true, "not base64"},
		{`{"type":"image","data":"AA==","mimeType":""}`, true, "mimeType"},
		{`{"type":"image","data":"AA=="}`, true, "mimeType is absent"},
		{`{"type":"image","data":5,"mimeType":"image/png"}`, true, "not a base64 string"},
		{`{"type":"resource","resource":{"uri":"policy://refund","text":"x"}}`, true, ""},
		{`{"type":"resource","resource":{"uri":"policy://refund","blob":"AA=="}}`, true, ""},
		{`{"type":"resource","resource":{"uri":"policy://refund","blob":"%%"}}`, true, "blob is not base64"},
		{`{"type":"resource","resource":{"uri":"policy://refund"}}`, true, "neither text nor blob"},
		{`{"type":"resource","resource":{"uri":"policy://refund","text":"x","blob":"AA=="}}`, true, "both"},
		{`{"type":"resource","resource":{"uri":"no scheme","text":"x"}}`, true, "not a URI"},
		{`{"type":"resource","resource":{"text":"x"}}`, true, "uri is absent"},
		{`{"type":"resource"}`, true, "not an object"},
	} {
		judged, got := binaryProblem(json.RawMessage(c.raw))
		if judged != c.judged || c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("%s: got (%v, %q), want (%v, %q)", c.raw, judged, got, c.judged, c.want)
		}
	}
}
