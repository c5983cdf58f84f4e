package reports

import (
	"bufio"
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/onsi/ginkgo/v2/reporters"
	"github.com/onsi/ginkgo/v2/types"
)

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
	for k := range r.Results {
		rb, err := json.MarshalIndent(&r.Results[k], "    ", "  ")
		if err != nil {
			return err
		}
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

// SpecKey identifies a spec's result: requirement and revision.
type SpecKey struct{ Requirement, Revision string }

// WriteJUnit writes junit.xml with Ginkgo's JUnit reporter, then tunes it:
// each testcase gets clean properties (requirement, level, revision,
// transport, verdict, source), its verdict message and transcript in
// system-out, WARN counts as a failure under strict, ERROR becomes an
// <error>, NA a <skipped> with the reason.
func WriteJUnit(dir string, gr types.Report, rep *Report) (string, error) {
	results, strict := Index(rep.Results), rep.Summary.Strict
	path := filepath.Join(dir, "junit.xml")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	cfg := reporters.JunitReportConfig{
		OmitTimelinesForSpecState: types.SpecStatePassed | types.SpecStateSkipped,
		OmitSpecLabels:            true,
		OmitLeafNodeType:          true,
		OmitSuiteSetupNodes:       true,
		OmitCapturedStdOutErr:     true,
	}
	if err := reporters.GenerateJUnitReportWithConfig(gr, path, cfg); err != nil {
		return "", err
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	var suites reporters.JUnitTestSuites
	if err := xml.Unmarshal(raw, &suites); err != nil {
		return "", fmt.Errorf("re-reading junit: %w", err)
	}
	// Map testcases back to results by spec order: Ginkgo writes one
	// testcase per It in report order, matching gr.SpecReports.
	var its []types.SpecReport
	for _, sr := range gr.SpecReports {
		if sr.LeafNodeType == types.NodeTypeIt {
			its = append(its, sr)
		}
	}
	for si := range suites.TestSuites {
		ts := &suites.TestSuites[si]
		ts.Failures, ts.Errors, ts.Skipped, ts.Disabled = 0, 0, 0, 0
		var kept []reporters.JUnitTestCase
		for i := range ts.TestCases {
			if i >= len(its) {
				break
			}
			res := resultFor(its[i], results)
			if res == nil { // filtered out by the selection
				continue
			}
			tc := ts.TestCases[i]
			tc.Name = fmt.Sprintf("%s %s [%s %s] %s", res.Requirement, res.Level, res.Revision, res.Transport, res.Title)
			tc.Classname = "mcpconform." + res.Area
			tc.Properties = &reporters.JUnitProperties{Properties: []reporters.JUnitProperty{
				{Name: "requirement", Value: res.Requirement},
				{Name: "level", Value: res.Level},
				{Name: "revision", Value: res.Revision},
				{Name: "transport", Value: res.Transport},
				{Name: "verdict", Value: res.Verdict},
				{Name: "source", Value: res.Source},
			}}
			tc.SystemOut = systemOut(res)
			tc.Failure, tc.Error, tc.Skipped = nil, nil, nil
			if res.Baselined {
				tc.Properties.Properties = append(tc.Properties.Properties, reporters.JUnitProperty{Name: "baselined", Value: res.BaselineReason})
			}
			switch {
			case res.Baselined:
				tc.Status = "skipped"
				tc.Skipped = &reporters.JUnitSkipped{Message: fmt.Sprintf("baselined %s (%s): %s", res.Verdict, res.BaselineReason, res.Message)}
				ts.Skipped++
			case res.Verdict == "FAIL" || (res.Verdict == "WARN" && strict):
				tc.Status = "failed"
				tc.Failure = &reporters.JUnitFailure{Message: res.Message, Type: res.Verdict, Description: failureText(res)}
				ts.Failures++
			case res.Verdict == "ERROR":
				tc.Status = "error"
				tc.Error = &reporters.JUnitError{Message: res.Message, Type: "ERROR", Description: failureText(res)}
				ts.Errors++
			case res.Verdict == "NA":
				tc.Status = "skipped"
				tc.Skipped = &reporters.JUnitSkipped{Message: "NA: " + res.Message}
				ts.Skipped++
			default:
				tc.Status = "passed"
			}
			kept = append(kept, tc)
		}
		if si == 0 && rep.Baseline != nil {
			for _, stale := range rep.Baseline.Stale {
				kept = append(kept, reporters.JUnitTestCase{
					Name:      "stale baseline entry " + stale,
					Classname: "mcpconform.baseline",
					Status:    "failed",
					Failure: &reporters.JUnitFailure{Type: "STALE", Message: stale + " now passes: remove it from " + rep.Baseline.File,
						Description: "A baseline lists known failures; an entry whose requirement now passes is stale and fails the run so that baselines shrink."},
				})
				ts.Failures++
			}
		}
		ts.TestCases = kept
		ts.Tests = len(kept)
	}
	suites.Tests, suites.Failures, suites.Errors, suites.Disabled = 0, 0, 0, 0
	for _, ts := range suites.TestSuites {
		suites.Tests += ts.Tests
		suites.Failures += ts.Failures
		suites.Errors += ts.Errors
	}
	var buf bytes.Buffer
	buf.WriteString(xml.Header)
	enc := xml.NewEncoder(&buf)
	enc.Indent("", "  ")
	if err := enc.Encode(suites); err != nil {
		return "", err
	}
	buf.WriteByte('\n')
	return path, writeFile(path, buf.Bytes())
}

// ResultFor finds the result of a spec via its requirement and revision labels.
func resultFor(sr types.SpecReport, results map[SpecKey]*Result) *Result {
	var req, rev string
	for _, l := range sr.Labels() {
		if v, ok := strings.CutPrefix(l, "req:"); ok {
			req = v
		}
		if v, ok := strings.CutPrefix(l, "rev:"); ok {
			rev = v
		}
	}
	return results[SpecKey{req, rev}]
}

func failureText(r *Result) string {
	var b strings.Builder
	b.WriteString(r.Message)
	if r.Expected != "" {
		fmt.Fprintf(&b, "\nexpected: %s", r.Expected)
	}
	if r.Actual != "" {
		fmt.Fprintf(&b, "\nactual:   %s", r.Actual)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "\n%s", n)
	}
	return b.String()
}

func systemOut(r *Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s %s (%s, %s)\n%s\nsource: %s\n", r.Verdict, r.Requirement, r.Title, r.Revision, r.Transport, r.Statement, r.Source)
	if r.Verdict != "PASS" {
		b.WriteString(failureText(r))
		b.WriteString("\n")
	}
	if r.Verdict == "FAIL" || r.Verdict == "WARN" || r.Verdict == "ERROR" {
		b.WriteString("transcript:\n")
		WriteTranscript(&b, r.Transcript, 4096)
	}
	return b.String()
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

// Index builds the lookup used by WriteJUnit.
func Index(results []Result) map[SpecKey]*Result {
	m := make(map[SpecKey]*Result, len(results))
	for i := range results {
		m[SpecKey{results[i].Requirement, results[i].Revision}] = &results[i]
	}
	return m
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

// WriteDerived writes the reports rendered from report.json alone —
// report.html and summary.md — into dir and returns their paths; failures
// are reported on errw and do not stop the others.
func WriteDerived(dir string, rep *Report, errw io.Writer) []string {
	var files []string
	if p, err := WriteHTML(dir, rep); err == nil {
		files = append(files, p)
	} else {
		fmt.Fprintf(errw, "mcpconform: writing report.html: %v\n", err)
	}
	links := MarkdownLinks{HTML: "report.html", JUnit: "junit.xml", JSON: "report.json"}
	if p, err := WriteMarkdown(dir, rep, links); err == nil {
		files = append(files, p)
	} else {
		fmt.Fprintf(errw, "mcpconform: writing summary.md: %v\n", err)
	}
	return files
}
