// Package contract is the contract gate (issue 33): a server's declared
// surface snapshotted into a reviewable file (mcp.contract.json), the live
// server compared with it, and every change classified by a rule of the
// catalog (rules.go) by direction: a server may not tighten what it
// accepts (tool inputs, prompt arguments) nor loosen what it returns
// (tool outputs). Schema containment is decided by internal/schemadiff;
// the text a model reads is linted by internal/textlint.
package contract

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Format identifies the file format.
const Format = "mcpconform.contract/v1"

// itemKinds are a section's keyed lists, each an object keyed by the
// item's identity.
var itemKinds = []string{"tools", "prompts", "resources", "resourceTemplates"}

// File is a contract: the surface by revision and credential profile,
// and the reviewers' policy.
type File struct {
	Generator string
	Policy    Policy
	// Sections: revision → profile → the surface (resolved: no sameAs,
	// no digests; decodeAny's types).
	Sections map[string]map[string]map[string]any
	// Stability holds what the snapshot saw of the surface's stability
	// (LINT_UNSTABLE_LIST, LINT_CLIENT_ID_VARIANCE); Notes what else it
	// noticed (revisions declined, lists cut). Neither is written.
	Stability []Finding
	Notes     []string
}

// Policy is what reviewers decided; Encode keeps it as it is.
type Policy struct {
	// Accept lists accepted changes by fingerprint, each with its reason
	// and optionally the date (YYYY-MM-DD) after which it is no longer
	// accepted.
	Accept []Accept
	// Overrides sets a rule's level: err, warn, info or none.
	Overrides map[string]string
	// Renamed declares renames, old name → new name (tools, prompts).
	Renamed map[string]string
}

// Accept is one accepted change.
type Accept struct {
	Fingerprint string
	Reason      string
	Until       string
}

func (p Policy) tree() map[string]any {
	out := map[string]any{}
	if len(p.Accept) > 0 {
		var list []any
		for _, a := range p.Accept {
			e := map[string]any{"fingerprint": a.Fingerprint, "reason": a.Reason}
			if a.Until != "" {
				e["until"] = a.Until
			}
			list = append(list, e)
		}
		out["accept"] = list
	}
	if len(p.Overrides) > 0 {
		out["overrides"] = stringMap(p.Overrides)
	}
	if len(p.Renamed) > 0 {
		out["renamed"] = stringMap(p.Renamed)
	}
	return out
}

func stringMap(m map[string]string) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[k] = v
	}
	return out
}

// revisionOrder sorts revisions newest first.
func revisionOrder(a, b string) int { return cmp.Compare(b, a) }

// profileOrder sorts "default" first, then by name.
func profileOrder(a, b string) int {
	if (a == "default") != (b == "default") {
		if a == "default" {
			return -1
		}
		return 1
	}
	return cmp.Compare(a, b)
}

// Encode writes the file canonically: sorted keys, two-space indent, LF,
// hidden characters escaped, a digest on every item and section, and a
// section equal to one written before it (newest revision first, the
// default profile first) written as sameAs. The same surface gives the
// same bytes.
func (f *File) Encode() ([]byte, error) {
	revs := map[string]any{}
	seen := map[string]string{} // section digest → "rev/profile"
	for _, rev := range slices.SortedFunc(maps.Keys(f.Sections), revisionOrder) {
		profiles := map[string]any{}
		for _, prof := range slices.SortedFunc(maps.Keys(f.Sections[rev]), profileOrder) {
			body := withDigests(f.Sections[rev][prof])
			d := digest(body)
			if at, ok := seen[d]; ok {
				profiles[prof] = map[string]any{"sameAs": at, "digest": d}
				continue
			}
			seen[d] = rev + "/" + prof
			body["digest"] = d
			profiles[prof] = body
		}
		revs[rev] = map[string]any{"profiles": profiles}
	}
	gen := f.Generator
	if gen == "" {
		gen = "mcpconform"
	}
	doc := map[string]any{"format": Format, "generator": gen, "policy": f.Policy.tree(), "revisions": revs}
	var buf bytes.Buffer
	encode(&buf, doc, true, 0)
	buf.WriteByte('\n')
	return buf.Bytes(), nil
}

