package wire

import (
	"encoding/base64"
	"net/url"
	"strings"
	"testing"
)

// TestRedactorEncodedForms: a secret echoed base64-encoded (alone or
// inside a longer text, at any alignment) or URL-encoded is redacted too.
func TestRedactorEncodedForms(t *testing.T) {
	const secret = "SECRET-canary-7f3a/9+b=c&d e"
	r := NewRedactor(secret)
	for _, text := range []string{
		secret,
		"Bearer " + secret,
		base64.StdEncoding.EncodeToString([]byte(secret)),
		base64.StdEncoding.EncodeToString([]byte("Bearer " + secret)),
		base64.StdEncoding.EncodeToString([]byte("x" + secret + "y")),
		base64.URLEncoding.EncodeToString([]byte("xy" + secret)),
		base64.RawURLEncoding.EncodeToString([]byte(secret + "!")),
		url.QueryEscape(secret),
		url.PathEscape("Bearer " + secret),
	} {
		out := r.String("echo: " + text + " end")
		if !strings.Contains(out, Redacted) {
			t.Errorf("%q was not redacted: %q", text, out)
		}
		for _, f := range SecretForms(secret) {
			if strings.Contains(out, f) {
				t.Errorf("%q: form %q survives in %q", text, f, out)
			}
		}
	}
	if got := r.String("an ordinary sentence"); got != "an ordinary sentence" {
		t.Errorf("ordinary text changed: %q", got)
	}
}
