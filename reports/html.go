package reports

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/mcpconform/mcpconform/internal/catalog"
	"github.com/mcpconform/mcpconform/internal/jsonobj"
	"github.com/mcpconform/mcpconform/internal/repro"
	"github.com/mcpconform/mcpconform/internal/result"
)

// The HTML reports are self-contained pages: the CSS and JS are embedded
// inline and a Content-Security-Policy admits exactly those two (by hash) and
// nothing else, so the page works offline, loads nothing, and — should any
// server text ever escape html/template's contextual escaping — injected
// markup still cannot run scripts or fetch anything.
//
// Everything from the server reaches the templates as plain strings; the only
// trusted content types (template.CSS, template.JS) hold the embedded assets.

//go:embed templates/report.html.tmpl templates/matrix.html.tmpl templates/report.css templates/report.js
var htmlFS embed.FS

var (
	htmlPageCSS, htmlPageJS string
	htmlPageCSP             string
	htmlReportTmpl          *template.Template
	htmlMatrixTmpl          *template.Template
)

func init() {
	css, _ := htmlFS.ReadFile("templates/report.css")
	js, _ := htmlFS.ReadFile("templates/report.js")
	htmlPageCSS, htmlPageJS = string(css), string(js)
	htmlPageCSP = "default-src 'none'; style-src '" + htmlCSPHash(htmlPageCSS) + "'; script-src '" + htmlCSPHash(htmlPageJS) +
		"'; img-src 'none'; base-uri 'none'; form-action 'none'"
	funcs := template.FuncMap{"symbol": htmlSymbol, "add": func(a, b int) int { return a + b }}
	htmlReportTmpl = template.Must(template.New("report.html.tmpl").Funcs(funcs).ParseFS(htmlFS, "templates/report.html.tmpl"))
	htmlMatrixTmpl = template.Must(template.New("matrix.html.tmpl").Funcs(funcs).ParseFS(htmlFS, "templates/matrix.html.tmpl"))
}

func htmlCSPHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
}

// assets are the trusted parts every page embeds.
type htmlAssets struct {
	CSS template.CSS
	JS  template.JS
	CSP string
}

func htmlPageAssets() htmlAssets {
	return htmlAssets{CSS: template.CSS(htmlPageCSS), JS: template.JS(htmlPageJS), CSP: htmlPageCSP}
}

func init() {
	register(format{Name: "html", File: "report.html", Order: 30, ByDefault: true, Write: WriteHTML})
}

// WriteHTML writes report.html into dir.
func WriteHTML(dir string, r *Report) (string, error) {
	path := filepath.Join(dir, "report.html")
	return path, writeFileWith(path, func(w io.Writer) error { return htmlReportTmpl.Execute(w, buildHTMLReport(r)) })
}

