package reports

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/internal/result"
)

var hostileMessages = []string{
	"<img src=x onerror=alert(1)>",
	"| col | injected | cells |",
	"[link](http://evil)",
	"![img](http://evil/x.png)",
	"<script>alert(1)</script>",
	"`code` **bold** _em_ ~~strike~~ $x^2$",
	"line1\n\n# heading\n- item\n<details open>",
	"visit http://evil.example/a or www.evil.example or mail me@evil.example @octocat",
	"&lt;b&gt; entity &#60;img&#62;",
	"\\| backslash pipe \\",
	"\u202egnp.exe\x00",
}

func hostileReport() *Report {
	r := &Report{
		Tool:       Tool{Name: "mcpconform", Version: "v0.1.0"},
		Target:     Target{Transport: "http", URL: "http://localhost:8080/mcp?x=<b>"},
		Revisions:  []string{"2025-11-25", "2025-06-18"},
		ServerInfo: []byte(`{"name":"<img src=x>","version":"[v](http://evil)"}`),
	}
	for i, m := range hostileMessages {
		v := result.FAIL
		if i%3 == 1 {
			v = result.WARN
		}
		r.Results = append(r.Results, Result{Requirement: fmt.Sprintf("LIFE-%03d", i+1), Level: "MUST", Verdict: v, Revision: "2025-11-25", Transport: "http", Area: "lifecycle", Message: m})
	}
	r.Results = append(r.Results, Result{Requirement: "RPC-001", Level: "MUST", Verdict: "PASS", Revision: "2025-11-25", Transport: "http", Area: "jsonrpc"})
	r.Summary = result.Summarize(r.Results, false)
	return r
}

// cells splits a Markdown table row on unescaped pipes.
func mdCells(row string) []string {
	var out []string
	var cur strings.Builder
	for i := 0; i < len(row); i++ {
		switch {
		case row[i] == '\\' && i+1 < len(row):
			cur.WriteByte(row[i])
			cur.WriteByte(row[i+1])
			i++
		case row[i] == '|':
			out = append(out, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(row[i])
		}
	}
	return append(out, cur.String())
}

func TestMarkdownEscapesHostileText(t *testing.T) {
	var b bytes.Buffer
	if err := RenderMarkdown(&b, hostileReport(), MarkdownLinks{}); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, bad := range []string{"<img", "<script", "<details", "](http", "[link]", "![", "\n# heading", "\n- item", "http://", "www.evil", "me@evil", "`code`", "**bold**", "\u202e", "\x00", "@octocat"} {
		if strings.Contains(md, bad) {
			t.Errorf("summary contains %q:\n%s", bad, md)
		}
	}
	// Every failure row has exactly the 7 columns of the header.
	rows := 0
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "| ") && strings.Contains(line, "LIFE-0") {
			rows++
			if n := len(mdCells(line)); n != 9 { // leading and trailing empty pieces
				t.Errorf("row has %d cells: %s", n-2, line)
			}
		}
	}
	if rows != len(hostileMessages) {
		t.Errorf("%d failure rows, want %d", rows, len(hostileMessages))
	}
	for _, want := range []string{`&lt;img src=x onerror=alert\(1\)&gt;`, `\| col \| injected \| cells \|`, `\[link\]\(http:` + zwsp + `//evil\)`, `&amp;lt;b&amp;gt;`, `\\\| backslash pipe \\`} {
		if !strings.Contains(md, want) {
			t.Errorf("summary lacks escaped %q:\n%s", want, md)
		}
	}
}

// With GitHub's own renderer at hand (apt install cmark-gfm), check the
// rendered HTML holds no element a server could have injected.
func TestMarkdownRendersInertWithCmarkGFM(t *testing.T) {
	bin, err := exec.LookPath("cmark-gfm")
	if err != nil {
		t.Skip("cmark-gfm not installed")
	}
	var b bytes.Buffer
	if err := RenderMarkdown(&b, hostileReport(), MarkdownLinks{HTML: "https://ci.example/artifacts/1 (x)", JSON: "out/report.json"}); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-e", "table", "-e", "autolink", "-e", "strikethrough", "-e", "tagfilter")
	cmd.Stdin = &b
	html, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	h := string(html)
	if n := strings.Count(h, "<a "); n != 1 || !strings.Contains(h, `<a href="https://ci.example/artifacts/1%20%28x%29">HTML report</a>`) {
		t.Errorf("want only the report link, got %d links:\n%s", n, h)
	}
	for _, bad := range []string{"<img", "<script", "<details", "<code", "<strong", "<em", "<del", "<h1", "<li"} {
		if strings.Contains(h, bad) {
			t.Errorf("rendered HTML contains %s:\n%s", bad, h)
		}
	}
	if got := strings.Count(h, "<tr>"); got != 1+6+1+len(hostileMessages) { // totals header+rows, failures header+rows
		t.Errorf("%d table rows:\n%s", got, h)
	}
}

