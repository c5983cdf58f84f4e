package contract

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// encode writes v (what decodeAny returns: maps, slices, strings,
// json.Number, bools, nil) as canonical JSON: keys sorted, two-space
// indent when indent is true, LF line ends, and every character a
// reviewer could not see written as an escape (hidden).
func encode(buf *bytes.Buffer, v any, indent bool, depth int) {
	nl := func(d int) {
		if indent {
			buf.WriteByte('\n')
			for range d {
				buf.WriteString("  ")
			}
		}
	}
	switch x := v.(type) {
	case map[string]any:
		if len(x) == 0 {
			buf.WriteString("{}")
			return
		}
		buf.WriteByte('{')
		for i, k := range slices.Sorted(maps.Keys(x)) {
			if i > 0 {
				buf.WriteByte(',')
			}
			nl(depth + 1)
			writeString(buf, k)
			buf.WriteByte(':')
			if indent {
				buf.WriteByte(' ')
			}
			encode(buf, x[k], indent, depth+1)
		}
		nl(depth)
		buf.WriteByte('}')
	case []any:
		if len(x) == 0 {
			buf.WriteString("[]")
			return
		}
		buf.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				buf.WriteByte(',')
			}
			nl(depth + 1)
			encode(buf, e, indent, depth+1)
		}
		nl(depth)
		buf.WriteByte(']')
	case string:
		writeString(buf, x)
	case json.Number:
		buf.WriteString(x.String())
	case float64:
		buf.WriteString(strconv.FormatFloat(x, 'g', -1, 64))
	case int:
		buf.WriteString(strconv.Itoa(x))
	case bool:
		buf.WriteString(strconv.FormatBool(x))
	case nil:
		buf.WriteString("null")
	default:
		b, _ := json.Marshal(x)
		buf.Write(b)
	}
}

// hidden reports whether a reviewer reading the file could miss r: control
// and format characters (Cc, Cf: zero-width, bidi, the tag block), private
// use and unassigned code points, every space but U+0020, line and
// paragraph separators, variation selectors and the combining grapheme
// joiner. Printable letters of any script stay as they are.
func hidden(r rune) bool {
	switch {
	case r == ' ':
		return false
	case r < 0x20 || r == 0x7f:
		return true
	case r >= 0xFE00 && r <= 0xFE0F, r >= 0xE0100 && r <= 0xE01EF, r == 0x034F, r == 0x115F, r == 0x1160, r == 0x3164, r == 0xFFA0:
		return true
	}
	return !unicode.IsPrint(r)
}

func writeString(buf *bytes.Buffer, s string) {
	buf.WriteByte('"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == '"':
			buf.WriteString(`\"`)
		case r == '\\':
			buf.WriteString(`\\`)
		case r == '\n':
			buf.WriteString(`\n`)
		case r == '\t':
			buf.WriteString(`\t`)
		case r == '\r':
			buf.WriteString(`\r`)
		case r == utf8.RuneError && size == 1:
			buf.WriteString(`\ufffd`)
		case hidden(r):
			if r > 0xFFFF {
				a, b := utf16.EncodeRune(r)
				fmt.Fprintf(buf, `\u%04x\u%04x`, a, b)
			} else {
				fmt.Fprintf(buf, `\u%04x`, r)
			}
		default:
			buf.WriteRune(r)
		}
	}
	buf.WriteByte('"')
}

// canonical is v's compact canonical JSON (sorted keys, no whitespace):
// what digests are taken over and what comparisons compare.
func canonical(v any) string {
	var buf bytes.Buffer
	encode(&buf, v, false, 0)
	return buf.String()
}

// digest is "sha256:" and the hex SHA-256 of v's canonical JSON.
func digest(v any) string {
	sum := sha256.Sum256([]byte(canonical(v)))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// decodeAny reads JSON keeping numbers as written.
func decodeAny(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("text after the JSON value")
	}
	return v, nil
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
