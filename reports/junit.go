package reports

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2/reporters"
	"github.com/onsi/ginkgo/v2/types"

	"github.com/mcpconform/mcpconform/internal/result"
)

func init() {
	register(format{Name: "junit", File: "junit.xml", Order: 20, ByDefault: true, Write: WriteJUnit})
}

// WriteJUnit writes junit.xml with Ginkgo's JUnit reporter (from the
// report's Ginkgo shape, ginkgoReport), then tunes it: each testcase gets
// clean properties (requirement, level, revision, transport, verdict,
// source), its verdict message and transcript in system-out, the steps of
// a failed check in system-err, WARN counts as a failure under strict,
// ERROR becomes an <error>, NA a <skipped> with the reason, a baselined
// result a <skipped> with the baseline's reason, and each stale baseline
// entry a failed testcase.
func WriteJUnit(dir string, rep *Report) (string, error) {
	strict := rep.Summary.Strict
	path := filepath.Join(dir, "junit.xml")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	cfg := reporters.JunitReportConfig{
		OmitTimelinesForSpecState: types.SpecStatePassed | types.SpecStateSkipped | types.SpecStateFailed,
		OmitSpecLabels:            true,
		OmitLeafNodeType:          true,
		OmitSuiteSetupNodes:       true,
		OmitCapturedStdOutErr:     true,
	}
	if err := reporters.GenerateJUnitReportWithConfig(ginkgoReport(rep), path, cfg); err != nil {
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
	// ginkgoReport has one It per result, in report order, and Ginkgo
	// writes one testcase per It in that order.
	for si := range suites.TestSuites {
		ts := &suites.TestSuites[si]
		ts.Failures, ts.Errors, ts.Skipped, ts.Disabled = 0, 0, 0, 0
		var kept []reporters.JUnitTestCase
		for i := range ts.TestCases {
			if si > 0 || i >= len(rep.Results) {
				break
			}
			res := &rep.Results[i]
			tc := ts.TestCases[i]
			tc.Name = fmt.Sprintf("%s %s [%s %s] %s", res.Requirement, res.Level, res.Revision, res.Transport, res.Title)
			tc.Classname = "mcpconform." + res.Area
			tc.Properties = &reporters.JUnitProperties{Properties: []reporters.JUnitProperty{
				{Name: "requirement", Value: res.Requirement},
				{Name: "level", Value: res.Level},
				{Name: "revision", Value: res.Revision},
				{Name: "transport", Value: res.Transport},
				{Name: "verdict", Value: res.Verdict.String()},
				{Name: "source", Value: res.Source},
			}}
			tc.SystemOut = systemOut(res)
			tc.SystemErr = res.Log
			tc.Failure, tc.Error, tc.Skipped = nil, nil, nil
			if res.Baselined {
				tc.Properties.Properties = append(tc.Properties.Properties, reporters.JUnitProperty{Name: "baselined", Value: res.BaselineReason})
			}
			switch {
			case res.Baselined:
				tc.Status = "skipped"
				tc.Skipped = &reporters.JUnitSkipped{Message: fmt.Sprintf("baselined %s (%s): %s", res.Verdict, res.BaselineReason, res.Message)}
				ts.Skipped++
			case res.Verdict == result.ERROR:
				tc.Status = "error"
				tc.Error = &reporters.JUnitError{Message: res.Message, Type: res.Verdict.String(), Description: failureText(res)}
				ts.Errors++
			case res.Verdict.Fails(strict):
				tc.Status = "failed"
				tc.Failure = &reporters.JUnitFailure{Message: res.Message, Type: res.Verdict.String(), Description: failureText(res)}
				ts.Failures++
			case res.Verdict == result.NA:
				tc.Status = "skipped"
				tc.Skipped = &reporters.JUnitSkipped{Message: res.Verdict.String() + ": " + res.Message}
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
		if si == 0 {
			kept = append(kept, contractCases(rep.Contract, ts)...)
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

// contractCases are the contract gate's findings as testcases: an ERR
// change or lint fails, an accepted one is skipped, the others pass with
// their message.
func contractCases(c *Contract, ts *reporters.JUnitTestSuite) []reporters.JUnitTestCase {
	if c == nil {
		return nil
	}
	var out []reporters.JUnitTestCase
	for _, f := range c.Findings {
		tc := reporters.JUnitTestCase{
			Name:      fmt.Sprintf("%s %s %s", f.Rule, f.Level, f.Subject),
			Classname: "mcpconform.contract." + f.Category,
			Status:    "passed",
			SystemOut: f.Message + "\nwhy: " + f.Why + "\nat: " + f.Pointer() + "\nfingerprint: " + f.Fingerprint,
			Properties: &reporters.JUnitProperties{Properties: []reporters.JUnitProperty{
				{Name: "rule", Value: f.Rule}, {Name: "level", Value: f.Level}, {Name: "category", Value: f.Category},
				{Name: "fingerprint", Value: f.Fingerprint}, {Name: "revisions", Value: strings.Join(f.Revisions, ",")},
			}},
		}
		switch contractLevel(f) {
		case "accepted":
			tc.Status = "skipped"
			tc.Skipped = &reporters.JUnitSkipped{Message: "accepted: " + f.Reason}
			ts.Skipped++
		case "failure":
			tc.Status = "failed"
			tc.Failure = &reporters.JUnitFailure{Type: f.Rule, Message: f.Message, Description: tc.SystemOut}
			ts.Failures++
		}
		out = append(out, tc)
	}
	return out
}

// ginkgoReport gives a report the shape of a Ginkgo run, so that junit.xml
// comes from Ginkgo's own JUnit reporter whoever produced the results (a
// run or a fuzz campaign): one It per result, in report order, labelled
// like the suite's checks (req, level, rev, area, transport), failed for
// FAIL and ERROR, skipped for NA, timed by the result's duration. The
// suite is named after the tool and succeeds when the run passed.
func ginkgoReport(rep *Report) types.Report {
	name := rep.Tool.Name
	if name == "" {
		name = "mcpconform"
	}
	start, run := rep.StartedAt, msDuration(float64(rep.DurationMs))
	gr := types.Report{SuitePath: name, SuiteDescription: name, SuiteSucceeded: rep.Summary.Passed,
		StartTime: start, EndTime: start.Add(run), RunTime: run,
		SuiteConfig: types.SuiteConfig{RandomSeed: 1, ParallelTotal: 1}}
	if rep.Interrupted {
		gr.SpecialSuiteFailureReasons = []string{"Interrupted"}
	}
	for _, res := range rep.Results {
		d := msDuration(res.DurationMs)
		sr := types.SpecReport{LeafNodeType: types.NodeTypeIt, LeafNodeText: res.Title,
			LeafNodeLabels: []string{"req:" + res.Requirement, "level:" + res.Level, "rev:" + res.Revision, "area:" + res.Area, "transport:" + res.Transport},
			State:          types.SpecStatePassed, StartTime: start, EndTime: start.Add(d), RunTime: d}
		switch {
		case res.Verdict.Fails(false):
			sr.State, sr.Failure = types.SpecStateFailed, types.Failure{Message: res.Message}
		case res.Verdict == result.NA:
			sr.State = types.SpecStateSkipped
		}
		gr.SpecReports = append(gr.SpecReports, sr)
	}
	return gr
}

// msDuration converts a duration in milliseconds (to the microsecond).
func msDuration(ms float64) time.Duration {
	return time.Duration(math.Round(ms*1000)) * time.Microsecond
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
	fmt.Fprintf(&b, "%s %s %s (%s, %s)\n%s\n", r.Verdict, r.Requirement, r.Title, r.Revision, r.Transport, r.Statement)
	if len(r.Links) > 0 {
		fmt.Fprintf(&b, "spec: %s\n", strings.Join(r.Links, " "))
	} else if r.Source != "" {
		fmt.Fprintf(&b, "spec: %s\n", r.Source)
	}
	for _, t := range r.Tolerances {
		fmt.Fprintf(&b, "tolerance %s (%s): %s\n", t.ID, t.Title, strings.Join(t.Links, " "))
	}
	if r.Verdict != result.PASS {
		b.WriteString(failureText(r))
		b.WriteString("\n")
	}
	if r.Verdict.Problem() {
		b.WriteString("transcript:\n")
		WriteTranscript(&b, r.Transcript, 4096)
	}
	return b.String()
}
