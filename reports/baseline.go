package reports

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"
	"unicode"

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

// failing reports whether a result fails the gate on its own.
func failing(r Result, strict bool) bool {
	return r.Verdict == "FAIL" || r.Verdict == "ERROR" || (strict && r.Verdict == "WARN")
}

var (
	baselineIDPattern   = regexp.MustCompile(`^[A-Z][A-Z0-9]*-[0-9]{3,}$`)
	baselineDatePattern = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}$`)
)

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
		if !failing(res, strict) {
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
			if !e.Matches(res) || res.Verdict == "NA" {
				continue
			}
			seen = true
			allPass = allPass && res.Verdict == "PASS"
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
		if failing(res, strict) && !res.Baselined {
			r.Summary.Passed = false
		}
	}
}

// parseEntryKey inverts BaselineEntry.String.
func parseEntryKey(s string) BaselineEntry {
	var e BaselineEntry
	s, e.Transport, _ = strings.Cut(s, "/")
	e.Requirement, e.Revision, _ = strings.Cut(s, "@")
	return e
}

// TerminalBaseline prints what the applied baseline did: the number of
// known failures ignored, each stale entry (which fails the run) and each
// unmatched entry as a note. It prints nothing without a baseline.
func TerminalBaseline(w io.Writer, r *Report) {
	if r == nil || r.Baseline == nil {
		return
	}
	bs := r.Baseline
	file := oneLine(bs.File, 200)
	fmt.Fprintf(w, "baseline: %d known failure%s ignored (%s)\n", len(bs.Baselined), plural(len(bs.Baselined), "", "s"), file)
	for _, key := range bs.Stale {
		e := parseEntryKey(key)
		fmt.Fprintf(w, "STALE BASELINE: %s now passes (%s) — remove it from %s\n", oneLine(e.Requirement, 40), passedWhere(r, e), file)
	}
	for _, key := range bs.Unmatched {
		e := parseEntryKey(key)
		why := "not selected, NA or not run"
		if _, known := catalog.Get(e.Requirement); !known {
			why = "unknown requirement id, see 'mcpconform list'"
		}
		fmt.Fprintf(w, "note: baseline entry %s matched no check in this run (%s)\n", oneLine(key, 80), why)
	}
}

// passedWhere lists the transports and revisions where e's results ran.
func passedWhere(r *Report, e BaselineEntry) string {
	var transports, revisions []string
	add := func(list *[]string, v string) {
		for _, x := range *list {
			if x == v {
				return
			}
		}
		*list = append(*list, v)
	}
	for _, res := range r.Results {
		if e.Matches(res) && res.Verdict == "PASS" {
			add(&transports, oneLine(res.Transport, 20))
			add(&revisions, oneLine(res.Revision, 20))
		}
	}
	if len(transports) == 0 { // the report was edited: fall back to the entry
		transports, revisions = []string{e.Transport}, []string{e.Revision}
	}
	return strings.TrimSpace(strings.Join(transports, ", ") + " " + strings.Join(revisions, ", "))
}

// WriteBaseline writes a baseline that accepts every failing result of the
// run (FAIL and ERROR, and WARN when strict): one entry per requirement and
// transport (always narrowed to the result's transport), narrowed to the failing revisions only when the requirement
// passed in another revision of the run. Each entry's reason is
// "TODO: explain" (or the reason the result was already baselined with),
// preceded by the failure messages as comments. Entries are in catalog order.
func WriteBaseline(w io.Writer, r *Report, strict bool) error {
	type key struct{ req, transport string }
	type gen struct {
		BaselineEntry
		results []Result
	}
	fails := map[key][]Result{}
	passed := map[key]bool{}
	var keys []key
	for _, res := range r.Results {
		t := res.Transport
		if t != catalog.Stdio && t != catalog.HTTP { // not narrowable
			t = ""
		}
		k := key{res.Requirement, t}
		if res.Verdict == "PASS" {
			passed[k] = true
		}
		if failing(res, strict) {
			if _, ok := fails[k]; !ok {
				keys = append(keys, k)
			}
			fails[k] = append(fails[k], res)
		}
	}
	var entries []gen
	for _, k := range keys {
		if !passed[k] {
			entries = append(entries, gen{BaselineEntry{Requirement: k.req, Transport: k.transport}, fails[k]})
			continue
		}
		byRev := map[string]int{}
		for _, res := range fails[k] {
			if i, ok := byRev[res.Revision]; ok {
				entries[i].results = append(entries[i].results, res)
				continue
			}
			byRev[res.Revision] = len(entries)
			entries = append(entries, gen{BaselineEntry{Requirement: k.req, Transport: k.transport, Revision: res.Revision}, []Result{res}})
		}
	}
	sort.SliceStable(entries, func(i, j int) bool {
		a, b := entries[i], entries[j]
		switch {
		case a.Requirement != b.Requirement:
			if catalog.Less(a.Requirement, b.Requirement) != catalog.Less(b.Requirement, a.Requirement) {
				return catalog.Less(a.Requirement, b.Requirement)
			}
			return a.Requirement < b.Requirement
		case a.Transport != b.Transport:
			return a.Transport < b.Transport
		default:
			return a.Revision > b.Revision // newest first, as in the report
		}
	})

	for _, e := range entries {
		sort.SliceStable(e.results, func(i, j int) bool { return e.results[i].Revision > e.results[j].Revision })
	}

	var buf bytes.Buffer
	buf.WriteString("# mcpconform baseline: known failures that do not fail the run\n")
	fmt.Fprintf(&buf, "# written by 'mcpconform baseline write' from the run of %s (mcpconform %s, %s%s)\n",
		r.StartedAt.UTC().Format(time.RFC3339), commentText(r.Tool.Version, 40), commentText(r.Target.Transport, 10), map[bool]string{true: ", strict", false: ""}[strict])
	buf.WriteString("# replace each \"TODO: explain\" with why the failure is accepted; remove an entry once it passes.\n")
	buf.WriteString("# format: reports/BASELINE.md in the mcpconform repository\n")
	fmt.Fprintf(&buf, "version: %d\n", BaselineVersion)
	if len(entries) == 0 {
		buf.WriteString("entries: []\n")
		_, err := w.Write(buf.Bytes())
		return err
	}
	buf.WriteString("entries:\n")
	for _, e := range entries {
		head := e.Requirement
		if res := e.results[0]; res.Level != "" {
			head += " " + res.Level
		}
		if res := e.results[0]; res.Title != "" {
			head += " — " + res.Title
		}
		fmt.Fprintf(&buf, "  # %s\n", commentText(head, 160))
		reason := ""
		for i, res := range e.results {
			if i == 0 {
				reason = res.BaselineReason
			} else if res.BaselineReason != reason {
				reason = ""
			}
			if i < 5 {
				fmt.Fprintf(&buf, "  #   %s %s: %s\n", res.Verdict, commentText(res.Revision, 20), commentText(res.Message, 160))
			} else if i == 5 {
				fmt.Fprintf(&buf, "  #   … and %d more\n", len(e.results)-5)
			}
		}
		if strings.TrimSpace(reason) == "" {
			reason = "TODO: explain"
		}
		fmt.Fprintf(&buf, "  - requirement: %s\n", yamlString(e.Requirement, true))
		if e.Transport != "" {
			fmt.Fprintf(&buf, "    transport: %s\n", e.Transport)
		}
		if e.Revision != "" {
			fmt.Fprintf(&buf, "    revision: %s\n", yamlString(e.Revision, false))
		}
		fmt.Fprintf(&buf, "    reason: %s\n", yamlString(reason, false))
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// yamlString renders s as a YAML scalar: plain when allowed and s is an id,
// otherwise double-quoted (JSON string syntax, which YAML reads as is).
func yamlString(s string, plainIfID bool) string {
	if plainIfID && baselineIDPattern.MatchString(s) {
		return s
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

// commentText makes server-sent text safe inside a YAML comment: one line,
// printable characters only, at most max runes.
func commentText(s string, max int) string {
	return cleanLine(s, max)
}

// cleanLine turns untrusted text into one printable line of at most max
// runes (plus "…" when cut): invalid UTF-8, control, bidi-control and
// non-characters become U+FFFD; line breaks (including NEL, LS, PS) and
// other whitespace become spaces; runs of spaces collapse.
func cleanLine(s string, max int) string {
	out := make([]rune, 0, min(len(s), max+1))
	space := false
	for _, r := range strings.ToValidUTF8(s, "\uFFFD") {
		switch {
		case unicode.IsSpace(r) || r == 0x2028 || r == 0x2029:
			space = true
			continue
		case unicode.IsControl(r) || isBidiControl(r) || r == 0xFEFF || r == 0xFFFE || r == 0xFFFF:
			r = '\uFFFD'
		}
		if space && len(out) > 0 {
			out = append(out, ' ')
		}
		space = false
		out = append(out, r)
		if len(out) > max {
			return strings.TrimRight(string(out[:max]), " ") + "…"
		}
	}
	return string(out)
}

func isBidiControl(r rune) bool {
	return r == 0x061C || r == 0x200E || r == 0x200F || (r >= 0x202A && r <= 0x202E) || (r >= 0x2066 && r <= 0x2069)
}

// ReadReport reads dir/report.json (any 1.x schema), e.g. for
// 'mcpconform baseline write --report-dir DIR'.
func ReadReport(dir string) (*Report, error) {
	path := filepath.Join(dir, "report.json")
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r Report
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if major, _, _ := strings.Cut(r.SchemaVersion, "."); major != "1" {
		return nil, fmt.Errorf("%s: schemaVersion %q: this mcpconform reads 1.x", path, r.SchemaVersion)
	}
	return &r, nil
}
