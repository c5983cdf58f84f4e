package msgcheck

import (
	"encoding/json"
	"testing"
)

// TestIsInteger: JSON Schema's integer, digits alone or not.
func TestIsInteger(t *testing.T) {
	for n, want := range map[string]bool{"1": true, "-1": true, "0": true, "-0": true, "123456789012345678901234567890": true,
		"1.0": true, "1e2": true, "-2E+3": true, "1.5": false, "1e-1": false, "-0.25": false, "": false, "-": false} {
		if got := isInteger(json.Number(n)); got != want {
			t.Errorf("isInteger(%q) = %v, want %v", n, got, want)
		}
	}
}