// RenderHTML writes the report as one self-contained HTML page.
func RenderHTML(w io.Writer, r *Report) error {
	var buf bytes.Buffer
	if err := htmlReportTmpl.Execute(&buf, buildHTMLReport(r)); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// verdictSymbol pairs every verdict colour with a shape, so the verdict never
// depends on colour alone.
func htmlSymbol(v Verdict) string {
	switch v {
	case result.PASS:
		return "✓"
	case result.FAIL:
		return "✗"
	case result.WARN:
		return "!"
	case result.NA:
		return "–"
	case result.ERROR:
		return "⚠"
	}
	return "?"
}

// ---- view model ----

type htmlCount struct {
	Verdict Verdict
	N       int
}

type htmlSpan struct{ C, T string }

// codeView is a pre block: JSON is pretty-printed (in Go, before escaping)
// and split into classed spans; anything else is one plain span.
type htmlCode struct {
	Text  string
	JSON  bool
	Short bool
	Spans []htmlSpan
}

type htmlInfo struct{ Name, Title, Version string }

type htmlEra struct {
	Revision     string
	Error        string
	CapNames     []string
	Capabilities htmlCode
	ServerInfo   htmlCode
	SameInfo     bool
}

type htmlProblemRow struct {
	Verdict                                                         Verdict
	Anchor, Requirement, Level, Revision, Transport, Title, Message string
	Baselined                                                       bool
	BaselineReason                                                  string
}

type htmlNote struct {
	Text string
	Obs  bool
}

type htmlCheck struct {
	R                      *Result
	Anchor                 string
	Open                   bool
	Why                    string
	Links                  []string
	Duration, DurationLong string
	Expected, Actual       htmlCode
	Notes                  []htmlNote
	// Tx names the check's transcript in the page's data block.
	Tx htmlTxRef
	// Repro is the script of mcpconform repro (FAIL and WARN only) and
	// ReproCmd the command that prints it.
	Repro, ReproCmd string
}

type htmlArea struct {
	Name, ID string
	Counts   []htmlCount
	Checks   []htmlCheck
}

type htmlFilterOption struct {
	Value string
	N     int
}

type htmlFilterGroup struct {
	Name, Label string
	Options     []htmlFilterOption
}

type htmlReport struct {
	htmlAssets
	Title, Schema          string
	Tool                   Tool
	Passed, Strict, Hollow bool
	Interrupted            bool
	HollowReason           string
	Total, Judged          int
	Counts                 []htmlCount
	Verdicts               []Verdict
	Name, Version          string // clipped for the header
	Info                   htmlInfo
	// Role is what was checked: "server", or "client" (mcpconform client:
	// Info is then the client's clientInfo).
	Role                           string
	Transport, Target, TargetShort string
	URL                            bool
	Auth                           string
	HeaderNames                    []string
	Revisions                      []string
	Eras                           []htmlEra
	Detection                      []string
	Started, Duration              string
	Problems                       []htmlProblemRow
	Areas                          []htmlArea
	Filters                        []htmlFilterGroup
	Stderr                         string
	Baseline                       *BaselineSummary
	// Contract: the contract gate's findings (run --contract/--lint,
	// contract check).
	Contract *Contract
	// CallPolicy is the run's call policy ("" in reports before 1.2);
	// PolicyNA the NA results it caused.
	CallPolicy, ConfigFile string
	PolicyNA               int
	// Tx is the transcript data block: every frame and body once.
	Tx *htmlTxData
}

const htmlHeaderClip = 120

func buildHTMLReport(r *Report) *htmlReport {
	if r == nil {
		r = &Report{}
	}
	s := r.Summary
	if s.Counts == nil { // a report built by hand: derive the summary
		s = result.Summarize(r.Results, s.Strict)
	}
	info := htmlServerInfo(r.ServerInfo)
	v := &htmlReport{
		htmlAssets: htmlPageAssets(), Schema: r.SchemaVersion, Tool: r.Tool,
		Passed: s.Passed, Strict: s.Strict, Hollow: s.Hollow, HollowReason: strings.TrimSuffix(s.HollowReason, "."),
		Interrupted: r.Interrupted, Total: len(r.Results),
		Verdicts: result.Verdicts, Info: info,
		Name: htmlClip(htmlOneLine(info.Name), htmlHeaderClip), Version: htmlClip(htmlOneLine(info.Version), 60), Role: role(r),
		Transport: r.Target.Transport, Auth: r.Target.Auth, HeaderNames: r.Target.Headers,
		Revisions: r.Revisions, Detection: r.Detection, Stderr: r.Stderr, Baseline: r.Baseline, Contract: r.Contract,
		Started:    r.StartedAt.UTC().Format("2006-01-02 15:04:05 UTC"),
		Duration:   htmlMs(float64(r.DurationMs)),
		CallPolicy: htmlClip(htmlOneLine(r.CallPolicy), 20), ConfigFile: htmlClip(htmlOneLine(r.Target.Config), 200),
		PolicyNA: s.PolicyNA,
	}
	if v.Tool.Name == "" {
		v.Tool.Name = "mcpconform"
	}
	v.Title = htmlTitle(r)
	if r.Target.URL != "" {
		v.URL, v.Target = true, r.Target.URL
	} else {
		v.Target = htmlShellJoin(r.Target.Command)
	}
	v.TargetShort = htmlClip(v.Target, 100)
	counts := Counts{}
	for _, res := range r.Results {
		counts[res.Verdict]++
	}
	for verdict, n := range counts {
		if verdict.Judged() {
			v.Judged += n
		}
	}
	v.Counts = htmlCounts(counts, true)

	for _, e := range r.Eras {
		ev := htmlEra{Revision: e.Revision, Error: e.Error, Capabilities: codeOf(string(e.Capabilities)), ServerInfo: codeOf(string(e.ServerInfo))}
		ev.Capabilities.Short = strings.Count(ev.Capabilities.Text, "\n") < 10
		ev.SameInfo = len(e.ServerInfo) > 0 && bytes.Equal(htmlCompactJSON(e.ServerInfo), htmlCompactJSON(r.ServerInfo))
		var caps map[string]json.RawMessage
		if json.Unmarshal(e.Capabilities, &caps) == nil {
			for k := range caps {
				ev.CapNames = append(ev.CapNames, k)
			}
			sort.Strings(ev.CapNames)
		}
		v.Eras = append(v.Eras, ev)
	}

	anchors := Anchors(r.Results)
	var txRefs []htmlTxRef
	v.Tx, txRefs = buildHTMLTx(r.Results)
	byArea := map[string][]htmlCheck{}
	for i := range r.Results {
		res := &r.Results[i]
		cv := buildHTMLCheck(res, anchors[i], txRefs[i])
		// a client's fault is replayed by playing its scenario again, not
		// by a script standing in for it
		if (res.Verdict == result.FAIL || res.Verdict == result.WARN) && role(r) == "server" {
			if script, err := repro.Generate(r, *res, ReproOptions(res)); err == nil {
				cv.Repro = script
				cv.ReproCmd = ReproCommand(*res)
			}
		}
		byArea[res.Area] = append(byArea[res.Area], cv)
		if res.Verdict.Problem() {
			v.Problems = append(v.Problems, htmlProblemRow{Anchor: cv.Anchor, Verdict: res.Verdict, Requirement: res.Requirement,
				Level: res.Level, Revision: res.Revision, Transport: res.Transport, Title: res.Title,
				Message: htmlClip(htmlOneLine(res.Message), 400), Baselined: res.Baselined, BaselineReason: htmlClip(htmlOneLine(res.BaselineReason), 200)})
		}
	}
	sort.SliceStable(v.Problems, func(i, j int) bool {
		return htmlRank(v.Problems[i].Verdict, v.Problems[i].Baselined) < htmlRank(v.Problems[j].Verdict, v.Problems[j].Baselined)
	})
	for _, area := range Areas(r.Results) {
		checks := byArea[area]
		// failures first within each area; catalog order otherwise
		sort.SliceStable(checks, func(i, j int) bool {
			return htmlRank(checks[i].R.Verdict, checks[i].R.Baselined) < htmlRank(checks[j].R.Verdict, checks[j].R.Baselined)
		})
		ac := Counts{}
		for _, c := range checks {
			ac[c.R.Verdict]++
		}
		v.Areas = append(v.Areas, htmlArea{Name: area, ID: "area-" + htmlAnchorPart(area), Counts: htmlCounts(ac, true), Checks: checks})
	}
	v.Filters = htmlFilters(r.Results)
	return v
}

// htmlTitle is the document title of report.html.
func htmlTitle(r *Report) string {
	verdict := "PASSED"
	if !r.Summary.Passed {
		verdict = "FAILED"
	}
	if r.Summary.Counts == nil {
		if !result.Summarize(r.Results, r.Summary.Strict).Passed {
			verdict = "FAILED"
		} else {
			verdict = "PASSED"
		}
	}
	t := "mcpconform report: " + verdict
	if name := htmlServerInfo(r.ServerInfo).Name; name != "" {
		t += " — " + htmlClip(htmlOneLine(name), 60)
	}
	if r.Target.Transport != "" {
		t += " (" + r.Target.Transport + ")"
	}
	return t
}

// htmlRank orders problems first (FAIL, ERROR, WARN), those a baseline
// covers after the others, then everything else in catalog order.
func htmlRank(v Verdict, baselined bool) int {
	r := htmlSeverity(v)
	if baselined && r < 3 {
		r += 3
	}
	return r
}

func htmlSeverity(v Verdict) int {
	switch v {
	case result.FAIL:
		return 0
	case result.ERROR:
		return 1
	case result.WARN:
		return 2
	}
	return 3
}

// safeLinks keeps the https links (the page links only to the
// specification; a report.json edited by hand cannot add other schemes).
func safeLinks(ls []string) []string {
	var out []string
	for _, l := range ls {
		if safeURL(l) {
			out = append(out, l)
		}
	}
	return out
}

// role is what a report checked: "client" (mcpconform client) or "server".
func role(r *Report) string {
	if r.Target.Role == "client" {
		return "client"
	}
	return "server"
}

func buildHTMLCheck(res *Result, anchor string, tx htmlTxRef) htmlCheck {
	cv := htmlCheck{
		R: res, Anchor: anchor, Open: res.Verdict.Problem(), Tx: tx,
		Links:        safeLinks(res.Links),
		Duration:     htmlMs(res.DurationMs),
		DurationLong: "took " + htmlMs(res.DurationMs),
		Expected:     codeOf(res.Expected),
		Actual:       codeOf(res.Actual),
	}
	if res.Verdict == result.NA || (!cv.Open && res.Message != "") {
		cv.Why = htmlClip(htmlOneLine(res.Message), 200)
	}
	// Notes carry tolerated deviations and observations; later additions
	// such as fuzz findings (seed, shrunk case, replay command) show here too.
	for _, n := range res.Notes {
		cv.Notes = append(cv.Notes, htmlNote{Text: n, Obs: strings.HasPrefix(n, "note:")})
	}
	return cv
}

func htmlFilters(rs []Result) []htmlFilterGroup {
	count := func(get func(Result) string) map[string]int {
		m := map[string]int{}
		for _, r := range rs {
			m[get(r)]++
		}
		return m
	}
	group := func(name, label string, order []string, m map[string]int, always bool) htmlFilterGroup {
		g := htmlFilterGroup{Name: name, Label: label}
		for _, k := range order {
			if n, ok := m[k]; ok || always {
				g.Options = append(g.Options, htmlFilterOption{Value: k, N: n})
				delete(m, k)
			}
		}
		rest := make([]string, 0, len(m))
		for k := range m {
			rest = append(rest, k)
		}
		sort.Strings(rest)
		for _, k := range rest {
			g.Options = append(g.Options, htmlFilterOption{Value: k, N: m[k]})
		}
		return g
	}
	revs := count(func(r Result) string { return r.Revision })
	revOrder := make([]string, 0, len(revs))
	for k := range revs {
		revOrder = append(revOrder, k)
	}
	sort.Sort(sort.Reverse(sort.StringSlice(revOrder)))
	return []htmlFilterGroup{
		group("verdict", "verdict", verdictNames, count(func(r Result) string { return string(r.Verdict) }), false),
		group("area", "area", Areas(rs), count(func(r Result) string { return r.Area }), false),
		group("level", "level", []string{"MUST", "SHOULD"}, count(func(r Result) string { return r.Level }), false),
		group("transport", "transport", []string{"stdio", "http"}, count(func(r Result) string { return r.Transport }), false),
		group("revision", "revision", revOrder, revs, false),
	}
}

// verdictNames are the verdicts in report order, as filter values.
var verdictNames = verdictStrings(result.Verdicts)

func verdictStrings(vs []Verdict) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.String()
	}
	return out
}

