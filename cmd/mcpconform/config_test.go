package main

import (
	"encoding/json"
	"flag"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/internal/policy"
)

func writeConfig(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "target.yaml")
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// parseTarget parses run-style flags and merges the config file.
func parseTarget(t *testing.T, args ...string) (*targetFlags, []string, error) {
	t.Helper()
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var tf targetFlags
	tf.register(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	cmd, err := tf.loadConfig(fs, fs.Args())
	return &tf, cmd, err
}

func TestConfigPrecedence(t *testing.T) {
	stdioCfg := writeConfig(t, `
command: [srv, --flag]
args: [x]
cwd: /srv
env: {A: "1", B: "2"}
timeout: 9s
call_tools: all
sample_arguments:
  get_order: {order_id: A1001}
`)
	// The file alone.
	tf, cmd, err := parseTarget(t, "--config", stdioCfg)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(cmd, []string{"srv", "--flag", "x"}) || tf.cwd != "/srv" || tf.timeout != 9*time.Second ||
		tf.policy != policy.All || !reflect.DeepEqual([]string(tf.envs), []string{"A=1", "B=2"}) ||
		tf.samples["get_order"]["order_id"] != "A1001" {
		t.Fatalf("file alone: cmd %v, %+v", cmd, tf)
	}
	// Flags override: target, cwd, timeout, policy; --env is added after
	// the file's entries (the last value of a name wins).
	tf, cmd, err = parseTarget(t, "--config", stdioCfg, "--cwd", "/other", "--timeout", "1s", "--call-tools", "none", "--env", "B=3", "--", "mine", "arg")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(cmd, []string{"mine", "arg"}) || tf.cwd != "/other" || tf.timeout != time.Second || tf.policy != policy.None ||
		!reflect.DeepEqual([]string(tf.envs), []string{"A=1", "B=2", "B=3"}) || tf.samples["get_order"] == nil {
		t.Fatalf("overrides: cmd %v, %+v", cmd, tf)
	}
	// --url replaces the file's stdio target.
	tf, cmd, err = parseTarget(t, "--config", stdioCfg, "--url", "http://127.0.0.1:9/mcp")
	if err != nil || len(cmd) != 0 || tf.url != "http://127.0.0.1:9/mcp" {
		t.Fatalf("--url over a stdio file: %v %+v %v", cmd, tf, err)
	}

	httpCfg := writeConfig(t, `
url: http://127.0.0.1:9/mcp
bearer_env: FILE_TOKEN
headers: {X-Tenant: acme, X-Trace: "1"}
`)
	tf, cmd, err = parseTarget(t, "--config", httpCfg, "--header", "x-tenant: other", "--header", "X-More: y")
	if err != nil {
		t.Fatal(err)
	}
	if len(cmd) != 0 || tf.url != "http://127.0.0.1:9/mcp" || tf.bearerEnv != "FILE_TOKEN" || tf.policy != policy.ReadOnly ||
		!reflect.DeepEqual([]string(tf.headers), []string{"X-Trace: 1", "x-tenant: other", "X-More: y"}) {
		t.Fatalf("http file: %v %+v", cmd, tf)
	}
	// --bearer-file replaces the file's bearer_env (they are one setting).
	tf, _, err = parseTarget(t, "--config", httpCfg, "--bearer-file", "/tok")
	if err != nil || tf.bearerEnv != "" || tf.bearerFile != "/tok" {
		t.Fatalf("bearer override: %+v %v", tf, err)
	}
	// No file: the flags' defaults.
	tf, cmd, err = parseTarget(t, "--", "srv")
	if err != nil || tf.policy != policy.ReadOnly || tf.samples != nil || !reflect.DeepEqual(cmd, []string{"srv"}) {
		t.Fatalf("no file: %+v %v", tf, err)
	}
	if _, _, err := parseTarget(t, "--call-tools", "some", "--", "srv"); err == nil || !strings.Contains(err.Error(), "--call-tools: unknown call policy") {
		t.Fatalf("bad policy: %v", err)
	}
}

// TestRunWithConfig: a config file names the target, the policy lands in
// report.json, and --call-tools overrides the file.
func TestRunWithConfig(t *testing.T) {
	exe, _ := json.Marshal(os.Args[0])
	cfg := writeConfig(t, "command: ["+string(exe)+", fixture, aftersales]\ncall_tools: none\nsample_arguments:\n  get_order: {order_id: ZX-SAMPLE-77}\n")
	for _, tc := range []struct {
		flags []string
		want  string
	}{{nil, "none"}, {[]string{"--call-tools", "all"}, "all"}} {
		dir := t.TempDir()
		args := append([]string{"run", "--quiet", "--only", "LIFE-001", "--report-dir", dir, "--config", cfg}, tc.flags...)
		out, stderr, code, _ := cli(t, nil, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d\n%s\n%s", tc.flags, code, out, stderr)
		}
		if !strings.Contains(out, "call policy: "+tc.want) {
			t.Errorf("%v: the summary does not name the policy:\n%s", tc.flags, out)
		}
		raw, _ := os.ReadFile(filepath.Join(dir, "report.json"))
		var rep struct {
			CallPolicy string `json:"callPolicy"`
			Target     struct {
				Command []string `json:"command"`
				Config  string   `json:"config"`
			} `json:"target"`
		}
		if err := json.Unmarshal(raw, &rep); err != nil {
			t.Fatal(err)
		}
		if rep.CallPolicy != tc.want || rep.Target.Config != cfg || len(rep.Target.Command) != 3 {
			t.Errorf("%v: report.json %+v", tc.flags, rep)
		}
		// (a value the server never shows: its own tool schemas quote
		// A1001 as an example, and the transcripts hold its listings)
		if strings.Contains(string(raw), "ZX-SAMPLE-77") {
			t.Errorf("report.json repeats the sample arguments' values")
		}
	}
}

func TestConfigUsageErrors(t *testing.T) {
	token := writeConfig(t, "url: http://127.0.0.1:1/mcp\ntoken: abc-secret-123\n")
	unknown := writeConfig(t, "command: [srv]\ncall-tools: all\n")
	for _, tc := range []struct {
		name string
		args []string
		hint string
	}{
		{"missing file", []string{"run", "--config", "/nonexistent/target.yaml"}, "--config: config: open /nonexistent/target.yaml"},
		{"literal token", []string{"run", "--config", token}, token + `:2: "token": a config file never holds a token`},
		{"unknown key", []string{"run", "--config", unknown}, unknown + `:2: unknown field "call-tools" (did you mean "call_tools"?)`},
		{"bad policy", []string{"run", "--call-tools", "some", "--", "true"}, `--call-tools: unknown call policy "some"`},
		{"inspect literal token", []string{"inspect", "--config", token}, "never holds a token"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, stderr, code, _ := cli(t, nil, tc.args...)
			if code != 2 || !strings.Contains(stderr, tc.hint) {
				t.Errorf("exit %d, stderr %q, want 2 and %q", code, stderr, tc.hint)
			}
			if strings.Contains(out+stderr, "abc-secret-123") {
				t.Errorf("the token in the file was echoed")
			}
		})
	}
}

// TestInspectWithConfig: inspect takes the target, the policy and a
// tool's sample arguments from the config file.
func TestInspectWithConfig(t *testing.T) {
	exe, _ := json.Marshal(os.Args[0])
	cfg := writeConfig(t, "command: ["+string(exe)+", fixture, aftersales]\nsample_arguments:\n  get_order: {order_id: A1003}\n")
	out, stderr, code, _ := cli(t, nil, "inspect", "--config", cfg, "--call", "get_order")
	if code != 0 || !strings.Contains(out, "A1003") || !strings.Contains(out, `"layer": "result"`) {
		t.Errorf("inspect --config --call: exit %d\n%s\n%s", code, out, stderr)
	}
	none := writeConfig(t, "command: ["+string(exe)+", fixture, aftersales]\ncall_tools: none\n")
	out, stderr, code, _ = cli(t, nil, "inspect", "--config", none, "--call", "get_order", "--args", `{"order_id":"A1001"}`)
	if code != 2 || !strings.Contains(stderr, "call policy is none") {
		t.Errorf("call_tools none must refuse the call: exit %d\n%s\n%s", code, out, stderr)
	}
}
