// Package config reads a target config file (mcpconform run --config
// FILE): how to reach the server under test, which of its tools may be
// called, and sample arguments for particular tools. The format is
// documented in CONFIG.md; examples/mcpconform.yaml is a commented example.
//
// Decoding is strict: unknown keys, repeated keys, values of the wrong
// kind and contradictions are errors naming FILE:LINE. A config file never
// holds a token: it names where the token comes from (bearer_env,
// bearer_file), and a literal token field, an Authorization or Cookie
// header, or an env entry whose name looks secret is refused.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/mcpconform/mcpconform/internal/policy"
)

// Version is the only config file version understood.
const Version = 1

// MaxSize bounds the file Load reads.
const MaxSize = 1 << 20

// Transports.
const (
	Stdio = "stdio"
	HTTP  = "http"
)

// File is a parsed config file. Zero values mean "not given".
type File struct {
	// Path is the file as given (for messages).
	Path string
	// Transport is "stdio" or "http" ("" when the file names no target).
	Transport string
	// Command is the stdio server's program and arguments (command + args).
	Command []string
	// URL is the Streamable HTTP endpoint.
	URL string
	// Env holds NAME=value entries for the stdio server, in file order.
	Env []string
	// Cwd is the stdio server's working directory (relative paths in the
	// file are resolved against the file's directory, "~/" against the
	// home directory).
	Cwd string
	// BearerEnv names an environment variable holding the bearer token;
	// BearerFile a file holding it (resolved against the file's directory).
	// At most one is set.
	BearerEnv, BearerFile string
	// SecondBearerEnv / SecondBearerFile name a second principal's token
	// source (http only), for checks that compare what two principals see
	// (CACHE-003). At most one is set.
	SecondBearerEnv, SecondBearerFile string
	// WeakBearerEnv/File, ExpiredBearerEnv/File and ForeignBearerEnv/File
	// name the sources (http only) of the authorization checks' tokens: a
	// valid token with fewer rights, an expired token, and a valid token
	// issued for another audience. At most one of each pair is set.
	WeakBearerEnv, WeakBearerFile       string
	ExpiredBearerEnv, ExpiredBearerFile string
	ForeignBearerEnv, ForeignBearerFile string
	// Headers holds extra HTTP headers as "Name: value", in file order.
	Headers []string
	// Timeout is the deadline for each response (0: not given).
	Timeout time.Duration
	// CallTools is the call policy ("" when not given).
	CallTools policy.CallPolicy
	// SampleArgs maps a tool name to the arguments checks use when they
	// need a successful call of that tool. Values are JSON-compatible
	// (string, float64 or int64, bool, nil, []any, map[string]any).
	SampleArgs map[string]map[string]any
	// CatalogChange is the step that changes the server's catalog
	// (catalog_change), for the checks that need a change (STALE, SUB); nil
	// when not given.
	CatalogChange *Trigger
}

// Trigger is a catalog_change step: a tool to call with arguments, or a
// command to run; Restore (optional) puts the catalog back afterwards.
type Trigger struct {
	Tool      string
	Arguments map[string]any
	Command   []string
	Restore   *Trigger
}

// Fields lists the top-level keys of a config file.
var Fields = []string{
	"version", "transport", "command", "args", "url", "env", "cwd",
	"bearer_env", "bearer_file", "second_bearer_env", "second_bearer_file", "headers", "timeout", "call_tools", "sample_arguments",
	"weak_bearer_env", "weak_bearer_file", "expired_bearer_env", "expired_bearer_file", "foreign_bearer_env", "foreign_bearer_file",
	"catalog_change",
}

// tokenFields are keys that would hold a credential itself.
var tokenFields = map[string]bool{
	"token": true, "bearer": true, "bearer_token": true, "access_token": true, "auth_token": true,
	"api_key": true, "apikey": true, "password": true, "secret": true, "authorization": true,
	"credentials": true, "client_secret": true,
}

