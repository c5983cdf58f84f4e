package msgcheck

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// SchemaValidator validates messages against an official MCP schema.json a
// user supplies at run time (--schema FILE). It reads the dialect from the
// file's $schema (draft-07 for 2024-11-05 … 2025-06-18, 2020-12 after) and
// finds the definitions under "definitions" or "$defs".
//
// Unlike a plain JSON Schema run it asserts formats in every dialect ("uri",
// "uri-template", and "byte" as base64), since the MCP specification means
// them as requirements.
type SchemaValidator struct {
	path      string
	url       string
	dialect   string // "draft-07", "2020-12", ...
	container string // "definitions" or "$defs"
	defs      map[string]bool
	compiler  *jsonschema.Compiler

	mu       sync.Mutex
	compiled map[string]*jsonschema.Schema
}

// LoadSchema reads and checks a schema file. Definitions compile on first use.
func LoadSchema(path string) (*SchemaValidator, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s: not JSON: %v", path, err)
	}
	root, ok := doc.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: a schema file must be a JSON object", path)
	}
	v := &SchemaValidator{path: path, compiled: map[string]*jsonschema.Schema{}}

	draft := jsonschema.Draft2020
	v.dialect = "2020-12"
	if s, ok := root["$schema"].(string); ok {
		switch {
		case strings.Contains(s, "draft-07"):
			draft, v.dialect = jsonschema.Draft7, "draft-07"
		case strings.Contains(s, "draft-06"):
			draft, v.dialect = jsonschema.Draft6, "draft-06"
		case strings.Contains(s, "draft-04"):
			draft, v.dialect = jsonschema.Draft4, "draft-04"
		case strings.Contains(s, "2019-09"):
			draft, v.dialect = jsonschema.Draft2019, "2019-09"
		case strings.Contains(s, "2020-12"):
		default:
			return nil, fmt.Errorf("%s: unsupported $schema %q", path, s)
		}
	}
	for _, c := range []string{"$defs", "definitions"} {
		if d, ok := root[c].(map[string]any); ok {
			v.container = c
			v.defs = map[string]bool{}
			for name := range d {
				v.defs[name] = true
			}
			break
		}
	}
	if v.container == "" {
		return nil, fmt.Errorf("%s: no \"$defs\" or \"definitions\" object; not an MCP schema file", path)
	}

	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	v.url = (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
	c := jsonschema.NewCompiler()
	c.DefaultDraft(draft)
	c.AssertFormat()
	c.RegisterFormat(&jsonschema.Format{Name: "byte", Validate: func(x any) error {
		s, ok := x.(string)
		if !ok {
			return nil
		}
		return CheckBase64(s)
	}})
	// RFC 6570 allows expressions anywhere, host included; the validator's
	// own uri-template format parses the template as a URI and rejects them.
	c.RegisterFormat(&jsonschema.Format{Name: "uri-template", Validate: func(x any) error {
		s, ok := x.(string)
		if !ok {
			return nil
		}
		return checkURITemplate(s)
	}})
	c.UseLoader(refusingLoader{})
	if err := c.AddResource(v.url, doc); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	v.compiler = c
	// Compile one definition now so a broken file fails here, not later.
	if v.defs["JSONRPCMessage"] {
		if _, err := v.schema("JSONRPCMessage"); err != nil {
			return nil, err
		}
	}
	return v, nil
}

// Dialect is the JSON Schema dialect of the file ("draft-07", "2020-12"...).
func (v *SchemaValidator) Dialect() string { return v.dialect }

// Revision names the MCP revision the file describes, judged by the
// definitions only that revision has ("" when it cannot tell).
func (v *SchemaValidator) Revision() string {
	switch {
	case v.defs["DiscoverRequest"]:
		return "2026-07-28"
	case v.container == "$defs":
		return "2025-11-25"
	case v.defs["ElicitRequest"]:
		return "2025-06-18"
	case v.defs["AudioContent"]:
		return "2025-03-26"
	case v.defs["InitializeRequest"]:
		return "2024-11-05"
	}
	return ""
}

// Container is where the file keeps its definitions: "definitions" or "$defs".
func (v *SchemaValidator) Container() string { return v.container }

