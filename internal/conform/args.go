package conform

import (
	"encoding/json"
	"fmt"
	"sort"
)

// ArgsFor returns arguments for a tool (its raw object from tools/list)
// that should pass its inputSchema: the user's sample arguments (--config)
// when there are any, else values derived from the schema (DeriveArgs).
// source says which ("config" or "derived"); ok is false when no
// arguments could be derived.
func (t *T) ArgsFor(tool json.RawMessage) (args map[string]any, source string, ok bool) {
	if a, found := t.SampleArgs(ItemKey(tool, "name")); found {
		return a, "config", true
	}
	var obj struct {
		InputSchema json.RawMessage `json:"inputSchema"`
	}
	if json.Unmarshal(tool, &obj) != nil {
		return nil, "", false
	}
	args, err := DeriveArgs(obj.InputSchema)
	if err != nil {
		return nil, "", false
	}
	return args, "derived", true
}

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
			v, err := deriveValue(ps, depth+1)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			out[name] = v
		}
		return out, nil
	case "string":
		return "mcpconform", nil
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

// PromptArgValue is the value checks give a prompt argument when only its
// presence matters.
const PromptArgValue = "mcpconform"

// RequiredPromptArgs returns PromptArgValue for every required argument of
// a prompt (its raw object from prompts/list): the arguments a prompts/get
// needs to be valid when the check is not about them.
func RequiredPromptArgs(prompt json.RawMessage) map[string]string {
	var p struct {
		Arguments []struct {
			Name     string `json:"name"`
			Required bool   `json:"required"`
		} `json:"arguments"`
	}
	args := map[string]string{}
	if json.Unmarshal(prompt, &p) == nil {
		for _, a := range p.Arguments {
			if a.Required && a.Name != "" {
				args[a.Name] = PromptArgValue
			}
		}
	}
	return args
}
