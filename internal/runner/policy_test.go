package runner

import (
	"bytes"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/fixtures"
	"github.com/mcpconform/mcpconform/internal/catalog"
	"github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/policy"
	"github.com/mcpconform/mcpconform/internal/target"
	"github.com/mcpconform/mcpconform/internal/wire"
	"github.com/mcpconform/mcpconform/reports"
)

// TestMain lets the test binary serve a fixture (RUNNER_TEST_FIXTURE=NAME)
// as the target of the in-process run below.
func TestMain(m *testing.M) {
	if name := os.Getenv("RUNNER_TEST_FIXTURE"); name != "" {
		os.Exit(fixtures.Main(append([]string{name}, os.Args[1:]...), os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// A probe check (this package's tests import no suite): it reports what
// the run's call policy allows and which sample arguments reached it.
var _ = conform.Area("tools", func() {
	conform.It("TOOL-003", "probe: the call policy and sample arguments reach the checks", func(t *conform.T) {
		s := t.Shared()
		w := t.WalkList(s, "tools/list")
		if !w.Complete() {
			t.Error("tools/list: %s", w.Problem)
		}
		var allowed, samples []string
		reason := ""
		for _, tool := range w.Items {
			name := conform.ItemKey(tool, "name")
			if ok, why := t.MayCall(tool); ok {
				allowed = append(allowed, name)
			} else if reason == "" {
				reason = why
			}
			if _, ok := t.SampleArgs(name); ok {
				samples = append(samples, name)
			}
		}
		sort.Strings(samples)
		if len(allowed) == 0 {
			t.PolicyNA("%s (samples for %s)", reason, strings.Join(samples, ","))
		}
		t.Note("allowed %d of %d tools; samples for %s", len(allowed), len(w.Items), strings.Join(samples, ","))
	})
})

// TestPolicyReachesChecks: the run's call policy and sample arguments are
// the checks' (conform.Env), a check the policy stops is NA with the
// policy prefix, and the summary counts it. One run: Ginkgo runs specs
// once per process.
func TestPolicyReachesChecks(t *testing.T) {
	tg := &target.Target{Command: []string{os.Args[0]}, Env: []string{"RUNNER_TEST_FIXTURE=aftersales"},
		Timeout: 5 * time.Second, Recorder: wire.NewRecorder(wire.NewRedactor())}
	out, err := Run(Config{
		Target: tg, Revisions: []catalog.Revision{catalog.LatestLegacy}, Version: "test",
		Policy: policy.None, SampleArgs: map[string]map[string]any{"get_order": {"order_id": "A1001"}, "nosuch": {}},
		ConfigFile: "target.yaml",
	})
	if err != nil {
		t.Fatal(err)
	}
	rep := out.Report
	if len(rep.Results) != 1 {
		t.Fatalf("results: %+v", rep.Results)
	}
	r := rep.Results[0]
	if r.Verdict != "NA" || !strings.HasPrefix(r.Message, conform.PolicyPrefix+"the call policy is none") ||
		!strings.Contains(r.Message, "(samples for get_order)") {
		t.Fatalf("result: %s %q", r.Verdict, r.Message)
	}
	if rep.Summary.PolicyNA != 1 || rep.CallPolicy != "none" || rep.Target.Config != "target.yaml" || rep.SchemaVersion != reports.SchemaVersion {
		t.Fatalf("report: policy %q, summary %+v, target %+v", rep.CallPolicy, rep.Summary, rep.Target)
	}
	var summary bytes.Buffer
	reports.Write(rep, reports.Options{Terminal: &summary})
	if !strings.Contains(summary.String(), "call policy: none — 1 check NA because it needs tool calls the policy forbids") {
		t.Fatalf("terminal summary:\n%s", summary.String())
	}
}