func TestMarkdownStructure(t *testing.T) {
	r := &Report{
		Tool:      Tool{Version: "v1.2.3"},
		Target:    Target{Transport: "stdio", Command: []string{"node", "server.js"}},
		Revisions: []string{"2025-11-25"},
		Results: []Result{
			{Requirement: "LIFE-001", Level: "MUST", Verdict: "PASS", Revision: "2025-11-25", Transport: "stdio", Area: "lifecycle"},
			{Requirement: "LIFE-002", Level: "MUST", Verdict: "FAIL", Revision: "2025-11-25", Transport: "stdio", Area: "lifecycle", Message: "echoed 1900-01-01",
				Links: []string{"https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#version-negotiation"}},
			{Requirement: "LIFE-004", Level: "SHOULD", Verdict: "WARN", Revision: "2025-11-25", Transport: "stdio", Area: "lifecycle", Message: "early notification (tolerated: TOL-2)",
				Tolerances: []result.ToleranceRef{{ID: "TOL-2", Links: []string{"https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#version-negotiation"}}}},
			{Requirement: "LIFE-010", Level: "MUST", Verdict: "FAIL", Revision: "2025-11-25", Transport: "stdio", Area: "lifecycle", Message: "plain-text 400"},
			{Requirement: "LIFE-011", Level: "MUST", Verdict: "PASS", Revision: "2025-11-25", Transport: "stdio", Area: "lifecycle"},
			{Requirement: "RPC-001", Level: "MUST", Verdict: "ERROR", Revision: "2025-11-25", Transport: "stdio", Area: "jsonrpc", Message: "could not open a session"},
		},
	}
	r.Summary = result.Summarize(r.Results, false)
	r.ApplyBaseline(&Baseline{Version: 1, Entries: []BaselineEntry{
		{Requirement: "LIFE-010", Reason: "upstream"},
		{Requirement: "LIFE-011", Transport: "stdio", Reason: "fixed since"},
		{Requirement: "TOOL-001", Reason: "not selected"},
	}}, ".mcpconform-baseline.yaml")
	dir := t.TempDir()
	path, err := WriteMarkdown(dir, r, MarkdownLinks{HTML: "report.html", JUnit: "https://ci.example/junit.xml", JSON: "report.json"})
	if err != nil || path != filepath.Join(dir, "summary.md") {
		t.Fatal(path, err)
	}
	raw, _ := os.ReadFile(path)
	want := strings.Join([]string{
		"## ❌ mcpconform failed: node server.js",
		"",
		"mcpconform v1.2.3 · stdio · revisions 2025-11-25",
		"",
		"| verdict | count |",
		"| --- | ---: |",
		"| PASS | 2 |",
		"| FAIL | 2 |",
		"| WARN | 1 |",
		"| NA | 0 |",
		"| ERROR | 1 |",
		"| total | 6 |",
		"| baselined (known failures) | 1 |",
		"| stale baseline entries | 1 |",
		"",
		"### Failures and warnings",
		"",
		"| verdict | id | level | revision | transport | message | spec |",
		"| --- | --- | --- | --- | --- | --- | --- |",
		"| ❌ FAIL | LIFE-002 | MUST | 2025-11-25 | stdio | echoed 1900-01-01 | [spec](https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#version-negotiation) |",
		"| 💥 ERROR | RPC-001 | MUST | 2025-11-25 | stdio | could not open a session |  |",
		"| ⚠️ WARN (warning) | LIFE-004 | SHOULD | 2025-11-25 | stdio | early notification \\(tolerated: TOL-2\\) | [TOL-2](https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#version-negotiation) |",
		"| ☑️ FAIL (baselined) | LIFE-010 | MUST | 2025-11-25 | stdio | plain-text 400 |  |",
		"",
		"Reproduce one without mcpconform: mcpconform repro report.json ID --revision REVISION prints a standalone sh script that runs it against the same target (exit 1: the violation is seen, 0: fixed).",
		"",
		"### Baseline",
		"",
		"❌ 1 stale entry now passes (a stale entry fails the run): remove it from .mcpconform-baseline.yaml",
		"",
		"- LIFE-011/stdio",
		"",
		"1 baseline entry matched no check in this run (not selected, NA, or not run).",
		"",
		"Reports: HTML report: report.html · [JUnit](https://ci.example/junit.xml) · report.json: report.json",
		"",
	}, "\n")
	if string(raw) != want {
		t.Errorf("summary.md:\n%s\n--- want:\n%s", raw, want)
	}

	// A passing, hollow run.
	p := &Report{Target: Target{Transport: "http", URL: "https://mcp.example/mcp"}, Results: []Result{{Verdict: "NA", Area: "a"}}}
	p.Summary = result.Summarize(p.Results, true)
	var b bytes.Buffer
	_ = RenderMarkdown(&b, p, MarkdownLinks{})
	md := b.String()
	if !strings.HasPrefix(md, "## ✅ mcpconform passed: https:"+zwsp+"//mcp.example/mcp\n") || !strings.Contains(md, "strict (WARN fails)") ||
		!strings.Contains(md, "> ⚠️ **Hollow run:** no check could judge the server") || strings.Contains(md, "Failures") || strings.Contains(md, "Reports:") {
		t.Errorf("passing hollow run:\n%s", md)
	}
}

