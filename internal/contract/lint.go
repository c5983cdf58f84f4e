package contract

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/mcpconform/mcpconform/internal/catalog"
	"github.com/mcpconform/mcpconform/internal/inspect"
	"github.com/mcpconform/mcpconform/internal/target"
	"github.com/mcpconform/mcpconform/internal/textlint"
)

// stability probes the newest revision's surface: a second listing of
// each list on the same session (LINT_UNSTABLE_LIST), and the surface a
// session with another client name gets (LINT_CLIENT_ID_VARIANCE).
func stability(ctx context.Context, tg *target.Target, in *inspect.Inspection, o Options) []Finding {
	rev := string(in.Revision)
	var out []Finding
	lists := []struct {
		method, key string
		first       []json.RawMessage
		kind        string
	}{
		{"tools/list", "tools", in.Tools, "tools"},
		{"prompts/list", "prompts", in.Prompts, "prompts"},
		{"resources/templates/list", "resourceTemplates", in.ResourceTemplates, "resourceTemplates"},
	}
	caps := obj(tree(in.Capabilities))
	for _, l := range lists {
		if !declaredFor(caps, l.kind) {
			continue
		}
		again := in.Relist(ctx, l.method, l.key)
		a, b := canonList(l.first), canonList(again)
		switch {
		case !slices.Equal(sortedCopy(a), sortedCopy(b)):
			out = append(out, finding("LINT_UNSTABLE_LIST", ERR, rev, "default", "/"+l.kind, l.method,
				"two %s listings on one session differ (%d items, then %d)", l.method, len(a), len(b)))
		case !slices.Equal(a, b) && !catalog.Revision(rev).IsLegacy():
			out = append(out, finding("LINT_UNSTABLE_LIST", WARN, rev, "default", "/"+l.kind, l.method,
				"two %s listings on one session list the same items in another order (2026-07-28: servers SHOULD return them in a deterministic order)", l.method))
		}
	}
	// a session of the harness's own name (the control) and one of
	// another name, side by side: the surface differs with the client's
	// name only when the control gets the first session's surface
	var control, alt map[string]any
	var wg sync.WaitGroup
	for _, p := range []struct {
		name string
		dst  *map[string]any
	}{{"", &control}, {altClient, &alt}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			*p.dst = surfaceAs(ctx, tg, in, o, p.name)
		}()
	}
	wg.Wait()
	mine, _ := section(in)
	differ := func(a, b map[string]any) []string {
		var d []string
		for _, k := range slices.Sorted(maps.Keys(a)) {
			if k != "server" && canonical(a[k]) != canonical(b[k]) {
				d = append(d, k)
			}
		}
		return d
	}
	switch {
	case control != nil && len(differ(mine, control)) > 0:
		out = append(out, finding("LINT_UNSTABLE_LIST", WARN, rev, "default", "", "surface",
			"two connections of the same client are given different %s (whether the client's name matters cannot be told)", strings.Join(differ(mine, control), ", ")))
	case control != nil && alt != nil && len(differ(mine, alt)) > 0:
		out = append(out, finding("LINT_CLIENT_ID_VARIANCE", "", rev, "default", "", "surface",
			"a client named %q is given other %s than mcpconform's (a second connection of mcpconform's gets the same as the first)", altClient, strings.Join(differ(mine, alt), ", ")))
	}
	return merge(out)
}

// surfaceAs is the surface a new session of in's revision gets when its
// client introduces itself as client ("": the harness's own name); nil
// when the session could not be opened.
func surfaceAs(ctx context.Context, tg *target.Target, in *inspect.Inspection, o Options, client string) map[string]any {
	s, err := open(ctx, tg, in.Revision, "default", o, client)
	if err != nil {
		return nil
	}
	other, err := inspect.Inspect(ctx, inspect.Options{Target: tg, Session: s, MaxPages: o.MaxPages, Policy: "none"})
	if err != nil {
		s.Close()
		return nil
	}
	defer other.Close()
	sec, _ := section(other)
	return sec
}

func canonList(items []json.RawMessage) []string {
	var out []string
	for _, it := range items {
		out = append(out, canonical(tree(it)))
	}
	return out
}

func sortedCopy(s []string) []string {
	c := slices.Clone(s)
	slices.Sort(c)
	return c
}

// Lint lints the text a model reads in every section of the file (each
// hit once, with the revisions it is on) and adds the stability findings
// the snapshot made. Overrides of the file's policy (or of the contract
// given) apply.
func Lint(f *File, p Policy) []Finding {
	var raw []Finding
	for _, rev := range slices.SortedFunc(maps.Keys(f.Sections), revisionOrder) {
		for _, prof := range slices.SortedFunc(maps.Keys(f.Sections[rev]), profileOrder) {
			raw = append(raw, lintSection(rev, prof, f.Sections[rev][prof])...)
		}
	}
	raw = append(raw, f.Stability...)
	return p.apply(merge(raw))
}

func lintSection(rev, prof string, sec map[string]any) []Finding {
	var out []Finding
	add := func(path, subject string, tf textlint.Finding) {
		r := ruleByID[tf.Rule]
		out = append(out, Finding{Rule: tf.Rule, Level: tf.Level, Category: r.Category, Revisions: []string{rev}, Profile: prof,
			Path: path, Subject: subject, Message: fmt.Sprintf("%s: %s (%s)", tf.Where, tf.Detail, tf.Excerpt), Why: r.Why})
	}
	server := obj(sec["server"])
	for _, k := range []string{"instructions", "title", "description"} {
		for _, tf := range textlint.Lint("server."+k, str(server[k])) {
			add("/server/"+k, "server", tf)
		}
	}
	tools := obj(sec["tools"])
	for _, name := range slices.Sorted(maps.Keys(tools)) {
		t := obj(tools[name])
		schema, _ := json.Marshal(t["inputSchema"])
		for _, tf := range textlint.LintTools([]textlint.Tool{{Name: name, Title: str(t["title"]), Description: str(t["description"]), InputSchema: schema}}) {
			add("/tools/"+escapePointer(name), "tool "+name, tf)
		}
	}
	prompts := obj(sec["prompts"])
	for _, name := range slices.Sorted(maps.Keys(prompts)) {
		pr := obj(prompts[name])
		texts := map[string]string{"name": name, "title": str(pr["title"]), "description": str(pr["description"])}
		args := obj(pr["arguments"])
		for _, a := range slices.Sorted(maps.Keys(args)) {
			texts["arguments."+a+".description"] = str(obj(args[a])["description"])
			texts["arguments."+a+".name"] = a
		}
		for _, k := range slices.Sorted(maps.Keys(texts)) {
			for _, tf := range textlint.Lint(fmt.Sprintf("prompts[%s].%s", name, k), texts[k]) {
				add("/prompts/"+escapePointer(name), "prompt "+name, tf)
			}
		}
	}
	for _, kind := range []string{"resourceTemplates", "resources"} {
		items := obj(sec[kind])
		for _, id := range slices.Sorted(maps.Keys(items)) {
			it := obj(items[id])
			for _, k := range []string{"name", "title", "description"} {
				for _, tf := range textlint.Lint(fmt.Sprintf("%s[%s].%s", kind, id, k), str(it[k])) {
					add("/"+kind+"/"+escapePointer(id), kind+" "+id, tf)
				}
			}
		}
	}
	return out
}
