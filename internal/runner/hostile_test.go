package runner

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/result"
	"github.com/mcpconform/mcpconform/internal/wire"
)

// TestValidReport: server text with invalid UTF-8 is repaired in every
// free-text field of the report.
func TestValidReport(t *testing.T) {
	bad := "name \xff\xfe end"
	rep := &result.Report{Detection: []string{bad}, Stderr: bad, Eras: []result.Era{{Error: bad}},
		Results: []result.Result{{Message: bad, Expected: bad, Actual: bad, Notes: []string{bad}, Log: bad}}}
	validReport(rep)
	r := rep.Results[0]
	for _, s := range []string{rep.Detection[0], rep.Stderr, rep.Eras[0].Error, r.Message, r.Expected, r.Actual, r.Notes[0], r.Log} {
		if !utf8.ValidString(s) || !strings.HasPrefix(s, "name ") {
			t.Errorf("%q", s)
		}
	}
	if got := validUTF8([]byte(`{"name":"a\xffb"}`)); !utf8.Valid(got) {
		t.Errorf("validUTF8: %q", got)
	}
}

// TestTimeline: a failed check's log (junit.xml's system-err) renders its
// outcome entry as a one-line summary, not the transcript's bytes; a
// passed check has none.
func TestTimeline(t *testing.T) {
	o := &conform.Outcome{Requirement: "LIFE-016", Verdict: conform.FAIL, Message: "no response",
		Frames: []wire.Frame{{Raw: make([]byte, 1<<20)}}}
	sr := types.SpecReport{LeafNodeType: types.NodeTypeIt, LeafNodeText: "probe", State: types.SpecStateFailed,
		ReportEntries: types.ReportEntries{{Name: conform.EntryName, Value: types.WrapEntryValue(o)}}}
	if s := timeline(sr); len(s) > 2000 || !strings.Contains(s, "FAIL LIFE-016 (, ): no response") {
		t.Errorf("timeline of %d bytes: %.2000s", len(s), s)
	}
	if sr.ReportEntries[0].GetRawValue() != o {
		t.Errorf("the spec report was changed")
	}
	sr.State = types.SpecStatePassed
	if s := timeline(sr); s != "" {
		t.Errorf("a passed check has a log: %q", s)
	}
}