func TestMarkdownCaps(t *testing.T) {
	r := &Report{Target: Target{Transport: "stdio", Command: []string{strings.Repeat("c", 10000)}}}
	long := strings.Repeat("&<@", 10000) // worst case for escaping
	for i := 0; i < 2000; i++ {
		r.Results = append(r.Results, Result{Requirement: fmt.Sprintf("TOOL-%03d", i), Level: strings.Repeat("M", 500), Verdict: "FAIL",
			Revision: strings.Repeat("r", 500), Transport: strings.Repeat("t", 500), Message: long})
	}
	r.Summary = result.Summarize(r.Results, false)
	stale := make([]string, 500)
	for i := range stale {
		stale[i] = fmt.Sprintf("TOOL-%03d", i)
	}
	r.Baseline = &BaselineSummary{File: strings.Repeat("f", 5000), Stale: stale}
	var b bytes.Buffer
	if err := RenderMarkdown(&b, r, MarkdownLinks{HTML: "https://x.example/" + strings.Repeat("p", 5000), JUnit: strings.Repeat("j", 5000)}); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	if strings.Contains(md, "summary cut") {
		t.Error("the caps must keep the summary small without the emergency cut")
	}
	if b.Len() >= MarkdownMaxBytes {
		t.Errorf("summary is %d bytes", b.Len())
	}
	rows := regexp.MustCompile(`(?m)^\| ❌ FAIL \| TOOL-`).FindAllString(md, -1)
	if len(rows) > MarkdownMaxRows || len(rows) == 0 {
		t.Errorf("%d failure rows", len(rows))
	}
	if !strings.Contains(md, fmt.Sprintf("… and %d more", 2000-len(rows))) || !strings.Contains(md, "- … and 450 more\n") {
		t.Errorf("missing the overflow lines:\n%s", md[len(md)-2000:])
	}
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "| ❌ FAIL") && !strings.HasSuffix(line, "… |  |") {
			t.Errorf("message not cut: %.200s", line)
			break
		}
	}

	// Short messages: exactly MarkdownMaxRows rows.
	r2 := &Report{}
	for i := 0; i < 150; i++ {
		r2.Results = append(r2.Results, Result{Requirement: fmt.Sprintf("TOOL-%03d", i), Verdict: "ERROR", Message: "x"})
	}
	r2.Summary = result.Summarize(r2.Results, false)
	b.Reset()
	_ = RenderMarkdown(&b, r2, MarkdownLinks{})
	if n := strings.Count(b.String(), "| 💥 ERROR |"); n != MarkdownMaxRows || !strings.Contains(b.String(), "… and 50 more") {
		t.Errorf("%d rows:\n%s", n, b.String())
	}
}

func TestMdText(t *testing.T) {
	cases := map[string]string{
		"plain text 123":        "plain text 123",
		"a|b":                   `a\|b`,
		"<b>&":                  "&lt;b&gt;&amp;",
		"*_`[]~$!#(){}\\":       `\*\_\` + "`" + `\[\]\~\$\!\#\(\)\{\}\\`,
		"https://x":             "https:" + zwsp + "//x",
		"WWW.x.y":               "WWW" + zwsp + ".x.y",
		"a@b":                   "a@" + zwsp + "b",
		"one\ntwo":              "one two",
		"time 12:30 // comment": "time 12:30 // comment",
	}
	for in, want := range cases {
		if got := mdText(in, 100); got != want {
			t.Errorf("mdText(%q) = %q, want %q", in, got, want)
		}
	}
}
