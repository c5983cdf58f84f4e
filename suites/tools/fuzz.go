package tools

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	c "github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/judge"
	"github.com/mcpconform/mcpconform/internal/session"
	"github.com/mcpconform/mcpconform/internal/wire"
)

// Bounds of TOOL-014: a handful of cases for a few tools with distinct
// input schemas; one very large string per run.
const (
	maxFuzzTools = 5
	hugeString   = 1 << 20
	nestDepth    = 200
)

// Hostile strings. They are harmless if a server does interpret them: the
// path leads nowhere, the shell and template pieces only echo or compute,
// the SQL is a read-only tautology.
const (
	traversal = "../../../../../../../../../mcpconform-does-not-exist/..%2f..%2f/\\..\\..\\"
	injection = "' OR '1'='1' -- \"; $(echo mcpconform) `echo mcpconform` | echo mcpconform {{7*7}} ${7*7} <script>mcpconform</script> \u0000 %00 \u202e"
)

func fuzzChecks() {
	c.It("TOOL-014", "fuzzed tool arguments never crash or hang the server and always get a well-formed response", func(t *c.T) {
		tools := listTools(t, t.Shared())
		cands := selectCallable(t, tools, nil, true, maxFuzzTools, "tool")
		s := t.Open() // a crash must not take the shared session with it
		var bad problems
		executed := 0
		sent := 0
		deepDropped := false // the JSON reader dropped a deeply nested call unparsed
		for i, cd := range cands {
			sch, _ := compileSchema(cd.schema("inputSchema"))
		cases:
			for _, fc := range fuzzCases(cd, i == 0) {
				if fc.deep && deepDropped {
					continue // the reader's depth limit is no tool's: one timeout shows it
				}
				what := fmt.Sprintf("tools/call %s with %s", cd.Name, fc.what)
				t.Step(what)
				sent++
				opts := callOptions(t, cd.tool, fc.args)
				wait := s.Timeout()
				if fc.big {
					wait = max(wait, bigWait)
					if opts == nil {
						opts = &session.CallOptions{}
					}
					opts.Timeout = wait
				}
				resp, err := t.TryCall(s, "tools/call", callParams(cd.Name, fc.args), opts)
				if err != nil {
					switch closed, cerr := s.Closed(); {
					case closed || errors.Is(err, wire.ErrClosed):
						t.Crashed("a JSON-RPC response (an isError result or an error)", fmt.Sprintf("the connection ended (%v)", cerr), "the server went away after %s", what)
					case errors.Is(err, wire.ErrTimeout):
						// Silence is not a crash: ask the server whether it is alive.
						alive := aliveNow(t, s)
						if alive && fc.deep {
							t.Note("%s got no answer while the server kept answering: the message was dropped unparsed (a JSON reader's depth limit); RPC-005 judges dropped input at the parser's limits; the other tools were not sent the nested case, which never reaches a tool", what)
							deepDropped = true
							continue
						}
						if alive {
							// a tool that stalls on its ordinary arguments too
							// is slow at its own work: the environment
							if why, stalled := t.ToolStall(s, cd.Name, cd.Args, callOptions(t, cd.tool, cd.Args)); stalled {
								t.EnvironmentNote("%s got no answer: %s; its other cases were not sent", what, why)
								break cases
							}
							t.Violation("a JSON-RPC response within "+wait.String(), "silence, while the server answered a ping sent after it",
								"the server hangs on %s", what)
						}
						t.Crashed("a JSON-RPC response within "+wait.String(), "silence, and no answer to a ping sent after it", "the server stopped answering after %s", what)
					case errors.Is(err, session.ErrNoResponse):
						if m, ok := c.ErrorAnswer(resp); ok {
							// a well-formed error the session could not match:
							// "id": null (or none) where the server could not
							// read the id (a body refused at its size limit)
							t.Note("%s was answered (HTTP %d) with %s whose id is null or absent: the server could not read the request's id (TOL-14); a well-formed answer", what, resp.Status(), judge.DescribeError(m))
							continue
						}
						if st := resp.Status(); st >= 400 && st < 500 {
							t.Note("%s was rejected with HTTP %d without a JSON-RPC body", what, st)
						} else if fc.deep && st >= 500 && aliveNow(t, s) {
							t.Note("%s got HTTP %d without a JSON-RPC body while the server kept answering (a JSON reader's depth limit); RPC-005 judges dropped input at the parser's limits", what, st)
						} else {
							bad.add("%s: no JSON-RPC response (%s)", what, resp.Describe())
						}
						continue
					}
					t.Error("%s: %v", what, err)
				}
				if why := malformed(resp); why != "" {
					bad.add("%s: %s: %s", what, why, c.Clip(resp.Msg.Raw))
					continue
				}
				if st := resp.Status(); st >= 500 {
					t.Note("%s was answered with HTTP %d", what, st)
				}
				if res := resp.Msg.ResultObject(); resp.IsResult() && string(res["isError"]) != "true" && sch != nil && validate(sch, fc.args) != nil {
					executed++
				}
			}
		}
		t.ExpectAlive(s, "the fuzzed tool calls")
		if executed > 0 {
			t.Note("%d calls with arguments that break the inputSchema got a result without isError (TOOL-012 judges input validation)", executed)
		}
		bad.report(t, "a well-formed JSON-RPC response to every call: an isError result or an error",
			"%d of %d fuzzed calls got a malformed answer", len(bad), sent)
	})
}