// secretHeaders are headers whose value is a credential.
var secretHeaders = map[string]bool{"authorization": true, "proxy-authorization": true, "cookie": true}

// LooksSecret reports whether an environment variable name suggests its
// value is a credential (TOKEN, SECRET, PASSWORD, KEY, AUTH, CREDENTIAL).
func LooksSecret(name string) bool {
	n := strings.ToUpper(name)
	for _, w := range []string{"TOKEN", "SECRET", "PASSWORD", "KEY", "AUTH", "CREDENTIAL"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

const tokenAdvice = "a config file never holds a token (it would end up in version control): name where the token comes from with bearer_env (an environment variable) or bearer_file (a file)"

// Load reads and validates a config file.
func Load(path string) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxSize+1))
	if err != nil {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	if len(data) > MaxSize {
		return nil, fmt.Errorf("config %s: larger than %d bytes", path, MaxSize)
	}
	return Parse(data, path)
}

// Parse is Load on bytes; name prefixes the errors, and relative paths
// (cwd, bearer_file) are resolved against its directory.
func Parse(data []byte, name string) (*File, error) {
	p := &parser{name: name}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: the config file is empty", name)
		}
		return nil, fmt.Errorf("%s: %v", name, err) // yaml errors say "line N"
	}
	var extra yaml.Node
	switch err := dec.Decode(&extra); {
	case err == nil:
		return nil, p.fail(extra.Line, "a config file is one YAML document; remove the '---' separator and what follows")
	case !errors.Is(err, io.EOF):
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil, fmt.Errorf("%s: the config file is empty", name)
	}
	root := deref(doc.Content[0])
	if root.Kind == yaml.ScalarNode && root.ShortTag() == "!!null" {
		return nil, fmt.Errorf("%s: the config file is empty", name)
	}
	if root.Kind != yaml.MappingNode {
		return nil, p.fail(root.Line, "a config file is a mapping of settings (%s)", strings.Join(Fields, ", "))
	}
	return p.file(root)
}

type parser struct{ name string }

func (p *parser) fail(line int, format string, args ...any) error {
	return fmt.Errorf("%s:%d: %s", p.name, line, fmt.Sprintf(format, args...))
}

