// Package toolschema compiles the JSON Schemas servers give their tools
// (inputSchema, outputSchema) and validates instances against them, with
// github.com/santhosh-tekuri/jsonschema/v6: the 2020-12 dialect unless
// $schema names another, metaschema validation at compile time, nothing
// fetched, ECMA-262 patterns Go cannot compile left unjudged. The tools
// and stale suites and the fuzzer share it.
package toolschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// refusingLoader keeps compilation from fetching anything a server named.
type refusingLoader struct{}

func (refusingLoader) Load(u string) (any, error) {
	return nil, fmt.Errorf("mcpconform does not fetch %s", u)
}

// lenientRegexp uses Go's regexp where it accepts the pattern; JSON Schema
// patterns are ECMA-262 and may use syntax Go lacks (lookahead), which is
// then not judged (such a pattern matches everything).
func lenientRegexp(s string) (jsonschema.Regexp, error) {
	if re, err := regexp.Compile(s); err == nil {
		return re, nil
	}
	return anyRegexp(s), nil
}

type anyRegexp string

func (r anyRegexp) String() string        { return string(r) }
func (anyRegexp) MatchString(string) bool { return true }

// compiled is the cached outcome of compiling one schema.
type compiled struct {
	sch *jsonschema.Schema
	err error
}

var (
	compileMu    sync.Mutex
	compileCache = map[string]compiled{}
)

const compileCacheSize = 1024

// Compile compiles a tool schema (dialect from $schema, 2020-12 when
// absent), validating it against its metaschema. Verdicts are cached by the
// schema's text: a server lists the same schemas again and again.
func Compile(raw json.RawMessage) (*jsonschema.Schema, error) {
	var canon bytes.Buffer
	if err := json.Compact(&canon, raw); err != nil {
		return nil, fmt.Errorf("not JSON: %v", err)
	}
	key := canon.String()
	compileMu.Lock()
	if r, ok := compileCache[key]; ok {
		compileMu.Unlock()
		return r.sch, r.err
	}
	compileMu.Unlock()

	sch, err := compileNow(canon.Bytes())
	compileMu.Lock()
	if len(compileCache) >= compileCacheSize {
		compileCache = map[string]compiled{}
	}
	compileCache[key] = compiled{sch, err}
	compileMu.Unlock()
	return sch, err
}

func compileNow(raw []byte) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	comp := jsonschema.NewCompiler()
	comp.DefaultDraft(jsonschema.Draft2020)
	comp.UseLoader(refusingLoader{})
	comp.UseRegexpEngine(lenientRegexp)
	const u = "urn:mcpconform:tool-schema"
	if err := comp.AddResource(u, doc); err != nil {
		return nil, err
	}
	return comp.Compile(u)
}

// ExternalRef reports a compile error caused by a reference the harness
// does not fetch (not counted against the server).
func ExternalRef(err error) bool {
	var le *jsonschema.LoadURLError
	return errors.As(err, &le)
}

// Validate checks an instance (any JSON value, as raw bytes or a Go value)
// against a compiled schema.
func Validate(sch *jsonschema.Schema, instance any) error {
	var raw []byte
	switch v := instance.(type) {
	case json.RawMessage:
		raw = v
	case []byte:
		raw = v
	default:
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		raw = b
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return err
	}
	return sch.Validate(inst)
}

// OneLine renders a validator error on one line, without the validator's
// own schema URL.
func OneLine(err error) string {
	s := err.Error()
	s = strings.ReplaceAll(s, "urn:mcpconform:tool-schema", "")
	s = strings.ReplaceAll(s, "jsonschema validation failed with '#'", "")
	s = strings.ReplaceAll(s, "\n", "; ")
	s = strings.Trim(strings.TrimSpace(s), "; ")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}
