package auth

import (
	"reflect"
	"testing"
)

func TestParseChallenges(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want []challenge
	}{
		{[]string{`Bearer resource_metadata="http://127.0.0.1:1/.well-known/oauth-protected-resource/mcp", scope="hints"`},
			[]challenge{{"Bearer", map[string]string{"resource_metadata": "http://127.0.0.1:1/.well-known/oauth-protected-resource/mcp", "scope": "hints"}}}},
		{[]string{`Bearer error="insufficient_scope", scope="a b", resource_metadata="u", error_description="x, \"y\""`},
			[]challenge{{"Bearer", map[string]string{"error": "insufficient_scope", "scope": "a b", "resource_metadata": "u", "error_description": `x, "y"`}}}},
		{[]string{`Basic realm="x", Bearer scope=read`, `Bearer error=invalid_token`},
			[]challenge{{"Basic", map[string]string{"realm": "x"}}, {"Bearer", map[string]string{"scope": "read"}}, {"Bearer", map[string]string{"error": "invalid_token"}}}},
		{[]string{`Bearer`}, []challenge{{"Bearer", map[string]string{}}}},
		{nil, nil},
	} {
		if got := parseChallenges(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("parseChallenges(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestTamper(t *testing.T) {
	if _, ok := tamper("opaque-token-without-dots"); ok {
		t.Error("an opaque token was tampered")
	}
	bad, ok := tamper("mct1.eyJzdWIiOiJ4In0.abcdefghijklmnop")
	if !ok || bad == "mct1.eyJzdWIiOiJ4In0.abcdefghijklmnop" || len(bad) != len("mct1.eyJzdWIiOiJ4In0.abcdefghijklmnop") {
		t.Errorf("tamper: %q %v", bad, ok)
	}
}