func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n.Kind == yaml.AliasNode && n.Alias != nil && i < 8; i++ {
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" }

// entry is one key of a mapping.
type entry struct {
	key  string
	line int
	val  *yaml.Node
}

// entries returns a mapping's keys in order; keys must be plain scalars
// and not repeat.
func (p *parser) entries(m *yaml.Node, what string) ([]entry, error) {
	var out []entry
	seen := map[string]int{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := deref(m.Content[i]), deref(m.Content[i+1])
		if k.Kind != yaml.ScalarNode || isNull(k) {
			return nil, p.fail(k.Line, "%s: keys must be plain names", what)
		}
		if first, dup := seen[k.Value]; dup {
			return nil, p.fail(k.Line, "%s: %q given twice (first at line %d)", what, k.Value, first)
		}
		seen[k.Value] = k.Line
		out = append(out, entry{k.Value, k.Line, v})
	}
	return out, nil
}

func (p *parser) str(e entry) (string, error) {
	if e.val.Kind != yaml.ScalarNode || isNull(e.val) {
		return "", p.fail(e.val.Line, "%s must be a string", e.key)
	}
	if strings.TrimSpace(e.val.Value) == "" {
		return "", p.fail(e.val.Line, "%s must not be empty", e.key)
	}
	return e.val.Value, nil
}

func (p *parser) strList(e entry) ([]string, error) {
	if e.val.Kind != yaml.SequenceNode {
		return nil, p.fail(e.val.Line, "%s must be a list of strings", e.key)
	}
	var out []string
	for _, it := range e.val.Content {
		it = deref(it)
		if it.Kind != yaml.ScalarNode || isNull(it) {
			return nil, p.fail(it.Line, "%s must be a list of strings", e.key)
		}
		out = append(out, it.Value)
	}
	return out, nil
}

// strMap reads a mapping of names to scalar values, in file order.
func (p *parser) strMap(e entry) ([]entry, error) {
	if e.val.Kind != yaml.MappingNode {
		return nil, p.fail(e.val.Line, "%s must be a mapping of names to values", e.key)
	}
	es, err := p.entries(e.val, e.key)
	if err != nil {
		return nil, err
	}
	for _, x := range es {
		if x.val.Kind != yaml.ScalarNode || isNull(x.val) {
			return nil, p.fail(x.val.Line, "%s: the value of %s must be a string", e.key, x.key)
		}
	}
	return es, nil
}

func (p *parser) file(root *yaml.Node) (*File, error) {
	top, err := p.entries(root, "config")
	if err != nil {
		return nil, err
	}
	f := &File{Path: p.name}
	dir := filepath.Dir(p.name)
	lines := map[string]int{}
	var command, args []string
	for _, e := range top {
		lines[e.key] = e.line
		if tokenFields[strings.ToLower(e.key)] {
			return nil, p.fail(e.line, "%q: %s", e.key, tokenAdvice)
		}
		known := false
		for _, k := range Fields {
			known = known || k == e.key
		}
		if !known {
			hint := ""
			for _, k := range Fields {
				if strings.EqualFold(strings.ReplaceAll(e.key, "-", "_"), k) {
					hint = fmt.Sprintf(" (did you mean %q?)", k)
				}
			}
			if hint == "" {
				hint = " (known: " + strings.Join(Fields, ", ") + ")"
			}
			return nil, p.fail(e.line, "unknown field %q%s", e.key, hint)
		}
		if isNull(e.val) {
			continue // "key:" with no value is "not given"
		}
		switch e.key {
		case "version":
			if e.val.Kind != yaml.ScalarNode || e.val.Value != strconv.Itoa(Version) {
				return nil, p.fail(e.val.Line, "unsupported config version %q: this mcpconform reads version %d", e.val.Value, Version)
			}
		case "transport":
			v, err := p.str(e)
			if err != nil {
				return nil, err
			}
			if v != Stdio && v != HTTP {
				return nil, p.fail(e.val.Line, "transport %q: want stdio or http", v)
			}
			f.Transport = v
		case "command":
			if e.val.Kind == yaml.SequenceNode {
				if command, err = p.strList(e); err != nil {
					return nil, err
				}
				if len(command) == 0 {
					return nil, p.fail(e.val.Line, "command must not be empty")
				}
			} else {
				v, err := p.str(e)
				if err != nil {
					return nil, p.fail(e.val.Line, "command must be a program (a string) or a list (program and arguments)")
				}
				command = []string{v} // one program, never split on spaces
			}
		case "args":
			if args, err = p.strList(e); err != nil {
				return nil, err
			}
		case "url":
			if f.URL, err = p.str(e); err != nil {
				return nil, err
			}
		case "cwd":
			if f.Cwd, err = p.str(e); err != nil {
				return nil, err
			}
			f.Cwd = resolve(dir, f.Cwd)
		case "env":
			es, err := p.strMap(e)
			if err != nil {
				return nil, err
			}
			for _, x := range es {
				if x.key == "" || strings.ContainsAny(x.key, "=\x00") {
					return nil, p.fail(x.line, "env: %q is not a variable name", x.key)
				}
				if LooksSecret(x.key) {
					return nil, p.fail(x.line, "env: %s looks like a secret, and a config file never holds one: set it in mcpconform's own environment instead (the stdio server inherits it)", x.key)
				}
				f.Env = append(f.Env, x.key+"="+x.val.Value)
			}
		case "headers":
			es, err := p.strMap(e)
			if err != nil {
				return nil, err
			}
			for _, x := range es {
				if secretHeaders[strings.ToLower(x.key)] {
					return nil, p.fail(x.line, "headers: %s carries a credential; %s", x.key, tokenAdvice)
				}
				if strings.TrimSpace(x.key) == "" || strings.ContainsAny(x.key, ": \t\r\n") {
					return nil, p.fail(x.line, "headers: %q is not a header name", x.key)
				}
				if strings.ContainsAny(x.val.Value, "\r\n") {
					return nil, p.fail(x.val.Line, "headers: the value of %s spans lines", x.key)
				}
				f.Headers = append(f.Headers, x.key+": "+x.val.Value)
			}
		case "bearer_env":
			if f.BearerEnv, err = p.str(e); err != nil {
				return nil, err
			}
			if strings.ContainsAny(f.BearerEnv, "= \t") || len(f.BearerEnv) > 128 {
				return nil, p.fail(e.val.Line, "bearer_env names an environment variable (its name, not the token)")
			}
		case "bearer_file":
			if f.BearerFile, err = p.str(e); err != nil {
				return nil, err
			}
			f.BearerFile = resolve(dir, f.BearerFile)
		case "second_bearer_env":
			if f.SecondBearerEnv, err = p.str(e); err != nil {
				return nil, err
			}
			if strings.ContainsAny(f.SecondBearerEnv, "= \t") || len(f.SecondBearerEnv) > 128 {
				return nil, p.fail(e.val.Line, "second_bearer_env names an environment variable (its name, not the token)")
			}
		case "second_bearer_file":
			if f.SecondBearerFile, err = p.str(e); err != nil {
				return nil, err
			}
			f.SecondBearerFile = resolve(dir, f.SecondBearerFile)
		case "weak_bearer_env", "expired_bearer_env", "foreign_bearer_env":
			v, err := p.str(e)
			if err != nil {
				return nil, err
			}
			if strings.ContainsAny(v, "= \t") || len(v) > 128 {
				return nil, p.fail(e.val.Line, "%s names an environment variable (its name, not the token)", e.key)
			}
			*f.tokenSource(e.key) = v
		case "weak_bearer_file", "expired_bearer_file", "foreign_bearer_file":
			v, err := p.str(e)
			if err != nil {
				return nil, err
			}
			*f.tokenSource(e.key) = resolve(dir, v)
		case "timeout":
			v, err := p.str(e)
			if err != nil {
				return nil, err
			}
			d, err := time.ParseDuration(v)
			if err != nil || d <= 0 {
				return nil, p.fail(e.val.Line, "timeout %q: want a positive duration such as 5s or 1m30s", v)
			}
			f.Timeout = d
		case "call_tools":
			v, err := p.str(e)
			if err != nil {
				return nil, err
			}
			if f.CallTools, err = policy.Parse(v); err != nil {
				return nil, p.fail(e.val.Line, "call_tools: %v", err)
			}
		case "sample_arguments":
			if f.SampleArgs, err = p.samples(e); err != nil {
				return nil, err
			}
		case "catalog_change":
			if f.CatalogChange, err = p.trigger(e, true); err != nil {
				return nil, err
			}
		}
	}

	if f.BearerEnv != "" && f.BearerFile != "" {
		return nil, p.fail(lines["bearer_file"], "give bearer_env or bearer_file, not both")
	}
	if f.SecondBearerEnv != "" && f.SecondBearerFile != "" {
		return nil, p.fail(lines["second_bearer_file"], "give second_bearer_env or second_bearer_file, not both")
	}
	for _, k := range []string{"weak_bearer", "expired_bearer", "foreign_bearer"} {
		if *f.tokenSource(k + "_env") != "" && *f.tokenSource(k + "_file") != "" {
			return nil, p.fail(lines[k+"_file"], "give %s_env or %s_file, not both", k, k)
		}
	}
	if len(args) > 0 && len(command) == 0 {
		return nil, p.fail(lines["args"], "args needs command")
	}
	if len(command) > 0 {
		f.Command = append(command, args...)
	}
	if len(f.Command) > 0 && f.URL != "" {
		return nil, p.fail(lines["url"], "give command (stdio) or url (http), not both")
	}
	switch {
	case f.Transport == Stdio && f.URL != "":
		return nil, p.fail(lines["url"], "transport is stdio, but url is given: a stdio target needs command")
	case f.Transport == HTTP && len(f.Command) > 0:
		return nil, p.fail(lines["command"], "transport is http, but command is given: an http target needs url")
	case f.Transport == Stdio && len(f.Command) == 0:
		return nil, p.fail(lines["transport"], "transport is stdio, but no command is given")
	case f.Transport == HTTP && f.URL == "":
		return nil, p.fail(lines["transport"], "transport is http, but no url is given")
	case len(f.Command) > 0:
		f.Transport = Stdio
	case f.URL != "":
		f.Transport = HTTP
	}
	if f.Transport == HTTP {
		for _, k := range []string{"env", "cwd"} {
			if _, ok := lines[k]; ok {
				return nil, p.fail(lines[k], "%s applies to stdio servers; this config names an http target", k)
			}
		}
	}
	if f.Transport == Stdio {
		for _, k := range []string{"headers", "bearer_env", "bearer_file", "second_bearer_env", "second_bearer_file",
			"weak_bearer_env", "weak_bearer_file", "expired_bearer_env", "expired_bearer_file", "foreign_bearer_env", "foreign_bearer_file"} {
			if _, ok := lines[k]; ok {
				return nil, p.fail(lines[k], "%s applies to http servers; this config names a stdio target", k)
			}
		}
	}
	return f, nil
}

// tokenSource returns the field of an authorization-check token source key.
func (f *File) tokenSource(key string) *string {
	switch key {
	case "weak_bearer_env":
		return &f.WeakBearerEnv
	case "weak_bearer_file":
		return &f.WeakBearerFile
	case "expired_bearer_env":
		return &f.ExpiredBearerEnv
	case "expired_bearer_file":
		return &f.ExpiredBearerFile
	case "foreign_bearer_env":
		return &f.ForeignBearerEnv
	default:
		return &f.ForeignBearerFile
	}
}

// resolve makes a path from the file relative to the file's directory;
// "~/" starts at the user's home directory.
func resolve(dir, p string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, rest)
		}
	}
	if p == "" || filepath.IsAbs(p) || dir == "" {
		return p
	}
	return filepath.Join(dir, p)
}

