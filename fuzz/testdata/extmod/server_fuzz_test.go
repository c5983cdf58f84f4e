// Package extmod is a server's own repository in miniature: the module
// that mcpconform's fuzz/native_test.go runs `go test -fuzz` in, to prove
// the public entry point from another module. A real server names its
// command directly:
//
//	func FuzzServer(f *testing.F) {
//		fuzz.Fuzz(f, target.Stdio("go", "run", "./cmd/server"))
//	}
package extmod

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/fuzz"
	"github.com/mcpconform/mcpconform/target"
)

func FuzzServer(f *testing.F) {
	cmd := strings.Fields(os.Getenv("MCPCONFORM_FUZZ_SERVER"))
	if len(cmd) == 0 {
		f.Fatal("MCPCONFORM_FUZZ_SERVER names the server's command line")
	}
	opts := []fuzz.Option{fuzz.WithTimeout(2 * time.Second)}
	// a campaign may be narrowed to some properties (e.g. "raw")
	if ps := os.Getenv("MCPCONFORM_FUZZ_PROPERTIES"); ps != "" {
		opts = append(opts, fuzz.WithProperties(strings.Split(ps, ",")...))
	}
	fuzz.Fuzz(f, target.Stdio(cmd[0], cmd[1:]...), opts...)
}
