package reports

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
)

// A format is one report file. Each format registers itself from its own
// file (json.go, junit.go, html.go, markdown.go, sarif.go): a new format
// is one new file, and Write, --reports and its help text pick it up.
type format struct {
	// Name is the --reports value ("sarif"); File the file written in the
	// report directory ("sarif.json").
	Name, File string
	// Order is the writing order (the terminal's "reports:" line lists the
	// files in it); summary.md comes last, since it links to the others.
	Order int
	// ByDefault: written when Options.Formats is nil (and by `mcpconform
	// run` unless --reports says otherwise).
	ByDefault bool
	// Help says what the file is for (--reports help), if the name does not.
	Help string
	// Write writes the file into dir and returns its path.
	Write func(dir string, r *Report) (string, error)
	// Links: the file links the others written beside it, so it is
	// written after them (the others are written side by side).
	Links bool
}

var formats []format

// register adds a format (from an init function of the format's file).
func register(f format) {
	if f.Name == "" || f.File == "" || f.Write == nil || slices.ContainsFunc(formats, func(g format) bool { return g.Name == f.Name }) {
		panic("reports: bad or duplicate format " + f.Name)
	}
	formats = append(formats, f)
	slices.SortStableFunc(formats, func(a, b format) int { return a.Order - b.Order })
}

// Formats lists the names of the report formats in writing order.
func Formats() []string {
	out := make([]string, len(formats))
	for i, f := range formats {
		out[i] = f.Name
	}
	return out
}

// DefaultFormats is the set written when Options.Formats is nil.
func DefaultFormats() map[string]bool {
	out := map[string]bool{}
	for _, f := range formats {
		if f.ByDefault {
			out[f.Name] = true
		}
	}
	return out
}

// FormatsHelp describes the formats for a --reports flag's help, in
// writing order: "json (report.json), sarif (sarif.json, SARIF 2.1.0 …;
// not written unless named), …".
func FormatsHelp() string {
	var parts []string
	for _, f := range formats {
		p := f.Name + " (" + f.File
		if f.Help != "" {
			p += ", " + f.Help
		}
		if !f.ByDefault {
			p += "; not written unless named"
		}
		parts = append(parts, p+")")
	}
	return strings.Join(parts, ", ")
}

// DefaultFormatList is DefaultFormats as a --reports value, in writing
// order ("json,junit,html,md").
func DefaultFormatList() string {
	var names []string
	for _, f := range formats {
		if f.ByDefault {
			names = append(names, f.Name)
		}
	}
	return strings.Join(names, ",")
}

// Options of Write.
type Options struct {
	// Dir receives the report files ("" writes none).
	Dir string
	// Formats names the files to write (Formats(); nil: DefaultFormats).
	Formats map[string]bool
	// Terminal receives the end-of-run summary (nil: none).
	Terminal io.Writer
	// Errors receives why a file could not be written (nil: os.Stderr); a
	// failed file does not stop the others.
	Errors io.Writer
}

// Write renders a run's (or a fuzz campaign's) report: each selected file
// into o.Dir, then the terminal summary naming them. It returns the paths
// written. It is the one way the commands and the Go test API write
// reports.
func Write(r *Report, o Options) []string {
	errw := o.Errors
	if errw == nil {
		errw = os.Stderr
	}
	want := o.Formats
	if want == nil {
		want = DefaultFormats()
	}
	var files []string
	if o.Dir != "" && r != nil {
		// The formats render side by side (each only reads the report),
		// then those that link the others: the report files are the last
		// thing a run waits for.
		paths := make([]string, len(formats))
		errs := make([]error, len(formats))
		for _, links := range []bool{false, true} {
			var wg sync.WaitGroup
			for i, f := range formats {
				if !want[f.Name] || f.Links != links {
					continue
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					paths[i], errs[i] = f.Write(o.Dir, r)
				}()
			}
			wg.Wait()
		}
		for i, f := range formats {
			switch {
			case !want[f.Name]:
			case errs[i] != nil:
				fmt.Fprintf(errw, "mcpconform: writing %s: %v\n", f.File, errs[i])
			default:
				files = append(files, paths[i])
			}
		}
	}
	if o.Terminal != nil && r != nil {
		Terminal(o.Terminal, r, files)
	}
	return files
}
