package toolschema

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// DeriveArgs builds an arguments object that satisfies an object schema's
// required properties, from each property's const, default, first example
// or first enum value, else a plain value of its type ("mcpconform", 1,
// true, [], {} with its own required properties). Optional properties are
// left out. It fails on schemas it cannot satisfy by construction (no
// object root, required properties without a usable type).
func DeriveArgs(schema json.RawMessage) (map[string]any, error) {
	v, err := deriveValue(schema, 0)
	if err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("the input schema does not describe an object")
	}
	return m, nil
}

func deriveValue(schema json.RawMessage, depth int) (any, error) {
	return deriveNamed(schema, depth, "")
}

// deriveNamed is deriveValue for the property called name ("" at the root
// and for array items): a string gets a value plausible for its name,
// description and format (PlausibleString).
func deriveNamed(schema json.RawMessage, depth int, name string) (any, error) {
	if depth > 8 {
		return nil, fmt.Errorf("schema nested too deeply")
	}
	var s struct {
		Type       json.RawMessage            `json:"type"`
		Const      json.RawMessage            `json:"const"`
		Default    json.RawMessage            `json:"default"`
		Examples   []json.RawMessage          `json:"examples"`
		Enum       []json.RawMessage          `json:"enum"`
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
		MinItems   int                        `json:"minItems"`
		Items      json.RawMessage            `json:"items"`
		Format     string                     `json:"format"`
		Desc       string                     `json:"description"`
		MinLength  int                        `json:"minLength"`
	}
	if len(schema) == 0 || string(schema) == "true" {
		return map[string]any{}, nil
	}
	if err := json.Unmarshal(schema, &s); err != nil {
		return nil, fmt.Errorf("schema is not an object: %v", err)
	}
	for _, raw := range [][]json.RawMessage{{s.Const}, {s.Default}, s.Examples, s.Enum} {
		if len(raw) > 0 && len(raw[0]) > 0 {
			var v any
			if json.Unmarshal(raw[0], &v) == nil {
				return v, nil
			}
		}
	}
	typ := ""
	var one string
	var many []string
	if json.Unmarshal(s.Type, &one) == nil {
		typ = one
	} else if json.Unmarshal(s.Type, &many) == nil {
		for _, x := range many {
			if x != "null" {
				typ = x
				break
			}
		}
	}
	if typ == "" && s.Properties != nil {
		typ = "object"
	}
	switch typ {
	case "object":
		out := map[string]any{}
		req := append([]string(nil), s.Required...)
		sort.Strings(req)
		for _, name := range req {
			ps, ok := s.Properties[name]
			if !ok {
				return nil, fmt.Errorf("required property %q has no schema", name)
			}
			v, err := deriveNamed(ps, depth+1, name)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			out[name] = v
		}
		return out, nil
	case "string":
		v := PlausibleString(name, s.Desc, s.Format, "")
		for len(v) < s.MinLength {
			v += "-mcpconform"
		}
		return v, nil
	case "integer", "number":
		return 1, nil
	case "boolean":
		return true, nil
	case "array":
		out := []any{}
		for i := 0; i < s.MinItems; i++ {
			v, err := deriveValue(s.Items, depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case "null":
		return nil, nil
	}
	return nil, fmt.Errorf("no usable type")
}

// Plausible values. A generated argument must be plausible for what its
// name, description and format say: a server that echoes a "resourceUri"
// argument into an embedded resource must not be failed because the
// harness passed a word that is not a URI.
var (
	uriName  = regexp.MustCompile(`(?i:(^|[_\-.])(uri|url|href|link|endpoint)s?$)|[a-z0-9](Uri|URI|Url|URL|Href|Link)s?$`)
	uriDesc  = regexp.MustCompile(`\b(URI|URL|uri|url)\b`)
	mailName = regexp.MustCompile(`(?i)e-?mail`)
)

// FallbackURI is the URI generated arguments get when the server lists no
// resource whose URI could stand in.
const FallbackURI = "https://example.com/mcpconform"

// PlausibleString returns a string value for an argument called name with
// the given description and JSON Schema format: a URI for URI-like names,
// descriptions and formats (knownURI, a URI the server lists, when given,
// else FallbackURI), an e-mail address, a date, a UUID…, else
// "mcpconform".
func PlausibleString(name, description, format, knownURI string) string {
	uri := knownURI
	if uri == "" {
		uri = FallbackURI
	}
	switch strings.ToLower(format) {
	case "uri", "uri-reference", "iri", "iri-reference", "url":
		return uri
	case "email", "idn-email":
		return "mcpconform@example.com"
	case "date-time":
		return "2025-01-01T00:00:00Z"
	case "date":
		return "2025-01-01"
	case "time":
		return "00:00:00Z"
	case "uuid":
		return "00000000-0000-4000-8000-000000000000"
	case "hostname", "idn-hostname":
		return "example.com"
	case "ipv4":
		return "127.0.0.1"
	case "ipv6":
		return "::1"
	}
	switch {
	case uriName.MatchString(name):
		return uri
	case mailName.MatchString(name):
		return "mcpconform@example.com"
	case name == "" && uriDesc.MatchString(description):
		return uri
	case name != "" && uriDesc.MatchString(description) && !strings.Contains(strings.ToLower(name), "name"):
		return uri
	}
	return "mcpconform"
}
