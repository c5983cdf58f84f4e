package catalog

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcpconform/mcpconform/internal/sharedtest"
)

// projectAreas are the id prefixes the project added to the spec notes'
// catalog (stale references); projectIDs are the project's own ids in the
// other areas (RPC-014: liveness, which the notes grade inside other items).
var (
	projectAreas = map[string]bool{"STALE": true, "CLI": true, "CAUTH": true}
	projectIDs   = map[string]bool{"RPC-014": true}
)

// notesAreaCounts counts the requirement ids of the development-only spec
// notes' catalog section ("## 18."), by prefix. The notes are read from the
// oracle folder beside the checkout (internal/sharedtest), never copied here.
func notesAreaCounts(t *testing.T) map[string]int {
	t.Helper()
	b, err := os.ReadFile(sharedtest.Path(t, "SPEC-DIGEST.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(b), "\n## 18.")
	if !ok {
		t.Fatal("the spec notes have no catalog section (## 18.)")
	}
	counts := map[string]int{}
	seen := map[string]bool{}
	for _, m := range regexp.MustCompile(`\*\*([A-Z]+)-(\d{3})\*\*`).FindAllStringSubmatch(sec, -1) {
		if id := m[1] + "-" + m[2]; !seen[id] {
			seen[id] = true
			counts[m[1]]++
		}
	}
	return counts
}

// TestCount: the catalog holds exactly the spec notes' requirements plus
// the project's own areas and ids.
func TestCount(t *testing.T) {
	want := notesAreaCounts(t)
	got := map[string]int{}
	for _, r := range All() {
		prefix, _, _ := strings.Cut(r.ID, "-")
		if !projectIDs[r.ID] {
			got[prefix]++
		}
	}
	for prefix, n := range want {
		if got[prefix] != n {
			t.Errorf("%s: %d requirements in the catalog, %d in the spec notes", prefix, got[prefix], n)
		}
	}
	for prefix := range got {
		if _, ok := want[prefix]; !ok && !projectAreas[prefix] {
			t.Errorf("%s: an area the spec notes do not have (add it to projectAreas if it is the project's own)", prefix)
		}
	}
	if len(requirements) != len(All()) {
		t.Errorf("All() returns %d of %d requirements", len(All()), len(requirements))
	}
}

func TestIDsUniqueAndDense(t *testing.T) {
	seen := map[string]bool{}
	nums := map[string][]int{}
	for _, r := range requirements {
		if seen[r.ID] {
			t.Errorf("duplicate id %s", r.ID)
		}
		seen[r.ID] = true
		prefix, num, ok := strings.Cut(r.ID, "-")
		if !ok || len(num) != 3 {
			t.Errorf("id %q is not PREFIX-NNN", r.ID)
			continue
		}
		n, err := strconv.Atoi(num)
		if err != nil {
			t.Errorf("id %q: %v", r.ID, err)
			continue
		}
		nums[prefix] = append(nums[prefix], n)
	}
	for prefix, got := range nums {
		for i, n := range got {
			if n != i+1 {
				t.Errorf("%s: entry %d has number %d, want %d (gap or disorder)", prefix, i, n, i+1)
				break
			}
		}
	}
}

func TestCatalogOrder(t *testing.T) {
	all := All()
	for i := range requirements {
		if requirements[i].ID != all[i].ID {
			t.Fatalf("table position %d is %s, catalog order wants %s", i, requirements[i].ID, all[i].ID)
		}
	}
}

func TestEntriesValid(t *testing.T) {
	for i := range requirements {
		r := requirements[i]
		if err := r.validate(); err != nil {
			t.Error(err)
		}
		if r.Statement == "" || r.SpecLevel == "" {
			t.Errorf("%s: statement and spec level are required", r.ID)
		}
		if n := utf8.RuneCountInString(r.Title); n > 80 {
			t.Errorf("%s: title is %d characters, want <= 80", r.ID, n)
		}
		if strings.ContainsAny(r.Title, "\n") {
			t.Errorf("%s: title spans lines", r.ID)
		}
		if !slices.IsSorted(r.Revisions) || len(slices.Compact(slices.Clone(r.Revisions))) != len(r.Revisions) {
			t.Errorf("%s: revisions %v not sorted and unique", r.ID, r.Revisions)
		}
		for rev, l := range r.LevelByRevision {
			if !r.AppliesToRevision(rev) {
				t.Errorf("%s: level override for %s, which is not in its revisions", r.ID, rev)
			}
			if l != MUST && l != SHOULD {
				t.Errorf("%s: override level %q", r.ID, l)
			}
			if l == r.Level {
				t.Errorf("%s: override for %s repeats the default level", r.ID, rev)
			}
		}
		for _, tr := range r.Transports {
			if tr != Stdio && tr != HTTP {
				t.Errorf("%s: unknown transport %q", r.ID, tr)
			}
		}
		switch r.Area() {
		case "stdio":
			if !slices.Equal(r.Transports, []string{Stdio}) {
				t.Errorf("%s: transports %v, want stdio only", r.ID, r.Transports)
			}
		case "http", "auth":
			if !slices.Equal(r.Transports, []string{HTTP}) {
				t.Errorf("%s: transports %v, want http only", r.ID, r.Transports)
			}
		}
	}
}

func TestSpotChecks(t *testing.T) {
	type check struct {
		id         string
		revs       []Revision
		levels     map[Revision]Level
		transports []string
	}
	checks := []check{
		{
			id:     "LIFE-006",
			revs:   []Revision{R20260728},
			levels: map[Revision]Level{R20260728: MUST},
		},
		{
			id:     "LIFE-004",
			revs:   LegacyRevisions,
			levels: map[Revision]Level{R20241105: SHOULD, R20251125: SHOULD},
		},
		{
			id:     "RPC-002",
			revs:   AllRevisions,
			levels: map[Revision]Level{R20241105: MUST, R20260728: MUST},
		},
		{
			id:         "STD-001",
			revs:       AllRevisions,
			levels:     map[Revision]Level{R20260728: MUST},
			transports: []string{Stdio},
		},
		{
			id:   "LIFE-005",
			revs: LegacyRevisions,
			levels: map[Revision]Level{
				R20241105: SHOULD, R20250326: SHOULD, R20250618: MUST, R20251125: MUST,
			},
		},
		{
			id:     "RPC-008",
			revs:   []Revision{R20250326, R20250618, R20251125, R20260728},
			levels: map[Revision]Level{R20250326: MUST, R20250618: SHOULD, R20260728: SHOULD},
		},
		{
			id:     "TOOL-002",
			revs:   AllRevisions,
			levels: map[Revision]Level{R20241105: SHOULD, R20251125: SHOULD, R20260728: MUST},
		},
		{
			id:         "HTTP-010",
			revs:       []Revision{R20250618, R20251125},
			levels:     map[Revision]Level{R20250618: MUST},
			transports: []string{HTTP},
		},
		{
			id:         "CAN-003",
			revs:       []Revision{R20260728},
			transports: []string{Stdio},
		},
		{
			id:         "SUB-005",
			revs:       []Revision{R20260728},
			transports: []string{HTTP},
		},
		{
			id:         "AUTH-010",
			revs:       []Revision{R20250326},
			levels:     map[Revision]Level{R20250326: SHOULD},
			transports: []string{HTTP},
		},
	}
	for _, c := range checks {
		t.Run(c.id, func(t *testing.T) {
			r, ok := Get(c.id)
			if !ok {
				t.Fatalf("%s not found", c.id)
			}
			if !slices.Equal(r.Revisions, c.revs) {
				t.Errorf("revisions = %v, want %v", r.Revisions, c.revs)
			}
			for rev, want := range c.levels {
				if got := r.LevelFor(rev); got != want {
					t.Errorf("LevelFor(%s) = %s, want %s", rev, got, want)
				}
			}
			if !slices.Equal(r.Transports, c.transports) {
				t.Errorf("transports = %v, want %v", r.Transports, c.transports)
			}
		})
	}

	// Transport applicability through the public helpers.
	std := MustGet("STD-001")
	if !std.AppliesTo(R20241105, Stdio) || std.AppliesTo(R20241105, HTTP) {
		t.Errorf("STD-001 should apply to stdio only")
	}
	if got := MustGet("LIFE-006").RevisionsString(); got != "2026-07-28" {
		t.Errorf("LIFE-006 RevisionsString = %q", got)
	}
	if got := MustGet("LIFE-004").RevisionsString(); got != "legacy" {
		t.Errorf("LIFE-004 RevisionsString = %q", got)
	}
	if got := MustGet("RPC-002").RevisionsString(); got != "all" {
		t.Errorf("RPC-002 RevisionsString = %q", got)
	}
}

func TestGetUnknown(t *testing.T) {
	if _, ok := Get("LIFE-999"); ok {
		t.Error("Get(LIFE-999) found an entry")
	}
	defer func() {
		if recover() == nil {
			t.Error("MustGet of an unknown id did not panic")
		}
	}()
	MustGet(fmt.Sprintf("NOPE-%03d", 1))
}

// TestLinks: every requirement links, in every revision it applies to, at
// least one https URL of the sentences it rests on, and every link into the
// specification's site or repositories names a page (and section) that the
// generated index (specpages.txt) has.
func TestLinks(t *testing.T) {
	for _, r := range All() {
		for _, rev := range append([]Revision{""}, r.Revisions...) {
			ls := r.Links(rev)
			if len(ls) == 0 {
				t.Errorf("%s (%s): no link (source %q)", r.ID, rev, r.Source)
			}
			for _, l := range ls {
				if !strings.HasPrefix(l, "https://") {
					t.Errorf("%s (%s): %q is not an https URL", r.ID, rev, l)
				}
				page, frag, _ := strings.Cut(l, "#")
				if !strings.HasPrefix(page, SpecSite) && !strings.HasPrefix(page, SpecRepo) && !strings.HasPrefix(page, TasksRepo) {
					continue
				}
				if !PageExists(page) {
					t.Errorf("%s (%s): %s is not a page of the specification's index", r.ID, rev, page)
				} else if frag != "" && !AnchorExists(page, frag) {
					t.Errorf("%s (%s): %s has no section #%s", r.ID, rev, page, frag)
				}
			}
		}
	}
}

func TestAnchor(t *testing.T) {
	for in, want := range map[string]string{
		"Version Negotiation": "version-negotiation", "`_meta`": "meta", "Security & Endpoint": "security--endpoint",
		"HTTP+SSE Transport (2024-11-05)": "httpsse-transport-2024-11-05",
	} {
		if got := Anchor(in); got != want {
			t.Errorf("Anchor(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestTolerancesCitedExist: every TOL-N the code cites (in a verdict's
// text or a comment) is an entry of the catalog, and every entry links
// its source and names the checks that apply it.
func TestTolerancesCitedExist(t *testing.T) {
	for _, tol := range Tolerances() {
		if len(tol.Links()) == 0 || len(tol.Readings) < 2 || len(tol.Requirements) == 0 || tol.Question == "" {
			t.Errorf("%s: wants links, at least two readings, the checks that apply it and the question", tol.ID)
		}
	}
	cited := regexp.MustCompile(`\bTOL-\d+\b`)
	err := filepath.WalkDir("../..", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, id := range cited.FindAllString(string(b), -1) {
			if _, ok := GetTolerance(id); !ok {
				t.Errorf("%s cites %s, which the catalog does not have", p, id)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestNarrowerNamesRequirements(t *testing.T) {
	for general, ids := range narrower {
		for _, id := range append([]string{general}, ids...) {
			if _, ok := Get(id); !ok {
				t.Errorf("narrower: %s is not a requirement", id)
			}
		}
	}
}
