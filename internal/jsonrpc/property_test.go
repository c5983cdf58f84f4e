package jsonrpc

import (
	"testing"

	"pgregory.net/rapid"
)

// TestIDRoundTripProperty: any integer or string id survives a
// request → decode round trip with its JSON type, and the loose key of a
// string id equals the string while its strict key differs from the
// integer with the same digits.
func TestIDRoundTripProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var id ID
		if rapid.Bool().Draw(t, "isString") {
			id = StringID(rapid.String().Draw(t, "s"))
		} else {
			id = IntID(rapid.Int64().Draw(t, "n"))
		}
		m, err := Decode(Request(id, "tools/list", map[string]any{}))
		if err != nil {
			t.Fatalf("decode: %v", err)
		}
		if m.ID.Key() != id.Key() || m.ID.IsString() != id.IsString() || !m.ID.Valid() {
			t.Fatalf("id %s came back as %s (%s)", id, m.ID, m.ID.TypeName())
		}
		if m.Kind() != KindRequest {
			t.Fatalf("kind %s", m.Kind())
		}
	})
}

// TestIntegerAndStringIDsDifferProperty: n and "n" never share a strict key
// but always share a loose key (the basis of RPC-002's type check).
func TestIntegerAndStringIDsDifferProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.Int64().Draw(t, "n")
		i, s := IntID(n), StringID(IntID(n).String())
		if i.Key() == s.Key() {
			t.Fatalf("%s and %s share a key", i, s)
		}
		if i.LooseKey() != s.LooseKey() {
			t.Fatalf("%s and %s do not share a loose key", i, s)
		}
	})
}
