package contract

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/internal/result"
)

// Finding is one classified change (or lint) of the surface.
type Finding = result.ContractFinding

// now is the clock policy.accept's until is compared with.
var now = time.Now

// Compare classifies every change from the contract (old) to the live
// surface, applies the contract's policy (overrides, renames,
// acceptances) and returns the findings, ERR first.
func Compare(old, live *File) []Finding {
	var raw []Finding
	for _, rev := range slices.SortedFunc(maps.Keys(old.Sections), revisionOrder) {
		lsecs, ok := live.Sections[rev]
		if !ok {
			raw = append(raw, finding("REVISION_NO_DROP", "", rev, "default", "", "revision "+rev, "the server no longer supports %s", rev))
			continue
		}
		for _, prof := range slices.SortedFunc(maps.Keys(old.Sections[rev]), profileOrder) {
			lsec, ok := lsecs[prof]
			if !ok {
				raw = append(raw, finding("PROFILE_MISSING", "", rev, prof, "", "profile "+prof, "no surface was taken for profile %s", prof))
				continue
			}
			c := &comparer{rev: rev, prof: prof, policy: old.Policy}
			c.section(old.Sections[rev][prof], lsec)
			raw = append(raw, c.out...)
		}
	}
	for _, rev := range slices.SortedFunc(maps.Keys(live.Sections), revisionOrder) {
		if _, ok := old.Sections[rev]; !ok {
			raw = append(raw, finding("REVISION_ADDED", "", rev, "default", "", "revision "+rev, "the server now supports %s, which the contract does not have", rev))
		}
	}
	return old.Policy.apply(merge(raw))
}

// finding builds a finding of rule (level "" = the rule's).
func finding(rule, level, rev, prof, path, subject, format string, a ...any) Finding {
	r := ruleByID[rule]
	if level == "" {
		level = r.Level
	}
	return Finding{Rule: rule, Level: level, Category: r.Category, Revisions: []string{rev}, Profile: prof, Path: path, Subject: subject,
		Message: fmt.Sprintf(format, a...), Why: r.Why}
}

// merge folds the same change seen on several revisions into one finding.
func merge(fs []Finding) []Finding {
	var out []Finding
	at := map[string]int{}
	for _, f := range fs {
		k := strings.Join([]string{f.Rule, f.Level, f.Profile, f.Path, f.Subject, f.Message}, "\x00")
		if i, ok := at[k]; ok {
			out[i].Revisions = append(out[i].Revisions, f.Revisions...)
			continue
		}
		at[k] = len(out)
		out = append(out, f)
	}
	for i := range out {
		sum := sha256.Sum256([]byte(out[i].Rule + "|" + out[i].Path + "|" + out[i].Message))
		out[i].Fingerprint = hex.EncodeToString(sum[:6])
	}
	return out
}

var levelRank = map[string]int{ERR: 0, WARN: 1, INFO: 2}

// apply applies overrides and acceptances and sorts the findings.
func (p Policy) apply(fs []Finding) []Finding {
	var out []Finding
	today := now().Format("2006-01-02")
	for _, f := range fs {
		if lvl, ok := p.Overrides[f.Rule]; ok {
			if strings.EqualFold(lvl, "none") {
				continue
			}
			f.Level = strings.ToUpper(lvl)
		}
		for _, a := range p.Accept {
			if a.Fingerprint == f.Fingerprint && (a.Until == "" || today <= a.Until) {
				f.Accepted, f.Reason = true, a.Reason
			}
		}
		out = append(out, f)
	}
	slices.SortStableFunc(out, func(a, b Finding) int {
		if c := levelRank[a.Level] - levelRank[b.Level]; c != 0 {
			return c
		}
		return strings.Compare(a.Path, b.Path)
	})
	return out
}

// Summary is the report's contract part for the findings.
func Summary(file string, fs []Finding, notes []string) *result.Contract {
	c := &result.Contract{File: file, Findings: fs, Notes: notes, Passed: !Failing(fs)}
	if c.Findings == nil {
		c.Findings = []Finding{}
	}
	for _, f := range fs {
		switch {
		case f.Accepted:
			c.Accepted++
		case f.Level == ERR:
			c.Err++
		case f.Level == WARN:
			c.Warn++
		default:
			c.Info++
		}
	}
	return c
}

// Failing reports whether a finding fails the gate: an ERR not accepted.
func Failing(fs []Finding) bool {
	return slices.ContainsFunc(fs, func(f Finding) bool { return f.Level == ERR && !f.Accepted })
}

