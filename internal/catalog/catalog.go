// Package catalog is the requirement catalog: every checkable server
// requirement mcpconform knows, with its stable id, level, revisions,
// transports, spec source and statement. Ids are stable and never
// reused.
package catalog

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Level is how a broken requirement is graded: MUST → FAIL, SHOULD → WARN.
type Level string

// Levels. "Derived" requirements (a consequence of normative text without a
// keyword sentence) are graded SHOULD unless the catalog says otherwise.
const (
	MUST   Level = "MUST"
	SHOULD Level = "SHOULD"
)

// Revision is an MCP protocol revision date.
type Revision string

// Revisions known to mcpconform, oldest first.
const (
	R20241105 Revision = "2024-11-05"
	R20250326 Revision = "2025-03-26"
	R20250618 Revision = "2025-06-18"
	R20251125 Revision = "2025-11-25"
	R20260728 Revision = "2026-07-28"
)

// AllRevisions lists every revision, oldest first.
var AllRevisions = []Revision{R20241105, R20250326, R20250618, R20251125, R20260728}

// LegacyRevisions are the initialize-based revisions.
var LegacyRevisions = []Revision{R20241105, R20250326, R20250618, R20251125}

// Latest legacy and modern revisions.
const (
	LatestLegacy = R20251125
	Modern       = R20260728
)

// IsLegacy reports whether r uses the initialize handshake.
func (r Revision) IsLegacy() bool { return r != "" && r < R20260728 }

// Known reports whether r is a revision mcpconform knows.
func (r Revision) Known() bool { return slices.Contains(AllRevisions, r) }

// Transports.
const (
	Stdio = "stdio"
	HTTP  = "http"
)

// Requirement is one checkable server requirement.
type Requirement struct {
	// ID is stable, e.g. "LIFE-001". Never positional, never reused.
	ID string
	// Title is a one-line summary for lists and report rows.
	Title string
	// Statement says in one or two sentences what the server must do, in the
	// spirit of the spec (our words).
	Statement string
	// Level is the grading level for revisions without an override.
	Level Level
	// SpecLevel is the level as the spec's sentences state it, e.g. "MUST (latest: SHOULD)".
	SpecLevel string
	// Revisions the requirement applies to.
	Revisions []Revision
	// LevelByRevision overrides Level for particular revisions.
	LevelByRevision map[Revision]Level
	// Transports the requirement applies to; empty means every transport.
	Transports []string
	// Source is the spec page(s) and sections in the catalog's shorthand
	// (data.go), e.g. "<rev>:basic/lifecycle.mdx"; Links turns it into URLs.
	Source string
}

// Area returns the area name derived from the id prefix.
func (r Requirement) Area() string { return AreaOf(r.ID) }

// LevelFor returns the grading level under revision rev.
func (r Requirement) LevelFor(rev Revision) Level {
	if l, ok := r.LevelByRevision[rev]; ok {
		return l
	}
	return r.Level
}

// AppliesTo reports whether the requirement applies to rev and transport.
func (r Requirement) AppliesTo(rev Revision, transport string) bool {
	return r.AppliesToRevision(rev) && r.AppliesToTransport(transport)
}

// AppliesToRevision reports whether the requirement applies to rev.
func (r Requirement) AppliesToRevision(rev Revision) bool { return slices.Contains(r.Revisions, rev) }

// AppliesToTransport reports whether the requirement applies to transport.
func (r Requirement) AppliesToTransport(t string) bool {
	return len(r.Transports) == 0 || slices.Contains(r.Transports, t)
}

// TransportNames returns the transports, "stdio,http" when unrestricted.
func (r Requirement) TransportNames() []string {
	if len(r.Transports) == 0 {
		return []string{Stdio, HTTP}
	}
	return r.Transports
}

// RevisionsString renders the revision set compactly: "all", "legacy",
// "2026-07-28", or a comma list.
func (r Requirement) RevisionsString() string {
	switch {
	case slices.Equal(r.Revisions, AllRevisions):
		return "all"
	case slices.Equal(r.Revisions, LegacyRevisions):
		return "legacy"
	}
	parts := make([]string, len(r.Revisions))
	for i, v := range r.Revisions {
		parts[i] = string(v)
	}
	return strings.Join(parts, ",")
}

var areaByPrefix = map[string]string{
	"LIFE":  "lifecycle",
	"RPC":   "jsonrpc",
	"PAG":   "pagination",
	"CACHE": "caching",
	"TOOL":  "tools",
	"RES":   "resources",
	"PRM":   "prompts",
	"CMP":   "completion",
	"MRTR":  "mrtr",
	"SUB":   "subscriptions",
	"TASK":  "tasks",
	"CAN":   "cancellation",
	"PROG":  "progress",
	"LOG":   "logging",
	"LEG":   "server-requests",
	"STD":   "stdio",
	"HTTP":  "http",
	"AUTH":  "auth",
	"STALE": "staleness",
	"CLI":   "client",
	"CAUTH": "client",
}