// samples reads sample_arguments: tool name → arguments object.
func (p *parser) samples(e entry) (map[string]map[string]any, error) {
	if e.val.Kind != yaml.MappingNode {
		return nil, p.fail(e.val.Line, "sample_arguments must be a mapping of tool names to argument objects")
	}
	es, err := p.entries(e.val, "sample_arguments")
	if err != nil {
		return nil, err
	}
	out := make(map[string]map[string]any, len(es))
	for _, x := range es {
		if x.val.Kind != yaml.MappingNode && !isNull(x.val) {
			return nil, p.fail(x.val.Line, "sample_arguments: the arguments of tool %q must be a mapping (a JSON object)", x.key)
		}
		args := map[string]any{}
		if !isNull(x.val) {
			v, err := p.value(x.val, 0)
			if err != nil {
				return nil, err
			}
			args = v.(map[string]any)
		}
		out[x.key] = args
	}
	return out, nil
}

// value converts a YAML node to a JSON-compatible value.
func (p *parser) value(n *yaml.Node, depth int) (any, error) {
	n = deref(n)
	if depth > 32 {
		return nil, p.fail(n.Line, "sample_arguments: nested too deeply")
	}
	switch n.Kind {
	case yaml.MappingNode:
		es, err := p.entries(n, "sample_arguments")
		if err != nil {
			return nil, err
		}
		m := make(map[string]any, len(es))
		for _, x := range es {
			v, err := p.value(x.val, depth+1)
			if err != nil {
				return nil, err
			}
			m[x.key] = v
		}
		return m, nil
	case yaml.SequenceNode:
		l := make([]any, 0, len(n.Content))
		for _, it := range n.Content {
			v, err := p.value(it, depth+1)
			if err != nil {
				return nil, err
			}
			l = append(l, v)
		}
		return l, nil
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return nil, nil
		case "!!bool":
			var b bool
			if err := n.Decode(&b); err != nil {
				return nil, p.fail(n.Line, "sample_arguments: %v", err)
			}
			return b, nil
		case "!!int":
			var i int64
			if err := n.Decode(&i); err != nil {
				return nil, p.fail(n.Line, "sample_arguments: %q is not a JSON number (quote it to send a string)", n.Value)
			}
			return i, nil
		case "!!float":
			var x float64
			if err := n.Decode(&x); err != nil || math.IsInf(x, 0) || math.IsNaN(x) {
				return nil, p.fail(n.Line, "sample_arguments: %q is not a JSON number (quote it to send a string)", n.Value)
			}
			return x, nil
		case "!!str":
			return n.Value, nil
		case "!!timestamp":
			return n.Value, nil // dates stay the text written
		}
		return nil, p.fail(n.Line, "sample_arguments: unsupported YAML type %s (quote the value to send a string)", n.ShortTag())
	}
	return nil, p.fail(n.Line, "sample_arguments: unsupported YAML value")
}

