package staleness

import (
	"encoding/json"
	"fmt"
	"strings"

	c "github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/jsonrpc"
	"github.com/mcpconform/mcpconform/internal/session"
	"github.com/mcpconform/mcpconform/internal/toolschema"
)

// maxProbes caps the calls one check makes per list.
const maxProbes = 3

var _ = c.Area("staleness", func() {
	c.It("STALE-001", "a case variant of a listed tool or prompt name is an unknown name", func(t *c.T) {
		s := t.Shared()
		tested, blocked := 0, 0
		toolServed, toolCode := false, phantomCode{}
		if c.Declared(s, "tools") {
			toolServed, toolCode = phantom(t, s, "tools/call")
		}
		if c.Declared(s, "tools") && !toolServed {
			w := t.WalkList(s, "tools/list")
			if !w.Complete() {
				t.Note("tools/list could not be walked (%s); tools are left out", w.Problem)
			} else {
				names := map[string]json.RawMessage{}
				for i, k := range w.Keys() {
					names[k] = w.Items[i]
				}
				for _, tool := range w.Items {
					name := c.ItemKey(tool, "name")
					variant := caseVariant(name, names)
					if variant == "" {
						continue
					}
					// A server that matched names without case would run
					// the tool: only tools the call policy allows.
					if ok, _ := t.MayCall(tool); !ok {
						blocked++
						continue
					}
					args, _, ok := t.PacedArgs(tool, c.QuickWork)
					if !ok {
						args = map[string]any{}
					}
					t.Step("tools/call " + variant)
					resp := t.Call(s, "tools/call", map[string]any{"name": variant, "arguments": args}, nil)
					expectUnknown(t, resp, fmt.Sprintf("tools/call %q (the listed tool is %q)", variant, name), toolCode, "TOOL-010")
					tested++
					break
				}
			}
		}
		promptServed, promptCode := false, phantomCode{}
		if c.Declared(s, "prompts") {
			promptServed, promptCode = phantom(t, s, "prompts/get")
		}
		if c.Declared(s, "prompts") && !promptServed {
			w := t.WalkList(s, "prompts/list")
			if !w.Complete() {
				t.Note("prompts/list could not be walked (%s); prompts are left out", w.Problem)
			} else {
				names := map[string]json.RawMessage{}
				for i, k := range w.Keys() {
					names[k] = w.Items[i]
				}
				for _, p := range w.Items {
					name := c.ItemKey(p, "name")
					variant := caseVariant(name, names)
					if variant == "" {
						continue
					}
					t.Step("prompts/get " + variant)
					resp := t.Call(s, "prompts/get", map[string]any{"name": variant, "arguments": c.RequiredPromptArgs(p)}, nil)
					expectUnknown(t, resp, fmt.Sprintf("prompts/get %q (the listed prompt is %q)", variant, name), promptCode, "PRM-003")
					tested++
					break
				}
			}
		}
		if tested == 0 {
			if blocked > 0 {
				t.PolicyNA("no listed tool may be called (a server that ignored the case would run it), and no prompt has a name with letters")
			}
			t.NA("the server lists no tool or prompt whose name has letters")
		}
	})

	c.It("STALE-002", "a catalog change is announced with list_changed where listChanged is declared", func(t *c.T) {
		tr := t.NeedTrigger()
		s := t.Open()
		var announced []struct{ capability, method, notification string }
		for _, k := range kinds {
			if c.SubCapability(s, k.capability, "listChanged") {
				announced = append(announced, k)
			}
		}
		if len(announced) == 0 {
			t.NA("the server declares listChanged for none of tools, prompts, resources")
		}
		stop, stream := openGetStream(t, s)
		defer stop()
		before := takeSnapshot(t, s, false)
		mark := t.Mark()
		t.FireTrigger(s, tr)
		defer t.RestoreCatalog(s, tr)
		after := takeSnapshot(t, s, false)
		judged := 0
		for _, k := range announced {
			if !differs(before, after, k.method) {
				continue
			}
			judged++
			t.Step("waiting for " + k.notification)
			got := waitNotification(t, s, mark, k.notification)
			if !got && !stream {
				t.NA("no %s on a request stream, and the server offers no GET stream on which it could announce the change", k.notification)
			}
			t.Check(got, k.notification+" after the change",
				"no such notification within "+s.Timeout().String(),
				"%s changed (%s → %s) and %s.listChanged is declared, but the server did not announce it",
				k.method, describeKeys(before.keys(k.method)), describeKeys(after.keys(k.method)), k.capability)
		}
		if judged == 0 {
			t.NA("the catalog_change trigger (%s) changed no list whose listChanged is declared", tr.Describe())
		}
	})

	c.It("STALE-003", "no list_changed for a list whose listChanged is not declared", func(t *c.T) {
		s := t.Shared()
		// lists whose capability is declared without listChanged (a list
		// served without its capability at all is judged by the tools,
		// prompts and resources checks: one fault at a time)
		var undeclared []string
		for _, k := range kinds {
			if c.Declared(s, k.capability) && !c.SubCapability(s, k.capability, "listChanged") {
				undeclared = append(undeclared, k.notification)
			}
		}
		if len(undeclared) == 0 {
			t.NA("every declared list (tools, prompts, resources) declares listChanged")
		}
		s = t.Open() // its own connection: the change is announced there
		if t.Modern() {
			// a listen stream that asks for every list: the server must
			// leave out (and never send) what it did not declare
			stop := listenAll(t, s)
			defer stop()
		} else {
			stop, _ := openGetStream(t, s)
			defer stop()
		}
		mark := t.Mark()
		if tr := c.CatalogTrigger(); tr != nil {
			takeSnapshot(t, s, false)
			t.FireTrigger(s, tr)
			defer t.RestoreCatalog(s, tr)
			takeSnapshot(t, s, false)
		} else {
			t.Note("%s; only the connection's quiet traffic was watched", c.TriggerKeyHelp)
		}
		settle(t, s)
		for _, e := range s.Events(mark) {
			for _, n := range undeclared {
				if isNotification(e, n) {
					t.Violation("no "+n+" (its list's listChanged is not declared)", c.Clip(e.Frame.Raw),
						"the server sent %s without declaring listChanged for that list", n)
				}
			}
		}
	})

	c.It("STALE-004", "a removed tool, prompt or resource is rejected as unknown", func(t *c.T) {
		tr := t.NeedTrigger()
		s := t.Open()
		before := takeSnapshot(t, s, false)
		t.FireTrigger(s, tr)
		defer t.RestoreCatalog(s, tr)
		after := takeSnapshot(t, s, false)
		tools, prompts, resources := removed(before, after, "tools/list"), removed(before, after, "prompts/list"), removed(before, after, "resources/list")
		if len(tools)+len(prompts)+len(resources) == 0 {
			t.NA("the catalog_change trigger (%s) removed no tool, prompt or resource", tr.Describe())
		}
		tested, blocked := 0, 0
		if len(tools) > 0 && servesPhantom(t, s, "tools/call") {
			tools = nil
		}
		if len(prompts) > 0 && servesPhantom(t, s, "prompts/get") {
			prompts = nil
		}
		if len(resources) > 0 && servesPhantom(t, s, "resources/read") {
			resources = nil
		}
		for i, name := range tools {
			if i == maxProbes {
				break
			}
			tool := before["tools/list"][name]
			if ok, _ := t.MayCall(tool); !ok {
				blocked++ // a server that kept it would run it
				continue
			}
			args, _, ok := t.PacedArgs(tool, c.QuickWork)
			if !ok {
				args = map[string]any{}
			}
			resp := t.Call(s, "tools/call", map[string]any{"name": name, "arguments": args}, nil)
			expectRejected(t, resp, fmt.Sprintf("tools/call of the removed tool %q", name))
			tested++
		}
		for i, name := range prompts {
			if i == maxProbes {
				break
			}
			resp := t.Call(s, "prompts/get", map[string]any{"name": name, "arguments": c.RequiredPromptArgs(before["prompts/list"][name])}, nil)
			expectRejected(t, resp, fmt.Sprintf("prompts/get of the removed prompt %q", name))
			tested++
		}
		for i, uri := range resources {
			if i == maxProbes {
				break
			}
			resp := t.Call(s, "resources/read", map[string]any{"uri": uri}, nil)
			expectRejected(t, resp, fmt.Sprintf("resources/read of the removed resource %q", uri))
			tested++
		}
		if tested == 0 && blocked > 0 {
			t.PolicyNA("the removed tools may not be called (%s)", strings.Join(tools, ", "))
		}
		if tested == 0 {
			t.NA("the server serves made-up names too (see the notes); removed items cannot be told apart")
		}
	})

	c.It("STALE-005", "arguments shaped for a replaced input schema are rejected", func(t *c.T) {
		tr := t.NeedTrigger()
		s := t.Open()
		if !c.Declared(s, "tools") {
			t.NA("the server declares no tools")
		}
		before := takeSnapshot(t, s, false)
		t.FireTrigger(s, tr)
		defer t.RestoreCatalog(s, tr)
		after := takeSnapshot(t, s, false)
		tested, replaced, blocked := 0, 0, 0
		for _, name := range before.keys("tools/list") {
			old, now := before["tools/list"][name], after["tools/list"][name]
			if now == nil || sameJSON(field(old, "inputSchema"), field(now, "inputSchema")) {
				continue
			}
			replaced++
			args, err := c.DeriveArgs(field(old, "inputSchema"))
			if err != nil {
				t.Note("%s: no arguments could be derived from the old inputSchema (%v)", name, err)
				continue
			}
			sch, err := toolschema.Compile(field(now, "inputSchema"))
			if err != nil {
				t.Note("%s: the new inputSchema does not compile (%v); judged by the tools checks", name, err)
				continue
			}
			if toolschema.Validate(sch, args) == nil {
				t.Note("%s: the arguments derived from the old inputSchema also fit the new one", name)
				continue
			}
			if ok, _ := t.MayCall(now); !ok {
				blocked++
				continue
			}
			if tested == maxProbes {
				break
			}
			if servesInvalid(t, s, name, field(now, "inputSchema")) {
				continue
			}
			t.Step("tools/call " + name + " with arguments for its old schema")
			resp := t.Call(s, "tools/call", map[string]any{"name": name, "arguments": args}, nil)
			what := fmt.Sprintf("tools/call %s with %s (valid for its old inputSchema only)", name, c.Clip(mustJSON(args)))
			switch {
			case resp.IsError():
				if code, _ := resp.ErrorCode(); code == jsonrpc.CodeInvalidParams {
					t.Warn("%s got -32602; tools report input validation errors as isError results (SEP-1303, TOL-3)", what)
				} else {
					t.Note("%s was rejected with a JSON-RPC error: %s", what, resp.Describe())
				}
			case resp.IsResult():
				var res struct {
					IsError bool `json:"isError"`
				}
				_ = resp.Result(&res)
				t.Check(res.IsError, "an isError result or a JSON-RPC error (the arguments do not fit the current inputSchema)",
					resp.Describe(), "%s succeeded: the server did not validate the arguments against the tool's current schema", what)
			default:
				t.Violation("a response", resp.Describe(), "%s: no usable response", what)
			}
			tested++
		}
		switch {
		case replaced == 0:
			t.NA("the catalog_change trigger (%s) replaced no tool's inputSchema", tr.Describe())
		case tested == 0 && blocked > 0:
			t.PolicyNA("the tools whose schema changed may not be called")
		case tested == 0:
			t.NA("no replaced inputSchema rejects the arguments derived from the old one, or the server does not validate arguments at all (see the notes)")
		}
	})

	c.It("STALE-006", "discovery gives the same sets on consecutive walks and on a second connection", func(t *c.T) {
		s := t.Shared()
		mark := t.Mark()
		first := takeSnapshot(t, s, true)
		if len(first) == 0 {
			t.NA("the server declares no list that could be walked")
		}
		again := takeSnapshot(t, s, true)
		// The second connection: in legacy revisions the first contact's
		// (T.FirstContact), which walked every declared list of a
		// connection of its own, unless a check changed the catalog since;
		// else one opened now.
		var second snapshot
		var events []session.Event
		var ct *c.Contact
		if !t.Modern() {
			ct = t.FirstContact()
		}
		if ct == nil || !ct.Current(t) {
			other := t.Open()
			second = takeSnapshot(t, other, true)
			events = append(s.Events(mark), other.Events(mark)...)
		} else {
			second = snapshot{}
			for m, w := range ct.Walks {
				second.add(t, m, w)
			}
			events = append(s.Events(min(mark, ct.Start)), ct.Events(ct.Start, ct.End)...)
		}
		changed := map[string]bool{}
		for _, e := range events {
			if e.Msg != nil && strings.HasSuffix(e.Msg.Method, "/list_changed") {
				changed[strings.TrimSuffix(strings.TrimPrefix(e.Msg.Method, "notifications/"), "/list_changed")] = true
			}
		}
		for _, m := range []string{"tools/list", "prompts/list", "resources/list", "resources/templates/list"} {
			if _, ok := first[m]; !ok {
				continue
			}
			if changed[strings.Split(m, "/")[0]] {
				t.Note("%s: the server announced a change during the walks; not compared", m)
				continue
			}
			a := first.keys(m)
			if b, ok := again[m]; ok {
				t.Check(sameKeys(a, again.keys(m)), m+": the same set on two consecutive walks",
					describeKeys(a)+" then "+describeKeys(again.keys(m)), "%s gave different sets on consecutive walks of one connection", m)
				_ = b
			}
			if _, ok := second[m]; ok {
				t.Check(sameKeys(a, second.keys(m)), m+": the same set on a second connection",
					describeKeys(a)+" vs "+describeKeys(second.keys(m)), "%s differs between two connections with the same credentials", m)
			}
		}
	})
})

