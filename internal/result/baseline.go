package result

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/mcpconform/mcpconform/internal/catalog"
)

// A baseline lists known failures that do not fail the run, each with a
// reason, so a project can adopt mcpconform and shrink the list over time.
// The file format and its semantics are documented in reports/BASELINE.md.

// BaselineVersion is the only baseline file version understood.
const BaselineVersion = 1

// MaxBaselineSize bounds the baseline file LoadBaseline reads.
const MaxBaselineSize = 1 << 20

// Baseline is a parsed baseline file.
type Baseline struct {
	Version int
	Entries []BaselineEntry
}

// BaselineEntry is one known failure. Transport and Revision are optional
// narrowings ("" matches any).
type BaselineEntry struct {
	Requirement, Transport, Revision, Reason string
	// Line is where the entry starts in the file (0 when not loaded from one).
	Line int
}

// String is the entry's key: LIFE-010, LIFE-010@2025-11-25, LIFE-010/http
// or LIFE-010@2025-11-25/http.
func (e BaselineEntry) String() string {
	s := e.Requirement
	if e.Revision != "" {
		s += "@" + e.Revision
	}
	if e.Transport != "" {
		s += "/" + e.Transport
	}
	return s
}

// Matches reports whether the entry covers the result's requirement,
// transport and revision (whatever its verdict).
func (e BaselineEntry) Matches(r Result) bool {
	return r.Requirement == e.Requirement &&
		(e.Transport == "" || e.Transport == r.Transport) &&
		(e.Revision == "" || e.Revision == r.Revision)
}

// coveredBy reports whether every result e matches is also matched by o.
func (e BaselineEntry) coveredBy(o BaselineEntry) bool {
	return e.Requirement == o.Requirement &&
		(o.Transport == "" || o.Transport == e.Transport) &&
		(o.Revision == "" || o.Revision == e.Revision)
}

func (e BaselineEntry) specificity() int {
	n := 0
	if e.Transport != "" {
		n++
	}
	if e.Revision != "" {
		n++
	}
	return n
}

// BaselineSummary is what report.json records about an applied baseline.
// Baselined lists result keys (LIFE-010@2025-11-25/http), Stale and
// Unmatched list entry keys (BaselineEntry.String).
type BaselineSummary struct {
	File      string   `json:"file"`
	Baselined []string `json:"baselined"`
	Stale     []string `json:"stale"`
	Unmatched []string `json:"unmatched"`
}

// BaselineOutcome is what applying a baseline to a run found.
type BaselineOutcome struct {
	// Baselined are the failing results (FAIL, ERROR, and WARN when the run
	// is strict) an entry covers, with Baselined and BaselineReason set:
	// they no longer fail the gate.
	Baselined []Result
	// Stale are entries whose requirement now passes in every matching
	// result of the run (NA results aside): a stale entry fails the run, so
	// baselines shrink.
	Stale []BaselineEntry
	// Unmatched are entries that matched no result of the run, or only NA
	// ones (not selected, not applicable, interrupted): reported, harmless.
	Unmatched []BaselineEntry
}

// ResultKey names a result in BaselineSummary: LIFE-010@2025-11-25/http.
func ResultKey(r Result) string {
	return r.Requirement + "@" + r.Revision + "/" + r.Transport
}