// trigger reads catalog_change (and its restore step): {tool, arguments}
// or {command}, plus restore on the top level.
func (p *parser) trigger(e entry, top bool) (*Trigger, error) {
	if e.val.Kind != yaml.MappingNode {
		return nil, p.fail(e.val.Line, "%s must be a mapping: {tool: NAME, arguments: {...}} or {command: [PROGRAM, ARGS...]}", e.key)
	}
	es, err := p.entries(e.val, e.key)
	if err != nil {
		return nil, err
	}
	t := &Trigger{}
	for _, x := range es {
		if isNull(x.val) {
			continue
		}
		switch {
		case x.key == "tool":
			if t.Tool, err = p.str(x); err != nil {
				return nil, err
			}
		case x.key == "arguments":
			if x.val.Kind != yaml.MappingNode {
				return nil, p.fail(x.val.Line, "%s: arguments must be a mapping (a JSON object)", e.key)
			}
			v, err := p.value(x.val, 0)
			if err != nil {
				return nil, err
			}
			t.Arguments = v.(map[string]any)
		case x.key == "command":
			if x.val.Kind == yaml.SequenceNode {
				if t.Command, err = p.strList(x); err != nil {
					return nil, err
				}
			} else {
				v, err := p.str(x)
				if err != nil {
					return nil, err
				}
				t.Command = []string{v}
			}
			if len(t.Command) == 0 {
				return nil, p.fail(x.val.Line, "%s: command must not be empty", e.key)
			}
		case x.key == "restore" && top:
			if t.Restore, err = p.trigger(x, false); err != nil {
				return nil, err
			}
		default:
			known := "tool, arguments, command"
			if top {
				known += ", restore"
			}
			return nil, p.fail(x.line, "%s: unknown field %q (known: %s)", e.key, x.key, known)
		}
	}
	switch {
	case t.Tool == "" && len(t.Command) == 0:
		return nil, p.fail(e.val.Line, "%s needs tool (a tool to call) or command (a program to run)", e.key)
	case t.Tool != "" && len(t.Command) > 0:
		return nil, p.fail(e.val.Line, "%s: give tool or command, not both", e.key)
	case t.Arguments != nil && t.Tool == "":
		return nil, p.fail(e.val.Line, "%s: arguments needs tool", e.key)
	}
	if t.Tool != "" && t.Arguments == nil {
		t.Arguments = map[string]any{}
	}
	return t, nil
}