// Definitions lists the file's definitions, sorted.
func (v *SchemaValidator) Definitions() []string {
	names := make([]string, 0, len(v.defs))
	for n := range v.defs {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func (v *SchemaValidator) schema(def string) (*jsonschema.Schema, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if s := v.compiled[def]; s != nil {
		return s, nil
	}
	s, err := v.compiler.Compile(v.url + "#/" + v.container + "/" + escapePointer(def))
	if err != nil {
		return nil, fmt.Errorf("%s: compiling %s: %v", v.path, def, err)
	}
	v.compiled[def] = s
	return s, nil
}

// Validate checks raw against one definition of the file. Each failing
// schema keyword becomes a Problem whose rule is "schema.<keyword>".
func (v *SchemaValidator) Validate(definition string, raw []byte) []Problem {
	if !v.defs[definition] {
		return []Problem{{Rule: "definition", Message: fmt.Sprintf("%s has no definition %q", v.path, definition)}}
	}
	s, err := v.schema(definition)
	if err != nil {
		return []Problem{{Rule: "definition", Message: err.Error()}}
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return []Problem{{Rule: "json.syntax", Message: "not valid JSON: " + err.Error()}}
	}
	err = s.Validate(inst)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []Problem{{Rule: "schema", Message: err.Error()}}
	}
	var out []Problem
	var walk func(u jsonschema.OutputUnit)
	walk = func(u jsonschema.OutputUnit) {
		if len(u.Errors) > 0 {
			for _, e := range u.Errors {
				walk(e)
			}
			return
		}
		kw := u.KeywordLocation
		if i := strings.LastIndexByte(kw, '/'); i >= 0 {
			kw = kw[i+1:]
		}
		msg := ""
		if u.Error != nil {
			msg = u.Error.String()
		}
		out = append(out, Problem{
			Path:    u.InstanceLocation,
			Rule:    "schema." + kw,
			Message: fmt.Sprintf("%s (at %s)", msg, u.KeywordLocation),
		})
	}
	walk(*ve.DetailedOutput())
	if len(out) == 0 {
		out = append(out, Problem{Rule: "schema", Message: oneLine(ve.Error())})
	}
	return out
}

// ValidateServerMessage checks a message a server sent: first against the
// file's JSON-RPC envelope definition for the message's kind, then against the
// definition for its method (or, for a response, the method of the request it
// answers; "" checks the result against Result). Routing follows the same
// tables as the model.
func (v *SchemaValidator) ValidateServerMessage(raw []byte, requestMethod string) []Problem {
	msg, bad := decode(raw)
	if bad != nil {
		return problems(bad)
	}
	if batch, ok := msg.([]any); ok {
		if probs := v.Validate("JSONRPCMessage", raw); probs != nil {
			return probs
		}
		var out []Problem
		for i, el := range batch {
			b, _ := json.Marshal(el)
			for _, p := range v.ValidateServerMessage(b, "") {
				p.Path = fmt.Sprintf("/%d%s", i, p.Path)
				out = append(out, p)
			}
		}
		return out
	}
	probs := v.Validate(v.envelopeDef(msg), raw)
	probs = append(probs, v.element(msg, requestMethod, "")...)
	return dedupe(probs)
}

// envelopeDef picks the JSON-RPC definition for the message's kind, so that
// problems name the broken member instead of every branch of JSONRPCMessage.
func (v *SchemaValidator) envelopeDef(msg any) string {
	m, ok := msg.(map[string]any)
	if !ok {
		return "JSONRPCMessage"
	}
	_, isCall := m["method"]
	_, hasID := m["id"]
	_, hasResult := m["result"]
	_, hasError := m["error"]
	pick := func(names ...string) string {
		for _, n := range names {
			if v.defs[n] {
				return n
			}
		}
		return "JSONRPCMessage"
	}
	switch {
	case isCall && hasID:
		return pick("JSONRPCRequest")
	case isCall:
		return pick("JSONRPCNotification")
	case hasResult && !hasError:
		return pick("JSONRPCResultResponse", "JSONRPCResponse")
	case hasError && !hasResult:
		return pick("JSONRPCErrorResponse", "JSONRPCError")
	}
	return "JSONRPCMessage"
}

// dedupe drops problems that repeat a path and rule with the same message
// (the envelope and the payload definition often check the same member).
func dedupe(ps []Problem) []Problem {
	var out []Problem
	seen := map[string]bool{}
	for _, p := range ps {
		msg := p.Message
		if i := strings.Index(msg, " (at "); i >= 0 {
			msg = msg[:i]
		}
		k := p.Path + "\x00" + p.Rule + "\x00" + msg
		if !seen[k] {
			seen[k] = true
			out = append(out, p)
		}
	}
	return out
}

func (v *SchemaValidator) element(el any, requestMethod, prefix string) []Problem {
	m, ok := el.(map[string]any)
	if !ok {
		return nil
	}
	def, part, at := "", any(m), prefix
	method, isCall := m["method"].(string)
	_, hasID := m["id"]
	result, hasResult := m["result"]
	e, hasError := m["error"]
	switch {
	case isCall && hasID:
		def = serverRequestDefs[method]
	case isCall:
		def = notificationDefs[method]
	case hasResult && !hasError:
		def, part, at = resultDefs[requestMethod], result, prefix+"/result"
		r, _ := result.(map[string]any)
		switch {
		case r == nil:
		case mrtrMethods[requestMethod] && r["resultType"] == "input_required" && v.defs["InputRequiredResult"]:
			def = "InputRequiredResult"
		case requestMethod == "tools/call" && v.defs["CreateTaskResult"] && r["task"] != nil && r["content"] == nil:
			def = "CreateTaskResult"
		}
		if !v.defs[def] {
			def = "Result"
		}
	case hasError && !hasResult:
		if eo, ok := e.(map[string]any); ok {
			if n, ok := eo["code"].(json.Number); ok {
				if c, err := n.Int64(); err == nil {
					def = errorDefs[c]
				}
			}
		}
	}
	if def == "" || !v.defs[def] {
		return nil
	}
	b, err := json.Marshal(part)
	if err != nil {
		return nil
	}
	probs := v.Validate(def, b)
	for i := range probs {
		probs[i].Path = at + probs[i].Path
	}
	return probs
}
