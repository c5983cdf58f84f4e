package jsonobj

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// genJSON draws JSON values of any shape, with strings full of the
// characters a splitter can trip on (quotes, backslashes, brackets, commas).
func genJSON(depth int) *rapid.Generator[any] {
	leaf := rapid.OneOf(
		rapid.Just[any](nil), rapid.Just[any](true), rapid.Just[any](false),
		rapid.Map(rapid.Float64(), func(f float64) any { return f }),
		rapid.Map(rapid.StringOf(rapid.SampledFrom([]rune(`ab"\{}[],: é`+"\u2028\x01"))), func(s string) any { return s }),
	)
	if depth == 0 {
		return leaf
	}
	inner := genJSON(depth - 1)
	return rapid.OneOf(leaf,
		rapid.Map(rapid.SliceOfN(inner, 0, 4), func(v []any) any { return v }),
		rapid.Map(rapid.MapOfN(rapid.StringOf(rapid.SampledFrom([]rune(`ab"\_é`))), inner, 0, 4), func(v map[string]any) any { return v }),
	)
}

func TestMembersAgreeWithEncodingJSON(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		obj := rapid.MapOfN(rapid.StringOf(rapid.SampledFrom([]rune(`ab"\_é{`))), genJSON(3), 0, 6).Draw(t, "obj")
		b, err := json.Marshal(obj)
		if err != nil {
			t.Skip()
		}
		if rapid.Bool().Draw(t, "indent") {
			b, _ = json.MarshalIndent(obj, " ", "\t")
		}
		if rapid.Bool().Draw(t, "escapedKey") {
			// an escaped key and a duplicate: the last one wins
			b = append([]byte(`{"\u005fk":1,"_k":[2,"]"],`), b[1:]...)
			if string(b) == `{"\u005fk":1,"_k":[2,"]"],}` {
				b = []byte(`{"\u005fk":1,"_k":[2,"]"]}`)
			}
		}
		var want map[string]json.RawMessage
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		ms, ok := Members(b)
		if !ok {
			t.Fatalf("Members refused %s", b)
		}
		got := map[string]json.RawMessage{}
		for _, m := range ms {
			got[m.Key] = m.Value
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s:\n got %q\nwant %q", b, got, want)
		}
		if dec, err := Decode(b, false); err != nil || !reflect.DeepEqual(dec, want) {
			t.Fatalf("Decode(%s): %v\n got %q\nwant %q", b, err, dec, want)
		}
		if dec, err := DecodeShared(b, false); err != nil || !reflect.DeepEqual(dec, want) {
			t.Fatalf("DecodeShared(%s): %v\n got %q\nwant %q", b, err, dec, want)
		}
		for k, v := range want {
			var ws string
			wok := json.Unmarshal(v, &ws) == nil && v[0] == '"'
			if s, ok := String(v); s != ws || ok != wok {
				t.Fatalf("String(%s) of %q = %q, %v; want %q, %v", v, k, s, ok, ws, wok)
			}
		}
	})
}

func TestDecodeLargeAgreesAndCopies(t *testing.T) {
	big := strings.Repeat(`x\"\\`, Large)
	b := []byte(` {"jsonrpc":"2.0","id":7,"method":"ping","params":{"_meta":{"big":"` + big + `","deep":[[[{"a":"]}"}]]]}},"\u0069d":8} `)
	var want map[string]json.RawMessage
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	for _, valid := range []bool{false, true} {
		got, err := Decode(b, valid)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("valid=%v: %v %q", valid, err, got["id"])
		}
		at := strings.Index(string(b), "params") + 10
		orig := b[at]
		b[at] = 'Z' // the values are copies
		if !reflect.DeepEqual(got["params"], want["params"]) {
			t.Fatalf("a value shares memory with the input")
		}
		b[at] = orig
	}
}

// Invalid input gets encoding/json's error, and never a panic from the
// splitter (which only sees what json.Valid passed, or the caller vouched for).
func TestDecodeInvalidAndHostile(t *testing.T) {
	pad := strings.Repeat(" ", Large)
	for _, s := range []string{`{"a":` + pad, `{"a":"` + pad + `}`, `[` + pad + `]`, `null` + pad, `{"a":1}x` + pad, `{` + pad + `"a" 1}`} {
		got, err := Decode([]byte(s), false)
		var want map[string]json.RawMessage
		werr := json.Unmarshal([]byte(s), &want)
		if (err == nil) != (werr == nil) || !reflect.DeepEqual(got, want) {
			t.Errorf("%.20q: got %v %v, want %v %v", s, got, err, want, werr)
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		b := rapid.SliceOf(rapid.SampledFrom([]byte(`{}[]":,\ a1`))).Draw(t, "b")
		Members(b) // must not panic
	})
}

func BenchmarkDecode3MiB(b *testing.B) {
	msg := []byte(`{"jsonrpc":"2.0","id":"x","method":"ping","params":{"_meta":{"mcpconform/oversized":"` + strings.Repeat("x", 3<<20) + `"}}}`)
	b.Run("encoding/json", func(b *testing.B) {
		for b.Loop() {
			var m map[string]json.RawMessage
			_ = json.Unmarshal(msg, &m)
		}
	})
	b.Run("jsonobj", func(b *testing.B) {
		for b.Loop() {
			_, _ = Decode(msg, false)
		}
	})
	b.Run("jsonobj-valid", func(b *testing.B) {
		for b.Loop() {
			_, _ = Decode(msg, true)
		}
	})
}
