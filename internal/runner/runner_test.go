package runner

import (
	"strings"
	"testing"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/result"
)

func spec(text string, labels ...string) types.SpecReport {
	return types.SpecReport{LeafNodeType: types.NodeTypeIt, LeafNodeText: text, LeafNodeLabels: labels}
}

// TestValidateRejectsBrokenTrees: the pre-run validation refuses a spec
// without a requirement, with two, with an unknown id or label key, and a
// requirement registered twice for one revision.
func TestValidateRejectsBrokenTrees(t *testing.T) {
	ok := []types.SpecReport{
		spec("a", "req:LIFE-001", "level:MUST", "rev:2025-11-25", "area:lifecycle", "transport:stdio"),
		spec("b", "req:LIFE-001", "level:MUST", "rev:2025-06-18", "area:lifecycle", "transport:stdio"),
	}
	if err := validateReport(types.Report{SpecReports: ok}); err != nil {
		t.Fatalf("valid tree rejected: %v", err)
	}
	for _, tc := range []struct {
		name  string
		specs []types.SpecReport
		want  string
	}{
		{"no requirement", []types.SpecReport{spec("x", "rev:2025-11-25")}, "0 requirement labels"},
		{"two requirements", []types.SpecReport{spec("x", "req:LIFE-001", "req:LIFE-002")}, "2 requirement labels"},
		{"unknown id", []types.SpecReport{spec("x", "req:LIFE-999")}, "unknown requirement LIFE-999"},
		{"unknown label key", []types.SpecReport{spec("x", "req:LIFE-001", "flaky:yes")}, "unknown label"},
		{"duplicate", append(ok, spec("c", "req:LIFE-001", "rev:2025-11-25")), "registered twice"},
	} {
		err := validateReport(types.Report{SpecReports: tc.specs})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error containing %q", tc.name, err, tc.want)
		}
	}
}

// The reports count policy NA verdicts by the prefix conform writes.
func TestPolicyPrefixAgrees(t *testing.T) {
	if result.PolicyPrefix != conform.PolicyPrefix {
		t.Fatalf("result.PolicyPrefix %q != conform.PolicyPrefix %q", result.PolicyPrefix, conform.PolicyPrefix)
	}
}
