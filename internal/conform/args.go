package conform

import (
	"encoding/json"
	"strings"

	"github.com/mcpconform/mcpconform/internal/session"
	"github.com/mcpconform/mcpconform/internal/toolschema"
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

// DeriveArgs is toolschema.DeriveArgs (the fuzzer derives arguments
// alike, without this package).
func DeriveArgs(schema json.RawMessage) (map[string]any, error) { return toolschema.DeriveArgs(schema) }

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

// FallbackURI is the URI generated arguments get when the server lists no
// resource whose URI could stand in (toolschema.FallbackURI).
const FallbackURI = toolschema.FallbackURI

// PlausibleString is toolschema.PlausibleString.
func PlausibleString(name, description, format, knownURI string) string {
	return toolschema.PlausibleString(name, description, format, knownURI)
}

// KnownURI returns the URI of the first resource s lists (one
// resources/list page), "" when it declares no resources or lists none: a
// URI of a scheme the server serves, for URI-like arguments.
func (t *T) KnownURI(s *session.Session) string {
	if !Declared(s, "resources") {
		return ""
	}
	resp, err := t.TryCall(s, "resources/list", map[string]any{}, nil)
	if err != nil || !resp.IsResult() {
		return ""
	}
	var r struct {
		Resources []struct {
			URI string `json:"uri"`
		} `json:"resources"`
	}
	if resp.Result(&r) != nil {
		return ""
	}
	for _, x := range r.Resources {
		if strings.Contains(x.URI, ":") {
			return x.URI
		}
	}
	return ""
}
