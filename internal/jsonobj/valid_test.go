package jsonobj

import (
	"encoding/json"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// TestValidAgreesWithEncodingJSON: Valid says what json.Valid says, on
// valid documents, on their mutations (a byte changed, dropped, doubled or
// cut off) and on byte soup made of JSON's tokens and near misses.
func TestValidAgreesWithEncodingJSON(t *testing.T) {
	check := func(t *rapid.T, b []byte) {
		if got, want := Valid(b), json.Valid(b); got != want {
			t.Fatalf("Valid(%q) = %v, json.Valid = %v", b, got, want)
		}
	}
	t.Run("documents", func(t *testing.T) {
		rapid.Check(t, func(t *rapid.T) {
			b, err := json.Marshal(genJSON(4).Draw(t, "v"))
			if err != nil {
				t.Skip()
			}
			if rapid.Bool().Draw(t, "indent") {
				b, _ = json.MarshalIndent(json.RawMessage(b), "\r", "\t ")
			}
			check(t, b)
			if len(b) == 0 {
				return
			}
			at := rapid.IntRange(0, len(b)-1).Draw(t, "at")
			alphabet := []byte("{}[]\":,\\ \t\n\r\x00\x1f\x7f\xff0123456789-+.eEtrufalsnbu/abcdefABCDEF")
			switch rapid.IntRange(0, 3).Draw(t, "mutation") {
			case 0:
				b[at] = rapid.SampledFrom(alphabet).Draw(t, "byte")
			case 1:
				b = append(b[:at:at], b[at+1:]...)
			case 2:
				b = append(b[:at+1:at+1], b[at:]...)
			case 3:
				b = b[:at]
			}
			check(t, b)
		})
	})
	t.Run("soup", func(t *testing.T) {
		tokens := []string{"{", "}", "[", "]", `"`, `"a"`, `"\u00e9"`, `"\u00g9"`, `"\x"`, `"\/"`, "\\", ":", ",", " ", "\t", "\n", "\v", "\x00", "\xff", "é",
			"\"\x1f\"", "\"\x20\"", "\"\x00\"", "\"\xff\x7f\"", `"\b\f\n\r\t\"\\"`, `"\u"`, `"\u12"`, `"\u123"`, `"\uABCDef"`, `"\uFfFf"`, `"\a"`,
			"0", "-", "-0", "01", "1.", "1.5", ".5", "1e", "1e+", "1E-7", "2e3", "true", "tru", "false", "null", "nul", "nullx", "x"}
		rapid.Check(t, func(t *rapid.T) {
			check(t, []byte(strings.Join(rapid.SliceOfN(rapid.SampledFrom(tokens), 0, 12).Draw(t, "tokens"), "")))
		})
		// each token alone, as an element and as a member's value
		for _, tok := range tokens {
			for _, doc := range []string{tok, "[" + tok + "]", `{"k":` + tok + "}", "[1," + tok + "]", " " + tok + " "} {
				if got, want := Valid([]byte(doc)), json.Valid([]byte(doc)); got != want {
					t.Errorf("Valid(%q) = %v, json.Valid = %v", doc, got, want)
				}
			}
		}
	})
	// encoding/json allows 10000 levels of nesting, not 10001.
	for _, depth := range []int{maxDepth - 1, maxDepth, maxDepth + 1} {
		for _, doc := range []string{
			strings.Repeat("[", depth) + strings.Repeat("]", depth),
			strings.Repeat(`{"a":`, depth-1) + "{}" + strings.Repeat("}", depth-1),
			strings.Repeat("[", depth-1) + "1" + strings.Repeat("]", depth-1),
		} {
			if got, want := Valid([]byte(doc)), json.Valid([]byte(doc)); got != want {
				t.Errorf("nesting %d (%.12s…): Valid %v, json.Valid %v", depth, doc, got, want)
			}
		}
	}
}

func BenchmarkValid(b *testing.B) {
	msg := []byte(`{"jsonrpc":"2.0","id":252,"result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"mcp-conformance-test-server","version":"1.0.0"}},"ttlMs":0,"cacheScope":"public","supportedVersions":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"],"capabilities":{"completions":{},"logging":{},"prompts":{"listChanged":true},"resources":{"listChanged":true,"subscribe":true},"tools":{"listChanged":true}}}}`)
	b.Run("jsonobj", func(b *testing.B) {
		for b.Loop() {
			Valid(msg)
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		for b.Loop() {
			json.Valid(msg)
		}
	})
}