// malformed says why a response is not a well-formed answer ("" when it is).
func malformed(resp *session.Response) string {
	m := resp.Msg
	switch {
	case m.HasResult && m.HasError:
		return "both result and error"
	case m.HasError:
		if m.Error == nil || !m.Error.CodeIsInt || !m.Error.MessageIsString {
			return "an error without an integer code and a string message"
		}
	case m.ResultObject() == nil:
		return "a result that is not an object"
	}
	return ""
}

type fuzzCase struct {
	what string
	args map[string]any
	big  bool // megabytes: the server gets at least bigWait to answer
	// deep: nested beyond the depth some JSON readers stop at (64): a
	// server may drop the whole message unparsed, which RPC-005 judges
	// (input at the parser's limits), not TOOL-014.
	deep bool
}

// bigWait is the least time a server gets to answer a call of megabytes (a
// loaded machine parses slowly; the per-response timeout applies when it is
// longer).
const bigWait = 10 * time.Second

// fuzzCases derives hostile arguments from a tool's schema and its valid
// arguments. Properties carrying x-mcp-header keep their valid values (their
// values also travel in HTTP headers, where size limits apply first).
func fuzzCases(cd candidate, huge bool) []fuzzCase {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	_ = json.Unmarshal(cd.schema("inputSchema"), &s)
	var props, strs []string
	types := map[string]string{}
	for name, raw := range s.Properties {
		var p map[string]json.RawMessage
		if json.Unmarshal(raw, &p) != nil {
			continue
		}
		if _, hdr := p["x-mcp-header"]; hdr {
			continue
		}
		props = append(props, name)
		types[name] = firstType(p["type"])
		if types[name] == "string" {
			strs = append(strs, name)
		}
	}
	sort.Strings(props)
	sort.Strings(strs)
	const extra = "mcpconform_fuzz"
	if len(props) == 0 {
		props = []string{extra}
	}
	if len(strs) == 0 {
		strs = []string{props[0]}
	}
	with := func(names []string, v func(string) any) map[string]any {
		a := cloneArgs(cd.Args)
		for _, n := range names {
			a[n] = v(n)
		}
		return a
	}
	cases := []fuzzCase{
		{what: "values of the wrong type", args: with(props, func(n string) any {
			if types[n] == "" {
				return []any{nil, true, 1.5}
			}
			return wrongValue(types[n])
		})},
		{what: "path traversal strings", args: with(strs, func(string) any { return traversal })},
		{what: "injection strings", args: with(strs, func(string) any { return injection })},
		{what: fmt.Sprintf("%d levels of nested arrays and objects", nestDepth), args: with(props[:1], func(string) any { return nested(nestDepth) }), deep: true},
	}
	if huge {
		cases = append(cases, fuzzCase{what: fmt.Sprintf("a %d KiB string", hugeString>>10), args: with(strs[:1], func(string) any { return strings.Repeat("A", hugeString) }), big: true})
	}
	return cases
}

// nested returns depth levels of alternating arrays and objects.
func nested(depth int) any {
	var v any = "mcpconform"
	for i := 0; i < depth; i++ {
		if i%2 == 0 {
			v = []any{v}
		} else {
			v = map[string]any{"a": v}
		}
	}
	return v
}

// aliveNow asks the server whether it still answers (the probe request).
func aliveNow(t *c.T, s *session.Session) bool {
	m, p := t.Probe()
	resp, err := t.TryCall(s, m, p, nil)
	return err == nil && resp != nil && resp.Msg != nil
}
