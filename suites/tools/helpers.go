package tools

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	c "github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/session"
	"github.com/mcpconform/mcpconform/internal/wire"
	"github.com/mcpconform/mcpconform/internal/wire/streamhttp"
)

// tool is one item of tools/list.
type tool struct {
	Raw  json.RawMessage
	Name string
	Obj  map[string]json.RawMessage // nil when the item is not an object
}

func parseTools(items []json.RawMessage) []tool {
	out := make([]tool, 0, len(items))
	for _, it := range items {
		tl := tool{Raw: it, Name: c.ItemKey(it, "name")}
		_ = json.Unmarshal(it, &tl.Obj)
		out = append(out, tl)
	}
	return out
}

// label names a tool in messages.
func (tl tool) label() string {
	if tl.Name == "" {
		return "(a tool without a string name)"
	}
	return fmt.Sprintf("%q", tl.Name)
}

// schema returns the tool's inputSchema or outputSchema member (nil when
// absent).
func (tl tool) schema(member string) json.RawMessage { return tl.Obj[member] }

// listTools walks tools/list on s to the end and returns its tools. The
// check ends as NA when the server does not declare tools (TOOL-002 covers
// that case) or when not even the first page came (TOOL-001 reports it).
// An early stop later on is noted and the tools read so far are judged.
func listTools(t *c.T, s *session.Session) []tool {
	if !c.Declared(s, "tools") {
		t.NA("the server does not declare the tools capability (TOOL-002 checks the undeclared case)")
	}
	w := t.WalkList(s, "tools/list")
	if len(w.Pages) == 0 {
		t.NA("tools/list did not succeed (%s); TOOL-001 reports it", w.Problem)
	}
	if w.Problem != "" {
		t.Note("the tools/list walk stopped early (%s); judging the %d tools of the pages read", w.Problem, len(w.Items))
	}
	return parseTools(w.Items)
}

// candidate is a tool the call policy allows, with arguments for it.
type candidate struct {
	tool
	Args   map[string]any
	Source string // "config" or "derived"
}

// selectCallable returns up to max tools (in list order) that pass want,
// that the call policy allows calling and for which arguments could be
// found; with distinct, only the first such tool of each inputSchema. When
// none qualifies the check ends as NA with the reason (the policy's when it
// excluded any): what names what the check needed.
func selectCallable(t *c.T, tools []tool, want func(tool) bool, distinct bool, max int, what string) []candidate {
	var out []candidate
	var blocked, noArgs []string
	firstWhy := ""
	schemas := map[string]bool{}
	for _, tl := range tools {
		if tl.Obj == nil || tl.Name == "" || (want != nil && !want(tl)) {
			continue
		}
		if ok, why := t.MayCall(tl.Raw); !ok {
			blocked = append(blocked, tl.Name)
			if firstWhy == "" {
				firstWhy = why
			}
			continue
		}
		if key := string(tl.schema("inputSchema")); distinct {
			if schemas[key] {
				continue
			}
			schemas[key] = true
		}
		if len(out) == max {
			t.Note("only the first %d suitable tools were called (the cap of this check)", max)
			break
		}
		args, src, ok := t.PacedArgs(tl.Raw, c.QuickWork)
		if !ok {
			noArgs = append(noArgs, tl.Name)
			continue
		}
		out = append(out, candidate{tool: tl, Args: args, Source: src})
	}
	if len(noArgs) > 0 {
		t.Note("no arguments could be derived from the inputSchema of %s (give sample arguments with --config)", clipList(noArgs))
	}
	if len(out) == 0 {
		if len(blocked) > 0 {
			t.PolicyNA("%d %s(s) not called: %s", len(blocked), what, firstWhy)
		}
		if len(noArgs) > 0 {
			t.NA("no %s could be called: no arguments for %s", what, clipList(noArgs))
		}
		t.NA("the server lists no %s", what)
	}
	return out
}

func clipList(names []string) string {
	if len(names) > 6 {
		return strings.Join(names[:6], ", ") + fmt.Sprintf(" and %d more", len(names)-6)
	}
	return strings.Join(names, ", ")
}

// callParams builds tools/call params.
func callParams(name string, args any) map[string]any {
	return map[string]any{"name": name, "arguments": args}
}

// callOptions adds, for a 2026-07-28 HTTP session, the Mcp-Param-* headers
// the tool's x-mcp-header properties ask for (a well-behaved client sends
// them; a server rejects a call without them).
func callOptions(t *c.T, tl tool, args map[string]any) *session.CallOptions {
	if !t.Modern() || !t.HTTP() {
		return nil
	}
	h := paramHeaders(tl.schema("inputSchema"), args)
	if len(h) == 0 {
		return nil
	}
	return &session.CallOptions{Header: h}
}

