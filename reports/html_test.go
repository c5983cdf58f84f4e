package reports

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mcpconform/mcpconform/internal/result"
	"github.com/mcpconform/mcpconform/internal/wire"
	"pgregory.net/rapid"
)

const (
	htmlXSSScript = `<script>alert(1)</script>`
	htmlXSSImg    = `"><img src=x onerror=alert(1)>`
	htmlXSSClose  = `</details><script>alert(2)</script>`
	htmlUniText   = "日本語 🔑"
)

var htmlLongLine = strings.Repeat("0123456789", 500) // 5000 characters, no break

// hostileReport puts hostile server text into every field that can carry it.
func htmlHostileReport(hollow, interrupted bool) *Report {
	t0 := time.Date(2026, 7, 28, 10, 0, 0, 0, time.UTC)
	info := `{"name":"` + htmlJSONText(htmlXSSScript) + `","title":"` + htmlJSONText(htmlUniText+" "+htmlXSSClose) + `","version":"` + htmlJSONText(htmlXSSImg) + `"}`
	caps := `{"tools":{"listChanged":true},"` + htmlJSONText(htmlXSSScript) + `":{"x":"` + htmlJSONText(htmlXSSImg) + `"}}`
	jsonBody := `{"jsonrpc":"2.0","id":1,"result":{"serverInfo":{"name":"` + htmlJSONText(htmlXSSScript) + `"},"list":[1,2.5,true,null]}}`
	transcript := []Exchange{
		{Seq: 1, Time: t0, Conn: "http#1", Direction: "send", Kind: "message", Body: `{"jsonrpc":"2.0","id":1,"method":"initialize"}`,
			HTTP: &wire.HTTPInfo{Method: "POST", URL: "http://127.0.0.1:9/mcp", Header: http.Header{
				"Authorization": {"Bearer sekrit-token-value"}, "Cookie": {"session=sekrit-cookie"}, "Accept": {"application/json"}}}},
		{Seq: 2, Time: t0.Add(3 * time.Millisecond), Conn: "http#1", Direction: "recv", Kind: "message", Body: jsonBody,
			HTTP: &wire.HTTPInfo{Status: 200, SSE: true, EventID: htmlXSSImg, Header: http.Header{"Set-Cookie": {"sekrit-set-cookie"}, "X-Evil": {htmlXSSScript}}}},
		{Seq: 3, Time: t0.Add(4 * time.Millisecond), Conn: "http#1", Direction: "recv", Kind: "body", Body: htmlXSSImg + " " + htmlLongLine + " " + htmlUniText, Truncated: true},
		{Seq: 4, Time: t0.Add(5 * time.Millisecond), Conn: "http#1", Direction: "recv", Kind: "closed", Note: htmlXSSClose},
	}
	results := []Result{
		{Requirement: "LIFE-001", Title: "initialize", Area: "lifecycle", Level: "MUST", Verdict: "PASS", Transport: "http", Revision: "2025-11-25",
			Statement: "statement", Source: "https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle", Links: []string{"https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle", "javascript:alert(1)"}, Transcript: transcript, DurationMs: 3},
		{Requirement: "LIFE-002", Title: "counter-offer " + htmlXSSScript, Area: "lifecycle", Level: "MUST", Verdict: "FAIL", Transport: "http", Revision: "2025-11-25",
			Message: "server said " + htmlXSSImg, Expected: "a supported version", Actual: `{"protocolVersion":"` + htmlJSONText(htmlXSSScript) + `"}`,
			Notes: []string{"note: " + htmlXSSClose, "tolerated " + htmlUniText}, Transcript: transcript},
		{Requirement: "LIFE-004", Title: "early traffic", Area: "lifecycle", Level: "SHOULD", Verdict: "WARN", Transport: "http", Revision: "2025-11-25",
			Message: "early notification"},
		{Requirement: "LIFE-006", Title: "discover", Area: "lifecycle", Level: "MUST", Verdict: "NA", Transport: "http", Revision: "2026-07-28",
			Message: "revision not supported " + htmlXSSClose},
		{Requirement: "RPC-001", Title: "json-rpc", Area: "jsonrpc", Level: "MUST", Verdict: "ERROR", Transport: "http", Revision: "2025-11-25",
			Message: "could not open a session: " + htmlXSSScript},
		{Requirement: "RPC-002", Title: "ids", Area: `jsonrpc" onmouseover="alert(1)`, Level: "MUST", Verdict: "PASS", Transport: "http", Revision: "2025-11-25"},
	}
	r := &Report{
		SchemaVersion: SchemaVersion, Tool: Tool{Name: "mcpconform", Version: "test"},
		Target:   Target{Transport: "http", URL: "http://127.0.0.1:9/mcp?x=" + htmlXSSImg, Auth: "bearer token from env MCP_TOKEN", Headers: []string{"X-Api-Key"}},
		Revision: "2025-11-25", Revisions: []string{"2026-07-28", "2025-11-25"},
		ServerInfo: json.RawMessage(info), Capabilities: json.RawMessage(caps),
		Eras: []Era{
			{Revision: "2026-07-28", Error: "server/discover failed: " + htmlXSSImg},
			{Revision: "2025-11-25", ServerInfo: json.RawMessage(info), Capabilities: json.RawMessage(caps)},
		},
		Detection: []string{"legacy: " + htmlXSSScript},
		StartedAt: t0, DurationMs: 1234, Results: results,
		Stderr:      "panic: " + htmlXSSScript + "\n" + htmlUniText,
		Interrupted: interrupted,
	}
	r.Summary = result.Summarize(results, false)
	r.Summary.Hollow = hollow
	if hollow {
		r.Summary.HollowReason = "most checks could not run"
	}
	return r
}