func htmlCounts(c Counts, all bool) []htmlCount {
	var out []htmlCount
	for _, v := range result.Verdicts {
		if n := c[v]; n > 0 || all {
			out = append(out, htmlCount{Verdict: v, N: n})
		}
	}
	return out
}

// ---- anchors ----

// Anchors returns the stable fragment id of each result in report.html:
// "<requirement>--<revision>" (e.g. "LIFE-001--2025-11-25"), with the
// transport appended only when that would repeat.
func Anchors(rs []Result) []string {
	out := make([]string, len(rs))
	seen := map[string]bool{}
	for i, r := range rs {
		a := htmlAnchorPart(r.Requirement) + "--" + htmlAnchorPart(r.Revision)
		if seen[a] {
			a += "--" + htmlAnchorPart(r.Transport)
		}
		base := a
		for n := 2; seen[a]; n++ {
			a = fmt.Sprintf("%s-%d", base, n)
		}
		seen[a] = true
		out[i] = a
	}
	return out
}

func htmlAnchorPart(s string) string {
	if s == "" {
		return "none"
	}
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '.' || r == '_' {
			return r
		}
		return '_'
	}, s)
}

// ---- text helpers ----

func htmlServerInfo(raw json.RawMessage) htmlInfo {
	var info struct {
		Name    string `json:"name"`
		Title   string `json:"title"`
		Version string `json:"version"`
	}
	_ = json.Unmarshal(raw, &info)
	return htmlInfo{Name: info.Name, Title: info.Title, Version: info.Version}
}

