package completion

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func TestTemplateVars(t *testing.T) {
	for tpl, want := range map[string][]string{
		"policy://refund/{version}":          {"version"},
		"order://{order_id}/summary":         {"order_id"},
		"file:///{+path}":                    {"path"},
		"search://x{?q,lang}":                {"q", "lang"},
		"a://{id:3}/{list*}":                 {"id", "list"},
		"policy://refund":                    nil,
		"broken://{unclosed":                 nil,
		"x://{#frag}{/seg}{;p}{&more}{.ext}": {"frag", "seg", "p", "more", "ext"},
	} {
		if got := templateVars(tpl); !slices.Equal(got, want) {
			t.Errorf("templateVars(%q) = %v, want %v", tpl, got, want)
		}
	}
}

func TestCompletionProblem(t *testing.T) {
	hundredOne := `["` + strings.Repeat(`v","`, 100) + `v"]`
	for raw, want := range map[string]string{
		`{"completion":{"values":[]}}`:                                  "",
		`{"completion":{"values":["a","b"],"total":2,"hasMore":false}}`: "",
		`{"completion":{"values":["a"],"total":1.0}}`:                   "",
		`{"completion":{"values":` + hundredOne + `}}`:                  "101 items",
		`{"completion":{"values":["a"],"total":"1"}}`:                   "total is",
		`{"completion":{"values":["a"],"total":1.5}}`:                   "total is",
		`{"completion":{"values":["a"],"hasMore":"yes"}}`:               "hasMore is",
		`{"completion":{"values":[1]}}`:                                 "values[0]",
		`{"completion":{}}`:                                             "values is absent",
		`{"completion":[]}`:                                             "not an object",
		`{}`:                                                            "completion is absent",
	} {
		var res map[string]json.RawMessage
		if err := json.Unmarshal([]byte(raw), &res); err != nil {
			t.Fatal(err)
		}
		got := completionProblem(res)
		if want == "" && got != "" || want != "" && !strings.Contains(got, want) {
			t.Errorf("%s: got %q, want %q", raw, got, want)
		}
	}
}