func htmlJSONText(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

func renderHTMLPage(t *testing.T, r *Report) string {
	t.Helper()
	var b bytes.Buffer
	if err := RenderHTML(&b, r); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

var (
	htmlScriptStyleRe = regexp.MustCompile(`(?s)<(script|style)[^>]*>.*?</(script|style)>`)
	htmlTxDataRe      = regexp.MustCompile(`(?s)<script type="application/json" id="tx-data">(.*?)</script>`)
	htmlTagRe         = regexp.MustCompile(`<(/?)([a-zA-Z][a-zA-Z0-9]*)([^>]*)>`)
	htmlAttrRe        = regexp.MustCompile(`\s+([^\s="'/>]+)(?:\s*=\s*("[^"]*"|'[^']*'|[^\s>]+))?`)
	htmlSpecLinkRe    = regexp.MustCompile(`<a href="https://(modelcontextprotocol\.io|www\.jsonrpc\.org|github\.com/modelcontextprotocol|datatracker\.ietf\.org|www\.rfc-editor\.org)/[^"<>]*" rel="noreferrer">`)
	htmlExternalRe    = regexp.MustCompile(`(?i)(src|href|action|srcset|poster|data)\s*=\s*["']?\s*(https?:|//|javascript:)|url\(\s*["']?\s*(https?:|//)|@import`)
)

// allowedTags is every element the templates write; any other tag in the
// output is injected markup.
var htmlAllowedTags = map[string]bool{
	"html": true, "head": true, "meta": true, "title": true, "style": true, "body": true, "header": true,
	"main": true, "footer": true, "section": true, "div": true, "span": true, "h1": true, "h2": true, "h3": true,
	"p": true, "a": true, "button": true, "ol": true, "ul": true, "li": true, "dl": true, "dt": true, "dd": true,
	"table": true, "thead": true, "tbody": true, "tr": true, "th": true, "td": true, "details": true, "summary": true,
	"pre": true, "code": true, "strong": true, "fieldset": true, "legend": true, "label": true,
	"input": true, "br": true, "script": true,
}

// htmlInertProblems lists what makes a rendered page unsafe: any element
// the templates do not write, an event-handler, style or src attribute, a
// script other than ours, an external reference.
func htmlInertProblems(page string) []string {
	var out []string
	// exactly our script, and at most one data block (JSON: no markup)
	data := htmlTxDataRe.FindAllStringSubmatch(page, -1)
	if n := strings.Count(strings.ToLower(page), "<script") - len(data); n != 1 || len(data) > 1 {
		out = append(out, fmt.Sprintf("%d <script elements and %d data blocks, want exactly ours", n, len(data)))
	}
	for _, d := range data {
		if strings.ContainsAny(d[1], "<>&") || !json.Valid([]byte(d[1])) {
			out = append(out, "the transcript data block holds markup characters or is not JSON")
		}
	}
	for _, bad := range []string{"<script>alert", "<img", "sekrit"} {
		if strings.Contains(strings.ToLower(page), bad) {
			out = append(out, fmt.Sprintf("page contains %q", bad))
		}
	}
	body := htmlScriptStyleRe.ReplaceAllString(page, "")
	for _, m := range htmlTagRe.FindAllStringSubmatch(body, -1) {
		if !htmlAllowedTags[strings.ToLower(m[2])] {
			out = append(out, fmt.Sprintf("unexpected element <%s%s>", m[2], m[3]))
		}
		for _, a := range htmlAttrRe.FindAllStringSubmatch(m[3], -1) {
			if name := strings.ToLower(a[1]); strings.HasPrefix(name, "on") || name == "style" || name == "src" {
				out = append(out, fmt.Sprintf("attribute %s in <%s%s>", name, m[2], m[3]))
			}
		}
	}
	// The only outside links are the specification's: plain <a href> to
	// the sites the catalog links (nothing is loaded from them).
	if m := htmlExternalRe.FindString(htmlSpecLinkRe.ReplaceAllString(page, "")); m != "" {
		out = append(out, fmt.Sprintf("external reference %q", m))
	}
	return out
}

func checkHTMLInert(t *testing.T, page string) {
	t.Helper()
	for _, p := range htmlInertProblems(page) {
		t.Error(p)
	}
}

func TestHTMLInertCheckCatchesInjection(t *testing.T) {
	page := renderHTMLPage(t, htmlHostileReport(false, false))
	for _, inject := range []string{`<img src=x onerror=alert(1)>`, `<script>alert(1)</script>`, `<span onclick="x()">`,
		`<a href="https://evil.example/">`, `<svg onload=alert(1)>`, `<div style="background:url(//evil)">`, `<iframe src=x>`} {
		bad := strings.Replace(page, "<main>", "<main>"+inject, 1)
		if len(htmlInertProblems(bad)) == 0 {
			t.Errorf("injected %s went unnoticed", inject)
		}
	}
}

// text is the page's text content: tags dropped, entities decoded.
func htmlTextOf(page string) string {
	return html.UnescapeString(htmlTagRe.ReplaceAllString(htmlScriptStyleRe.ReplaceAllString(page, ""), ""))
}

// htmlPageData decodes the page's transcript data block.
func htmlPageData(t *testing.T, page string) *htmlTxData {
	t.Helper()
	m := htmlTxDataRe.FindStringSubmatch(page)
	if m == nil {
		t.Fatal("no transcript data block")
	}
	var d htmlTxData
	if err := json.Unmarshal([]byte(m[1]), &d); err != nil {
		t.Fatalf("transcript data block: %v", err)
	}
	return &d
}

// htmlAllText is the page's text and every text of its transcript data:
// what the page shows once every transcript is open.
func htmlAllText(t *testing.T, page string) string {
	t.Helper()
	d := htmlPageData(t, page)
	parts := []string{htmlTextOf(page)}
	parts = append(parts, d.Strings...)
	for _, f := range d.Frames {
		parts = append(parts, htmlFrameBody(d, f), f.What, f.Note)
	}
	for _, h := range d.Headers {
		parts = append(parts, h[0], h[1])
	}
	return strings.Join(parts, "\n")
}

// htmlFrameBody is a frame's body as the page shows it: its id put back.
func htmlFrameBody(d *htmlTxData, f htmlTxFrame) string {
	if f.B == 0 {
		return ""
	}
	b := d.Bodies[f.B-1]
	if f.ID != "" && f.At <= len(b) {
		b = b[:f.At] + f.ID + b[f.At:]
	}
	return b
}

func TestHTMLEscapesHostileServerText(t *testing.T) {
	for _, hollow := range []bool{false, true} {
		page := renderHTMLPage(t, htmlHostileReport(hollow, hollow))
		checkHTMLInert(t, page)
		txt := htmlAllText(t, page)
		for _, want := range []string{htmlXSSScript, htmlXSSImg, htmlXSSClose, htmlUniText, htmlLongLine, "[REDACTED]", "application/json"} {
			if !strings.Contains(txt, want) {
				t.Errorf("text %.40q… not shown verbatim", want)
			}
		}
		if got := strings.Contains(page, `id="hollow"`); got != hollow {
			t.Errorf("hollow banner shown=%v, want %v", got, hollow)
		}
		if got := strings.Contains(page, `id="interrupted"`); got != hollow {
			t.Errorf("interrupted banner shown=%v, want %v", got, hollow)
		}
	}
}

func TestHTMLContentAndLayout(t *testing.T) {
	r := htmlHostileReport(false, false)
	page := renderHTMLPage(t, r)
	txt := htmlTextOf(page)

	// JSON outside transcripts is pretty-printed in Go, before escaping
	// (transcript bodies by the page's script: see the Chromium test).
	if !strings.Contains(page, `<span class="k">&#34;tools&#34;</span>`) {
		t.Errorf("JSON keys are not highlighted")
	}
	// capabilities pretty-printed per era
	if !strings.Contains(txt, "\"tools\": {\n    \"listChanged\": true\n  }") {
		t.Errorf("capabilities not pretty-printed")
	}
	// verdict at a glance, counts, strict mode, identity, title
	for _, want := range []string{"✗ FAILED", "2 PASS", "1 FAIL", "1 WARN", "1 NA", "1 ERROR", "not strict", "revisions 2026-07-28, 2025-11-25",
		"bearer token from env MCP_TOKEN", "X-Api-Key", "spec: https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle", "Generated by mcpconform test", "2026-07-28 10:00:00 UTC", "1.2 s"} {
		if !strings.Contains(txt, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if !strings.Contains(page, "<title>"+html.EscapeString(htmlTitle(r))+"</title>") {
		t.Errorf("title %q missing", htmlTitle(r))
	}
	// problems link to stable anchors of their details
	for _, a := range []string{"LIFE-002--2025-11-25", "LIFE-004--2025-11-25", "RPC-001--2025-11-25"} {
		if !strings.Contains(page, `href="#`+a+`"`) || !strings.Contains(page, `id="`+a+`"`) {
			t.Errorf("problem %s: no link or anchor", a)
		}
	}
	probs := page[strings.Index(page, `id="problems"`):strings.Index(page, `id="server"`)]
	if strings.Contains(probs, "LIFE-001") || strings.Contains(probs, "LIFE-006") {
		t.Errorf("PASS/NA listed among problems")
	}
	// problems expanded, others collapsed, transcripts always collapsed
	openRe := regexp.MustCompile(`<details class="check (\w+)" id="([^"]+)"[^>]*?( open)?>`)
	for _, m := range openRe.FindAllStringSubmatch(page, -1) {
		if wantOpen := Verdict(m[1]).Problem(); (m[3] != "") != wantOpen {
			t.Errorf("%s (%s): open=%v", m[2], m[1], m[3] != "")
		}
	}
	if regexp.MustCompile(`<details class="tx"[^>]* open`).MatchString(page) {
		t.Errorf("a transcript is expanded by default")
	}
	// failures first within an area
	if strings.Index(page, `id="LIFE-002--2025-11-25"`) > strings.Index(page, `id="LIFE-001--2025-11-25"`) {
		t.Errorf("FAIL is not listed before PASS within its area")
	}
	// filter data and controls
	for _, want := range []string{`data-verdict="FAIL"`, `data-area="lifecycle"`, `data-level="SHOULD"`, `data-transport="http"`, `data-revision="2026-07-28"`,
		`data-group="verdict" value="ERROR"`, `data-group="area" value="jsonrpc"`, `data-group="level" value="MUST"`, `data-group="transport" value="http"`,
		`<div id="filters" role="search" aria-label="filters" hidden>`} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	// transcript entries: HTTP method/status, what the message is, times;
	// the two checks sharing the transcript reference it, stored once.
	d := htmlPageData(t, page)
	if len(d.Frames) != 4 || len(d.Bodies) != 3 {
		t.Fatalf("data block: %d frames, %d bodies; want 4 and 3 (stored once)", len(d.Frames), len(d.Bodies))
	}
	if n := strings.Count(page, `data-tx="0-4"`); n != 2 {
		t.Errorf("%d checks reference the shared transcript by range, want 2", n)
	}
	f := d.Frames
	str := func(i int) string {
		if i == 0 {
			return ""
		}
		return d.Strings[i-1]
	}
	if str(f[0].HTTP) != "POST" || str(f[1].HTTP) != "HTTP 200 OK · SSE id "+htmlXSSImg || f[0].What != "initialize · id 1" || f[1].What != "result · id 1" || !f[2].Trunc || str(f[0].Conn) != "http#1" {
		t.Errorf("transcript entries: %+v", f)
	}
	for i, e := range r.Results[0].Transcript {
		if got := htmlFrameBody(d, f[i]); got != e.Body {
			t.Errorf("frame %d body %q, want %q", i, got, e.Body)
		}
	}
	if f[0].T == nil || f[1].T == nil || *f[1].T-*f[0].T != 3000 {
		t.Errorf("entry times not kept to the µs")
	}
	if !strings.Contains(page, "overflow-wrap:anywhere") {
		t.Errorf("long lines do not wrap")
	}
}

func TestHTMLAssetsMatchPolicy(t *testing.T) {
	page := renderHTMLPage(t, htmlHostileReport(false, false))
	m := regexp.MustCompile(`(?s)<script>(.*?)</script>`).FindStringSubmatch(page)
	s := regexp.MustCompile(`(?s)<style>(.*?)</style>`).FindStringSubmatch(page)
	if m == nil || s == nil {
		t.Fatal("no inline script or style")
	}
	csp := html.UnescapeString(regexp.MustCompile(`http-equiv="Content-Security-Policy" content="([^"]*)"`).FindStringSubmatch(page)[1])
	if !strings.Contains(csp, "'"+htmlCSPHash(m[1])+"'") || !strings.Contains(csp, "'"+htmlCSPHash(s[1])+"'") {
		t.Errorf("the embedded script or style is altered and no longer matches the CSP %q", csp)
	}
	if !strings.Contains(csp, "default-src 'none'") {
		t.Errorf("CSP %q", csp)
	}
}

func TestWriteHTML(t *testing.T) {
	dir := t.TempDir()
	path, err := WriteHTML(filepath.Join(dir, "sub"), htmlHostileReport(false, false))
	if err != nil || filepath.Base(path) != "report.html" {
		t.Fatal(path, err)
	}
	b, _ := os.ReadFile(path)
	checkHTMLInert(t, string(b))
	// an empty report renders too
	checkHTMLInert(t, renderHTMLPage(t, &Report{}))
	if !strings.Contains(renderHTMLPage(t, &Report{}), `id="hollow"`) {
		t.Errorf("an empty report is hollow")
	}
}

func TestAnchorsStable(t *testing.T) {
	rs := []Result{
		{Requirement: "LIFE-001", Revision: "2025-11-25", Transport: "stdio"},
		{Requirement: "LIFE-001", Revision: "2026-07-28", Transport: "stdio"},
		{Requirement: "LIFE-001", Revision: "2025-11-25", Transport: "http"},
		{Requirement: "LIFE-001", Revision: "2025-11-25", Transport: "http"},
		{Requirement: `X"<>`, Revision: ""},
	}
	got := Anchors(rs)
	want := []string{"LIFE-001--2025-11-25", "LIFE-001--2026-07-28", "LIFE-001--2025-11-25--http", "LIFE-001--2025-11-25--http-2", "X___--none"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("anchors %q, want %q", got, want)
	}
}

func TestHighlightJSONKeepsText(t *testing.T) {
	for _, in := range []string{
		`{"a":"b\"c\\","n":-1.5e+3,"t":true,"f":false,"z":null,"arr":[{},[],"x:y"],"k\u003c":"\u003cscript\u003e"}`,
		`[1,"two",{"three":3}]`, `{}`,
	} {
		cv := codeOf(in)
		if !cv.JSON {
			t.Fatalf("%s: not recognised as JSON", in)
		}
		var b strings.Builder
		for _, s := range cv.Spans {
			b.WriteString(s.T)
		}
		if b.String() != cv.Text {
			t.Errorf("spans do not add up to the text:\n%s\n%s", b.String(), cv.Text)
		}
		var a, c any
		if json.Unmarshal([]byte(in), &a) != nil || json.Unmarshal([]byte(cv.Text), &c) != nil {
			t.Errorf("pretty form is not the same JSON")
		}
	}
	for _, in := range []string{`not json`, `{"cut":`, `"just a string"`, `42`} {
		if cv := codeOf(in); cv.JSON || cv.Text != in {
			t.Errorf("%q: %+v", in, cv)
		}
	}
}

func TestMatrix(t *testing.T) {
	mk := func(transport string, verdicts map[string]string) *Report {
		var rs []Result
		// deliberately out of catalog order
		for _, k := range []string{"STD-001 2026-07-28", "RPC-001 2025-11-25", "LIFE-001 2025-11-25", "RPC-001 2026-07-28"} {
			id, rev, _ := strings.Cut(k, " ")
			v, ok := verdicts[k]
			if !ok {
				continue
			}
			rs = append(rs, Result{Requirement: id, Revision: rev, Verdict: Verdict(v), Transport: transport, Level: "MUST",
				Area: map[string]string{"LIFE": "lifecycle", "RPC": "jsonrpc", "STD": "stdio"}[id[:strings.Index(id, "-")]], Title: "title of " + id})
		}
		r := &Report{Tool: Tool{Name: "mcpconform", Version: "test"}, Target: Target{Transport: transport},
			ServerInfo: json.RawMessage(`{"name":"` + htmlJSONText(htmlXSSScript) + `","version":"1"}`), Results: rs}
		r.Summary = result.Summarize(rs, false)
		return r
	}
	runs := []MatrixRun{
		{Name: "aftersales stdio", Link: "stdio/report.html", Report: mk("stdio", map[string]string{
			"STD-001 2026-07-28": "PASS", "RPC-001 2025-11-25": "FAIL", "LIFE-001 2025-11-25": "PASS", "RPC-001 2026-07-28": "PASS"})},
		{Name: "aftersales http " + htmlXSSImg, Report: mk("http", map[string]string{
			"RPC-001 2025-11-25": "PASS", "LIFE-001 2025-11-25": "WARN", "RPC-001 2026-07-28": "NA"})},
		{Name: "missing"},
	}
	var b bytes.Buffer
	if err := RenderMatrix(&b, runs); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	checkHTMLInert(t, page)
	txt := htmlTextOf(page)
	// rows in catalog order
	iL, iR, iS := strings.Index(page, `id="LIFE-001"`), strings.Index(page, `id="RPC-001"`), strings.Index(page, `id="STD-001"`)
	if iL < 0 || iR < 0 || iS < 0 || !(iL < iR && iR < iS) {
		t.Errorf("rows not in catalog order: %d %d %d", iL, iR, iS)
	}
	// cells link into the run's report; the run without a link has none
	for _, want := range []string{`href="stdio/report.html#RPC-001--2025-11-25"`, `href="stdio/report.html#RPC-001--2026-07-28"`, `href="stdio/report.html"`} {
		if !strings.Contains(page, want) {
			t.Errorf("no %s", want)
		}
	}
	if n := strings.Count(page, `href="`); n != 5 { // 4 cells + 1 run header
		t.Errorf("%d links, want 5", n)
	}
	// the RPC-001 row of the first run lists both revisions, newest first
	row := page[iR:iS]
	if i, j := strings.Index(row, "2026-07-28"), strings.Index(row, "2025-11-25"); i < 0 || j < 0 || i > j {
		t.Errorf("RPC-001 cell revisions out of order")
	}
	for _, want := range []string{`data-verdict="PASS FAIL NA"`, `data-verdict="PASS WARN"`, "✗ FAILED", "✓ PASSED", "no report", "/ 4", "/ 3", "—",
		`data-group="verdict" value="WARN"`, `data-group="area" value="stdio"`, `data-group="level" value="MUST"`} {
		if !strings.Contains(page, want) && !strings.Contains(txt, want) {
			t.Errorf("matrix lacks %s", want)
		}
	}
	if !strings.Contains(txt, htmlXSSImg) || !strings.Contains(txt, htmlXSSScript) {
		t.Errorf("hostile run name or server name not shown verbatim")
	}
}

func TestHTMLShowsBaseline(t *testing.T) {
	r := htmlHostileReport(false, false)
	r.Results[1].Baselined, r.Results[1].BaselineReason = true, "known: "+htmlXSSScript // LIFE-002 FAIL
	r.Baseline = &BaselineSummary{File: "mcpconform-baseline.yaml", Baselined: []string{result.ResultKey(r.Results[1])},
		Stale: []string{"LIFE-009@2025-11-25/http"}, Unmatched: []string{}}
	page := renderHTMLPage(t, r)
	checkHTMLInert(t, page)
	txt := htmlTextOf(page)
	for _, want := range []string{"mcpconform-baseline.yaml", "1 known failure does not fail the run", "1 stale entry fails the run", "LIFE-009@2025-11-25/http",
		"baselined", "known: " + htmlXSSScript} {
		if !strings.Contains(txt, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	// the baselined FAIL comes after the problems that still count
	if strings.Index(page, `id="LIFE-002--2025-11-25"`) < strings.Index(page, `id="LIFE-004--2025-11-25"`) {
		t.Errorf("baselined FAIL listed before an unbaselined WARN")
	}
}

func TestHTMLTranscriptDataClipsAndShares(t *testing.T) {
	var rs []Result
	for i := range 3 {
		// 600 KB of 2-byte runes, a different text each
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"text":"%d%s"}}`, i+1, i, strings.Repeat("é", 300<<10))
		rs = append(rs, Result{Requirement: fmt.Sprintf("RPC-00%d", i+1), Verdict: "PASS", Transcript: []Exchange{
			{Seq: int64(2*i + 1), Direction: "send", Kind: "message", Body: fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, i+1)},
			{Seq: int64(2*i + 2), Direction: "recv", Kind: "message", Body: body}}})
	}
	// a check whose transcript is not contiguous in the frame table
	rs = append(rs, Result{Requirement: "RPC-009", Verdict: "PASS", Transcript: []Exchange{rs[0].Transcript[0], rs[2].Transcript[1]}})
	d, refs := buildHTMLTx(rs)
	// three requests differing only in seq and id: one body
	if len(d.Frames) != 6 || len(d.Bodies) != 4 {
		t.Fatalf("%d frames, %d bodies; want 6 and 4", len(d.Frames), len(d.Bodies))
	}
	total := 0
	for _, b := range d.Bodies {
		total += len(b)
		if !utf8.ValidString(b) {
			t.Errorf("a clipped body cuts a rune")
		}
	}
	if d.Clip == 0 || total > htmlBodyBudget {
		t.Errorf("bodies not clipped to the budget: clip %d, %d bytes", d.Clip, total)
	}
	if f := d.Frames[1]; f.Z != len(rs[0].Transcript[1].Body) || len(d.Bodies[f.B-1]) > d.Clip || !strings.HasPrefix(rs[0].Transcript[1].Body, htmlFrameBody(d, f)) {
		t.Errorf("a clipped body does not carry its full size or is not the body's start: %+v", f)
	}
	if d.Frames[0].Z != 0 {
		t.Errorf("a short body is marked clipped")
	}
	if refs[0].Ref != "0-2" || refs[2].Ref != "4-6" || refs[3].Ref != "0,5" || refs[3].N != 2 {
		t.Errorf("refs %+v", refs)
	}
}

// Each FAIL and WARN has its reproduction script, escaped like every
// text of the page, and no credential of the transcript reaches it.
func TestHTMLReproduceSection(t *testing.T) {
	page := renderHTMLPage(t, htmlHostileReport(false, false))
	if n := strings.Count(page, `<details class="repro">`); n != 2 {
		t.Errorf("want a Reproduce section for the FAIL and the WARN, got %d", n)
	}
	if !strings.Contains(page, "mcpconform repro report.json LIFE-002 --revision 2025-11-25") || !strings.Contains(page, "data-copy") {
		t.Errorf("the Reproduce section lacks its command or its copy button")
	}
	for _, secret := range []string{"sekrit-token-value", "sekrit-cookie"} {
		if strings.Contains(page, secret) {
			t.Errorf("a credential of the transcript reached the page: %s", secret)
		}
	}
	checkHTMLInert(t, page)
}

// TestHTMLSplitIDAgreesWithRegexp: the hand-written id finder cuts what
// the regular expression it replaced found, on bodies full of near misses.
func TestHTMLSplitIDAgreesWithRegexp(t *testing.T) {
	re := regexp.MustCompile(`"id"\s*:\s*(-?[0-9]{1,20}|"[^"\\]{0,64}"|null)`)
	noise := []string{`"id"`, `"id":`, ` `, `:`, `-`, `1`, `null`, `"`, `\`, `x`, `é`, "\xff", `,`, `{`}
	space := []string{"", " ", "\t", "\n", "\r", "\f", "\v", "  "}
	values := []string{"0", "-7", "-", "--1", strings.Repeat("9", 20), strings.Repeat("9", 21), "null", "nul", "nullx", `""`, `"a\"`, `"a\\b"`,
		`"` + strings.Repeat("a", 64) + `"`, `"` + strings.Repeat("a", 65) + `"`, `"` + strings.Repeat("é", 64) + `"`, `"` + strings.Repeat("é", 65) + `"`,
		`"` + strings.Repeat("\xff", 64) + `"`, `"` + strings.Repeat("\xff", 65) + `"`, "\"x\ny\"", `"unclosed`}
	rapid.Check(t, func(t *rapid.T) {
		member := `"id"` + rapid.SampledFrom(space).Draw(t, "s1") + ":" + rapid.SampledFrom(space).Draw(t, "s2") + rapid.SampledFrom(values).Draw(t, "value")
		body := strings.Join(rapid.SliceOfN(rapid.SampledFrom(noise), 0, 6).Draw(t, "before"), "") + member +
			strings.Join(rapid.SliceOfN(rapid.SampledFrom(append(noise, member)), 0, 6).Draw(t, "after"), "")
		tpl, id, at, ok := htmlSplitID(body)
		m := re.FindStringSubmatchIndex(body)
		if m == nil {
			if ok || tpl != body {
				t.Fatalf("%q: got %q at %d, want no id", body, id, at)
			}
			return
		}
		if !ok || id != body[m[2]:m[3]] || at != m[2] || tpl != body[:m[2]]+body[m[3]:] {
			t.Fatalf("%q: got %q at %d (ok %v), want %q at %d", body, id, at, ok, body[m[2]:m[3]], m[2])
		}
	})
}
