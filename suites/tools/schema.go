package tools

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

// JSON Schema support for tool schemas: metaschema validation (TOOL-004)
// and validation of instances against inputSchema / outputSchema (TOOL-008,
// TOOL-012, TOOL-014), with github.com/santhosh-tekuri/jsonschema/v6.

// dialects are the $schema values the validator knows (with or without the
// empty fragment, over http or https). The MCP default (2025-11-25+) is
// 2020-12 when $schema is absent.
var dialects = map[string]string{
	"json-schema.org/draft/2020-12/schema": "2020-12",
	"json-schema.org/draft/2019-09/schema": "2019-09",
	"json-schema.org/draft-07/schema":      "draft-07",
	"json-schema.org/draft-06/schema":      "draft-06",
	"json-schema.org/draft-04/schema":      "draft-04",
	"json-schema.org/schema":               "the latest draft",
}

// declaredDialect returns the schema's $schema when it is a string, and the
// dialect name when the validator supports it ("" otherwise). ok is false
// when there is no string $schema (the default dialect applies, or the
// metaschema rejects the member).
func declaredDialect(schema json.RawMessage) (declared string, known string, ok bool) {
	var o map[string]json.RawMessage
	if json.Unmarshal(schema, &o) != nil {
		return "", "", false
	}
	s, isStr := str(o["$schema"])
	if !isStr {
		return "", "", false
	}
	u := strings.TrimSuffix(s, "#")
	u = strings.TrimPrefix(strings.TrimPrefix(u, "https://"), "http://")
	return s, dialects[u], true
}

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

// compileSchema compiles a tool schema (dialect from $schema, 2020-12 when
// absent), validating it against its metaschema. Verdicts are cached by the
// schema's text: a server lists the same schemas again and again.
func compileSchema(raw json.RawMessage) (*jsonschema.Schema, error) {
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

// externalRef reports a compile error caused by a reference the harness
// does not fetch (not counted against the server).
func externalRef(err error) bool {
	var le *jsonschema.LoadURLError
	return errors.As(err, &le)
}

// validate checks an instance (any JSON value, as raw bytes or a Go value)
// against a compiled schema.
func validate(sch *jsonschema.Schema, instance any) error {
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

// oneLine renders a validator error on one line, without the validator's
// own schema URL.
func oneLine(err error) string {
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