// withDigests copies a section adding each item's digest.
func withDigests(sec map[string]any) map[string]any {
	out := maps.Clone(sec)
	for _, kind := range itemKinds {
		items, ok := sec[kind].(map[string]any)
		if !ok {
			continue
		}
		withD := map[string]any{}
		for k, v := range items {
			if obj, ok := v.(map[string]any); ok {
				c := maps.Clone(obj)
				c["digest"] = digest(obj)
				withD[k] = c
			} else {
				withD[k] = v
			}
		}
		out[kind] = withD
	}
	return out
}

// Decode reads a contract file (sameAs resolved, digests dropped).
func Decode(b []byte) (*File, error) {
	v, err := decodeAny(b)
	if err != nil {
		return nil, fmt.Errorf("the contract is not JSON: %v", err)
	}
	doc, ok := v.(map[string]any)
	if !ok {
		return nil, errors.New("the contract is not a JSON object")
	}
	if doc["format"] != Format {
		return nil, fmt.Errorf("the contract's format is %v, not %s", doc["format"], Format)
	}
	f := &File{Sections: map[string]map[string]map[string]any{}}
	f.Generator, _ = doc["generator"].(string)
	if err := f.Policy.read(doc["policy"]); err != nil {
		return nil, err
	}
	revs, ok := doc["revisions"].(map[string]any)
	if !ok {
		return nil, errors.New("the contract has no revisions object")
	}
	raw := map[string]map[string]any{} // "rev/profile" → section as written
	for rev, rv := range revs {
		r, _ := rv.(map[string]any)
		profiles, ok := r["profiles"].(map[string]any)
		if !ok {
			return nil, fmt.Errorf("revision %s has no profiles object", rev)
		}
		for prof, pv := range profiles {
			sec, ok := pv.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%s/%s is not an object", rev, prof)
			}
			raw[rev+"/"+prof] = sec
		}
	}
	for key, sec := range raw {
		for range 8 { // sameAs chains, bounded
			at, ok := sec["sameAs"].(string)
			if !ok {
				break
			}
			if sec, ok = raw[at]; !ok {
				return nil, fmt.Errorf("%s is sameAs %q, which the contract does not have", key, at)
			}
		}
		if _, ok := sec["sameAs"]; ok {
			return nil, fmt.Errorf("%s: sameAs chain too long", key)
		}
		rev, prof, _ := strings.Cut(key, "/")
		if f.Sections[rev] == nil {
			f.Sections[rev] = map[string]map[string]any{}
		}
		f.Sections[rev][prof] = withoutDigests(sec)
	}
	return f, nil
}

func withoutDigests(sec map[string]any) map[string]any {
	out := maps.Clone(sec)
	delete(out, "digest")
	for _, kind := range itemKinds {
		items, ok := sec[kind].(map[string]any)
		if !ok {
			continue
		}
		c := map[string]any{}
		for k, v := range items {
			if obj, ok := v.(map[string]any); ok {
				o := maps.Clone(obj)
				delete(o, "digest")
				c[k] = o
			} else {
				c[k] = v
			}
		}
		out[kind] = c
	}
	return out
}

func (p *Policy) read(v any) error {
	if v == nil {
		return nil
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return errors.New("policy is not an object")
	}
	if list, ok := obj["accept"].([]any); ok {
		for i, e := range list {
			m, _ := e.(map[string]any)
			a := Accept{}
			a.Fingerprint, _ = m["fingerprint"].(string)
			a.Reason, _ = m["reason"].(string)
			a.Until, _ = m["until"].(string)
			if a.Fingerprint == "" || a.Reason == "" {
				return fmt.Errorf("policy.accept[%d] needs a fingerprint and a reason", i)
			}
			p.Accept = append(p.Accept, a)
		}
	}
	read := func(key string) (map[string]string, error) {
		m, ok := obj[key].(map[string]any)
		if !ok {
			return nil, nil
		}
		out := map[string]string{}
		for k, v := range m {
			s, ok := v.(string)
			if !ok {
				return nil, fmt.Errorf("policy.%s.%s is not a string", key, k)
			}
			out[k] = s
		}
		return out, nil
	}
	var err error
	if p.Overrides, err = read("overrides"); err != nil {
		return err
	}
	for rule, lvl := range p.Overrides {
		if _, ok := ruleByID[rule]; !ok {
			return fmt.Errorf("policy.overrides names %s, which is not a rule (mcpconform list --contract-rules)", rule)
		}
		if !slices.Contains([]string{"err", "warn", "info", "none"}, strings.ToLower(lvl)) {
			return fmt.Errorf("policy.overrides.%s is %q: err, warn, info or none", rule, lvl)
		}
	}
	p.Renamed, err = read("renamed")
	return err
}
