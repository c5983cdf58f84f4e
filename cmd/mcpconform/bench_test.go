package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/fixtures"
	"github.com/mcpconform/mcpconform/internal/catalog"
	"github.com/mcpconform/mcpconform/internal/session"
	"github.com/mcpconform/mcpconform/internal/target"
	"github.com/mcpconform/mcpconform/internal/wire"
)

// reportRunMetrics adds, to a full-run benchmark, the number of checks of
// the last run (report.json in dir) and the wall time per check.
func reportRunMetrics(b *testing.B, dir string, runs int) {
	var rep struct {
		Summary struct {
			Total int `json:"total"`
		} `json:"summary"`
	}
	readReport(b, dir, &rep)
	if rep.Summary.Total == 0 {
		b.Fatal("report.json: no checks")
	}
	b.ReportMetric(float64(rep.Summary.Total), "checks")
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(runs*rep.Summary.Total), "ms/check")
}

// readReport decodes report.json in dir into v (the part a benchmark reads).
func readReport(b *testing.B, dir string, v any) {
	b.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, "report.json"))
	if err != nil {
		b.Fatal(err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		b.Fatalf("report.json: %v", err)
	}
}

// BenchmarkCatalogWalk measures walking every list of a large catalog
// page by page through the session layer (the way checks walk lists):
// aftersales with --catalog-size N serves N extra tools, N resources and N
// prompts, paged 5 per page. ns/item should stay flat from 1k to 10k (the
// walk grows linearly with the catalog); pages/op and items/op say what
// one walk covered. The fixture runs in a child process over stdio; its
// start-up (building and sorting the catalog) is not timed.
func BenchmarkCatalogWalk(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("items=%d", n), func(b *testing.B) {
			tg := &target.Target{
				Command: []string{os.Args[0], "fixture", "aftersales", "--catalog-size", fmt.Sprint(n)},
				Env:     []string{"MCPCONFORM_AS_CLI=1"},
				Timeout: 30 * time.Second,
				// like a run: every frame goes through the recorder (it
				// stops keeping frames at its caps)
				Recorder: wire.NewRecorder(wire.NewRedactor()),
			}
			ctx := context.Background()
			s, err := tg.Open(ctx, catalog.Modern)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			// Untimed: the first page of each list (the server sorts its
			// catalog once, on the first list call).
			for _, m := range []string{"tools/list", "resources/list", "prompts/list"} {
				if _, err := s.Call(ctx, m, map[string]any{}, nil); err != nil {
					b.Fatal(err)
				}
			}
			var items, pages, walks int
			for b.Loop() {
				it, pg, err := walkCatalog(ctx, s)
				if err != nil {
					b.Fatal(err)
				}
				if it < 3*n {
					b.Fatalf("walked %d items, want at least %d", it, 3*n)
				}
				items, pages, walks = it, pg, walks+1
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(walks*items), "ns/item")
			b.ReportMetric(float64(items), "items/op")
			b.ReportMetric(float64(pages), "pages/op")
		})
	}
}

// walkCatalog follows nextCursor through tools/list, resources/list and
// prompts/list; it returns the items and pages seen.
func walkCatalog(ctx context.Context, s *session.Session) (items, pages int, err error) {
	for _, l := range []struct{ method, key string }{{"tools/list", "tools"}, {"resources/list", "resources"}, {"prompts/list", "prompts"}} {
		var cursor *string
		for page := 0; ; page++ {
			if page == 100000 {
				return 0, 0, fmt.Errorf("%s: no end after %d pages", l.method, page)
			}
			params := map[string]any{}
			if cursor != nil {
				params["cursor"] = *cursor
			}
			resp, err := s.Call(ctx, l.method, params, nil)
			if err != nil {
				return 0, 0, fmt.Errorf("%s page %d: %v", l.method, page+1, err)
			}
			var list map[string]json.RawMessage
			if err := resp.Result(&list); err != nil {
				return 0, 0, fmt.Errorf("%s page %d: %v", l.method, page+1, err)
			}
			var got []json.RawMessage
			if err := json.Unmarshal(list[l.key], &got); err != nil {
				return 0, 0, fmt.Errorf("%s page %d: %s: %v", l.method, page+1, l.key, err)
			}
			var next *string
			if raw, ok := list["nextCursor"]; ok {
				if err := json.Unmarshal(raw, &next); err != nil {
					return 0, 0, fmt.Errorf("%s page %d: nextCursor: %v", l.method, page+1, err)
				}
			}
			items += len(got)
			pages++
			if next == nil {
				break
			}
			cursor = next
		}
	}
	return items, pages, nil
}

