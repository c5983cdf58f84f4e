// Package rapidrun runs pgregory.net/rapid outside `go test` (from the
// mcpconform binary): the fuzzer's campaigns, its libFuzzer
// entry point and the suite's requestState property all go through Check.
//
// rapid reads its settings from global flags (rapid.checks, rapid.seed,
// …). Check sets them for one search and holds a lock until the search
// ends, so two searches in one process never run with each other's
// settings.
package rapidrun

import (
	"flag"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// Options are one search's settings.
type Options struct {
	// Checks is the number of cases (rapid.checks).
	Checks int
	// Seed makes the search reproducible (rapid.seed).
	Seed uint64
	// ShrinkTime bounds shrinking (rapid.shrinktime).
	ShrinkTime time.Duration
	// Steps is the number of steps of a state machine (rapid.steps; 0:
	// rapid's default).
	Steps int
}

const defaultSteps = 30

var (
	initOnce sync.Once
	searchMu sync.Mutex
)

// Check runs prop with rapid under opts, on a goroutine that FailNow and
// SkipNow may end, and returns tb when the search is over.
func Check(opts Options, tb *TB, prop func(*rapid.T)) *TB {
	searchMu.Lock()
	defer searchMu.Unlock()
	initOnce.Do(func() {
		testing.Init()
		if !flag.Parsed() {
			_ = flag.CommandLine.Parse(nil)
		}
	})
	steps := opts.Steps
	if steps <= 0 {
		steps = defaultSteps
	}
	_ = flag.Set("rapid.checks", strconv.Itoa(opts.Checks))
	_ = flag.Set("rapid.seed", strconv.FormatUint(opts.Seed, 10))
	_ = flag.Set("rapid.nofailfile", "true")
	_ = flag.Set("rapid.shrinktime", opts.ShrinkTime.String())
	_ = flag.Set("rapid.steps", strconv.Itoa(steps))
	done := make(chan struct{})
	go func() {
		defer close(done)
		rapid.Check(tb, prop)
	}()
	<-done
	return tb
}

// TB is the rapid.TB of a search run from a binary: it records failures
// and what rapid says about them; FailNow and SkipNow end the goroutine
// running rapid.Check.
type TB struct {
	// Label is its Name().
	Label string

	mu     sync.Mutex
	failed bool
	flaky  bool
	// reported is the error of rapid's last "[rapid] failed after" line.
	reported string
	logs     []string
}

// Flaky reports whether rapid said it could not reproduce the failure it
// found ("[rapid] flaky test").
func (t *TB) Flaky() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.flaky
}

// Reported is the error of the failure rapid reported last (the shrunk
// case's, or a re-run's that showed another one), "" when none.
func (t *TB) Reported() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.reported
}

// Logs returns the first 100 lines logged.
func (t *TB) Logs() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]string(nil), t.logs...)
}

func (t *TB) Helper()      {}
func (t *TB) Name() string { return t.Label }
func (t *TB) Logf(format string, args ...any) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if strings.HasPrefix(format, "[rapid] flaky test") {
		t.flaky = true
	}
	if strings.HasPrefix(format, "[rapid] failed after") && len(args) > 1 {
		t.reported = fmt.Sprint(args[1])
	}
	if len(t.logs) < 100 {
		t.logs = append(t.logs, fmt.Sprintf(format, args...))
	}
}
func (t *TB) Log(args ...any)                  { t.Logf("%s", fmt.Sprint(args...)) }
func (t *TB) Skipf(format string, args ...any) { t.Logf(format, args...); t.SkipNow() }
func (t *TB) Skip(args ...any)                 { t.Log(args...); t.SkipNow() }
func (t *TB) SkipNow()                         { runtime.Goexit() }
func (t *TB) Errorf(format string, args ...any) {
	t.Logf(format, args...)
	t.Fail()
}
func (t *TB) Error(args ...any)                 { t.Log(args...); t.Fail() }
func (t *TB) Fatalf(format string, args ...any) { t.Errorf(format, args...); t.FailNow() }
func (t *TB) Fatal(args ...any)                 { t.Error(args...); t.FailNow() }
func (t *TB) FailNow()                          { t.Fail(); runtime.Goexit() }
func (t *TB) Fail() {
	t.mu.Lock()
	t.failed = true
	t.mu.Unlock()
}
func (t *TB) Failed() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.failed
}
