package msgcheck

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpconform/mcpconform/internal/sharedtest"
)

// The official schemas are read from the shared checkout at test time and
// never copied into the repository (internal/sharedtest).

func schemaDir(t testing.TB) string {
	t.Helper()
	dir := sharedtest.Schemas(t)
	if _, err := os.Stat(filepath.Join(dir, "2026-07-28", "schema.json")); err != nil {
		t.Fatalf("the official MCP schemas are not where they should be (%s): %v", dir, err)
	}
	return dir
}

// oracle is an official schema compiled with santhosh-tekuri/jsonschema, the
// independent judge of the differential test. Formats are asserted in every
// dialect (draft-07 asserts them by default, 2020-12 only annotates) so that
// "uri" and "uri-template" compare; "byte" is not a format the validator
// knows, so base64 stays a model-only rule.
type oracle struct {
	rev       string
	url       string
	container string
	defs      map[string]any
	comp      *jsonschema.Compiler

	mu    sync.Mutex
	cache map[string]*jsonschema.Schema
}

var (
	oraclesMu sync.Mutex
	oracles   = map[string]*oracle{}
)

func loadOracle(t testing.TB, rev string) *oracle {
	t.Helper()
	dir := schemaDir(t)
	oraclesMu.Lock()
	defer oraclesMu.Unlock()
	if o := oracles[rev]; o != nil {
		return o
	}
	path := filepath.Join(dir, rev, "schema.json")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	root := doc.(map[string]any)
	o := &oracle{rev: rev, url: "file:///mcp-schema/" + rev + "/schema.json", cache: map[string]*jsonschema.Schema{}}
	for _, c := range []string{"$defs", "definitions"} {
		if d, ok := root[c].(map[string]any); ok {
			o.container, o.defs = c, d
			break
		}
	}
	if o.defs == nil {
		t.Fatalf("%s: no definitions", path)
	}
	o.comp = jsonschema.NewCompiler()
	o.comp.AssertFormat()
	if err := o.comp.AddResource(o.url, doc); err != nil {
		t.Fatal(err)
	}
	oracles[rev] = o
	return o
}

func (o *oracle) schema(def string) (*jsonschema.Schema, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if s := o.cache[def]; s != nil {
		return s, nil
	}
	s, err := o.comp.Compile(o.url + "#/" + o.container + "/" + def)
	if err != nil {
		return nil, err
	}
	o.cache[def] = s
	return s, nil
}

// validate returns nil when raw is valid against def.
func (o *oracle) validate(def string, raw []byte) error {
	s, err := o.schema(def)
	if err != nil {
		return err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return err
	}
	return s.Validate(inst)
}

func (o *oracle) names() []string {
	var ns []string
	for n := range o.defs {
		ns = append(ns, n)
	}
	sort.Strings(ns)
	return ns
}

func briefErr(err error) string {
	if err == nil {
		return "valid"
	}
	var ve *jsonschema.ValidationError
	if errors.As(err, &ve) {
		s := ve.Error()
		if len(s) > 1500 {
			s = s[:1500] + "…"
		}
		return s
	}
	return strings.TrimSpace(err.Error())
}
