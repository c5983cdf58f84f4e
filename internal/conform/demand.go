package conform

import (
	"slices"

	"github.com/mcpconform/mcpconform/internal/catalog"
)

// The stdio processes a run will still need. A run keeps a few server
// processes started ahead of need (target.Target's pool): a check that
// needs a fresh one takes one whose start-up already happened. Near the
// end of a run the pool used to hold processes no check would take: a
// Node runtime's start-up each (0.4 CPU-s), on the run's critical path
// when the machine is busy. From the plan of the run (Env.SetPlan) and the
// checks already started, the Env tells the pool how many processes the
// checks still to come may take (Target.SetPoolDemand); the pool never
// holds more.
//
// fresh lists what the checks take besides their worker's shared session:
// the processes a check, or the work several checks share (a Memo: a
// group), starts on stdio, by era. Measured on the reference fixtures
// (every revision); a check that opens a process only in some
// circumstances (a crash to recover from, a slow server's extra shards)
// is left out or counted at its usual number: an estimate too low costs
// that check a start-up of its own, one too high a start-up for nothing.
var fresh = []struct {
	ids            []string
	legacy, modern func(rev catalog.Revision) int
}{
	// the first contact (T.FirstContact)
	{ids: []string{"LIFE-001", "LIFE-003", "LIFE-004", "LIFE-005", "STD-002", "STALE-006"}, legacy: n(1)},
	{ids: []string{"STD-002"}, modern: n(1)},
	{ids: []string{"LIFE-002"}, legacy: n(1)},
	{ids: []string{"LIFE-016"}, legacy: n(1)},
	// the server-request exercise: a session without capabilities, one
	// with roots and sampling (and elicitation), and from 2025-11-25 one
	// with URL elicitation
	{ids: []string{"LEG-001", "LEG-002", "LEG-003", "RPC-009"}, legacy: func(rev catalog.Revision) int {
		if rev >= catalog.R20251125 {
			return 3
		}
		return 2
	}},
	// the utilities exercise: sessions A, B and C (and D in 2026-07-28)
	{ids: []string{"CAN-001", "CAN-003", "CAN-005", "LOG-001", "LOG-002", "LOG-003", "LOG-004", "PROG-001", "PROG-002", "PROG-003"}, legacy: n(3), modern: n(4)},
	{ids: []string{"CAN-002"}, legacy: n(1), modern: n(1)},
	{ids: []string{"PAG-002"}, legacy: n(1), modern: n(1)},
	{ids: []string{"STD-004"}, legacy: n(1), modern: n(1)},
	{ids: []string{"TOOL-014"}, legacy: n(1), modern: n(1)},
	{ids: []string{"RES-009"}, legacy: n(1)},
	{ids: []string{"RPC-008"}, legacy: func(rev catalog.Revision) int {
		if rev >= catalog.R20250618 {
			return 1
		}
		return 0
	}, modern: n(1)},
	{ids: []string{"LIFE-011"}, modern: n(1)},
	{ids: []string{"LIFE-012"}, modern: n(1)},
	{ids: []string{"LIFE-013"}, modern: n(1)},
	{ids: []string{"MRTR-004"}, modern: n(1)},
	{ids: []string{"STD-003"}, modern: n(1)},
	{ids: []string{"SUB-004"}, modern: n(1)},
	{ids: []string{"SUB-008"}, modern: n(1)},
}

func n(k int) func(catalog.Revision) int { return func(catalog.Revision) int { return k } }

// demand returns how many stdio processes the checks of the plan that
// have not started yet may take: a group counts while none of its checks
// has started (the first one starts the shared work). Without a plan it
// is -1 (unknown).
func (e *Env) demand() int {
	if e.plan == nil {
		return -1
	}
	total := 0
	for rev, ids := range e.plan {
		for _, g := range fresh {
			need := g.legacy
			if !rev.IsLegacy() {
				need = g.modern
			}
			if need == nil || need(rev) == 0 {
				continue
			}
			planned, begun := false, false
			for _, id := range g.ids {
				if slices.Contains(ids, id) {
					planned = true
					begun = begun || e.started[specKey{id, rev}]
				}
			}
			if planned && !begun {
				total += need(rev)
			}
		}
	}
	return total
}

// starting records that the check of id in rev starts, and tells the pool
// what the checks still to come may take.
func (e *Env) starting(id string, rev catalog.Revision) {
	e.mu.Lock()
	if e.started == nil {
		e.started = map[specKey]bool{}
	}
	e.started[specKey{id, rev}] = true
	d := e.demand()
	e.mu.Unlock()
	if d >= 0 && e.Target != nil {
		e.Target.SetPoolDemand(d)
	}
}
