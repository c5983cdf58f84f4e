package reports

import (
	"bytes"
	"encoding/json"
	"io"
	"path/filepath"
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
	// allocates two copies of each result's bytes).
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("    ", "  ")
	for k := range r.Results {
		buf.Reset()
		if err := enc.Encode(&r.Results[k]); err != nil {
			return err
		}
		rb := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
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
