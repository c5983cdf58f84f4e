package jsonrpc

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/internal/jsonrpc"
)

// The oversized request built around a marker is the request json.Marshal
// writes with the string in place.
func TestWithLongString(t *testing.T) {
	id := jsonrpc.StringID("mcpconform-oversized-1")
	params := func(v string) map[string]any {
		return map[string]any{"_meta": map[string]any{"mcpconform/oversized": json.RawMessage(v)}}
	}
	for _, n := range []int{0, 1, 70000} {
		want := request(id, "ping", params(`"`+strings.Repeat("x", n)+`"`))
		got := withLongString(request(id, "ping", params(`"@@BIG@@"`)), `"@@BIG@@"`, n)
		if string(got) != string(want) {
			t.Fatalf("n=%d: got %.80s… (%d bytes), want %.80s… (%d bytes)", n, got, len(got), want, len(want))
		}
	}
}
