package jsonrpc

import "testing"

// A JSON object that is no JSON-RPC message is KindInvalid whatever its
// members (an HTTP rejection body's "error" makes no response of it); a
// JSON-RPC message with a faulty envelope keeps its kind for the rules
// that judge the fault.
func TestKindOfObjectsThatAreNotJSONRPC(t *testing.T) {
	for raw, want := range map[string]Kind{
		`{"error":"Forbidden","message":"Origin http://evil.example is not allowed"}`: KindInvalid,
		`{"error":"invalid_token"}`:                               KindInvalid,
		`{"error":{"code":-32600,"message":"x"}}`:                 KindInvalid,
		`{"result":{}}`:                                           KindInvalid,
		`{"jsonrpc":"2.0","error":{"code":-32600,"message":"x"}}`: KindResponse,
		`{"id":null,"error":{"code":-32700,"message":"x"}}`:       KindResponse,
		`{"jsonrpc":"1.0","id":1,"result":{}}`:                    KindResponse,
		`{"method":"notifications/x"}`:                            KindNotification,
		`{"jsonrpc":"2.0"}`:                                       KindInvalid,
	} {
		m, err := Decode([]byte(raw))
		if err != nil {
			t.Fatal(err)
		}
		if got := m.Kind(); got != want {
			t.Errorf("Kind(%s) = %v, want %v", raw, got, want)
		}
	}
}
