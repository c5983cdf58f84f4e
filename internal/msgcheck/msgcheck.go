package msgcheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"sync"
)

// Problem is one violation found in a message.
type Problem struct {
	Path    string // JSON pointer into the message ("" is the whole message)
	Rule    string // short rule id, e.g. "jsonrpc.version", "tool.inputSchema.type"
	Message string
}

func (p Problem) String() string {
	path := p.Path
	if path == "" {
		path = "/"
	}
	return fmt.Sprintf("%s: %s (%s)", path, p.Message, p.Rule)
}

// Revisions lists the protocol revisions the model covers, oldest first.
func Revisions() []string { return append([]string(nil), revNames[:]...) }

type rev int8

const (
	r20241105 rev = iota
	r20250326
	r20250618
	r20251125
	r20260728
	numRevs
)

var revNames = [numRevs]string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"}

func (r rev) String() string { return revNames[r] }

func parseRev(s string) (rev, bool) {
	for i, n := range revNames {
		if n == s {
			return rev(i), true
		}
	}
	return 0, false
}

var (
	modelsOnce sync.Once
	models     [numRevs]*model
)

func modelFor(revision string) (*model, error) {
	r, ok := parseRev(revision)
	if !ok {
		return nil, fmt.Errorf("unknown protocol revision %q", revision)
	}
	modelsOnce.Do(func() {
		for i := range models {
			models[i] = build(rev(i))
		}
	})
	return models[r], nil
}

// ValidateServerMessage checks one message a server sent under revision rev.
// requestMethod is, for a response, the method of the request it answers;
// "" means unknown, and the result is then checked only against the common
// Result rules. Requests and notifications are checked by their own method;
// methods the model does not know get the JSON-RPC envelope checks only.
func ValidateServerMessage(revision string, raw []byte, requestMethod string) []Problem {
	return problems(validateServer(revision, raw, requestMethod))
}

// ValidateAs checks raw against one definition of the revision's model, by
// its schema name ("CallToolResult", "Tool", "JSONRPCMessage"...). An unknown
// definition yields a single problem with rule "definition".
func ValidateAs(revision, definition string, raw []byte) []Problem {
	return problems(validateAs(revision, definition, raw))
}

func validateServer(revision string, raw []byte, requestMethod string) []issue {
	m, err := modelFor(revision)
	if err != nil {
		return []issue{{Problem: Problem{Rule: "revision", Message: err.Error()}}}
	}
	v, bad := decode(raw)
	if bad != nil {
		return bad
	}
	c := &checker{m: m}
	m.serverMessage(c, v, requestMethod)
	return finish(c, raw)
}

func validateAs(revision, definition string, raw []byte) []issue {
	m, err := modelFor(revision)
	if err != nil {
		return []issue{{Problem: Problem{Rule: "revision", Message: err.Error()}}}
	}
	d := m.defs[definition]
	if d == nil {
		return []issue{{Problem: Problem{Rule: "definition", Message: fmt.Sprintf("the %s model has no definition %q", revision, definition)}}}
	}
	v, bad := decode(raw)
	if bad != nil {
		return bad
	}
	c := &checker{m: m}
	d.check(c, v, loc{rule: ruleName(definition)})
	return finish(c, raw)
}

func problems(is []issue) []Problem {
	if len(is) == 0 {
		return nil
	}
	out := make([]Problem, len(is))
	for i, x := range is {
		out[i] = x.Problem
	}
	return out
}

// Definitions lists the definitions the model implements for revision, sorted.
// Names match the official schema's where the schema has the definition.
func Definitions(revision string) []string {
	m, err := modelFor(revision)
	if err != nil {
		return nil
	}
	names := make([]string, 0, len(m.defs))
	for n := range m.defs {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func decode(raw []byte) (any, []issue) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, []issue{{Problem: Problem{Rule: "json.syntax", Message: "not valid JSON: " + err.Error()}}}
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, []issue{{Problem: Problem{Rule: "json.syntax", Message: "not valid JSON: data after the top-level value"}}}
	}
	return v, nil
}

// finish adds the byte-level checks and drops exact duplicates (a member can
// be reached both by the envelope checks and by a definition that repeats
// the envelope).
func finish(c *checker, raw []byte) []issue {
	for _, p := range duplicateKeys(raw) {
		c.semantic(loc{ptr: p}, RuleDuplicateKey, "member appears more than once in its object; receivers disagree on which value counts")
	}
	if len(c.issues) == 0 {
		return nil
	}
	out := make([]issue, 0, len(c.issues))
	seen := map[Problem]bool{}
	for _, is := range c.issues {
		if !seen[is.Problem] {
			seen[is.Problem] = true
			out = append(out, is)
		}
	}
	return out
}
