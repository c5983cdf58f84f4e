package reports

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpconform/mcpconform/internal/result"
)

// MarkdownLinks point to the other reports from summary.md: paths or
// http(s) URLs (artifact links), each may be empty.
type MarkdownLinks struct {
	HTML, JUnit, JSON string
}

// Markdown limits: the summary stays well under GitHub's 1 MiB step
// summary limit.
const (
	// MarkdownMaxBytes bounds summary.md.
	MarkdownMaxBytes = 64 << 10
	// MarkdownMaxRows bounds the failure table.
	MarkdownMaxRows = 100
	// markdownMessageRunes is where a failure message is cut.
	markdownMessageRunes = 160
	// markdownTableBudget is the size after which no further failure row is
	// added, leaving room for what follows the table.
	markdownTableBudget = 44 << 10
	markdownStaleBudget = 56 << 10
	markdownMaxStale    = 50
)

func init() {
	register(format{Name: "md", File: "summary.md", Order: 40, ByDefault: true, Write: writeMarkdownLinked, Links: true})
}

// writeMarkdownLinked writes summary.md linking the reports that are
// beside it (it is written last).
func writeMarkdownLinked(dir string, r *Report) (string, error) {
	var links MarkdownLinks
	for _, l := range []struct {
		file string
		to   *string
	}{{"report.html", &links.HTML}, {"junit.xml", &links.JUnit}, {"report.json", &links.JSON}} {
		if _, err := os.Stat(filepath.Join(dir, l.file)); err == nil {
			*l.to = l.file
		}
	}
	return WriteMarkdown(dir, r, links)
}

// WriteMarkdown writes dir/summary.md (RenderMarkdown) and returns its path.
func WriteMarkdown(dir string, r *Report, links MarkdownLinks) (string, error) {
	var buf bytes.Buffer
	if err := RenderMarkdown(&buf, r, links); err != nil {
		return "", err
	}
	path := filepath.Join(dir, "summary.md")
	return path, writeFile(path, buf.Bytes())
}