func htmlCompactJSON(raw json.RawMessage) []byte {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}

// codeOf pretty-prints s when it is a JSON object or array and splits it into
// highlighted spans; other text is kept as it is.
func codeOf(s string) htmlCode {
	if s == "" {
		return htmlCode{}
	}
	t := strings.TrimSpace(s)
	if t != "" && (t[0] == '{' || t[0] == '[') && jsonobj.Valid([]byte(t)) {
		var b bytes.Buffer
		if json.Indent(&b, []byte(t), "", "  ") == nil {
			p := b.String()
			return htmlCode{Text: p, JSON: true, Spans: htmlHighlightJSON(p)}
		}
	}
	return htmlCode{Text: s, Spans: []htmlSpan{{T: s}}}
}

// highlightJSON splits valid, indented JSON into spans: k (key), s (string),
// n (number), l (true, false, null) and plain text.
func htmlHighlightJSON(s string) []htmlSpan {
	var out []htmlSpan
	plain := func(t string) {
		if n := len(out); n > 0 && out[n-1].C == "" {
			out[n-1].T += t
			return
		}
		out = append(out, htmlSpan{T: t})
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '"':
			j := i + 1
			for j < len(s) && s[j] != '"' {
				if s[j] == '\\' {
					j++
				}
				j++
			}
			j = min(j+1, len(s))
			k := j
			for k < len(s) && (s[k] == ' ' || s[k] == '\n' || s[k] == '\t' || s[k] == '\r') {
				k++
			}
			cls := "s"
			if k < len(s) && s[k] == ':' {
				cls = "k"
			}
			out = append(out, htmlSpan{C: cls, T: s[i:j]})
			i = j
		case c == '-' || c >= '0' && c <= '9':
			j := i + 1
			for j < len(s) && strings.IndexByte("+-0123456789.eE", s[j]) >= 0 {
				j++
			}
			out = append(out, htmlSpan{C: "n", T: s[i:j]})
			i = j
		case strings.HasPrefix(s[i:], "true"), strings.HasPrefix(s[i:], "null"):
			out = append(out, htmlSpan{C: "l", T: s[i : i+4]})
			i += 4
		case strings.HasPrefix(s[i:], "false"):
			out = append(out, htmlSpan{C: "l", T: s[i : i+5]})
			i += 5
		default:
			j := i + 1
			for j < len(s) && strings.IndexByte("\"-0123456789tfn", s[j]) < 0 {
				j++
			}
			plain(s[i:j])
			i = j
		}
	}
	return out
}

