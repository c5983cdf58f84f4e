//go:build slow

package fuzz

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// From another module (testdata/extmod, a server's repository in
// miniature), `go test -fuzz` runs a campaign through the public entry
// point fuzz.Fuzz: it passes against the clean reference fixture, fails
// with the finding (requirement, level, transcript) against a server that
// crashes on deep nesting and writes the input to testdata/fuzz/FuzzServer,
// where plain `go test` replays it and fails again.
//
// The fuzzing budgets are counts of inputs (-fuzztime Nx), not durations:
// Go 1.26's coordinator can report a campaign whose -fuzztime duration
// ends while an input runs as failed ("context deadline exceeded",
// golang/go#75804, fixed in Go 1.27), and a count also bounds the work,
// not the time. Most of the wall time is the build of the instrumented
// test binary.
func TestNativeEngineFromAnotherModule(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Fatalf("the go command is needed to run a module's fuzz test: %v", err)
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	mod := t.TempDir() // go test -fuzz writes the failing input into the module
	for _, name := range []string{"go.mod", "go.sum", "server_fuzz_test.go"} {
		b, err := os.ReadFile(filepath.Join("testdata", "extmod", name))
		if err != nil {
			t.Fatal(err)
		}
		if name == "go.mod" {
			b = bytes.Replace(b, []byte("=> ../../.."), []byte("=> "+root), 1)
		}
		if err := os.WriteFile(filepath.Join(mod, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	props := "" // MCPCONFORM_FUZZ_PROPERTIES of the next campaign
	goTest := func(server string, args ...string) (string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute) // the harness never hangs
		defer cancel()
		cmd := exec.CommandContext(ctx, "go", append([]string{"test", "-count=1"}, args...)...)
		cmd.Dir = mod
		// This test binary serves the fixtures (TestMain) when
		// FUZZ_AS_FIXTURE=1, which the server inherits.
		cmd.Env = append(os.Environ(), "MCPCONFORM_FUZZ_SERVER="+os.Args[0]+" "+server, "FUZZ_AS_FIXTURE=1", "GOFLAGS=-mod=mod", "MCPCONFORM_FUZZ_PROPERTIES="+props)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	campaign := []string{"-run", "^$", "-fuzz", "^FuzzServer$", "-parallel", "1"}

	// go test -fuzz keeps every input that found new coverage in
	// GOCACHE/fuzz/<module>/<target> and replays them all as its baseline
	// before fuzzing: after a few hundred runs of this test the baseline
	// alone outlasted the 4 s campaign. Each run starts from the seed
	// corpus: only this test module's cached inputs are removed.
	gocache, err := exec.Command("go", "env", "GOCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	if dir := strings.TrimSpace(string(gocache)); dir != "" {
		if err := os.RemoveAll(filepath.Join(dir, "fuzz", "example.com", "extmod")); err != nil {
			t.Fatal(err)
		}
	}

	out, err := goTest("aftersales", append(campaign, "-fuzztime", "400x")...)
	if err != nil {
		t.Fatalf("against the reference: %v\n%s", err, out)
	}
	t.Logf("against the reference:\n%s", out)

	// The crash needs a raw message nested thousands of levels deep: the
	// campaign against the mutant fuzzes the raw property only, so that the
	// engine's inputs reach it in seconds even on a loaded machine (the
	// 20,000 inputs are a bound, not the expected work).
	props = PropRaw
	// (an input means the same case only under the same properties: the
	// replays below keep them)
	out, err = goTest("aftersales --mutant exit-on-deep-nesting", append(campaign, "-fuzztime", "20000x")...)
	if err == nil || !strings.Contains(out, "FAIL RPC-014") || !strings.Contains(out, "raw/transport/crash") {
		t.Fatalf("against a server that crashes on deep nesting: %v, want a failure with the finding\n%s", err, out)
	}
	t.Logf("against the mutant:\n%s", clipLog(out))
	inputs, _ := filepath.Glob(filepath.Join(mod, "testdata", "fuzz", "FuzzServer", "*"))
	if len(inputs) == 0 {
		t.Fatalf("no failing input written to testdata/fuzz/FuzzServer\n%s", out)
	}
	out, err = goTest("aftersales --mutant exit-on-deep-nesting", "-run", "^FuzzServer$")
	if err == nil || !strings.Contains(out, "raw/transport/crash") {
		t.Fatalf("plain go test replaying %s: %v, want the finding again\n%s", inputs[0], err, out)
	}
	out, err = goTest("aftersales", "-run", "^FuzzServer$")
	if err != nil {
		t.Fatalf("plain go test replaying %s against the reference: %v\n%s", inputs[0], err, out)
	}
}

// clipLog leaves out the engine's progress lines and rapid's draws.
func clipLog(s string) string {
	var keep []string
	for _, l := range strings.Split(s, "\n") {
		if !strings.Contains(l, "fuzz: elapsed") && !strings.Contains(l, "[rapid] draw") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}