// expectUnknown judges the answer to a request naming something not in the
// catalog: a JSON-RPC error (-32602 expected), never a result.
// expectUnknown judges the answer to a case variant of a listed name: a
// result breaks STALE-001; an error code other than -32602 is STALE-001's
// WARN only when a made-up name (phantom) got another code: the code the
// server gives every unknown name is owner's deviation (TOOL-010, PRM-003),
// judged there once.
func expectUnknown(t *c.T, resp *session.Response, what string, phantom phantomCode, owner string) {
	if resp.IsResult() {
		t.Refused(resp, "a JSON-RPC error (-32602): names are case-sensitive and this one is not listed", resp.Describe(),
			"%s was served: the server matched a name that is not in its catalog", what)
	}
	code, ok := resp.ErrorCode()
	if !ok {
		t.Refused(resp, "a JSON-RPC error", resp.Describe(), "%s: no JSON-RPC error", what)
	}
	switch {
	case code == jsonrpc.CodeInvalidParams:
	case phantom.ok && phantom.code == code:
		t.Note("%s got error %d, as a made-up name does: the code of an unknown name is judged under %s", what, code, owner)
	default:
		t.Warn("%s got error %d; an unknown name is expected to get -32602", what, code)
	}
}

// expectRejected judges a request naming a removed item: any JSON-RPC
// error (the code is judged by the tools, prompts and resources checks).
func expectRejected(t *c.T, resp *session.Response, what string) {
	if resp.IsResult() {
		t.Refused(resp, "a JSON-RPC error (the item is no longer in the catalog)", resp.Describe(), "%s was served after its removal", what)
	}
	if !resp.IsError() {
		t.Refused(resp, "a JSON-RPC error", resp.Describe(), "%s: no JSON-RPC error", what)
	}
}

func sameKeys(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}