var (
	baselineIDPattern   = regexp.MustCompile(`^[A-Z][A-Z0-9]*-[0-9]{3,}$`)
	baselineDatePattern = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}$`)
)

// IsRequirementID reports whether s has the form of a requirement id
// (AREA-NNN, e.g. LIFE-010), as a baseline entry names one.
func IsRequirementID(s string) bool { return baselineIDPattern.MatchString(s) }

// LoadBaseline reads and validates a baseline file. It is strict: unknown
// fields, a version other than 1, a missing or malformed requirement id, a
// missing reason, an unknown transport, a revision that is not a date and
// duplicate (or redundant) entries are errors, each naming FILE:LINE.
func LoadBaseline(path string) (*Baseline, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("baseline: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxBaselineSize+1))
	if err != nil {
		return nil, fmt.Errorf("baseline %s: %w", path, err)
	}
	if len(data) > MaxBaselineSize {
		return nil, fmt.Errorf("baseline %s: larger than %d bytes", path, MaxBaselineSize)
	}
	return ParseBaseline(data, path)
}

// ParseBaseline is LoadBaseline on bytes; name prefixes the errors.
func ParseBaseline(data []byte, name string) (*Baseline, error) {
	fail := func(line int, format string, args ...any) error {
		return fmt.Errorf("%s:%d: %s", name, line, fmt.Sprintf(format, args...))
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: empty baseline: want 'version: 1' and 'entries'", name)
		}
		return nil, fmt.Errorf("%s: %v", name, err) // yaml errors say "line N"
	}
	var extra yaml.Node
	switch err := dec.Decode(&extra); {
	case err == nil:
		return nil, fail(extra.Line, "a baseline is one YAML document; remove the '---' separator and what follows")
	case !errors.Is(err, io.EOF):
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil, fmt.Errorf("%s: empty baseline: want 'version: 1' and 'entries'", name)
	}
	root := deref(doc.Content[0])
	if root.Kind != yaml.MappingNode {
		return nil, fail(root.Line, "a baseline is a mapping with 'version' and 'entries'")
	}
	top, err := fields(root, fail, "version", "entries")
	if err != nil {
		return nil, err
	}
	b := &Baseline{}
	vn, ok := top["version"]
	if !ok {
		return nil, fail(root.Line, "'version: 1' is required")
	}
	if vn.Kind != yaml.ScalarNode || vn.Value != "1" || (vn.ShortTag() != "!!int" && vn.ShortTag() != "!!str") {
		return nil, fail(vn.Line, "unsupported baseline version %q: this mcpconform reads version 1", vn.Value)
	}
	b.Version = BaselineVersion
	en, ok := top["entries"]
	if !ok || en.ShortTag() == "!!null" {
		b.Entries = []BaselineEntry{}
		return b, nil
	}
	if en.Kind != yaml.SequenceNode {
		return nil, fail(en.Line, "'entries' must be a list")
	}
	b.Entries = make([]BaselineEntry, 0, len(en.Content))
	for _, item := range en.Content {
		item = deref(item)
		if item.Kind != yaml.MappingNode {
			return nil, fail(item.Line, "each entry is a mapping with 'requirement' and 'reason'")
		}
		m, err := fields(item, fail, "requirement", "transport", "revision", "reason")
		if err != nil {
			return nil, err
		}
		e := BaselineEntry{Line: item.Line}
		for _, f := range []struct {
			key string
			dst *string
		}{{"requirement", &e.Requirement}, {"transport", &e.Transport}, {"revision", &e.Revision}, {"reason", &e.Reason}} {
			key, dst := f.key, f.dst
			n, ok := m[key]
			if !ok {
				continue
			}
			if n.Kind != yaml.ScalarNode {
				return nil, fail(n.Line, "%s must be a string", key)
			}
			if n.ShortTag() != "!!null" {
				*dst = n.Value
			}
		}
		line := func(key string) int {
			if n, ok := m[key]; ok {
				return n.Line
			}
			return item.Line
		}
		switch {
		case e.Requirement == "":
			return nil, fail(item.Line, "entry without 'requirement'")
		case !baselineIDPattern.MatchString(e.Requirement):
			return nil, fail(line("requirement"), "requirement %q is not a requirement id (AREA-NNN, e.g. LIFE-010; see 'mcpconform list')", e.Requirement)
		}
		if e.Transport != "" && e.Transport != catalog.Stdio && e.Transport != catalog.HTTP {
			return nil, fail(line("transport"), "%s: transport %q: want stdio or http (or leave it out)", e.Requirement, e.Transport)
		}
		if e.Revision != "" {
			if _, err := time.Parse("2006-01-02", e.Revision); err != nil || !baselineDatePattern.MatchString(e.Revision) {
				return nil, fail(line("revision"), "%s: revision %q: want a date like \"2025-11-25\" (or leave it out)", e.Requirement, e.Revision)
			}
		}
		e.Reason = strings.TrimSpace(e.Reason)
		if e.Reason == "" {
			return nil, fail(line("reason"), "%s: 'reason' is required: say why this failure is accepted", e.Requirement)
		}
		for _, prev := range b.Entries {
			switch {
			case e.coveredBy(prev):
				return nil, fail(e.Line, "duplicate entry %s: the entry at line %d (%s) already covers it", e, prev.Line, prev)
			case prev.coveredBy(e):
				return nil, fail(e.Line, "duplicate entry %s: it covers the entry at line %d (%s); keep one", e, prev.Line, prev)
			}
		}
		b.Entries = append(b.Entries, e)
	}
	return b, nil
}

// deref follows an alias.
func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n.Kind == yaml.AliasNode && n.Alias != nil && i < 8; i++ {
		n = n.Alias
	}
	return n
}

// fields checks a mapping's keys against the allowed ones (no unknown, no
// repeated key) and returns key → value node.
func fields(m *yaml.Node, fail func(int, string, ...any) error, allowed ...string) (map[string]*yaml.Node, error) {
	out := map[string]*yaml.Node{}
	keyLine := map[string]int{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := deref(m.Content[i]), deref(m.Content[i+1])
		if k.Kind != yaml.ScalarNode {
			return nil, fail(k.Line, "keys must be plain names")
		}
		known := false
		for _, a := range allowed {
			known = known || k.Value == a
		}
		if !known {
			return nil, fail(k.Line, "unknown field %q (allowed: %s)", k.Value, strings.Join(allowed, ", "))
		}
		if first, dup := keyLine[k.Value]; dup {
			return nil, fail(k.Line, "field %q given twice (first at line %d)", k.Value, first)
		}
		keyLine[k.Value] = k.Line
		out[k.Value] = v
	}
	return out, nil
}

// Apply matches the baseline against a run without changing the report.
// Strictness comes from r.Summary.Strict. A nil baseline finds nothing.
func (b *Baseline) Apply(r *Report) BaselineOutcome {
	var out BaselineOutcome
	idx, stale, unmatched := b.apply(r)
	for _, x := range idx {
		res := r.Results[x.i]
		res.Baselined, res.BaselineReason = true, x.e.Reason
		out.Baselined = append(out.Baselined, res)
	}
	out.Stale, out.Unmatched = stale, unmatched
	return out
}

// apply returns, in result order, the index of each baselined result with
// its entry, and the stale and unmatched entries in file order.
func (b *Baseline) apply(r *Report) (baselined []idxEntry, stale, unmatched []BaselineEntry) {
	if b == nil || r == nil {
		return nil, nil, nil
	}
	strict := r.Summary.Strict
	for i, res := range r.Results {
		if !res.Verdict.Fails(strict) {
			continue
		}
		var best *BaselineEntry
		for j := range b.Entries { // the most specific entry wins, then the first
			e := &b.Entries[j]
			if e.Matches(res) && (best == nil || e.specificity() > best.specificity()) {
				best = e
			}
		}
		if best != nil {
			baselined = append(baselined, idxEntry{i, *best})
		}
	}
	for _, e := range b.Entries {
		seen, allPass := false, true
		for _, res := range r.Results {
			if !e.Matches(res) || res.Verdict == NA {
				continue
			}
			seen = true
			allPass = allPass && res.Verdict == PASS
		}
		switch {
		case !seen:
			unmatched = append(unmatched, e)
		case allPass:
			stale = append(stale, e)
		}
	}
	return baselined, stale, unmatched
}

// idxEntry is a baselined result's index in Report.Results and its entry.
type idxEntry struct {
	i int
	e BaselineEntry
}

// ApplyBaseline applies b (loaded from file) to the report in place: it
// clears earlier baseline marks, marks each baselined result (Baselined,
// BaselineReason), sets r.Baseline, and recomputes r.Summary with Summarize
// plus the baseline figures. Passed becomes: no failing result the baseline
// does not cover, and no stale entry. Strictness is kept from r.Summary.
// A nil b removes any applied baseline.
func (r *Report) ApplyBaseline(b *Baseline, file string) {
	strict := r.Summary.Strict
	for i := range r.Results {
		r.Results[i].Baselined, r.Results[i].BaselineReason = false, ""
	}
	r.Summary = Summarize(r.Results, strict)
	r.Baseline = nil
	if b == nil {
		return
	}
	idx, stale, unmatched := b.apply(r)
	sum := &BaselineSummary{File: file, Baselined: []string{}, Stale: []string{}, Unmatched: []string{}}
	for _, x := range idx {
		r.Results[x.i].Baselined, r.Results[x.i].BaselineReason = true, x.e.Reason
		sum.Baselined = append(sum.Baselined, ResultKey(r.Results[x.i]))
	}
	for _, e := range stale {
		sum.Stale = append(sum.Stale, e.String())
	}
	for _, e := range unmatched {
		sum.Unmatched = append(sum.Unmatched, e.String())
	}
	r.Baseline = sum
	r.Summary.Baselined = len(sum.Baselined)
	r.Summary.Stale = len(sum.Stale)
	r.Summary.Passed = len(stale) == 0
	for _, res := range r.Results {
		if res.FailsRun(strict) {
			r.Summary.Passed = false
		}
	}
}

// ParseEntryKey inverts BaselineEntry.String.
func ParseEntryKey(s string) BaselineEntry {
	var e BaselineEntry
	s, e.Transport, _ = strings.Cut(s, "/")
	e.Requirement, e.Revision, _ = strings.Cut(s, "@")
	return e
}
