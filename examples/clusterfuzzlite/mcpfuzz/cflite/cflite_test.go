// Package cflite is the same campaign for ClusterFuzzLite and OSS-Fuzz:
// their Go builds (compile_native_go_fuzzer, go-118-fuzz-build) replace
// this file's testing package with their own, so the target is the
// testing-free fuzz.NewTarget, and this file uses nothing of testing but
// F.Fuzz and T.Fatal.
package cflite

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpconform/mcpconform/fuzz"
	"github.com/mcpconform/mcpconform/suites/mcptarget"
)

// server is the server's binary: $MCP_SERVER, else mcp-server next to the
// fuzzer (where .clusterfuzzlite/build.sh puts it, in $OUT), else built
// and run with go run.
func server() mcptarget.Target {
	if s := os.Getenv("MCP_SERVER"); s != "" {
		return mcptarget.Stdio(s)
	}
	if exe, err := os.Executable(); err == nil {
		if s := filepath.Join(filepath.Dir(exe), "mcp-server"); fileExists(s) {
			return mcptarget.Stdio(s)
		}
	}
	return mcptarget.Stdio("go", "run", "../../cmd/server")
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

var fuzzTarget = fuzz.NewTarget(server())

func FuzzServerLibFuzzer(f *testing.F) {
	for _, seed := range []string{"a", "b", "c", "d"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := fuzzTarget.Input(data); err != nil {
			t.Fatal(err)
		}
	})
}
