package reports

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/mcpconform/mcpconform/internal/catalog"
	"github.com/mcpconform/mcpconform/internal/result"
)

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
		e := result.ParseEntryKey(key)
		fmt.Fprintf(w, "STALE BASELINE: %s now passes (%s) — remove it from %s\n", oneLine(e.Requirement, 40), passedWhere(r, e), file)
	}
	for _, key := range bs.Unmatched {
		e := result.ParseEntryKey(key)
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
		if e.Matches(res) && res.Verdict == result.PASS {
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
		if res.Verdict == result.PASS {
			passed[k] = true
		}
		if res.Verdict.Fails(strict) {
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
	fmt.Fprintf(&buf, "version: %d\n", result.BaselineVersion)
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
	if plainIfID && result.IsRequirementID(s) {
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