// paramHeaders returns Mcp-Param-{Name} for every x-mcp-header property
// (reached through properties) whose argument is a string, an integer or a
// boolean.
func paramHeaders(schema json.RawMessage, args map[string]any) http.Header {
	var root map[string]any
	if json.Unmarshal(schema, &root) != nil {
		return nil
	}
	h := http.Header{}
	var walk func(s map[string]any, vals map[string]any, depth int)
	walk = func(s map[string]any, vals map[string]any, depth int) {
		props, _ := s["properties"].(map[string]any)
		if depth > 16 || props == nil || vals == nil {
			return
		}
		for name, ps := range props {
			sub, _ := ps.(map[string]any)
			v, present := vals[name]
			if sub == nil || !present || v == nil {
				continue
			}
			if hn, ok := sub["x-mcp-header"].(string); ok && hn != "" {
				if enc, ok := headerValue(v); ok {
					h.Set("Mcp-Param-"+hn, enc)
				}
			}
			if m, ok := v.(map[string]any); ok {
				walk(sub, m, depth+1)
			}
		}
	}
	walk(root, args, 0)
	return h
}

func headerValue(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return streamhttp.EncodeHeaderValue(x), true
	case bool:
		return strconv.FormatBool(x), true
	case int:
		return strconv.Itoa(x), true
	case int64:
		return strconv.FormatInt(x, 10), true
	case float64:
		if x == math.Trunc(x) && math.Abs(x) <= 1<<53-1 {
			return strconv.FormatInt(int64(x), 10), true
		}
	case json.Number:
		if _, err := x.Int64(); err == nil {
			return x.String(), true
		}
	}
	return "", false
}

// outcome is the answer to one tools/call of a candidate.
type outcome struct {
	cand    candidate
	resp    *session.Response
	res     map[string]json.RawMessage // nil when the result is not an object
	isError bool
}

// callBudget bounds the time a check spends calling real tools.
const callBudget = 20 * time.Second

// slowTools remembers, per run, revision and transport, the tools whose
// call with ordinary arguments timed out, so that the next check does not
// wait for them again (a long-running tool would cost every check its
// timeout).
type slowTools struct {
	mu sync.Mutex
	m  map[string]bool
}

var slowSets = c.NewMemo[*slowTools]("the set of slow tools")

// slow returns the run's set for t's revision and transport.
func slow(t *c.T) *slowTools {
	return slowSets.Get(t, func() *slowTools { return &slowTools{m: map[string]bool{}} })
}

func (st *slowTools) has(name string) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.m[name]
}

func (st *slowTools) add(name string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.m[name] = true
}

// callAll calls each candidate with its arguments and returns the complete
// results. A JSON-RPC error, a slow tool and an input_required result are
// noted and left out (other checks judge them); a server that goes away is
// a crash.
func callAll(t *c.T, s *session.Session, cands []candidate) []outcome {
	var out []outcome
	start := time.Now()
	for i, cd := range cands {
		if time.Since(start) > callBudget {
			t.Note("stopped after %d of %d calls: the calls took longer than %s", i, len(cands), callBudget)
			break
		}
		if slow(t).has(cd.Name) {
			t.Note("tools/call %s was not repeated: it got no response within the timeout in an earlier check of this revision", cd.Name)
			continue
		}
		t.Step("tools/call " + cd.Name)
		resp, err := t.TryCall(s, "tools/call", callParams(cd.Name, cd.Args), callOptions(t, cd.tool, cd.Args))
		if err != nil {
			if closed, cerr := s.Closed(); closed || errors.Is(err, wire.ErrClosed) {
				t.Crashed("a response to tools/call "+cd.Name, fmt.Sprintf("the connection ended (%v)", cerr),
					"the server went away while handling tools/call %s with %s arguments", cd.Name, cd.Source)
			}
			if errors.Is(err, wire.ErrTimeout) {
				slow(t).add(cd.Name)
			}
			t.Note("tools/call %s (%s arguments) got no JSON-RPC response (%v); not judged here", cd.Name, cd.Source, err)
			continue
		}
		if !resp.IsResult() {
			code, _ := resp.ErrorCode()
			t.Note("tools/call %s (%s arguments) got JSON-RPC error %d; not judged here", cd.Name, cd.Source, code)
			continue
		}
		res := resp.Msg.ResultObject()
		if t.Modern() && res != nil && string(res["resultType"]) == `"input_required"` {
			t.Note("tools/call %s asked for more input (input_required); not judged here", cd.Name)
			continue
		}
		out = append(out, outcome{cand: cd, resp: resp, res: res, isError: string(res["isError"]) == "true"})
	}
	return out
}

// blocks returns the content blocks of a result (nil when content is not an
// array of objects).
func blocks(res map[string]json.RawMessage) []map[string]json.RawMessage {
	var out []map[string]json.RawMessage
	if json.Unmarshal(res["content"], &out) != nil {
		return nil
	}
	return out
}

func str(raw json.RawMessage) (string, bool) {
	var s string
	if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// problems collects findings and reports them in one violation.
type problems []string

func (p *problems) add(format string, args ...any) { *p = append(*p, fmt.Sprintf(format, args...)) }

// report ends the check with one violation listing every finding.
func (p problems) report(t *c.T, expected, format string, args ...any) {
	if len(p) == 0 {
		return
	}
	shown := p
	if len(shown) > 8 {
		shown = append(append(problems{}, shown[:8]...), fmt.Sprintf("… and %d more", len(p)-8))
	}
	t.Violation(expected, strings.Join(shown, "; "), format, args...)
}

// sortedKeys returns the keys of m in order.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
