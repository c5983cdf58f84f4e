package reports

import (
	"bytes"
	"encoding/json"
	"io"
	"path/filepath"

	"github.com/mcpconform/mcpconform/internal/jsonobj"
)

func init() {
	register(format{Name: "json", File: "report.json", Order: 0, ByDefault: true, Write: WriteJSON})
}

// WriteJSON writes report.json into dir.
func WriteJSON(dir string, r *Report) (string, error) {
	path := filepath.Join(dir, "report.json")
	return path, writeFileWith(path, func(w io.Writer) error { return EncodeJSON(w, r) })
}

// EncodeJSON writes r as report.json does (indented by two spaces, then a
// newline) one result at a time, so that the whole document is never held
// in memory: the output is byte for byte json.MarshalIndent's.
func EncodeJSON(w io.Writer, r *Report) error {
	head := *r
	head.Results = nil
	b, err := json.MarshalIndent(&head, "", "  ")
	if err != nil {
		return err
	}
	marker := []byte("\n  \"results\": null")
	i := bytes.Index(b, marker)
	if i < 0 || r.Results == nil {
		if r.Results != nil {
			if b, err = json.MarshalIndent(r, "", "  "); err != nil {
				return err
			}
		}
		_, err := w.Write(append(b, '\n'))
		return err
	}
	if _, err := w.Write(append(b[:i:i], "\n  \"results\": ["...)); err != nil {
		return err
	}
	// One encoder for every result: its buffers are reused (MarshalIndent
	// allocates two copies of each result's bytes). It writes compact JSON,
	// which indentCompact indents as json.Indent would, without its
	// validating scanner (a fifth of the CPU of writing report.json).
	var buf bytes.Buffer
	var ind []byte
	enc := json.NewEncoder(&buf)
	for k := range r.Results {
		buf.Reset()
		if err := enc.Encode(&r.Results[k]); err != nil {
			return err
		}
		ind = indentCompact(ind[:0], bytes.TrimSuffix(buf.Bytes(), []byte("\n")), "    ", "  ")
		rb := ind
		sep := ",\n    "
		if k == 0 {
			sep = "\n    "
		}
		if _, err := io.WriteString(w, sep); err != nil {
			return err
		}
		if _, err := w.Write(rb); err != nil {
			return err
		}
	}
	if len(r.Results) > 0 {
		if _, err := io.WriteString(w, "\n  "); err != nil {
			return err
		}
	}
	if _, err := io.WriteString(w, "]"); err != nil {
		return err
	}
	_, err = w.Write(append(b[i+len(marker):], '\n'))
	return err
}

// indentCompact appends to dst the compact JSON src (as json.Marshal writes
// it: valid, no whitespace outside strings) indented exactly as
// json.Indent(dst, src, prefix, indent) would indent it: a newline, the
// prefix and one indent per level after each opening bracket and comma,
// ": " after each key, "{}" and "[]" for empty containers; strings are
// copied as they are.
func indentCompact(dst, src []byte, prefix, indent string) []byte {
	depth := 0
	pending := false // an opening bracket whose newline waits for its first element
	newline := func() {
		dst = append(dst, '\n')
		dst = append(dst, prefix...)
		for range depth {
			dst = append(dst, indent...)
		}
	}
	for i := 0; i < len(src); i++ {
		c := src[i]
		if pending && c != '}' && c != ']' {
			pending = false
			depth++
			newline()
		}
		switch c {
		case '"':
			end, ok := jsonobj.SkipString(src, i)
			if !ok {
				end = len(src)
			}
			dst = append(dst, src[i:end]...)
			i = end - 1
		case '{', '[':
			pending = true
			dst = append(dst, c)
		case ',':
			dst = append(dst, c)
			newline()
		case ':':
			dst = append(dst, c, ' ')
		case '}', ']':
			if pending {
				pending = false
			} else {
				depth--
				newline()
			}
			dst = append(dst, c)
		default:
			dst = append(dst, c)
		}
	}
	return dst
}