// clip cuts s to at most n runes, marking the cut.
func htmlClip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}

func htmlOneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

func htmlMs(ms float64) string {
	switch {
	case ms >= 1000:
		return fmt.Sprintf("%.1f s", ms/1000)
	case ms >= 100:
		return fmt.Sprintf("%.0f ms", ms)
	default:
		return fmt.Sprintf("%.1f ms", ms)
	}
}

// shellJoin renders a command line readably, quoting arguments that need it.
func htmlShellJoin(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if a != "" && strings.IndexFunc(a, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=@%+,", r))
		}) < 0 {
			out[i] = a
		} else {
			out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(out, " ")
}

// ---- matrix ----

// MatrixRun is one column of the matrix page: a run's report and the
// relative path of its report.html (empty: no links).
type MatrixRun struct {
	Name   string
	Report *Report
	Link   string
}

type htmlMatrixCell struct {
	Verdict               Verdict
	Revision, Href, Title string
}

type htmlMatrixRow struct {
	Requirement, Title, Area string
	Levels, Verdicts         string // space-separated sets for the filters
	Cells                    [][]htmlMatrixCell
}

type htmlMatrixArea struct {
	Name string
	Rows []htmlMatrixRow
}

type htmlMatrixHead struct {
	Name, Link, Server, Transport string
	Passed, Hollow, Interrupted   bool
	Present                       bool
	Total                         int
	Counts                        []htmlCount
}

type htmlMatrix struct {
	htmlAssets
	Title   string
	Tool    Tool
	Runs    []htmlMatrixHead
	Areas   []htmlMatrixArea
	Filters []htmlFilterGroup
	Total   int
}

