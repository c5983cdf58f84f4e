package fuzz

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/suites/mcptarget"
)

// NewTarget, the testing-free form for engines that replace the testing
// package (ClusterFuzzLite, OSS-Fuzz): clean inputs against the reference,
// and the deep-nesting crash found, as a *FindingError with its
// requirement, within a bounded number of inputs.
func TestTargetInput(t *testing.T) {
	env := fuzzWithEnv()
	ref := NewTarget(mcptarget.Stdio(os.Args[0], "aftersales"), env, WithTimeout(2*time.Second))
	defer ref.Close()
	for i := range 30 {
		if err := ref.Input([]byte(fmt.Sprint("input ", i))); err != nil {
			t.Fatalf("input %d against the reference: %v", i, err)
		}
	}
	mut := NewTarget(mcptarget.Stdio(os.Args[0], "aftersales", "--mutant", "exit-on-deep-nesting"), env, WithTimeout(2*time.Second), WithProperties(PropRaw))
	defer mut.Close()
	for i := range 3000 {
		err := mut.Input([]byte(fmt.Sprint("input ", i)))
		if err == nil {
			continue
		}
		var fe *FindingError
		if !errors.As(err, &fe) || fe.Finding.Requirement != "RPC-014" || fe.Finding.Verdict != "FAIL" || !strings.Contains(err.Error(), "transport/crash") {
			t.Fatalf("input %d: %v", i, err)
		}
		t.Logf("found at input %d: %v", i, err)
		return
	}
	t.Fatal("no finding in 3000 inputs against a server that crashes on deep nesting")
}

func fuzzWithEnv() Option { return WithEnv("FUZZ_AS_FIXTURE=1") }
