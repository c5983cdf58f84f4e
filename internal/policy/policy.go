// Package policy decides which tools mcpconform may call on a real server.
// Tools can have side effects (write files, send messages, change data), so
// by default only tools that declare themselves read-only are called with
// inputs that could execute.
package policy

import (
	"encoding/json"
	"fmt"
	"strings"
)

// CallPolicy is the value of --call-tools.
type CallPolicy string

// Policies.
const (
	// None calls no tool.
	None CallPolicy = "none"
	// ReadOnly calls only tools whose annotations.readOnlyHint is true.
	ReadOnly CallPolicy = "readonly"
	// All calls every tool.
	All CallPolicy = "all"
)

// Default is the policy when none is given.
const Default = ReadOnly

// Flag is the command-line flag that sets the policy.
const Flag = "--call-tools"

// Names lists the policies for usage text.
func Names() []string { return []string{string(None), string(ReadOnly), string(All)} }

// Parse reads a policy name (case-insensitive, surrounding space ignored);
// "" is the default (readonly). "read-only" is accepted for readonly.
func Parse(s string) (CallPolicy, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "":
		return Default, nil
	case "none":
		return None, nil
	case "readonly", "read-only":
		return ReadOnly, nil
	case "all":
		return All, nil
	}
	return "", fmt.Errorf("unknown call policy %q (want %s)", s, strings.Join(Names(), ", "))
}

// String returns the policy name ("readonly" for the zero value).
func (p CallPolicy) String() string {
	if p == "" {
		return string(Default)
	}
	return string(p)
}

// ReadOnlyHint returns the tool's annotations.readOnlyHint: the value, and
// whether it is present as a JSON boolean.
func ReadOnlyHint(tool json.RawMessage) (value, present bool) {
	var t struct {
		Annotations map[string]json.RawMessage `json:"annotations"`
	}
	if json.Unmarshal(tool, &t) != nil || t.Annotations == nil {
		return false, false
	}
	raw, ok := t.Annotations["readOnlyHint"]
	if !ok {
		return false, false
	}
	var b bool
	if json.Unmarshal(raw, &b) != nil || string(raw) == "null" {
		return false, false
	}
	return b, true
}

// Allows reports whether a tool (its raw JSON object from tools/list) may be
// called with inputs that could execute, and why not. The zero policy is
// readonly; an unknown policy allows nothing.
func (p CallPolicy) Allows(tool json.RawMessage) (ok bool, reason string) {
	name := toolName(tool)
	switch p {
	case All:
		return true, ""
	case None:
		return false, fmt.Sprintf("the call policy is none: no tool is called (%s readonly or %s all to allow calls)", Flag, Flag)
	case ReadOnly, "":
		v, present := ReadOnlyHint(tool)
		switch {
		case v:
			return true, ""
		case present:
			return false, fmt.Sprintf("tool %s declares annotations.readOnlyHint false, and the call policy is readonly (only read-only tools are called); it may have side effects: pass %s all to call it anyway", name, Flag)
		default:
			return false, fmt.Sprintf("tool %s does not declare annotations.readOnlyHint true, and the call policy is readonly (only read-only tools are called); it may have side effects: pass %s all to call it anyway", name, Flag)
		}
	}
	return false, fmt.Sprintf("unknown call policy %q (want %s)", string(p), strings.Join(Names(), ", "))
}

func toolName(tool json.RawMessage) string {
	var t struct {
		Name *string `json:"name"`
	}
	if json.Unmarshal(tool, &t) != nil || t.Name == nil {
		return "(unnamed)"
	}
	return fmt.Sprintf("%q", *t.Name)
}
