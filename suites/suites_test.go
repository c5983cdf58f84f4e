package suites_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/fixtures"
	"github.com/mcpconform/mcpconform/suites"
)

func TestMain(m *testing.M) {
	// Fixture processes get SUITES_TEST_FIXTURE (WithEnv); test processes do not.
	if name := os.Getenv("SUITES_TEST_FIXTURE"); name != "" {
		os.Exit(fixtures.Main(append([]string{name}, os.Args[1:]...), os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// TestRunAgainstReference is how a server author uses the API: here the
// "server" is this test binary serving the aftersales reference fixture.
func TestRunAgainstReference(t *testing.T) {
	dir := t.TempDir()
	// The API's plumbing (options, reports) on the areas its options touch;
	// the kill matrix's reference rows prove the whole suite passes.
	suites.Run(t, suites.Stdio(os.Args[0]), suites.WithEnv("SUITES_TEST_FIXTURE=aftersales"), suites.WithReportDir(dir), suites.WithStrict(),
		suites.WithLabelFilter("area:lifecycle || area:tools"),
		suites.WithCallTools("readonly"), suites.WithSampleArguments("get_order", map[string]any{"order_id": "A1001"}))
	if _, err := os.Stat(dir + "/junit.xml"); err != nil {
		t.Errorf("junit.xml not written: %v", err)
	}
}

// TestRunFailsWithRequirementIDs runs the API against a mutant in a child
// test process (one suite run per process) and checks that the test fails
// naming exactly the broken requirement.
func TestRunFailsWithRequirementIDs(t *testing.T) {
	if os.Getenv("SUITES_TEST_CHILD") == "1" {
		suites.Run(t, suites.Stdio(os.Args[0], "--mutant", "stringify-ids"), suites.WithEnv("SUITES_TEST_FIXTURE=aftersales"),
			suites.WithLabelFilter("area:jsonrpc")) // where RPC-002 is; the kill matrix runs the rest
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestRunFailsWithRequirementIDs$", "-test.v")
	cmd.Env = append(os.Environ(), "SUITES_TEST_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("the child test passed against a mutant:\n%s", out)
	}
	if !strings.Contains(string(out), "fails 1 requirement(s): RPC-002") {
		t.Errorf("the failure does not name RPC-002:\n%s", out)
	}
}
