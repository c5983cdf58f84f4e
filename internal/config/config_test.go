package config

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/internal/policy"
)

func TestParseFull(t *testing.T) {
	src := `
version: 1
transport: stdio
command: [python, -m]
args: [my_server, --verbose]
cwd: srv
env:
  LOG_LEVEL: debug
  PORT: 8080
timeout: 2s
call_tools: All
sample_arguments:
  get_order:
    order_id: A1001
    limit: 3
    ratio: 0.5
    flags: [true, false, null]
    nested: {deep: {x: "007"}}
    since: 2024-01-02
  noargs: {}
  empty:
`
	f, err := Parse([]byte(src), "/etc/mc/target.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := &File{
		Path: "/etc/mc/target.yaml", Transport: Stdio,
		Command: []string{"python", "-m", "my_server", "--verbose"},
		Cwd:     "/etc/mc/srv", Env: []string{"LOG_LEVEL=debug", "PORT=8080"},
		Timeout: 2 * time.Second, CallTools: policy.All,
		SampleArgs: map[string]map[string]any{
			"get_order": {"order_id": "A1001", "limit": int64(3), "ratio": 0.5, "flags": []any{true, false, nil},
				"nested": map[string]any{"deep": map[string]any{"x": "007"}}, "since": "2024-01-02"},
			"noargs": {}, "empty": {},
		},
	}
	if !reflect.DeepEqual(f, want) {
		t.Fatalf("got  %#v\nwant %#v", f, want)
	}
	// Sample arguments go on the wire as JSON.
	b, err := json.Marshal(f.SampleArgs["get_order"])
	if err != nil || !strings.Contains(string(b), `"limit":3`) || !strings.Contains(string(b), `"x":"007"`) {
		t.Fatalf("JSON: %s %v", b, err)
	}
}

func TestParseHTTP(t *testing.T) {
	f, err := Parse([]byte("url: http://127.0.0.1:9/mcp\nbearer_file: tok\nheaders:\n  X-Tenant: acme\n  X-Trace: \"1\"\n"), "cfg/c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if f.Transport != HTTP || f.URL != "http://127.0.0.1:9/mcp" || f.BearerFile != filepath.Join("cfg", "tok") ||
		!reflect.DeepEqual(f.Headers, []string{"X-Tenant: acme", "X-Trace: 1"}) || f.CallTools != "" {
		t.Fatalf("%#v", f)
	}
	// A file may hold only the policy and samples; the target comes from
	// the command line.
	f, err = Parse([]byte("call_tools: none\n"), "c.yaml")
	if err != nil || f.Transport != "" || f.CallTools != policy.None {
		t.Fatalf("%#v %v", f, err)
	}
	// A single program is never split on spaces.
	f, err = Parse([]byte("command: /opt/my server/bin\n"), "c.yaml")
	if err != nil || !reflect.DeepEqual(f.Command, []string{"/opt/my server/bin"}) {
		t.Fatalf("%#v %v", f, err)
	}
}

// TestExample keeps the documented example valid.
func TestExample(t *testing.T) {
	f, err := Load(filepath.Join("..", "..", "examples", "mcpconform.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if f.Transport != Stdio || f.CallTools != policy.ReadOnly || len(f.SampleArgs) == 0 {
		t.Fatalf("%#v", f)
	}
	doc, err := os.ReadFile(filepath.Join("..", "..", "CONFIG.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range Fields {
		if !strings.Contains(string(doc), "`"+k+"`") {
			t.Errorf("CONFIG.md does not document %s", k)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"empty", "", "c.yaml: the config file is empty"},
		{"only a comment", "# nothing\n", "c.yaml: the config file is empty"},
		{"not a mapping", "- a\n", "c.yaml:1: a config file is a mapping"},
		{"syntax", "url: [\n", "c.yaml: yaml: line"},
		{"two documents", "url: http://x/\n---\nurl: http://y/\n", "c.yaml:2: a config file is one YAML document"},
		{"unknown key", "transport: stdio\ncommand: x\ncals: all\n", `c.yaml:3: unknown field "cals" (known: version,`},
		{"hyphenated key", "call-tools: all\n", `c.yaml:1: unknown field "call-tools" (did you mean "call_tools"?)`},
		{"repeated key", "url: http://a/\nurl: http://b/\n", `c.yaml:2: config: "url" given twice (first at line 1)`},
		{"bad version", "version: 2\n", `c.yaml:1: unsupported config version "2"`},
		{"bad transport", "transport: websocket\n", `c.yaml:1: transport "websocket": want stdio or http`},
		{"bad policy", "call_tools: some\n", `c.yaml:1: call_tools: unknown call policy "some"`},
		{"bad timeout", "timeout: soon\n", `c.yaml:1: timeout "soon"`},
		{"negative timeout", "timeout: -1s\n", `c.yaml:1: timeout "-1s"`},
		{"command mapping", "command: {a: b}\n", "c.yaml:1: command must be a program"},
		{"empty command", "command: []\n", "c.yaml:1: command must not be empty"},
		{"args without command", "args: [a]\n", "c.yaml:1: args needs command"},
		{"args not list", "command: x\nargs: a b\n", "c.yaml:2: args must be a list of strings"},
		{"both targets", "command: x\nurl: http://a/\n", "c.yaml:2: give command (stdio) or url (http), not both"},
		{"stdio with url", "transport: stdio\nurl: http://a/\n", "c.yaml:2: transport is stdio, but url is given"},
		{"http with command", "transport: http\ncommand: x\n", "c.yaml:2: transport is http, but command is given"},
		{"http without url", "transport: http\n", "c.yaml:1: transport is http, but no url"},
		{"stdio without command", "transport: stdio\n", "c.yaml:1: transport is stdio, but no command"},
		{"env over http", "url: http://a/\nenv: {A: b}\n", "c.yaml:2: env applies to stdio servers"},
		{"headers over stdio", "command: x\nheaders: {X-A: b}\n", "c.yaml:2: headers applies to http servers"},
		{"env not mapping", "env: [A=b]\n", "c.yaml:1: env must be a mapping"},
		{"env nested", "env:\n  A: {b: c}\n", "c.yaml:2: env: the value of A must be a string"},
		{"both bearers", "bearer_env: T\nbearer_file: f\n", "c.yaml:2: give bearer_env or bearer_file, not both"},
		{"samples not mapping", "sample_arguments: [a]\n", "c.yaml:1: sample_arguments must be a mapping"},
		{"sample not object", "sample_arguments:\n  get_order: A1001\n", `c.yaml:2: sample_arguments: the arguments of tool "get_order" must be a mapping`},
		{"sample repeated tool", "sample_arguments:\n  a: {}\n  a: {}\n", `c.yaml:3: sample_arguments: "a" given twice`},
		{"sample binary", "sample_arguments:\n  a: {x: !!binary aGk=}\n", "c.yaml:2: sample_arguments: unsupported YAML type !!binary"},
		{"sample infinity", "sample_arguments:\n  a: {x: .inf}\n", `c.yaml:2: sample_arguments: ".inf" is not a JSON number`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.src), "c.yaml")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
		})
	}
}

