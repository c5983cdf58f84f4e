//go:build slow

package fuzz

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/internal/target"
	"github.com/mcpconform/mcpconform/internal/wire"
)

// The official go-sdk at the version of go.mod (v1.8.0, and still at its
// main branch of 2026-08-21) builds the error of a resources/read for an
// unknown URI as json.RawMessage(fmt.Sprintf(`{"uri":%q}`, uri)): Go's %q
// writes \x18, \x7f or \U000f03b7 for characters JSON escapes as \u…,
// the SDK cannot marshal its own not-found error, its connection's writer
// breaks and the server stops (over stdio, exit status 0). The resources
// property draws control characters inside the URIs the server lists
// (genControlURI), so a campaign of 100 cases finds it and shrinks it to
// the one read.
func TestGoSDKResourceReadControlCharacter(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Fatalf("the go command is needed to build the go-sdk example: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "go-sdk-everything")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute) // the harness never hangs
	defer cancel()
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "github.com/modelcontextprotocol/go-sdk/examples/server/everything")
	build.Dir = ".."
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the go-sdk everything example: %v\n%s", err, out)
	}
	tg := &target.Target{Command: []string{bin}, Timeout: 2 * time.Second, Recorder: wire.NewRecorder(wire.NewRedactor())}
	res := campaign(t, tg, Config{Checks: 100, Rounds: 1, Properties: []string{PropResources}, Duration: 60 * time.Second})
	if len(res.Findings) != 1 {
		t.Fatalf("findings: %+v", res.Findings)
	}
	f := res.Findings[0]
	if f.Layer != "transport" && f.Layer != "liveness" && f.Layer != "response" || !f.Failed() || len(f.Messages) != 1 {
		t.Fatalf("finding: %+v", f)
	}
	msg, _ := f.Messages[0].Bytes()
	var m struct {
		Method string `json:"method"`
		Params struct {
			URI string `json:"uri"`
		} `json:"params"`
	}
	_ = json.Unmarshal(msg, &m)
	if m.Method != "resources/read" || !strings.ContainsFunc(m.Params.URI, func(r rune) bool { return r < 0x20 || r >= 0x7f && r <= 0x9f || r > 0xffff }) {
		t.Errorf("the minimal case is not a resources/read with a control character in its uri: %s", msg)
	}
}
