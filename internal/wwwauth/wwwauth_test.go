package wwwauth

import (
	"reflect"
	"testing"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want []Challenge
	}{
		{[]string{`Bearer resource_metadata="http://127.0.0.1:1/.well-known/oauth-protected-resource/mcp", scope="hints"`},
			[]Challenge{{"Bearer", map[string]string{"resource_metadata": "http://127.0.0.1:1/.well-known/oauth-protected-resource/mcp", "scope": "hints"}}}},
		{[]string{`Bearer error="insufficient_scope", scope="a b", resource_metadata="u", error_description="x, \"y\""`},
			[]Challenge{{"Bearer", map[string]string{"error": "insufficient_scope", "scope": "a b", "resource_metadata": "u", "error_description": `x, "y"`}}}},
		{[]string{`Basic realm="x", Bearer scope=read`, `Bearer error=invalid_token`},
			[]Challenge{{"Basic", map[string]string{"realm": "x"}}, {"Bearer", map[string]string{"scope": "read"}}, {"Bearer", map[string]string{"error": "invalid_token"}}}},
		{[]string{`Bearer`}, []Challenge{{"Bearer", map[string]string{}}}},
		{nil, nil},
	} {
		if got := Parse(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Parse(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}
