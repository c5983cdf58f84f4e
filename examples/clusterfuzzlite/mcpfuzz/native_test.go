// Package mcpfuzz fuzzes the server with Go's native engine:
//
//	go test ./mcpfuzz/                                 # replays the seeds and testdata/fuzz/FuzzServer
//	go test -run '^$' -fuzz '^FuzzServer$' -fuzztime 5m ./mcpfuzz/
//
// A finding fails the input; Go writes it to testdata/fuzz/FuzzServer,
// where the first command replays it from then on.
package mcpfuzz

import (
	"testing"

	"github.com/mcpconform/mcpconform/fuzz"
	"github.com/mcpconform/mcpconform/target"
)

func FuzzServer(f *testing.F) {
	fuzz.Fuzz(f, target.Stdio("go", "run", "../cmd/server"))
}
