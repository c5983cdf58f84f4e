package session

import (
	"encoding/json"
	"net/http"
	"reflect"
	"testing"

	"github.com/mcpconform/mcpconform/internal/catalog"
)

// The one builder of the MCP HTTP headers, era by era.
func TestHTTPHeaders(t *testing.T) {
	for _, c := range []struct {
		name   string
		modern bool
		sid    string
		rev    catalog.Revision
		method string
		params string
		want   http.Header
	}{
		{"legacy before negotiation", false, "", "", "initialize", `{}`, http.Header{}},
		{"2025-03-26 with a session", false, "s1", catalog.R20250326, "tools/list", `{}`, http.Header{HeaderSessionID: {"s1"}}},
		{"2025-06-18", false, "s1", catalog.R20250618, "tools/call", `{"name":"x"}`, http.Header{HeaderSessionID: {"s1"}, http.CanonicalHeaderKey(HeaderProtocolVersion): {"2025-06-18"}}},
		{"modern list", true, "", catalog.Modern, "tools/list", `{}`, http.Header{http.CanonicalHeaderKey(HeaderProtocolVersion): {string(catalog.Modern)}, HeaderMethod: {"tools/list"}}},
		{"modern call", true, "ignored", catalog.Modern, "tools/call", `{"name":"echo"}`, http.Header{http.CanonicalHeaderKey(HeaderProtocolVersion): {string(catalog.Modern)}, HeaderMethod: {"tools/call"}, HeaderName: {"echo"}}},
		{"modern read without a uri", true, "", catalog.Modern, "resources/read", `{"uri":42}`, http.Header{http.CanonicalHeaderKey(HeaderProtocolVersion): {string(catalog.Modern)}, HeaderMethod: {"resources/read"}}},
	} {
		got := HTTPHeaders(c.modern, c.sid, c.rev, c.method, json.RawMessage(c.params))
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
