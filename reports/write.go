package reports

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

func writeFile(path string, b []byte) error {
	return writeFileWith(path, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}

// writeFileWith writes path through a buffer by fn (to a temporary file
// renamed into place once complete).
func writeFileWith(path string, fn func(io.Writer) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 64<<10)
	err = fn(bw)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, path)
}

// WriteTranscript prints a transcript compactly, each body cut at max bytes.
func WriteTranscript(w io.Writer, ts []Exchange, max int) {
	for _, e := range ts {
		arrow := "→"
		if e.Direction == "recv" {
			arrow = "←"
		}
		head := fmt.Sprintf("%s %s #%d", e.Time.Format("15:04:05.000"), e.Conn, e.Seq)
		if e.HTTP != nil {
			switch {
			case e.HTTP.Method != "":
				head += " " + e.HTTP.Method
			case e.HTTP.Status != 0:
				head += fmt.Sprintf(" HTTP %d", e.HTTP.Status)
			}
			if e.HTTP.SSE {
				head += " sse"
			}
		}
		body := e.Body
		if e.Kind == "note" || e.Kind == "closed" {
			body = "[" + e.Note + "]"
		}
		if len(body) > max {
			body = body[:max] + "…"
		}
		fmt.Fprintf(w, "  %s %s %s\n", head, arrow, body)
	}
}

// Areas returns the area names of results in first-appearance order.
func Areas(results []Result) []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range results {
		if !seen[r.Area] {
			seen[r.Area] = true
			out = append(out, r.Area)
		}
	}
	return out
}