// RenderMatrix writes one page comparing runs: a row per requirement id
// (catalog order), a column per run, each cell the verdict of every revision
// the requirement ran under, linking into that run's report.html.
func RenderMatrix(w io.Writer, runs []MatrixRun) error {
	v := &htmlMatrix{htmlAssets: htmlPageAssets(), Title: fmt.Sprintf("mcpconform matrix — %d runs", len(runs))}
	var ids []string
	info := map[string]*htmlMatrixRow{}
	levels := map[string][]string{}
	verdicts := map[string][]Verdict{}
	cells := map[string][][]htmlMatrixCell{}
	for ri, run := range runs {
		h := htmlMatrixHead{Name: run.Name, Link: run.Link}
		if r := run.Report; r != nil {
			if v.Tool.Name == "" {
				v.Tool = r.Tool
			}
			h.Present = true
			h.Passed, h.Hollow, h.Interrupted = r.Summary.Passed, r.Summary.Hollow, r.Interrupted
			if r.Summary.Counts == nil {
				h.Passed = result.Summarize(r.Results, r.Summary.Strict).Passed
			}
			h.Transport = r.Target.Transport
			pi := htmlServerInfo(r.ServerInfo)
			h.Server = htmlClip(htmlOneLine(strings.TrimSpace(pi.Name+" "+pi.Version)), 60)
			h.Total = len(r.Results)
			c := Counts{}
			anchors := Anchors(r.Results)
			for i, res := range r.Results {
				c[res.Verdict]++
				row := info[res.Requirement]
				if row == nil {
					ids = append(ids, res.Requirement)
					row = &htmlMatrixRow{Requirement: res.Requirement, Title: res.Title, Area: res.Area}
					info[res.Requirement] = row
					cells[res.Requirement] = make([][]htmlMatrixCell, len(runs))
				}
				if !slices.Contains(levels[res.Requirement], res.Level) {
					levels[res.Requirement] = append(levels[res.Requirement], res.Level)
				}
				if !slices.Contains(verdicts[res.Requirement], res.Verdict) {
					verdicts[res.Requirement] = append(verdicts[res.Requirement], res.Verdict)
				}
				cell := htmlMatrixCell{Verdict: res.Verdict, Revision: res.Revision, Title: string(res.Verdict) + " " + res.Revision + " " + res.Transport}
				if res.Message != "" {
					cell.Title += ": " + htmlClip(htmlOneLine(res.Message), 200)
				}
				if run.Link != "" {
					cell.Href = run.Link + "#" + anchors[i]
				}
				cells[res.Requirement][ri] = append(cells[res.Requirement][ri], cell)
			}
			h.Counts = htmlCounts(c, false)
		}
		v.Runs = append(v.Runs, h)
	}
	sort.SliceStable(ids, func(i, j int) bool { return catalog.Less(ids[i], ids[j]) })
	var all []Result // for the filter counts: one pseudo-result per row
	for _, id := range ids {
		row := info[id]
		row.Cells = cells[id]
		for _, cs := range row.Cells {
			sort.SliceStable(cs, func(i, j int) bool { return cs[i].Revision > cs[j].Revision })
		}
		sort.SliceStable(levels[id], func(i, j int) bool { return levels[id][i] < levels[id][j] }) // MUST < SHOULD
		sort.SliceStable(verdicts[id], func(i, j int) bool {
			return slices.Index(result.Verdicts, verdicts[id][i]) < slices.Index(result.Verdicts, verdicts[id][j])
		})
		row.Levels = strings.Join(levels[id], " ")
		row.Verdicts = strings.Join(verdictStrings(verdicts[id]), " ")
		if n := len(v.Areas); n == 0 || v.Areas[n-1].Name != row.Area {
			v.Areas = append(v.Areas, htmlMatrixArea{Name: row.Area})
		}
		a := &v.Areas[len(v.Areas)-1]
		a.Rows = append(a.Rows, *row)
		for _, vd := range verdicts[id] {
			all = append(all, Result{Verdict: vd})
		}
		for _, l := range levels[id] {
			all = append(all, Result{Level: l})
		}
		all = append(all, Result{Area: row.Area})
	}
	v.Total = len(ids)
	fs := htmlFilters(all)
	for _, g := range fs {
		if g.Name == "verdict" || g.Name == "area" || g.Name == "level" {
			opts := g.Options[:0:0]
			for _, o := range g.Options {
				if o.Value != "" {
					opts = append(opts, o)
				}
			}
			g.Options = opts
			v.Filters = append(v.Filters, g)
		}
	}
	if v.Tool.Name == "" {
		v.Tool.Name = "mcpconform"
	}
	var buf bytes.Buffer
	if err := htmlMatrixTmpl.Execute(&buf, v); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}
