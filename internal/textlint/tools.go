package textlint

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode"
)

func init() {
	Rules["LINT_HEADER_SECRET"] = Rule{"LINT_HEADER_SECRET", WARN, "a sensitive parameter mirrored into an HTTP header",
		`"Server developers SHOULD NOT mark sensitive parameters (passwords, API keys, tokens, PII) with x-mcp-header, as header values are visible to network intermediaries" (2026-07-28 server/tools#x-mcp-header)`}
}

// Tool is what the tool lints read of a tool.
type Tool struct {
	Name, Title, Description string
	InputSchema              json.RawMessage
}

// LintTools lints a server's tools: the text lints on each name, title,
// description and property description, and LINT_HEADER_SECRET on the
// input schemas. A description naming another tool of the same server is
// not flagged: in the third-party corpus every such reference (8 of 8:
// "Use onshape_list_resources to discover …", "DEPRECATED: Use
// read_text_file instead") is guidance; the shadowing a cross-reference
// lint is for names another server's tools, which needs a host's whole
// tool set.
func LintTools(tools []Tool) []Finding {
	var out []Finding
	for _, t := range tools {
		at := fmt.Sprintf("tools[%s]", t.Name)
		for _, f := range []struct{ where, text string }{{".name", t.Name}, {".title", t.Title}, {".description", t.Description}} {
			out = append(out, Lint(at+f.where, f.text)...)
		}
		var schema any
		if json.Unmarshal(t.InputSchema, &schema) == nil {
			walkProperties(schema, at+".inputSchema", func(where, name string, prop map[string]any) {
				if d, ok := prop["description"].(string); ok {
					out = append(out, Lint(where+".description", d)...)
				}
				if h, ok := prop["x-mcp-header"].(string); ok && (sensitive(name) || sensitive(h)) {
					out = append(out, Finding{Rule: "LINT_HEADER_SECRET", Level: WARN, Where: where, Excerpt: Escape(name + " → Mcp-Param-" + h),
						Detail: fmt.Sprintf("property %q, which looks sensitive, is mirrored into the header Mcp-Param-%s", name, h)})
				}
			})
		}
	}
	return out
}

// walkProperties calls f on every property reachable through properties
// from the schema's root (where is its JSON pointer-like path).
func walkProperties(schema any, where string, f func(where, name string, prop map[string]any)) {
	m, ok := schema.(map[string]any)
	if !ok {
		return
	}
	props, _ := m["properties"].(map[string]any)
	for _, name := range slices.Sorted(maps.Keys(props)) {
		p, ok := props[name].(map[string]any)
		if !ok {
			continue
		}
		w := where + ".properties." + name
		f(w, name, p)
		walkProperties(p, w, f)
	}
}

// sensitiveWords are the words of a parameter or header name that name a
// secret or a credential ("tokens", as in max_tokens, is a count).
var sensitiveWords = []string{"password", "passwd", "pwd", "secret", "token", "apikey", "auth", "authorization", "credential", "credentials", "cookie", "session", "ssn", "passphrase"}

// sensitive reports whether a name looks like a secret's: one of its
// words (split at _ - . and case changes) is a sensitive word, or two
// adjacent ones are api+key, access+key or private+key.
func sensitive(name string) bool {
	words := splitWords(name)
	for i, w := range words {
		if slices.Contains(sensitiveWords, w) {
			return true
		}
		if w == "key" && i > 0 && slices.Contains([]string{"api", "access", "private", "secret"}, words[i-1]) {
			return true
		}
	}
	return false
}

// splitWords splits a name into lower-case words at _ - . space and at
// lower-to-upper case changes.
func splitWords(name string) []string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	var prev rune
	for _, r := range name {
		switch {
		case r == '_' || r == '-' || r == '.' || unicode.IsSpace(r):
			flush()
		case unicode.IsUpper(r) && unicode.IsLower(prev):
			flush()
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
		prev = r
	}
	flush()
	return words
}