// BenchmarkRunMutantStdio measures full runs against servers whose
// behaviour used to make checks wait out their timeouts (issue 13):
//
//	ts-sdk-like     drops invalid requests without an answer and sends
//	                every message a few milliseconds late, like a
//	                TypeScript SDK server on Node
//	errors-id-null  answers every error to a valid request with "id": null
//	                (the run must still end quickly, with RPC-002 FAIL)
//
// It reports the wall time per run (ns/op), the checks, ms/check, the
// server processes the run started and the observed latency (report.json
// performance).
func BenchmarkRunMutantStdio(b *testing.B) {
	for _, mu := range []struct {
		name     string
		wantFail string // a requirement that must FAIL ("" none)
	}{{"ts-sdk-like", ""}, {"errors-id-null", "RPC-002"}} {
		b.Run(mu.name, func(b *testing.B) {
			dir := b.TempDir()
			runs := 0
			for b.Loop() {
				_, stderr, code, _ := cli(b, []string{"MCPCONFORM_AS_CLI=1"}, "run", "--quiet", "--report-dir", dir, "--", os.Args[0], "fixture", "aftersales", "--mutant", mu.name)
				if code != 0 && code != 1 {
					b.Fatalf("exit %d: %s", code, stderr)
				}
				runs++
			}
			var rep struct {
				Results []struct {
					Requirement, Verdict string
				} `json:"results"`
				Performance struct {
					Connections  int64   `json:"connections"`
					LatencyP99Ms float64 `json:"latencyP99Ms"`
				} `json:"performance"`
			}
			readReport(b, dir, &rep)
			if mu.wantFail != "" {
				failed := false
				for _, r := range rep.Results {
					failed = failed || (r.Requirement == mu.wantFail && r.Verdict == "FAIL")
				}
				if !failed {
					b.Fatalf("%s did not FAIL", mu.wantFail)
				}
			}
			b.ReportMetric(float64(rep.Performance.Connections), "processes")
			b.ReportMetric(rep.Performance.LatencyP99Ms, "p99-ms")
			reportRunMetrics(b, dir, runs)
		})
	}
}

// BenchmarkRunSlowStart measures full runs over stdio against the
// reference fixture behind a 300 ms start-up (a shell that sleeps, then
// execs it: a Node or .NET runtime starting), without the pool of
// processes started ahead of need (prestart=0) and with the default one.
// It reports the wall time per run (ns/op), the processes started, the
// time the handshakes cost the run (handshake-s: with the pool only what
// was left of a process's start-up when a check needed it) and ms/check.
func BenchmarkRunSlowStart(b *testing.B) {
	for _, pre := range []int{0, target.DefaultPrestart} {
		b.Run(fmt.Sprintf("prestart=%d", pre), func(b *testing.B) {
			dir := b.TempDir()
			runs := 0
			for b.Loop() {
				_, stderr, code, _ := cli(b, []string{"MCPCONFORM_AS_CLI=1"}, "run", "--quiet", "--prestart", fmt.Sprint(pre), "--report-dir", dir,
					"--", "sh", "-c", `sleep 0.3; exec "$0" fixture aftersales`, os.Args[0])
				if code != 0 {
					b.Fatalf("exit %d: %s", code, stderr)
				}
				runs++
			}
			var rep struct {
				Performance struct {
					Connections int64   `json:"connections"`
					HandshakeMs float64 `json:"handshakeMs"`
				} `json:"performance"`
			}
			readReport(b, dir, &rep)
			b.ReportMetric(float64(rep.Performance.Connections), "processes")
			b.ReportMetric(rep.Performance.HandshakeMs/1000, "handshake-s")
			reportRunMetrics(b, dir, runs)
		})
	}
}

// againstAftersales returns the CLI arguments args aimed at the reference
// fixture over transport: served from this process over HTTP (stopped when
// the benchmark ends), or started by the CLI over stdio.
func againstAftersales(b *testing.B, transport string, args ...string) []string {
	if transport == "http" {
		url, stop, err := fixtures.StartHTTP("aftersales", fixtures.Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(stop)
		return append(args, "--url", url)
	}
	return append(args, "--", os.Args[0], "fixture", "aftersales")
}

// BenchmarkRunReports measures what a full run leaves and costs in memory:
// the size of each report file (report.html, report.json, junit.xml) and
// the CLI's peak RSS, for a full run with every report against the
// reference fixture. Over HTTP the fixture serves from the benchmark's own
// process, so peak-MB is the CLI's alone; over stdio the peak would include
// the fixture processes the CLI starts (and reaps), so only sizes are given.
func BenchmarkRunReports(b *testing.B) {
	for _, transport := range []string{"stdio", "http"} {
		b.Run("transport="+transport, func(b *testing.B) {
			args := againstAftersales(b, transport, "run", "--quiet", "--reports", "json,junit,html,md")
			dir := b.TempDir()
			var peak int64
			for b.Loop() {
				_, stderr, code, st := cli(b, []string{"MCPCONFORM_AS_CLI=1"}, append([]string{args[0], "--report-dir", dir}, args[1:]...)...)
				if code != 0 {
					b.Fatalf("exit %d: %s", code, stderr)
				}
				peak = max(peak, st.SysUsage().(*syscall.Rusage).Maxrss)
			}
			for _, f := range []struct{ name, unit string }{{"report.html", "html-KB"}, {"report.json", "json-KB"}, {"junit.xml", "junit-KB"}} {
				fi, err := os.Stat(filepath.Join(dir, f.name))
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(fi.Size())/1024, f.unit)
			}
			if transport == "http" {
				b.ReportMetric(float64(peak)/1024, "peak-MB")
			}
		})
	}
}

