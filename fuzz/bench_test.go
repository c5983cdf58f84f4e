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
// runs in its own process). A fuzz exchange is one prompts/list request
// judged by the whole oracle (events, message model, liveness probe), so
// it costs two round trips; the bare loop's exchange is one.

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
			reportThroughput(b, int(h.exchanges.Load()), cpu0)
		})
	}
}
