package runner

import (
	"reflect"
	"strings"
	"testing"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/mcpconform/mcpconform/internal/catalog"
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

// TestLaneOrder: the lanes get, per revision of the run, the checks that
// will run in Ginkgo's order; filtered-out specs and the not-applicable
// specs of revisions the run does not cover are not theirs.
func TestLaneOrder(t *testing.T) {
	skipped := spec("s", "req:RPC-003", "rev:2025-11-25")
	skipped.State = types.SpecStateSkipped
	preview := types.Report{SpecReports: []types.SpecReport{
		spec("a", "req:RPC-002", "rev:2026-07-28"),
		spec("b", "req:RPC-001", "rev:2025-11-25"),
		skipped,
		spec("c", "req:RPC-001", "rev:2026-07-28"),
		spec("d", "req:RPC-004", "rev:2025-11-25"),
		spec("na", "req:RPC-008", "rev:2025-03-26"),
	}}
	got := laneOrder(preview, []catalog.Revision{catalog.Modern, catalog.R20251125})
	want := map[catalog.Revision][]string{catalog.Modern: {"RPC-002", "RPC-001"}, catalog.R20251125: {"RPC-001", "RPC-004"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("laneOrder = %v, want %v", got, want)
	}
}
