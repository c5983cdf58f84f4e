package contract

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpconform/mcpconform/internal/schemadiff"
)

// direction of a schema: input (the server reads it: may not tighten) or
// output (the client reads it: may not loosen).
type direction int

const (
	input direction = iota
	output
)

func (d direction) prefix() string {
	if d == input {
		return "IN_"
	}
	return "OUT_"
}

// schemaChange is one classified change of a schema.
type schemaChange struct {
	rule, level, path, msg string
	category               string
}

// compareSchemas classifies the changes from old to new. Whether values
// are refused (input) or unpromised values appear (output) is decided by
// schemadiff.Contains, which is sound; the structural walk names the
// changes it cannot see (defaults, headers, descriptions, a property
// removed from an open object) and the union changes its findings come
// from.
func compareSchemas(old, new any, dir direction) []schemaChange {
	if canonical(old) == canonical(new) {
		return nil
	}
	var out []schemaChange
	add := func(rule, level, path, format string, a ...any) {
		out = append(out, schemaChange{rule: rule, level: level, path: path, msg: fmt.Sprintf(format, a...), category: Wire})
	}
	w := &walker{dir: dir, oldRoot: old, newRoot: new, removed: map[string]bool{}, explainedRemoved: map[string]bool{}, added: map[string]bool{}, addedRequired: map[string]bool{}, unions: map[string]bool{}}
	w.walk(old, new, "", 0)
	for _, c := range w.changes {
		out = append(out, c)
	}
	if od, nd := dialect(old), dialect(new); od != nd {
		add("SCHEMA_DIALECT_CHANGED", WARN, "", "$schema changed from %q to %q", od, nd)
	}
	po, errO := schemadiff.Parse([]byte(canonical(old)))
	pn, errN := schemadiff.Parse([]byte(canonical(new)))
	if errO != nil || errN != nil {
		add(dir.prefix()+"UNDECIDED", WARN, "", "the schema could not be read: %v", firstErr(errO, errN))
		return out
	}
	var r schemadiff.Result
	if dir == input {
		r = schemadiff.Contains(pn, po)
	} else {
		r = schemadiff.Contains(po, pn)
	}
	seen := map[string]bool{}
	emit := func(c schemaChange) {
		k := c.rule + "\x00" + c.path + "\x00" + c.msg
		if !seen[k] {
			seen[k] = true
			out = append(out, c)
		}
	}
	broke := false
	for _, f := range r.Findings {
		c := w.classify(f)
		if c.rule == "" {
			continue
		}
		broke = broke || c.level == ERR
		emit(c)
	}
	// a removed input property of an open object: nothing refuses it
	for _, p := range slices.Sorted(maps.Keys(w.removed)) {
		if dir == input && !w.explainedRemoved[p] {
			emit(schemaChange{"IN_PROPERTY_REMOVED", WARN, p, fmt.Sprintf("property %s was removed; the object is open, so callers who still send it are silently ignored", lastSegment(p)), Wire})
		}
	}
	if len(r.Undecided) > 0 {
		// an undecided point under a changed union is the union's change
		var rest []string
		for _, u := range r.Undecided {
			if at, ok := w.unionAt(u.Path); ok {
				if dir == input {
					emit(schemaChange{"IN_UNION_NARROWED", ERR, at, "an alternative was removed (or a part added) and the remaining ones are not shown to accept every old value", Wire})
				} else {
					emit(schemaChange{"OUT_UNION_WIDENED", ERR, at, "an alternative was added (or a part removed) that the old schema is not shown to allow", Wire})
				}
				broke = true
				continue
			}
			if w.underRemoved(u.Path) != "" {
				continue
			}
			rest = append(rest, u.String())
		}
		if len(rest) > 0 && !broke {
			if len(rest) > 3 {
				rest = append(rest[:3], fmt.Sprintf("and %d more", len(rest)-3))
			}
			add(dir.prefix()+"UNDECIDED", WARN, "", "not decided: %s", strings.Join(rest, "; "))
		}
	}
	if r.Contained() {
		// nothing breaks: does it accept (input) or promise (output) more?
		var rev schemadiff.Result
		if dir == input {
			rev = schemadiff.Contains(po, pn)
			if !rev.Contained() {
				add("IN_LOOSENED", INFO, "", "the schema accepts every value it did, and more")
			}
		} else {
			rev = schemadiff.Contains(pn, po)
			if !rev.Contained() {
				add("OUT_TIGHTENED", INFO, "", "every result the schema allows was allowed before; it promises more")
			}
		}
	}
	return out
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

func dialect(s any) string {
	m, _ := s.(map[string]any)
	d, _ := m["$schema"].(string)
	return d
}

func lastSegment(p string) string {
	i := strings.LastIndexByte(p, '/')
	return strings.ReplaceAll(strings.ReplaceAll(p[i+1:], "~1", "/"), "~0", "~")
}

// walker walks the old and the new schema side by side, following
// properties, items and local $refs: what it sees is keyed by the
// instance path, as schemadiff's findings are.
type walker struct {
	dir              direction
	oldRoot, newRoot any
	changes          []schemaChange
	// removed: paths of properties the old schema had and the new one
	// does not; explainedRemoved: those a finding of the checker is under.
	removed, explainedRemoved map[string]bool
	// added: paths of input properties the new schema has and the old one
	// did not, where the old object accepted any property (addedRequired:
	// those the new schema requires, which IN_REQUIRED_ADDED reports)
	added, addedRequired map[string]bool
	// required: the old schema's required properties, by path (output)
	oldRequired map[string]bool
	// unions: paths where an alternative was removed (input) or added
	// (output), or an allOf part added (input) or removed (output)
	unions map[string]bool
	nodes  int
}

const maxWalk = 5000

func (w *walker) walk(o, n any, path string, depth int) {
	if w.nodes++; w.nodes > maxWalk || depth > 32 {
		return
	}
	om, _ := resolveRef(o, w.oldRoot, 0).(map[string]any)
	nm, _ := resolveRef(n, w.newRoot, 0).(map[string]any)
	if om == nil || nm == nil {
		return
	}
	where := path
	if where == "" {
		where = "the schema"
	}
	for _, k := range []string{"title", "description"} {
		ov, _ := om[k].(string)
		nv, _ := nm[k].(string)
		if ov != nv && path != "" {
			lvl, note := textChange(ov, nv)
			w.changes = append(w.changes, schemaChange{"TOOL_DESCRIPTION_CHANGED", lvl, path, fmt.Sprintf("the %s of %s changed%s", k, where, note), Model})
		}
	}
	if w.dir == input {
		if od, ok := om["default"]; ok {
			if nd, ok := nm["default"]; !ok {
				w.changes = append(w.changes, schemaChange{"IN_DEFAULT_CHANGED", WARN, path, fmt.Sprintf("the default of %s (%s) was removed", where, canonical(od)), Wire})
			} else if canonical(od) != canonical(nd) {
				w.changes = append(w.changes, schemaChange{"IN_DEFAULT_CHANGED", WARN, path, fmt.Sprintf("the default of %s changed from %s to %s", where, canonical(od), canonical(nd)), Wire})
			}
		}
		oh, _ := om["x-mcp-header"].(string)
		nh, _ := nm["x-mcp-header"].(string)
		switch {
		case oh != "" && nh == "":
			w.changes = append(w.changes, schemaChange{"IN_HEADER_REMOVED", ERR, path, fmt.Sprintf("x-mcp-header %q of %s was removed", oh, where), Wire})
		case oh != "" && !strings.EqualFold(oh, nh):
			w.changes = append(w.changes, schemaChange{"IN_HEADER_REMOVED", ERR, path, fmt.Sprintf("x-mcp-header of %s was renamed from %q to %q", where, oh, nh), Wire})
		case oh == "" && nh != "":
			w.changes = append(w.changes, schemaChange{"IN_HEADER_ADDED", WARN, path, fmt.Sprintf("x-mcp-header %q was added on %s", nh, where), Safety})
		}
	}
	w.unionsAt(om, nm, path)
	op, np := properties(om, w.oldRoot), properties(nm, w.newRoot)
	if _, closed := om["additionalProperties"].(bool); w.dir == input && !closed && om["additionalProperties"] == nil && len(op) > 0 {
		req, _ := nm["required"].([]any)
		for _, name := range slices.Sorted(maps.Keys(np)) {
			if _, ok := op[name]; !ok {
				sub := path + "/" + escapePointer(name)
				w.added[sub] = true
				if slices.Contains(req, any(name)) {
					w.addedRequired[sub] = true
				}
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(op)) {
		sub := path + "/" + escapePointer(name)
		if nv, ok := np[name]; ok {
			w.walk(op[name], nv, sub, depth+1)
			continue
		}
		w.removed[sub] = true
		if w.dir == output {
			req, _ := om["required"].([]any)
			if !slices.Contains(req, any(name)) {
				w.changes = append(w.changes, schemaChange{"OUT_PROPERTY_REMOVED", WARN, sub, fmt.Sprintf("optional property %s was removed", name), Wire})
			}
		}
	}
	if oi, ok := om["items"].(map[string]any); ok {
		if ni, ok := nm["items"].(map[string]any); ok {
			w.walk(oi, ni, path+"/*", depth+1)
		}
	}
}

// properties are an object schema's properties and those of its
// alternatives and parts (anyOf, oneOf, allOf), the schema's own first: a
// property that moved into an alternative is not removed.
func properties(m map[string]any, root any) map[string]any {
	out := map[string]any{}
	own, _ := m["properties"].(map[string]any)
	for k, v := range own {
		out[k] = v
	}
	for _, k := range []string{"anyOf", "oneOf", "allOf"} {
		list, _ := m[k].([]any)
		for _, alt := range list {
			am, _ := resolveRef(alt, root, 0).(map[string]any)
			props, _ := am["properties"].(map[string]any)
			for name, v := range props {
				if _, ok := out[name]; !ok {
					out[name] = v
				}
			}
		}
	}
	return out
}

// unionsAt notes a union changed in the breaking direction at path.
func (w *walker) unionsAt(om, nm map[string]any, path string) {
	branches := func(m map[string]any, k string) []string {
		list, _ := m[k].([]any)
		var out []string
		for _, b := range list {
			out = append(out, canonical(b))
		}
		return out
	}
	lost := func(from, to []string) bool {
		for _, b := range from {
			if !slices.Contains(to, b) {
				return true
			}
		}
		return false
	}
	old, new := om, nm
	if w.dir == output {
		old, new = nm, om // the output mirror: alternatives added, parts removed
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		if _, had := old[k]; had && lost(branches(old, k), branches(new, k)) {
			w.unions[path] = true
		}
	}
	if lost(branches(new, "allOf"), branches(old, "allOf")) {
		w.unions[path] = true
	}
}

// unionAt: the changed union path p is at or under.
func (w *walker) unionAt(p string) (string, bool) {
	best, ok := "", false
	for u := range w.unions {
		if (p == u || strings.HasPrefix(p, u+"/")) && (!ok || len(u) > len(best)) {
			best, ok = u, true
		}
	}
	return best, ok
}

// underRemoved: the removed property path p is at or under ("" if none).
func (w *walker) underRemoved(p string) string { return under(w.removed, p) }

// under: the path of set that p is at or under ("" if none).
func under(set map[string]bool, p string) string {
	for r := range set {
		if p == r || strings.HasPrefix(p, r+"/") {
			return r
		}
	}
	return ""
}

// safeInteger is 2^53−1, the largest integer every JSON reader holds
// exactly.
const safeInteger = 9007199254740991

// beyondSafeInteger: a bound finding ("maximum 9007199254740991") at or
// beyond ±(2^53−1).
func beyondSafeInteger(detail string) bool {
	_, num, ok := strings.Cut(detail, " ")
	if !ok {
		return false
	}
	v, err := strconv.ParseFloat(num, 64)
	return err == nil && (v >= safeInteger || v <= -safeInteger)
}

// classify names a finding of the checker by the rule of its direction.
func (w *walker) classify(f schemadiff.Finding) schemaChange {
	at := f.Path
	if u, ok := w.unionAt(at); ok {
		if w.dir == input {
			return schemaChange{"IN_UNION_NARROWED", ERR, u, "an alternative was removed (or a part added), and values of the old schema are refused", Wire}
		}
		return schemaChange{"OUT_UNION_WIDENED", ERR, u, "an alternative was added (or a part removed) that allows results the old schema did not", Wire}
	}
	if r := w.underRemoved(at); r != "" || f.Kind == "property-closed" && w.removed[at] {
		if r == "" {
			r = at
		}
		if w.dir == input {
			w.explainedRemoved[r] = true
			return schemaChange{"IN_PROPERTY_REMOVED", ERR, r, fmt.Sprintf("property %s was removed and values callers send for it are refused", lastSegment(r)), Wire}
		}
		return schemaChange{} // output: OUT_PROPERTY_REMOVED or OUT_REQUIRED_REMOVED says it
	}
	if a := under(w.added, at); a != "" && w.dir == input {
		if w.addedRequired[a] {
			return schemaChange{} // one change: IN_REQUIRED_ADDED reports it
		}
		return schemaChange{"IN_PROPERTY_ADDED_OPEN", WARN, a, fmt.Sprintf("property %s was added to an object that accepted any property: a value a caller sent for it before is refused unless it fits; a caller that followed the old schema did not send it", lastSegment(a)), Wire}
	}
	if f.Kind == "bound-tightened" && beyondSafeInteger(f.Detail) {
		rule := "IN_BOUND_TIGHTENED"
		if w.dir == output {
			rule = "OUT_BOUND_LOOSENED"
		}
		return schemaChange{rule, INFO, at, f.Detail + ": beyond ±(2^53−1), where JSON integers stop being interoperable (RFC 8259 §6; zod 4 writes it for every int), so no usable value changes", Wire}
	}
	if w.dir == input {
		switch f.Kind {
		case "required-added":
			return schemaChange{"IN_REQUIRED_ADDED", ERR, at, f.Detail, Wire}
		case "type-narrowed", "rejects-all":
			return schemaChange{"IN_TYPE_NARROWED", ERR, at, f.Detail, Wire}
		case "enum-narrowed":
			return schemaChange{"IN_ENUM_NARROWED", ERR, at, f.Detail, Wire}
		case "bound-tightened":
			return schemaChange{"IN_BOUND_TIGHTENED", ERR, at, f.Detail, Wire}
		case "pattern-added":
			if w.had(w.oldRoot, at, "pattern") {
				return schemaChange{"IN_PATTERN_TIGHTENED", WARN, at, "the pattern changed (whether it accepts every string the old one did is not decided): " + f.Detail, Wire}
			}
			return schemaChange{"IN_PATTERN_TIGHTENED", ERR, at, f.Detail, Wire}
		case "format-added":
			return schemaChange{"IN_FORMAT_CHANGED", WARN, at, f.Detail, Wire}
		case "property-closed":
			return schemaChange{"IN_OBJECT_CLOSED", ERR, at, f.Detail, Wire}
		}
		return schemaChange{"IN_UNDECIDED", WARN, at, f.String(), Wire}
	}
	switch f.Kind {
	case "required-added":
		return schemaChange{"OUT_REQUIRED_REMOVED", ERR, at, fmt.Sprintf("property %q is no longer always present", f.Property), Wire}
	case "type-narrowed", "rejects-all":
		return schemaChange{"OUT_TYPE_WIDENED", ERR, at, strings.Replace(f.Detail, "is no longer accepted", "can now be returned", 1), Wire}
	case "enum-narrowed":
		return schemaChange{"OUT_ENUM_WIDENED", WARN, at, "values outside the old enum can now be returned: " + f.Detail, Wire}
	case "bound-tightened":
		return schemaChange{"OUT_BOUND_LOOSENED", ERR, at, "the old bound no longer holds: " + f.Detail, Wire}
	case "pattern-added":
		if w.had(w.newRoot, at, "pattern") {
			return schemaChange{"OUT_BOUND_LOOSENED", WARN, at, "the pattern changed (whether the new one allows only strings the old one did is not decided): " + f.Detail, Wire}
		}
		return schemaChange{"OUT_BOUND_LOOSENED", ERR, at, "the pattern was removed: " + f.Detail, Wire}
	case "format-added":
		return schemaChange{"OUT_FORMAT_CHANGED", WARN, at, "the old format no longer holds: " + f.Detail, Wire}
	case "property-closed":
		return schemaChange{"OUT_PROPERTY_ADDED_CLOSED", ERR, at, "the old schema was closed and the new one allows more: " + f.Detail, Wire}
	}
	return schemaChange{"OUT_UNDECIDED", WARN, at, f.String(), Wire}
}

// had reports whether the schema at the instance path (followed through
// properties and items) has the keyword.
func (w *walker) had(root any, path, kw string) bool {
	node := resolveRef(root, root, 0)
	for _, seg := range strings.Split(strings.TrimPrefix(path, "/"), "/") {
		m, _ := node.(map[string]any)
		if seg == "" {
			break
		}
		if seg == "*" {
			node = resolveRef(m["items"], root, 0)
			continue
		}
		props, _ := m["properties"].(map[string]any)
		node = resolveRef(props[strings.ReplaceAll(strings.ReplaceAll(seg, "~1", "/"), "~0", "~")], root, 0)
	}
	m, _ := node.(map[string]any)
	_, ok := m[kw]
	return ok
}

// resolveRef follows a local $ref (#, #/$defs/x, #/definitions/x), a few
// times at most.
func resolveRef(v, root any, depth int) any {
	m, ok := v.(map[string]any)
	if !ok || depth > 8 {
		return v
	}
	ref, ok := m["$ref"].(string)
	if !ok {
		return v
	}
	if ref == "#" {
		return resolveRef(root, root, depth+1)
	}
	if !strings.HasPrefix(ref, "#/") {
		return v
	}
	node := root
	for _, seg := range strings.Split(ref[2:], "/") {
		nm, _ := node.(map[string]any)
		node = nm[strings.ReplaceAll(strings.ReplaceAll(seg, "~1", "/"), "~0", "~")]
	}
	if node == nil {
		return v
	}
	return resolveRef(node, root, depth+1)
}

func escapePointer(name string) string {
	return strings.ReplaceAll(strings.ReplaceAll(name, "~", "~0"), "/", "~1")
}
