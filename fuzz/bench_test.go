package fuzz

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/internal/catalog"
	"github.com/mcpconform/mcpconform/internal/jsonrpc"
	"github.com/mcpconform/mcpconform/internal/target"
	"github.com/mcpconform/mcpconform/internal/wire"
)

// Throughput of the fuzzer against the reference fixture (a child process,
// over stdio and over HTTP), beside a bare sequential request loop against
// the same server (the server's own ceiling): exchanges/s of each, and the
// harness's CPU per exchange (this process's user+system time; the server
// runs in its own process). A fuzz case is one prompts/list request
// judged by the whole oracle (events, message model; the liveness probe
// only when the case needs one, and this one, answered whole, does not):
// exchanges/s counts the cases' own requests only, beside the bare loop's;
// probes/case and all-exchanges/s (probes included) say what else went
// on the wire.

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func reportThroughput(b *testing.B, exchanges int, cpu0 time.Duration) {
	b.ReportMetric(float64(exchanges)/b.Elapsed().Seconds(), "exchanges/s")
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(exchanges), "cpu-µs/exchange")
}

const legacyInit = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`

// startHTTPFixture runs the fixture as a child process serving HTTP.
func startHTTPFixture(b *testing.B) string {
	cmd := exec.Command(os.Args[0], "aftersales", "--http", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), "FUZZ_AS_FIXTURE=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if url, ok := strings.CutPrefix(sc.Text(), "listening on "); ok {
			go func() { _, _ = io.Copy(io.Discard, out) }()
			return strings.TrimSpace(url)
		}
	}
	b.Fatal("the HTTP fixture printed no URL")
	return ""
}

func BenchmarkBareLoop(b *testing.B) {
	b.Run("stdio", func(b *testing.B) {
		cmd := exec.Command(os.Args[0], "aftersales")
		cmd.Env = append(os.Environ(), "FUZZ_AS_FIXTURE=1")
		in, _ := cmd.StdinPipe()
		out, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		defer func() { in.Close(); _ = cmd.Wait() }()
		r := bufio.NewReaderSize(out, 1<<20)
		fmt.Fprintln(in, legacyInit)
		if _, err := r.ReadBytes('\n'); err != nil {
			b.Fatal(err)
		}
		fmt.Fprintln(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		cpu0 := cpuTime()
		b.ResetTimer()
		for i := range b.N {
			fmt.Fprintf(in, `{"jsonrpc":"2.0","id":%d,"method":"prompts/list","params":{}}`+"\n", i+1)
			if _, err := r.ReadBytes('\n'); err != nil {
				b.Fatal(err)
			}
		}
		reportThroughput(b, b.N, cpu0)
	})
	b.Run("http", func(b *testing.B) {
		url := startHTTPFixture(b)
		c := &http.Client{}
		post := func(body string, sid string) (*http.Response, []byte) {
			req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("MCP-Protocol-Version", "2025-11-25")
			if sid != "" {
				req.Header.Set("Mcp-Session-Id", sid)
			}
			resp, err := c.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			data, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			return resp, data
		}
		resp, _ := post(legacyInit, "")
		sid := resp.Header.Get("Mcp-Session-Id")
		post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, sid)
		cpu0 := cpuTime()
		b.ResetTimer()
		for i := range b.N {
			if _, data := post(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"prompts/list","params":{}}`, i+1), sid); !bytes.Contains(data, []byte(`"prompts"`)) {
				b.Fatalf("prompts/list: %s", data)
			}
		}
		reportThroughput(b, b.N, cpu0)
	})
}

func BenchmarkFuzzExchange(b *testing.B) {
	for _, tr := range []string{"stdio", "http"} {
		b.Run(tr, func(b *testing.B) {
			tg := &target.Target{Command: []string{os.Args[0], "aftersales"}, Env: []string{"FUZZ_AS_FIXTURE=1"},
				Timeout: 5 * time.Second, Recorder: wire.NewRecorder(wire.NewRedactor())}
			if tr == "http" {
				tg = &target.Target{URL: startHTTPFixture(b), Timeout: 5 * time.Second, Recorder: wire.NewRecorder(wire.NewRedactor())}
			}
			ctx := context.Background()
			h, err := newHarness(ctx, tg, catalog.LatestLegacy)
			if err != nil {
				b.Fatal(err)
			}
			defer h.close()
			cpu0 := cpuTime()
			b.ResetTimer()
			for i := range b.N {
				msg := jsonrpc.Request(jsonrpc.StringID(fmt.Sprintf("b%d", i)), "prompts/list", map[string]any{})
				if ps, tr := h.exchange(ctx, [][]byte{msg}); len(ps) > 0 {
					b.Fatalf("%v\n%s", ps, strings.Join(tr, "\n"))
				}
			}
			own := int(h.exchanges.Load() - h.probes.Load())
			reportThroughput(b, own, cpu0)
			b.ReportMetric(float64(h.exchanges.Load())/b.Elapsed().Seconds(), "all-exchanges/s")
			b.ReportMetric(float64(h.probes.Load())/float64(b.N), "probes/case")
		})
	}
}

// BenchmarkHTTPThroughput measures the fuzzer and the bare loop against the
// same HTTP server in alternation, one bare request then one fuzz case
// (a prompts/list, judged whole), so that the load of the machine weighs
// on both alike: bare-exchanges/s and fuzz-exchanges/s (the cases' own
// requests, probes not counted), and fuzz-%-of-bare, the ratio the
// fuzzer's HTTP throughput goal is stated in (at least 80).
func BenchmarkHTTPThroughput(b *testing.B) {
	url := startHTTPFixture(b)
	c := &http.Client{}
	post := func(body string, sid string) (*http.Response, []byte) {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2025-11-25")
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
		}
		resp, err := c.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp, data
	}
	resp, _ := post(legacyInit, "")
	sid := resp.Header.Get("Mcp-Session-Id")
	post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, sid)
	ctx := context.Background()
	h, err := newHarness(ctx, &target.Target{URL: url, Timeout: 5 * time.Second, Recorder: wire.NewRecorder(wire.NewRedactor())}, catalog.LatestLegacy)
	if err != nil {
		b.Fatal(err)
	}
	defer h.close()
	ex0, pr0 := h.exchanges.Load(), h.probes.Load()
	var bare, fuzz time.Duration
	b.ResetTimer()
	for i := range b.N {
		t0 := time.Now()
		if _, data := post(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"prompts/list","params":{}}`, i+1), sid); !bytes.Contains(data, []byte(`"prompts"`)) {
			b.Fatalf("prompts/list: %s", data)
		}
		t1 := time.Now()
		msg := jsonrpc.Request(jsonrpc.StringID(fmt.Sprintf("b%d", i)), "prompts/list", map[string]any{})
		if ps, tr := h.exchange(ctx, [][]byte{msg}); len(ps) > 0 {
			b.Fatalf("%v\n%s", ps, strings.Join(tr, "\n"))
		}
		bare += t1.Sub(t0)
		fuzz += time.Since(t1)
	}
	own := h.exchanges.Load() - ex0 - (h.probes.Load() - pr0)
	b.ReportMetric(float64(b.N)/bare.Seconds(), "bare-exchanges/s")
	b.ReportMetric(float64(own)/fuzz.Seconds(), "fuzz-exchanges/s")
	b.ReportMetric(100*(float64(own)/fuzz.Seconds())/(float64(b.N)/bare.Seconds()), "fuzz-%-of-bare")
	b.ReportMetric(float64(h.probes.Load()-pr0)/float64(b.N), "probes/case")
}