// AreaOf maps an id to its area ("LIFE-001" → "lifecycle").
func AreaOf(id string) string {
	p, _, _ := strings.Cut(id, "-")
	if a, ok := areaByPrefix[p]; ok {
		return a
	}
	return strings.ToLower(p)
}

var byID = map[string]*Requirement{}

func init() {
	for i := range requirements {
		r := &requirements[i]
		if err := r.validate(); err != nil {
			panic(err)
		}
		if _, dup := byID[r.ID]; dup {
			panic("catalog: duplicate requirement id " + r.ID)
		}
		byID[r.ID] = r
	}
}

func (r *Requirement) validate() error {
	if _, ok := areaByPrefix[strings.SplitN(r.ID, "-", 2)[0]]; !ok {
		return fmt.Errorf("catalog: %s: unknown id prefix", r.ID)
	}
	if r.Level != MUST && r.Level != SHOULD {
		return fmt.Errorf("catalog: %s: level %q", r.ID, r.Level)
	}
	if len(r.Revisions) == 0 {
		return fmt.Errorf("catalog: %s: no revisions", r.ID)
	}
	for _, v := range r.Revisions {
		if !v.Known() {
			return fmt.Errorf("catalog: %s: unknown revision %q", r.ID, v)
		}
	}
	if r.Title == "" || r.Source == "" {
		return fmt.Errorf("catalog: %s: title and source are required", r.ID)
	}
	return nil
}

// Get returns the requirement with the given id.
func Get(id string) (Requirement, bool) {
	r, ok := byID[id]
	if !ok {
		return Requirement{}, false
	}
	return *r, true
}

// MustGet is Get for ids known at compile time; it panics on an unknown id.
func MustGet(id string) Requirement {
	r, ok := Get(id)
	if !ok {
		panic("catalog: unknown requirement " + id)
	}
	return r
}

// All returns every requirement sorted by area order then id.
func All() []Requirement {
	out := make([]Requirement, len(requirements))
	copy(out, requirements)
	sort.SliceStable(out, func(i, j int) bool { return idLess(out[i].ID, out[j].ID) })
	return out
}

// idLess orders ids by catalog position of their prefix, then number.
func idLess(a, b string) bool {
	pa, na, _ := strings.Cut(a, "-")
	pb, nb, _ := strings.Cut(b, "-")
	if pa != pb {
		return prefixRank(pa) < prefixRank(pb)
	}
	return na < nb
}

var prefixOrder = []string{"LIFE", "RPC", "PAG", "CACHE", "TOOL", "RES", "PRM", "CMP", "MRTR", "SUB", "TASK", "CAN", "PROG", "LOG", "LEG", "STD", "HTTP", "AUTH", "STALE", "CLI", "CAUTH"}

func prefixRank(p string) int {
	if i := slices.Index(prefixOrder, p); i >= 0 {
		return i
	}
	return len(prefixOrder)
}

// Helpers for the data table.
func revs(rs ...Revision) []Revision { return rs }

func from(first Revision) []Revision {
	var out []Revision
	for _, r := range AllRevisions {
		if r >= first {
			out = append(out, r)
		}
	}
	return out
}

func between(first, last Revision) []Revision {
	var out []Revision
	for _, r := range AllRevisions {
		if r >= first && r <= last {
			out = append(out, r)
		}
	}
	return out
}

// Less orders requirement ids in catalog order.
func Less(a, b string) bool { return idLess(a, b) }

// narrower lists, for a requirement whose sentence covers a general case,
// the requirements whose sentences say the same of a narrower one: a
// server message that one of them judged (the evidence of its FAIL or
// WARN) is that requirement's deviation alone, and the general one notes it
// (one deviation, one verdict).
var narrower = map[string][]string{
	// requests and notifications beyond the negotiated capabilities: the
	// elicitation, sampling and roots requests, the list_changed
	// notifications
	"LIFE-005": {"LEG-001", "LEG-002", "STALE-003"},
	// an input request for a capability declared on an earlier request
	"MRTR-004": {"LIFE-012"},
	// -32002 for an unknown resource URI
	"RPC-012": {"RES-004"},
	// a POSTed notification answered with a JSON-RPC response: answering
	// it is the deviation, the 200 status its consequence
	"HTTP-004": {"RPC-004", "LIFE-003", "CAN-002"},
}

// Narrower returns the requirements whose sentences cover a narrower case
// of id's (nil when none).
func Narrower(id string) []string { return narrower[id] }
