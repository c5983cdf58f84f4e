package all_test

import (
	"os"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/fixtures"
	"github.com/mcpconform/mcpconform/internal/runner"
	"github.com/mcpconform/mcpconform/internal/target"
	"github.com/mcpconform/mcpconform/internal/wire"
	_ "github.com/mcpconform/mcpconform/suites/all"
)

// TestMain doubles as the fixture server: when MCPCONFORM_TEST_FIXTURE is
// set, this test binary serves that fixture over stdio instead of testing.
func TestMain(m *testing.M) {
	if name := os.Getenv("MCPCONFORM_TEST_FIXTURE"); name != "" {
		os.Exit(fixtures.Main([]string{name}, os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// TestSuite runs the whole suite with Ginkgo's own reporter against the
// aftersales reference fixture over stdio (go test / ginkgo entry point).
func TestSuite(t *testing.T) {
	rec := wire.NewRecorder(wire.NewRedactor())
	tg := &target.Target{
		Command:  []string{os.Args[0]},
		Env:      []string{"MCPCONFORM_TEST_FIXTURE=aftersales"},
		Timeout:  5 * time.Second,
		Recorder: rec,
	}
	out, err := runner.Run(runner.Config{Target: tg, T: t, GinkgoOutput: true, Describe: "mcpconform suites"})
	if err != nil {
		t.Fatal(err)
	}
	if !out.Report.Summary.Passed || out.Report.Summary.Counts["WARN"] > 0 {
		t.Errorf("reference fixture: %v", out.Report.Summary.Counts)
	}
}
