package repro

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/internal/msgcheck"
)

// The awk reader finds the member a model problem names, and each
// constraint holds on a valid answer and fails on the invalid one.
func TestModelConstraintsInAwk(t *testing.T) {
	if _, err := exec.LookPath("awk"); err != nil {
		t.Skip("no awk")
	}
	cases := []struct {
		p         msgcheck.Problem
		good, bad string
	}{
		{msgcheck.Problem{Path: "/result/ttlMs", Message: `missing required member "ttlMs"`},
			`{"jsonrpc":"2.0","id":1,"result":{"a":{"ttlMs":"x"},"ttlMs":0}}`, `{"jsonrpc":"2.0","id":1,"result":{"a":{"ttlMs":5}}}`},
		{msgcheck.Problem{Path: "/jsonrpc", Message: `must be "2.0", got "1.0"`},
			`{"jsonrpc":"2.0","id":1,"result":{}}`, `{"jsonrpc":"1.0","id":1,"result":{}}`},
		{msgcheck.Problem{Path: "/id", Message: `id must be a string or integer, not null (omit id)`},
			`{"jsonrpc":"2.0","id":"a,}b","result":{}}`, `{"jsonrpc":"2.0","id":null,"error":{"code":1,"message":"m"}}`},
		{msgcheck.Problem{Path: "/result/completion/values", Message: `must have at most 100 values, got 101`},
			`{"id":1,"result":{"completion":{"values":["a","b,]",["c"]]}}}`, `{"id":1,"result":{"completion":{"values":[` + strings.Repeat(`"x",`, 100) + `"y"]}}}`},
		{msgcheck.Problem{Path: "/result/resultType", Message: `resultType must be "complete", "task", got "done"`},
			`{"id":1,"result":{"resultType":"task"}}`, `{"id":1,"result":{"resultType":"done"}}`},
		{msgcheck.Problem{Path: "/params/level", Message: `must be one of "debug", "info", got "verbose"`},
			`{"params":{"level":"info"}}`, `{"params":{"level":"verbose"}}`},
		{msgcheck.Problem{Path: "/result/tools/1/inputSchema", Message: `must be an object, got string`},
			`{"result":{"tools":[{"inputSchema":"x"},{"inputSchema":{"type":"object"}}]}}`, `{"result":{"tools":[{},{"inputSchema":"x"}]}}`},
		{msgcheck.Problem{Path: "/result/content/1/data", Rule: msgcheck.RuleBase64, Message: `must be base64 (RFC 4648): illegal data`},
			`{"result":{"content":[{},{"data":"iVBO+/8AAA=="}]}}`, `{"result":{"content":[{},{"data":"%%not-base64%%"}]}}`},
		{msgcheck.Problem{Path: "/result/ttlMs", Message: `must be >= 0, got -1`},
			`{"result":{"ttlMs":0}}`, `{"result":{"ttlMs":-1}}`},
		{msgcheck.Problem{Rule: msgcheck.RuleResultAndError, Message: "a response carries exactly one of result and error, not both"},
			`{"id":1,"result":{"error":{}}}`, `{"id":1,"result":{},"error":{"code":1}}`},
	}
	for _, c := range cases {
		con, ok := constraintOf(c.p)
		if !ok {
			t.Errorf("%s: no constraint", c.p)
			continue
		}
		for ans, want := range map[string]string{c.good: "0", c.bad: "1"} {
			var b strings.Builder
			con.write(func(f string, a ...any) { b.WriteString(sprintf(f, a...)) })
			script := "verdict() { echo $1; exit 0; }\nans=" + sq(ans) + "\n" + b.String()
			out, err := exec.Command("sh", "-c", script).CombinedOutput()
			if err != nil || strings.TrimSpace(string(out)) != want {
				t.Errorf("%s on %s: got %q (%v), want %s", c.p, ans, out, err, want)
			}
		}
	}
}

func sprintf(f string, a ...any) string { return fmt.Sprintf(f, a...) }