// TestTokensRefused: a config file never holds a credential; the error
// names the line and says where the token should come from.
func TestTokensRefused(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"token", "url: http://a/\ntoken: abc123\n", `c.yaml:2: "token": a config file never holds a token`},
		{"bearer_token", "bearer_token: abc123\n", `c.yaml:1: "bearer_token": a config file never holds a token`},
		{"api_key", "api_key: abc123\n", `c.yaml:1: "api_key"`},
		{"Authorization key", "Authorization: Bearer abc\n", `c.yaml:1: "Authorization"`},
		{"empty token key", "token:\n", `c.yaml:1: "token"`},
		{"authorization header", "url: http://a/\nheaders:\n  X-Ok: y\n  authorization: Bearer abc123\n", "c.yaml:4: headers: authorization carries a credential"},
		{"cookie header", "headers:\n  Cookie: s=abc123\n", "c.yaml:2: headers: Cookie carries a credential"},
		{"secret env", "env:\n  GITHUB_TOKEN: abc123\n", "c.yaml:2: env: GITHUB_TOKEN looks like a secret"},
		{"bearer_env holding a token", "bearer_env: Bearer abc123\n", "c.yaml:1: bearer_env names an environment variable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.src), "c.yaml")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "abc123") {
				t.Fatalf("the error repeats the secret: %v", err)
			}
			if strings.Contains(tc.want, "never holds a token") && !strings.Contains(err.Error(), "bearer_env") {
				t.Fatalf("the error does not say what to do: %v", err)
			}
		})
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "c.yaml")
	if err := os.WriteFile(p, []byte("command: [srv]\ncwd: .\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := Load(p)
	if err != nil || f.Cwd != dir || f.Path != p {
		t.Fatalf("%#v %v", f, err)
	}
	if _, err := Load(filepath.Join(dir, "missing.yaml")); err == nil || !strings.Contains(err.Error(), "missing.yaml") {
		t.Fatalf("missing file: %v", err)
	}
	big := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(big, []byte("# "+strings.Repeat("x", MaxSize)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(big); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("big file: %v", err)
	}
}
