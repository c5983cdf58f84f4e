package auth

import (
	"testing"
)

func TestTamper(t *testing.T) {
	if _, ok := tamper("opaque-token-without-dots"); ok {
		t.Error("an opaque token was tampered")
	}
	bad, ok := tamper("mct1.eyJzdWIiOiJ4In0.abcdefghijklmnop")
	if !ok || bad == "mct1.eyJzdWIiOiJ4In0.abcdefghijklmnop" || len(bad) != len("mct1.eyJzdWIiOiJ4In0.abcdefghijklmnop") {
		t.Errorf("tamper: %q %v", bad, ok)
	}
}