// RenderMarkdown writes a short GitHub-flavoured Markdown summary of the
// run, suited to $GITHUB_STEP_SUMMARY: verdict and target, totals, the
// hollow-run warning, the failures (FAIL, ERROR, WARN; at most
// MarkdownMaxRows), stale baseline entries and links to the other reports.
// Every piece of text from the report is escaped (mdText): a hostile server
// cannot inject markup, HTML, links or images. The output stays under
// MarkdownMaxBytes.
func RenderMarkdown(w io.Writer, r *Report, links MarkdownLinks) error {
	var b bytes.Buffer
	s := r.Summary

	icon, word := "✅", "passed"
	if !s.Passed {
		icon, word = "❌", "failed"
	}
	fmt.Fprintf(&b, "## %s mcpconform %s: %s\n\n", icon, word, mdText(targetText(r.Target), 200))
	meta := []string{"mcpconform " + mdText(r.Tool.Version, 40)}
	if r.Target.Transport != "" {
		meta = append(meta, mdText(r.Target.Transport, 20))
	}
	if len(r.Revisions) > 0 {
		meta = append(meta, "revisions "+mdText(strings.Join(r.Revisions, ", "), 120))
	}
	if s.Strict {
		meta = append(meta, "strict (WARN fails)")
	}
	b.WriteString(strings.Join(meta, " · ") + "\n")
	if len(r.ServerInfo) > 0 {
		var info struct{ Name, Version string }
		_ = json.Unmarshal(r.ServerInfo, &info)
		if info.Name != "" || info.Version != "" {
			fmt.Fprintf(&b, "\nserver: %s %s\n", mdText(info.Name, 80), mdText(info.Version, 40))
		}
	}

	if r.Contract == nil || s.Total > 0 || len(r.Revisions) > 0 { // not for a contract check alone
		b.WriteString("\n| verdict | count |\n| --- | ---: |\n")
		for _, v := range result.Verdicts {
			fmt.Fprintf(&b, "| %s | %d |\n", v, s.Counts[v])
		}
		fmt.Fprintf(&b, "| total | %d |\n", s.Total)
	}
	if s.OtherRevision > 0 {
		fmt.Fprintf(&b, "\nNot counted: %d requirements of another revision than this run covers (NA).\n", s.OtherRevision)
	}
	if r.Baseline != nil {
		fmt.Fprintf(&b, "| baselined (known failures) | %d |\n", s.Baselined)
		fmt.Fprintf(&b, "| stale baseline entries | %d |\n", s.Stale)
	}

	if line := PolicyLine(r); line != "" {
		fmt.Fprintf(&b, "\n%s\n", mdText(line, 300))
	}
	if line := BackoffLine(r); line != "" {
		fmt.Fprintf(&b, "\n%s\n", mdText(line, 400))
	}
	if s.Hollow {
		fmt.Fprintf(&b, "\n> ⚠️ **Hollow run:** %s\n", mdText(s.HollowReason, 300))
	}
	if r.Interrupted {
		b.WriteString("\n> ⚠️ **Interrupted:** the run was stopped; the reports hold the checks that finished.\n")
	}

	// Failures: those that fail the gate first, then warnings, then
	// baselined ones, each in report order.
	var open, warns, known []Result
	for _, res := range r.Results {
		switch {
		case !res.Verdict.Problem():
		case res.Baselined:
			known = append(known, res)
		case !res.Verdict.Fails(s.Strict):
			warns = append(warns, res)
		default:
			open = append(open, res)
		}
	}
	problems := append(append(open, warns...), known...)
	if len(problems) > 0 {
		b.WriteString("\n### Failures and warnings\n\n")
		b.WriteString("| verdict | id | level | revision | transport | message | spec |\n| --- | --- | --- | --- | --- | --- | --- |\n")
		shown := 0
		for _, res := range problems {
			row := fmt.Sprintf("| %s | %s | %s | %s | %s | %s | %s |\n", verdictCell(res, s.Strict),
				mdText(res.Requirement, 40), mdText(res.Level, 10), mdText(res.Revision, 20), mdText(res.Transport, 10),
				mdText(res.Message, markdownMessageRunes), mdSpecLinks(res))
			if shown >= MarkdownMaxRows || b.Len()+len(row) > markdownTableBudget {
				break
			}
			b.WriteString(row)
			shown++
		}
		if n := len(problems) - shown; n > 0 {
			fmt.Fprintf(&b, "\n… and %d more (see the full reports)\n", n)
		}
		if !strings.HasPrefix(r.Tool.Name, "mcpconform fuzz") && role(r) == "server" {
			fmt.Fprintf(&b, "\nReproduce one without mcpconform: %s prints a standalone sh script that runs it against the same target (exit 1: the violation is seen, 0: fixed).\n", mdText("mcpconform repro report.json ID --revision REVISION", 120))
		}

	}

	if bs := r.Baseline; bs != nil && (len(bs.Stale) > 0 || len(bs.Unmatched) > 0) {
		b.WriteString("\n### Baseline\n\n")
		if n := len(bs.Stale); n > 0 {
			fmt.Fprintf(&b, "❌ %d stale entr%s now pass%s (a stale entry fails the run): remove %s from %s\n\n",
				n, plural(n, "y", "ies"), plural(n, "es", ""), plural(n, "it", "them"), mdText(bs.File, 200))
			for i, key := range bs.Stale {
				if i == markdownMaxStale || b.Len() > markdownStaleBudget {
					fmt.Fprintf(&b, "- … and %d more\n", len(bs.Stale)-i)
					break
				}
				fmt.Fprintf(&b, "- %s\n", mdText(key, 40))
			}
		}
		if n := len(bs.Unmatched); n > 0 {
			if len(bs.Stale) > 0 {
				b.WriteString("\n")
			}
			fmt.Fprintf(&b, "%d baseline entr%s matched no check in this run (not selected, NA, or not run).\n", n, plural(n, "y", "ies"))
		}
	}

	mdContract(&b, r.Contract)

	var hints []string
	for _, l := range []struct{ name, to string }{{"HTML report", links.HTML}, {"JUnit", links.JUnit}, {"report.json", links.JSON}} {
		if l.to != "" {
			hints = append(hints, mdLink(l.name, l.to))
		}
	}
	if len(hints) > 0 {
		fmt.Fprintf(&b, "\nReports: %s\n", strings.Join(hints, " · "))
	}

	out := b.Bytes()
	if len(out) > MarkdownMaxBytes { // cannot happen with the caps above; keep the promise anyway
		out = out[:bytes.LastIndexByte(out[:MarkdownMaxBytes-64], '\n')+1]
		out = append(out, "\n… (summary cut)\n"...)
	}
	_, err := w.Write(out)
	return err
}