// BenchmarkRunParallel measures a full default run (both eras) against
// the reference fixture one check at a time (--parallel 1) and with the
// two revisions' checks side by side (--parallel 2), over each transport:
// the lanes' gain is the ratio of the two ns/op.
func BenchmarkRunParallel(b *testing.B) {
	for _, transport := range []string{"stdio", "http"} {
		for _, n := range []int{1, 2} {
			b.Run(fmt.Sprintf("transport=%s/parallel=%d", transport, n), func(b *testing.B) {
				args := againstAftersales(b, transport, "run", "--quiet", "--reports", "json", "--parallel", fmt.Sprint(n))
				dir := b.TempDir()
				runs := 0
				for b.Loop() {
					_, stderr, code, _ := cli(b, []string{"MCPCONFORM_AS_CLI=1"}, append([]string{args[0], "--report-dir", dir}, args[1:]...)...)
					if code != 0 {
						b.Fatalf("exit %d: %s", code, stderr)
					}
					runs++
				}
				reportRunMetrics(b, dir, runs)
			})
		}
	}
}

// BenchmarkRunSlowServer measures full default runs (both eras, report.json)
// against the reference fixture made slow like the servers of issue 24
// (fixtures.Slow):
//
//	first=1.3s   stdio, a process's first answer 1.3 s late (a .NET
//	             server's initialize)
//	init=1s      HTTP, every initialize 1 s late (1 s per new session)
//	tool=2s      HTTP, one tool (get_order) takes 2 s
//	every=370ms  stdio, every answer 370 ms late (a bridge that starts a
//	             process per request)
//
// It reports the wall time per run (ns/op), the CPU (cpu-s: the CLI's user
// and system time, with, over stdio, the fixture processes it started and
// reaped; over HTTP the fixture serves from the benchmark), the handshakes' wall
// time (handshake-wall-s: some handshake under way, overlaps counted once)
// against their sum (handshake-s), the lane workers the run took, and the
// longest check that ended NA (na-max-s), and the longest without the time
// it waited for work another check did for it (na-own-max-s: what an NA
// cost the run; a check that computes a shared exercise pays it whole).
func BenchmarkRunSlowServer(b *testing.B) {
	for _, sv := range []struct{ name, transport, slow string }{
		{"first=1.3s", "stdio", "first=1.3s"},
		{"init=1s", "http", "init=1s"},
		{"tool=2s", "http", "tool=get_order:2s"},
		{"every=370ms", "stdio", "every=370ms"},
	} {
		b.Run(sv.name, func(b *testing.B) {
			args := []string{"run", "--quiet", "--reports", "json"}
			if sv.transport == "http" {
				slow, err := fixtures.ParseSlow(sv.slow)
				if err != nil {
					b.Fatal(err)
				}
				url, stop, err := fixtures.StartHTTP("aftersales", fixtures.Options{Slow: slow})
				if err != nil {
					b.Fatal(err)
				}
				b.Cleanup(stop)
				args = append(args, "--url", url)
			} else {
				args = append(args, "--", os.Args[0], "fixture", "aftersales", "--slow", sv.slow)
			}
			dir := b.TempDir()
			var cpu time.Duration
			runs := 0
			for b.Loop() {
				_, stderr, code, st := cli(b, nil, append([]string{args[0], "--report-dir", dir}, args[1:]...)...)
				if code != 0 {
					b.Fatalf("exit %d: %s", code, stderr)
				}
				cpu += st.UserTime() + st.SystemTime()
				runs++
			}
			var rep struct {
				Results []struct {
					Verdict    string  `json:"verdict"`
					DurationMs float64 `json:"durationMs"`
					WaitMs     float64 `json:"waitMs"`
				} `json:"results"`
				Performance struct {
					HandshakeMs     float64 `json:"handshakeMs"`
					HandshakeWallMs float64 `json:"handshakeWallMs"`
					Workers         int     `json:"workers"`
				} `json:"performance"`
			}
			readReport(b, dir, &rep)
			naMax, naOwn := 0.0, 0.0
			for _, r := range rep.Results {
				if r.Verdict == "NA" {
					naMax, naOwn = max(naMax, r.DurationMs), max(naOwn, r.DurationMs-r.WaitMs)
				}
			}
			b.ReportMetric(cpu.Seconds()/float64(runs), "cpu-s")
			b.ReportMetric(rep.Performance.HandshakeMs/1000, "handshake-s")
			b.ReportMetric(rep.Performance.HandshakeWallMs/1000, "handshake-wall-s")
			b.ReportMetric(float64(rep.Performance.Workers), "workers")
			b.ReportMetric(naMax/1000, "na-max-s")
			b.ReportMetric(naOwn/1000, "na-own-max-s")
		})
	}
}
