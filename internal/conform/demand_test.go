package conform

import (
	"testing"

	"github.com/mcpconform/mcpconform/internal/catalog"
)

// The demand counts each planned group once, until one of its checks
// starts; groups of the other era and checks not in the plan count
// nothing.
func TestDemand(t *testing.T) {
	e := &Env{}
	if d := e.demand(); d != -1 {
		t.Fatalf("demand without a plan %d, want -1", d)
	}
	e.plan = map[catalog.Revision][]string{
		catalog.R20251125: {"LIFE-001", "LIFE-003", "LEG-002", "RPC-009", "PAG-002", "RPC-001", "LIFE-011"},
		catalog.R20250326: {"LEG-001", "RPC-008"}, // LEG-001 does not apply, RPC-008 takes none before 2025-06-18
		catalog.Modern:    {"LIFE-011", "STD-002"},
	}
	steps := []struct {
		id   string
		rev  catalog.Revision
		want int
	}{
		{"", "", 1 + 3 + 1 + 2 + 1 + 1},
		{"LIFE-003", catalog.R20251125, 3 + 1 + 2 + 1 + 1},
		{"LIFE-001", catalog.R20251125, 3 + 1 + 2 + 1 + 1},
		{"RPC-009", catalog.R20251125, 1 + 2 + 1 + 1},
		{"RPC-001", catalog.R20251125, 1 + 2 + 1 + 1},
		{"LEG-001", catalog.R20250326, 1 + 1 + 1},
		{"STD-002", catalog.Modern, 1 + 1},
		{"PAG-002", catalog.R20251125, 1},
		{"LIFE-011", catalog.Modern, 0},
	}
	for _, s := range steps {
		if s.id != "" {
			e.starting(s.id, s.rev)
		}
		if d := e.demand(); d != s.want {
			t.Fatalf("after %s %s: demand %d, want %d", s.id, s.rev, d, s.want)
		}
	}
}