// mdContract writes the contract gate's findings (ERR first), capped like
// the failures table.
func mdContract(b *bytes.Buffer, c *Contract) {
	if c == nil {
		return
	}
	what := "Lints of model-read text"
	if c.File != "" {
		what = "Contract " + mdText(c.File, 120)
	}
	icon := "✅"
	if !c.Passed {
		icon = "❌"
	}
	fmt.Fprintf(b, "\n### %s %s\n\n%d ERR, %d WARN, %d INFO, %d accepted (rules: `mcpconform list --contract-rules`)\n", icon, what, c.Err, c.Warn, c.Info, c.Accepted)
	if len(c.Findings) == 0 {
		return
	}
	b.WriteString("\n| level | rule | subject | change | revisions | fingerprint |\n| --- | --- | --- | --- | --- | --- |\n")
	for i, f := range c.Findings {
		if i >= MarkdownMaxRows || b.Len() > markdownTableBudget {
			fmt.Fprintf(b, "\n… and %d more (see the full reports)\n", len(c.Findings)-i)
			break
		}
		level := f.Level
		if f.Accepted {
			level += " (accepted: " + f.Reason + ")"
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s |\n", mdText(level, 120), mdText(f.Rule, 40), mdText(f.Subject, 80),
			mdText(f.Message, markdownMessageRunes), mdText(strings.Join(f.Revisions, ", "), 80), mdText(f.Fingerprint, 20))
	}
}

// mdSpecLinks links the sentences a verdict rests on: the requirement's
// first link and the tolerances it invokes. Only https URLs of the catalog
// are linked (a report.json edited by hand cannot inject Markdown).
func mdSpecLinks(res Result) string {
	var parts []string
	if len(res.Links) > 0 && safeURL(res.Links[0]) {
		parts = append(parts, mdLink("spec", res.Links[0]))
	}
	for _, t := range res.Tolerances {
		if len(t.Links) > 0 && safeURL(t.Links[0]) {
			parts = append(parts, mdLink(mdText(t.ID, 12), t.Links[0]))
		} else {
			parts = append(parts, mdText(t.ID, 12))
		}
	}
	return strings.Join(parts, " ")
}

// safeURL reports whether u is an https URL without characters that could
// end a Markdown link or an HTML attribute.
func safeURL(u string) bool {
	return strings.HasPrefix(u, "https://") && !strings.ContainsAny(u, " \t\n\r()[]<>\"'`|\\")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func verdictCell(res Result, strict bool) string {
	switch {
	case res.Baselined:
		return "☑️ " + mdText(res.Verdict.String(), 8) + " (baselined)"
	case res.Verdict == result.FAIL:
		return "❌ " + res.Verdict.String()
	case res.Verdict == result.ERROR:
		return "💥 " + res.Verdict.String()
	case strict:
		return "❌ " + res.Verdict.String() + " (strict)"
	default:
		return "⚠️ " + res.Verdict.String() + " (warning)"
	}
}

// mdLink renders an http(s) URL as a link and anything else (a path) as
// escaped text.
func mdLink(name, to string) string {
	if u, err := url.Parse(to); err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && len(to) <= 1000 {
		s := u.String()
		s = strings.NewReplacer("(", "%28", ")", "%29", "<", "%3C", ">", "%3E", " ", "%20", "|", "%7C", "`", "%60", "\\", "%5C").Replace(s)
		return "[" + name + "](" + s + ")"
	}
	return name + ": " + mdText(to, 300)
}

// zwsp breaks up text that GitHub would otherwise turn into a link
// (http://…, www.…, user@host, @mention) without changing how it reads.
const zwsp = "\u200b"

// mdText makes untrusted text safe as inline GitHub Markdown, including a
// table cell: one line (cleanLine, cut at max runes), Markdown punctuation
// backslash-escaped, <, > and & as entities, and autolink triggers broken
// with a zero-width space.
func mdText(s string, max int) string {
	rs := []rune(cleanLine(s, max))
	var b strings.Builder
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch r {
		case '\\', '`', '*', '_', '[', ']', '|', '~', '$', '!', '#', '{', '}', '(', ')':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '&':
			b.WriteString("&amp;")
		case '@':
			b.WriteString("@" + zwsp)
		case ':':
			b.WriteRune(r)
			if i+2 < len(rs) && rs[i+1] == '/' && rs[i+2] == '/' {
				b.WriteString(zwsp)
			}
		case 'w', 'W':
			if i+3 < len(rs) && strings.EqualFold(string(rs[i:i+4]), "www.") {
				b.WriteString(string(rs[i:i+3]) + zwsp)
				i += 2
				continue
			}
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
