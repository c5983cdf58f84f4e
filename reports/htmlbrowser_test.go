//go:build slow && unix

package reports

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The browser test renders the report of a real run against the hostile
// fixture and opens it in headless Chromium: no server payload may run
// (they all try to set document.title), the filters must work from the URL,
// and a screenshot is kept as an artefact ($MCPCONFORM_ARTEFACTS, else a
// temporary directory).

// hostileScriptPayload is the hostile fixture's serverInfo name.
const hostileScriptPayload = `<script>document.title='pwned'</script>`

func findChromium() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// chromium runs one headless Chromium with a throwaway profile, in its own
// process group, killed as a whole when it returns or times out.
func chromium(bin string, args ...string) ([]byte, error) {
	// Generous: under make test the browser shares two cores with the kill
	// matrix (a 20 s limit was hit there on a loaded machine).
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	profile, err := os.MkdirTemp("", "mcpconform-chromium")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(profile)
	full := append([]string{"--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
		"--no-first-run", "--no-default-browser-check", "--disable-extensions", "--disable-sync",
		"--disable-background-networking", "--disable-component-update", "--mute-audio",
		"--user-data-dir=" + profile}, args...)
	cmd := exec.CommandContext(ctx, bin, full...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 2 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	if cmd.Process != nil { // leave no renderer or helper behind
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	if err != nil {
		return nil, fmt.Errorf("chromium %s: %v\n%s", strings.Join(args, " "), err, lastLines(stderr.String(), 15))
	}
	return stdout.Bytes(), nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

var (
	domTitleRe      = regexp.MustCompile(`(?s)<title>(.*?)</title>`)
	domFilterableRe = regexp.MustCompile(`<[a-z]+ [^>]*data-filterable[^>]*>`)
	domVerdictRe    = regexp.MustCompile(`data-verdict="([^"]*)"`)
	domHiddenRe     = regexp.MustCompile(`\shidden(=""|\s|>)`)
)

func TestHTMLInHeadlessChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the headless Chromium test")
	}
	chrome := findChromium()
	if chrome == "" {
		t.Skip("headless Chromium not installed: apt-get install chromium")
	}
	t0 := time.Now()
	dir := t.TempDir()

	// A real run of the CLI against the hostile fixture over stdio.
	cli := filepath.Join(dir, "mcpconform")
	build := exec.Command("go", "build", "-o", cli, "github.com/mcpconform/mcpconform/cmd/mcpconform")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the CLI: %v\n%s", err, out)
	}
	tBuild := time.Since(t0)
	repDir := filepath.Join(dir, "report")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	run := exec.CommandContext(ctx, cli, "run", "--quiet", "--report-dir", repDir, "--", cli, "fixture", "hostile")
	if out, err := run.CombinedOutput(); err != nil {
		t.Fatalf("mcpconform run against the hostile fixture must pass: %v\n%s", err, lastLines(string(out), 30))
	}
	raw, err := os.ReadFile(filepath.Join(repDir, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r Report
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(r.ServerInfo), "pwned") {
		t.Fatalf("the hostile fixture's serverInfo is not in the report: %s", r.ServerInfo)
	}
	path, err := WriteHTML(repDir, &r)
	if err != nil {
		t.Fatal(err)
	}
	checkHTMLInert(t, mustRead(t, path))
	url := "file://" + path
	tRun := time.Since(t0)

	art := os.Getenv("MCPCONFORM_ARTEFACTS")
	if art == "" {
		art = t.TempDir()
	}
	if err := os.MkdirAll(art, 0o755); err != nil {
		t.Fatal(err)
	}
	png := filepath.Join(art, "report-hostile.png")

	// A check whose transcript holds the hostile serverInfo as raw markup:
	// opened from its fragment, its transcript renders on demand.
	txAnchor := ""
	anchors := Anchors(r.Results)
	for i, res := range r.Results {
		for _, e := range res.Transcript {
			if e.Direction == "recv" && strings.Contains(e.Body, hostileScriptPayload) {
				txAnchor = anchors[i] + "/transcript"
			}
		}
		if txAnchor != "" {
			break
		}
	}
	if txAnchor == "" {
		t.Fatalf("no transcript holds the raw payload %s", hostileScriptPayload)
	}

	// The three browser runs are independent: run them side by side, two
	// at a time (three browsers at once starved each other on two cores).
	jobs := [][]string{
		{"--dump-dom", url + "?verdict=NA"},
		{"--dump-dom", url + "#filter=verdict:PASS"},
		{"--screenshot=" + png, "--window-size=1400,2000", "--hide-scrollbars", url},
		{"--dump-dom", url + "#" + txAnchor},
	}
	outs := make([][]byte, len(jobs))
	errs := make([]error, len(jobs))
	var wg sync.WaitGroup
	slots := make(chan struct{}, 2)
	for i, args := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			slots <- struct{}{}
			defer func() { <-slots }()
			outs[i], errs[i] = chromium(chrome, args...)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}

	// (a) No server script ran: the title is still ours and our own script
	// (admitted by the page's CSP) did run. Any load of the page shows it;
	// this one is also the first filter case.
	dom := string(outs[0])
	m := domTitleRe.FindStringSubmatch(dom)
	if m == nil {
		t.Fatalf("no <title> in the DOM:\n%.2000s", dom)
	}
	if got, want := html.UnescapeString(m[1]), htmlTitle(&r); got != want {
		t.Errorf("document title %q, want %q (a payload ran?)", got, want)
	}
	if !strings.Contains(dom, `data-js="ready"`) {
		t.Errorf("the report's own script did not run (CSP hash mismatch or script error)")
	}
	if n := strings.Count(dom, "<script"); n != 2 || !strings.Contains(dom, `<script type="application/json" id="tx-data">`) {
		t.Errorf("%d script elements in the live DOM, want ours and the transcript data block", n)
	}
	if strings.Contains(dom, `data-rendered="1"`) {
		t.Errorf("a transcript was rendered before it was opened")
	}
	if strings.Contains(dom, "<img") {
		t.Errorf("an <img> element exists in the live DOM")
	}
	if !strings.Contains(dom, "&lt;script&gt;document.title='pwned'&lt;/script&gt;") {
		t.Errorf("the hostile server name is not shown as text")
	}

	// (b) The filters work: an initial filter from the query or the fragment
	// hides every check of another verdict.
	for i, c := range []struct{ suffix, verdict string }{{"?verdict=NA", "NA"}, {"#filter=verdict:PASS", "PASS"}} {
		dom := string(outs[i])
		shown, hidden := filterCounts(t, dom, c.verdict)
		if shown == 0 || hidden == 0 || shown+hidden != len(r.Results) {
			t.Errorf("%s: %d shown, %d hidden of %d", c.suffix, shown, hidden, len(r.Results))
		}
	}

	// (c) A transcript renders on demand (opened from its fragment): its
	// entries are built, JSON bodies pretty-printed and highlighted, and the
	// server's <script> stays text — no title change, no new elements.
	txDOM := string(outs[3])
	if m := domTitleRe.FindStringSubmatch(txDOM); m == nil || html.UnescapeString(m[1]) != htmlTitle(&r) {
		t.Errorf("document title changed after rendering a transcript (a payload ran?)")
	}
	if n := strings.Count(txDOM, "<script"); n != 2 {
		t.Errorf("%d script elements after rendering a transcript, want 2", n)
	}
	i := strings.Index(txDOM, `id="`+html.EscapeString(txAnchor)+`"`)
	if i < 0 {
		t.Fatalf("transcript %s not in the DOM", txAnchor)
	}
	tx := txDOM[i:]
	tx = tx[:strings.Index(tx, "</details>")+len("</details>")]
	for _, want := range []string{`data-rendered="1"`, `<li class="send">`, `<li class="recv">`, `→ sent`, `← received`,
		`<span class="k">"jsonrpc"</span>: <span class="s">"2.0"</span>`, html.EscapeString(hostileScriptPayload)} {
		if !strings.Contains(tx, strings.ReplaceAll(want, "&#39;", "'")) {
			t.Errorf("rendered transcript %s lacks %s:\n%.3000s", txAnchor, want, tx)
		}
	}
	if strings.Contains(tx, "<script") || strings.Contains(tx, "<img") || strings.Contains(tx, "nojs") {
		t.Errorf("rendered transcript holds markup from the server or was not rendered:\n%.3000s", tx)
	}

	// (d) A screenshot, kept as an artefact.
	if b, err := os.ReadFile(png); err != nil || !bytes.HasPrefix(b, []byte("\x89PNG")) || len(b) < 10000 {
		t.Errorf("screenshot %s: %d bytes, %v", png, len(b), err)
	}
	if _, err := WriteHTML(art, &r); err != nil {
		t.Error(err)
	}
	t.Logf("screenshot: %s (report.html beside it); build %v, run %v, browser %v",
		png, tBuild.Round(time.Millisecond), (tRun - tBuild).Round(time.Millisecond), (time.Since(t0) - tRun).Round(time.Millisecond))
}

// filterCounts counts the filterable checks in a dumped DOM that are shown
// and hidden, and checks that exactly those of verdict (all, if "") show.
func filterCounts(t *testing.T, dom, verdict string) (shown, hidden int) {
	t.Helper()
	for _, tag := range domFilterableRe.FindAllString(dom, -1) {
		v := domVerdictRe.FindStringSubmatch(tag)
		isHidden := domHiddenRe.MatchString(tag)
		if isHidden {
			hidden++
		} else {
			shown++
		}
		if v != nil && verdict != "" && (v[1] == verdict) == isHidden {
			t.Errorf("filter %s: %s hidden=%v", verdict, tag, isHidden)
		}
	}
	return shown, hidden
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