// comparer compares one section.
type comparer struct {
	rev, prof string
	policy    Policy
	out       []Finding
}

func (c *comparer) add(rule, level, path, subject, format string, a ...any) {
	c.out = append(c.out, finding(rule, level, c.rev, c.prof, path, subject, format, a...))
}

func obj(v any) map[string]any {
	m, _ := v.(map[string]any)
	if m == nil {
		return map[string]any{}
	}
	return m
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func (c *comparer) section(old, live map[string]any) {
	os, ls := obj(old["server"]), obj(live["server"])
	if str(os["name"]) != str(ls["name"]) {
		c.add("SERVER_NAME_CHANGED", "", "/server/name", "server", "serverInfo.name changed from %q to %q", str(os["name"]), str(ls["name"]))
	}
	if str(os["version"]) != str(ls["version"]) {
		c.add("SERVER_VERSION_CHANGED", "", "/server/version", "server", "serverInfo.version changed from %q to %q", str(os["version"]), str(ls["version"]))
	}
	if str(os["instructions"]) != str(ls["instructions"]) {
		lvl, note := textChange(str(os["instructions"]), str(ls["instructions"]))
		c.add("INSTRUCTIONS_CHANGED", lvl, "/server/instructions", "server", "the instructions changed%s", note)
	}
	for _, k := range []string{"title", "description"} {
		if str(os[k]) != str(ls[k]) {
			lvl, note := textChange(str(os[k]), str(ls[k]))
			c.add("SERVER_TEXT_CHANGED", lvl, "/server/"+k, "server", "serverInfo.%s changed from %q to %q%s", k, clip(str(os[k])), clip(str(ls[k])), note)
		}
	}
	c.icons("/server", "server", os, ls)
	c.capabilities(obj(old["capabilities"]), obj(live["capabilities"]))
	oc, lc := obj(old["cacheScope"]), obj(live["cacheScope"])
	for _, m := range slices.Sorted(maps.Keys(oc)) {
		if str(oc[m]) == "private" && str(lc[m]) == "public" {
			c.add("CACHE_SCOPE_WIDENED", "", "/cacheScope/"+escapePointer(m), m, "the cacheScope of %s went from private to public", m)
		}
	}
	incomplete := map[string]bool{}
	if list, ok := live["incomplete"].([]any); ok {
		for _, m := range list {
			incomplete[str(m)] = true
			c.add("LIST_INCOMPLETE", "", "/incomplete", str(m), "%s could not be read whole on the live server; removals from it are not judged", str(m))
		}
	}
	c.tools(obj(old["tools"]), obj(live["tools"]), incomplete["tools/list"])
	c.prompts(obj(old["prompts"]), obj(live["prompts"]), incomplete["prompts/list"])
	c.resources("resourceTemplates", "TEMPLATE", "resource template", obj(old["resourceTemplates"]), obj(live["resourceTemplates"]), incomplete["resources/templates/list"])
	c.resources("resources", "RESOURCE", "resource", obj(old["resources"]), obj(live["resources"]), incomplete["resources/list"])
}

func (c *comparer) capabilities(old, live map[string]any) {
	for _, k := range slices.Sorted(maps.Keys(old)) {
		p := "/capabilities/" + escapePointer(k)
		lv, ok := live[k]
		if !ok || lv == nil {
			c.add("CAPABILITY_NO_DELETE", "", p, "capability "+k, "the %s capability is no longer declared", k)
			continue
		}
		ov, lm := obj(old[k]), obj(lv)
		if k == "extensions" || k == "experimental" {
			for _, id := range slices.Sorted(maps.Keys(ov)) {
				sub := p + "/" + escapePointer(id)
				if v, ok := lm[id]; !ok {
					c.add("CAPABILITY_NO_DELETE", "", sub, k+" "+id, "%s %s is no longer declared", k, id)
				} else if canonical(v) != canonical(ov[id]) {
					c.add("EXTENSION_SETTINGS_CHANGED", "", sub, k+" "+id, "the settings of %s %s changed from %s to %s", k, id, clip(canonical(ov[id])), clip(canonical(v)))
				}
			}
			for _, id := range slices.Sorted(maps.Keys(lm)) {
				if _, ok := ov[id]; !ok {
					c.add("CAPABILITY_ADDED", "", p+"/"+escapePointer(id), k+" "+id, "%s %s is now declared", k, id)
				}
			}
			continue
		}
		if ov["listChanged"] == true && lm["listChanged"] != true {
			c.add("CAPABILITY_LIST_CHANGED_REVOKED", "", p+"/listChanged", "capability "+k, "%s.listChanged is no longer true", k)
		}
		if k == "resources" && ov["subscribe"] == true && lm["subscribe"] != true {
			c.add("CAPABILITY_SUBSCRIBE_REVOKED", "", p+"/subscribe", "capability resources", "resources.subscribe is no longer true")
		}
	}
	for _, k := range slices.Sorted(maps.Keys(live)) {
		if _, ok := old[k]; !ok && live[k] != nil {
			c.add("CAPABILITY_ADDED", "", "/capabilities/"+escapePointer(k), "capability "+k, "the %s capability is now declared", k)
		}
	}
}

// textChange grades a change of model-read text: a change of whitespace
// alone (trailing spaces, line ends) is INFO; others take the rule's level.
func textChange(was, is string) (level, note string) {
	if strings.Join(strings.Fields(was), " ") == strings.Join(strings.Fields(is), " ") {
		return INFO, " (whitespace only)"
	}
	return "", ""
}

func clip(s string) string {
	if len(s) > 120 {
		return s[:117] + "..."
	}
	return s
}

// renamedTo: the declared new name of old, when the live list has it.
func (c *comparer) renamedTo(old string, live map[string]any) (string, bool) {
	n, ok := c.policy.Renamed[old]
	if !ok {
		return "", false
	}
	_, there := live[n]
	return n, there
}

func (c *comparer) tools(old, live map[string]any, incomplete bool) {
	var removed, added []string
	for _, name := range slices.Sorted(maps.Keys(old)) {
		if _, ok := live[name]; ok {
			c.tool(name, name, obj(old[name]), obj(live[name]))
		} else if !incomplete {
			removed = append(removed, name)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(live)) {
		if _, ok := old[name]; !ok {
			added = append(added, name)
		}
	}
	paired := map[string]bool{}
	var undeclared []string
	for _, name := range removed { // declared renames first
		p := "/tools/" + escapePointer(name)
		if to, ok := c.renamedTo(name, live); ok && !paired[to] {
			c.add("TOOL_RENAMED", WARN, p, "tool "+name, "tool %s was renamed to %s (declared in policy.renamed): callers of %s break unless it stays an alias", name, to, name)
			paired[to] = true
			c.tool(name, to, obj(old[name]), obj(live[to]))
			continue
		}
		undeclared = append(undeclared, name)
	}
	for _, name := range undeclared {
		p := "/tools/" + escapePointer(name)
		if to := sameSchemas(obj(old[name]), live, added, paired); to != "" {
			c.add("TOOL_RENAMED", "", p, "tool "+name, "tool %s was removed and %s, with the same input and output schemas, added: a rename? Keep %s as an alias, or declare it in policy.renamed", name, to, name)
			paired[to] = true
			c.tool(name, to, obj(old[name]), obj(live[to]))
			continue
		}
		c.add("TOOL_NO_DELETE", "", p, "tool "+name, "tool %s was removed", name)
	}
	for _, name := range added {
		if !paired[name] {
			c.add("TOOL_ADDED", "", "/tools/"+escapePointer(name), "tool "+name, "tool %s was added", name)
		}
	}
}

// sameSchemas: the added tool (not yet paired) whose schemas equal old's,
// when old's input schema has properties (tools without arguments look
// alike: no rename is guessed between them).
func sameSchemas(old map[string]any, live map[string]any, added []string, paired map[string]bool) string {
	if len(obj(obj(old["inputSchema"])["properties"])) == 0 {
		return ""
	}
	key := func(t map[string]any) string { return canonical(t["inputSchema"]) + canonical(t["outputSchema"]) }
	for _, name := range added {
		if !paired[name] && key(obj(live[name])) == key(old) {
			return name
		}
	}
	return ""
}

func (c *comparer) tool(oldName, name string, old, live map[string]any) {
	p := "/tools/" + escapePointer(oldName)
	subj := "tool " + name
	oa, la := obj(old["annotations"]), obj(live["annotations"])
	for _, t := range []struct{ key, what, was, is string }{{"title", "title", str(old["title"]), str(live["title"])},
		{"description", "description", str(old["description"]), str(live["description"])},
		{"annotations/title", "annotations.title", str(oa["title"]), str(la["title"])}} {
		if t.was != t.is {
			lvl, note := textChange(t.was, t.is)
			c.add("TOOL_DESCRIPTION_CHANGED", lvl, p+"/"+t.key, subj, "the %s of tool %s changed%s", t.what, name, note)
		}
	}
	c.annotations(p, subj, obj(old["annotations"]), obj(live["annotations"]))
	if str(obj(live["execution"])["taskSupport"]) == "required" && str(obj(old["execution"])["taskSupport"]) != "required" {
		c.add("TOOL_TASK_SUPPORT_REQUIRED", "", p+"/execution/taskSupport", subj, "execution.taskSupport of tool %s became required", name)
	}
	om, lm := obj(old["_meta"]), obj(live["_meta"])
	for _, k := range slices.Sorted(maps.Keys(om)) {
		if v, ok := lm[k]; !ok {
			c.add("TOOL_META_CHANGED", "", p+"/_meta/"+escapePointer(k), subj, "_meta key %s of tool %s was removed", k, name)
		} else if canonical(v) != canonical(om[k]) {
			c.add("TOOL_META_CHANGED", "", p+"/_meta/"+escapePointer(k), subj, "_meta key %s of tool %s changed", k, name)
		}
	}
	c.icons(p, subj, old, live)
	for _, k := range []struct {
		key string
		dir direction
	}{{"inputSchema", input}, {"outputSchema", output}} {
		ov, had := old[k.key]
		lv, has := live[k.key]
		sp := p + "/" + k.key
		switch {
		case k.dir == output && had && !has:
			c.add("OUT_SCHEMA_REMOVED", "", sp, subj, "the outputSchema of tool %s was removed", name)
			continue
		case k.dir == output && !had && has:
			c.add("OUT_SCHEMA_ADDED", "", sp, subj, "tool %s now has an outputSchema", name)
			continue
		case !had && !has:
			continue
		}
		for _, ch := range compareSchemas(ov, lv, k.dir) {
			f := finding(ch.rule, ch.level, c.rev, c.prof, sp+"#"+ch.path, subj, "%s: %s", k.key+pathWords(ch.path), ch.msg)
			f.Category = ch.category
			c.out = append(c.out, f)
		}
	}
}

func pathWords(p string) string {
	if p == "" {
		return ""
	}
	return " at " + p
}

func (c *comparer) annotations(p, subj string, old, live map[string]any) {
	b := func(m map[string]any, k string) bool { v, _ := m[k].(bool); return v }
	ap := p + "/annotations/"
	oro, lro := b(old, "readOnlyHint"), b(live, "readOnlyHint")
	switch {
	case oro && !lro:
		c.add("ANN_READONLY_REVOKED", "", ap+"readOnlyHint", subj, "readOnlyHint went from true to false")
	case !oro && lro:
		c.add("ANN_READONLY_GRANTED", "", ap+"readOnlyHint", subj, "readOnlyHint went from false to true")
	}
	if !oro && !lro {
		switch od, ld := b(old, "destructiveHint"), b(live, "destructiveHint"); {
		case !od && ld:
			c.add("ANN_DESTRUCTIVE_GRANTED", "", ap+"destructiveHint", subj, "destructiveHint went from false to true")
		case od && !ld:
			c.add("ANN_DESTRUCTIVE_REVOKED", "", ap+"destructiveHint", subj, "destructiveHint went from true to false")
		}
		switch oi, li := b(old, "idempotentHint"), b(live, "idempotentHint"); {
		case oi && !li:
			c.add("ANN_IDEMPOTENT_REVOKED", "", ap+"idempotentHint", subj, "idempotentHint went from true to false")
		case !oi && li:
			c.add("ANN_HINT_CHANGED", "", ap+"idempotentHint", subj, "idempotentHint went from false to true")
		}
	} else if oro && lro {
		for _, k := range []string{"destructiveHint", "idempotentHint"} {
			if b(old, k) != b(live, k) {
				c.add("ANN_HINT_CHANGED", "", ap+k, subj, "%s went from %v to %v (it does not apply to a read-only tool)", k, b(old, k), b(live, k))
			}
		}
	}
	switch oo, lo := b(old, "openWorldHint"), b(live, "openWorldHint"); {
	case !oo && lo:
		c.add("ANN_OPEN_WORLD_GRANTED", "", ap+"openWorldHint", subj, "openWorldHint went from false to true")
	case oo && !lo:
		c.add("ANN_HINT_CHANGED", "", ap+"openWorldHint", subj, "openWorldHint went from true to false")
	}
}

// icons: an icon whose scheme or origin is new.
func (c *comparer) icons(p, subj string, old, live map[string]any) {
	origins := func(m map[string]any) []string {
		var out []string
		list, _ := m["icons"].([]any)
		for _, ic := range list {
			out = append(out, origin(str(obj(ic)["src"])))
		}
		return out
	}
	was := origins(old)
	for _, o := range origins(live) {
		if !slices.Contains(was, o) {
			c.add("ICON_ORIGIN_CHANGED", "", p+"/icons", subj, "an icon now comes from %s", o)
		}
	}
}

// origin is a URL's scheme and host ("data:" for data URIs).
func origin(src string) string {
	scheme, rest, ok := strings.Cut(src, ":")
	if !ok {
		return "(relative)"
	}
	if scheme == "data" {
		return "data:"
	}
	rest = strings.TrimPrefix(rest, "//")
	host, _, _ := strings.Cut(rest, "/")
	return scheme + "://" + host
}

func (c *comparer) prompts(old, live map[string]any, incomplete bool) {
	for _, name := range slices.Sorted(maps.Keys(old)) {
		p := "/prompts/" + escapePointer(name)
		lv, ok := live[name]
		if !ok {
			if incomplete {
				continue
			}
			if to, ok := c.renamedTo(name, live); ok {
				c.add("PROMPT_NO_DELETE", WARN, p, "prompt "+name, "prompt %s was renamed to %s (declared in policy.renamed)", name, to)
				lv = live[to]
			} else {
				c.add("PROMPT_NO_DELETE", "", p, "prompt "+name, "prompt %s was removed", name)
				continue
			}
		}
		op, lp := obj(old[name]), obj(lv)
		subj := "prompt " + name
		for _, k := range []string{"title", "description"} {
			if str(op[k]) != str(lp[k]) {
				c.add("PROMPT_DESCRIPTION_CHANGED", "", p+"/"+k, subj, "the %s of prompt %s changed", k, name)
			}
		}
		oa, la := obj(op["arguments"]), obj(lp["arguments"])
		for _, a := range slices.Sorted(maps.Keys(oa)) {
			ap := p + "/arguments/" + escapePointer(a)
			lv, ok := la[a]
			if !ok {
				c.add("PROMPT_ARG_REMOVED", "", ap, subj, "argument %s of prompt %s was removed", a, name)
				continue
			}
			if obj(oa[a])["required"] != true && obj(lv)["required"] == true {
				c.add("PROMPT_ARG_REQUIRED_ADDED", "", ap+"/required", subj, "argument %s of prompt %s became required", a, name)
			}
			for _, k := range []string{"title", "description"} {
				if str(obj(oa[a])[k]) != str(obj(lv)[k]) {
					c.add("PROMPT_DESCRIPTION_CHANGED", "", ap+"/"+k, subj, "the %s of argument %s of prompt %s changed", k, a, name)
				}
			}
		}
		for _, a := range slices.Sorted(maps.Keys(la)) {
			if _, ok := oa[a]; !ok && obj(la[a])["required"] == true {
				c.add("PROMPT_ARG_REQUIRED_ADDED", "", p+"/arguments/"+escapePointer(a), subj, "prompt %s has a new required argument %s", name, a)
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(live)) {
		if _, ok := old[name]; !ok && !slices.Contains(slices.Collect(maps.Values(c.policy.Renamed)), name) {
			c.add("PROMPT_ADDED", "", "/prompts/"+escapePointer(name), "prompt "+name, "prompt %s was added", name)
		}
	}
}

// resources compares resources (keyed by URI) or templates (by URI
// template); prefix names the rules (RESOURCE, TEMPLATE).
func (c *comparer) resources(kind, prefix, what string, old, live map[string]any, incomplete bool) {
	for _, id := range slices.Sorted(maps.Keys(old)) {
		p := "/" + kind + "/" + escapePointer(id)
		subj := what + " " + id
		lv, ok := live[id]
		if !ok {
			if !incomplete {
				c.add(prefix+"_NO_DELETE", "", p, subj, "%s %s was removed", what, id)
			}
			continue
		}
		o, l := obj(old[id]), obj(lv)
		if str(o["mimeType"]) != str(l["mimeType"]) {
			c.add("RESOURCE_MIME_CHANGED", "", p+"/mimeType", subj, "the mimeType of %s %s changed from %q to %q", what, id, str(o["mimeType"]), str(l["mimeType"]))
		}
		for _, k := range []string{"name", "title", "description"} {
			if str(o[k]) != str(l[k]) {
				c.add("RESOURCE_DESCRIPTION_CHANGED", "", p+"/"+k, subj, "the %s of %s %s changed", k, what, id)
			}
		}
	}
	for _, id := range slices.Sorted(maps.Keys(live)) {
		if _, ok := old[id]; !ok {
			c.add(prefix+"_ADDED", "", "/"+kind+"/"+escapePointer(id), what+" "+id, "%s %s was added", what, id)
		}
	}
}
