package tasks

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"

	c "github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/jsonrpc"
	"github.com/mcpconform/mcpconform/internal/session"
)

// 2026-07-28: the io.modelcontextprotocol/tasks extension (TASK-006…012).
// The server alone decides per request whether a tools/call becomes a task,
// so the checks look for a callable tool whose call, from a request that
// declares the extension, is answered with resultType "task" (found once
// per revision and transport), and then create their own tasks with it.

// withExt returns the session's modern _meta with clientCapabilities set to
// caps.
func withCaps(s *session.Session, caps map[string]any) *session.CallOptions {
	meta := s.ModernMeta()
	meta[session.MetaClientCapabilities] = caps
	return &session.CallOptions{Meta: meta}
}

func ext(s *session.Session) *session.CallOptions {
	return withCaps(s, map[string]any{"extensions": map[string]any{TaskExt: map[string]any{}}})
}

func noExt(s *session.Session) *session.CallOptions { return withCaps(s, map[string]any{}) }

// extDeclared reports whether server/discover declared the extension.
func extDeclared(s *session.Session) bool {
	e := obj(s.Capabilities()["extensions"])
	_, ok := e[TaskExt]
	return ok
}

// modernSession returns the shared session, or NA when the server does not
// declare the extension.
func modernSession(t *c.T) *session.Session {
	s := t.Shared()
	if !extDeclared(s) {
		t.NA("the server does not declare the %s extension (server/discover capabilities.extensions)", TaskExt)
	}
	return s
}

func toolCall(tool *taskTool) map[string]any {
	return map[string]any{"name": tool.name, "arguments": tool.args}
}

// findModern returns a tool whose call became a task, or NA.
func findModern(t *c.T, s *session.Session) *taskTool {
	f := lookModern(t, s)
	if f.tool == nil {
		notFound(t, f)
	}
	return f.tool
}

// lookModern looks for a tool whose call, declaring the extension, becomes
// a task (once per revision and transport).
func lookModern(t *c.T, s *session.Session) *found {
	return finds.Get(t, func() *found { return searchModern(t, s) })
}

func searchModern(t *c.T, s *session.Session) *found {
	f := &found{}
	tools, _, refused := callableTools(t, s)
	f.refused = refused
	start := time.Now()
	tried := 0
	for _, tool := range tools {
		if tried == maxFinderCalls || time.Since(start) > finderBudget {
			break
		}
		tried++
		resp, err := t.TryCall(s, "tools/call", toolCall(tool), ext(s))
		if err == nil && resp.IsResult() && c.ResultType(resp.Msg.ResultObject()) == "task" {
			f.tool = tool
			break
		}
	}
	if f.tool == nil {
		if len(tools) == 0 {
			f.why = "there is no callable tool to run as a task"
		} else {
			f.why = fmt.Sprintf("none of %d tool call(s) declaring the %s extension was answered with a task (the server decides per request); nothing to judge", tried, TaskExt)
		}
	}
	return f
}

// createModern calls the task tool declaring the extension and returns the
// CreateTaskResult, or NA when the server chose not to create a task this
// time.
func createModern(t *c.T, s *session.Session, tool *taskTool) (map[string]json.RawMessage, *session.Response) {
	// A task may be listed to every session (tasks/list): with lanes over
	// HTTP, the checks that create tasks (which are the ones that judge
	// listings) run one at a time; the others go on.
	t.Exclusive(c.TasksLock)
	resp := t.Call(s, "tools/call", toolCall(tool), ext(s))
	if !resp.IsResult() {
		t.NA("the call of %s that created a task before was answered %s this time", tool.name, resp.Describe())
	}
	res := resp.Msg.ResultObject()
	if c.ResultType(res) != "task" {
		t.NA("the call of %s that created a task before was answered without a task this time (the server decides per request)", tool.name)
	}
	id, ok := strOf(res["taskId"])
	if !ok || id == "" {
		t.Violation("a string taskId", c.OrAbsent(res["taskId"]), "the CreateTaskResult of %s has no string taskId", tool.name)
	}
	return res, resp
}

func taskIDOf(res map[string]json.RawMessage) string { s, _ := strOf(res["taskId"]); return s }

// onlyKeys reports members of res other than the allowed ones.
func extraKeys(res map[string]json.RawMessage, allowed ...string) []string {
	var out []string
	for k := range res {
		ok := false
		for _, a := range allowed {
			ok = ok || k == a
		}
		if !ok {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

var _ = c.Area("tasks", func() {
	c.It("TASK-006", `resultType "task" only for requests that declare the tasks extension`, func(t *c.T) {
		s := modernSession(t)
		tool := findModern(t, s)
		for _, v := range []struct {
			what string
			o    *session.CallOptions
		}{
			{"clientCapabilities {}", noExt(s)},
			{`clientCapabilities {"extensions": {}}`, withCaps(s, map[string]any{"extensions": map[string]any{}})},
		} {
			t.Step("tools/call " + tool.name + " with " + v.what)
			resp := t.Call(s, "tools/call", toolCall(tool), v.o)
			if resp.IsResult() && c.ResultType(resp.Msg.ResultObject()) == "task" {
				t.Violation(`a result without resultType "task" (the request does not declare `+TaskExt+`)`, resp.Describe(),
					"%s, called with %s, was answered with a task", tool.name, v.what)
			}
		}
	})

	c.It("TASK-007", "CreateTaskResult is well-formed and the task exists at once", func(t *c.T) {
		s := modernSession(t)
		tool := findModern(t, s)
		res, resp := createModern(t, s, tool)
		raw := resp.Describe()
		if st, _ := strOf(res["status"]); !statuses[st] {
			t.Violation("status: one of working, input_required, completed, failed, cancelled", c.OrAbsent(res["status"]), "the CreateTaskResult has an invalid status")
		}
		for _, k := range []string{"createdAt", "lastUpdatedAt"} {
			v, ok := strOf(res[k])
			if !ok || !isoTime(v) {
				t.Violation(k+": an ISO 8601 date-time string", c.OrAbsent(res[k]), "the CreateTaskResult's %s is not an ISO 8601 date-time: %s", k, raw)
			}
		}
		ttl, ok := res["ttlMs"]
		if !ok || !(isNull(ttl) || isInteger(ttl)) {
			t.Violation("ttlMs: an integer or null", c.OrAbsent(ttl), "the CreateTaskResult's ttlMs is missing or not an integer or null")
		}
		if p, ok := res["pollIntervalMs"]; ok && !isInteger(p) {
			t.Violation("pollIntervalMs: an integer when present", c.OrAbsent(p), "the CreateTaskResult's pollIntervalMs is not an integer")
		}
		t.Step("tasks/get right after the CreateTaskResult")
		get := t.Call(s, "tasks/get", map[string]any{"taskId": taskIDOf(res)}, ext(s))
		t.Check(get.IsResult(), "a tasks/get result (a task is durable before CreateTaskResult is sent)", get.Describe(),
			"tasks/get right after the task was created did not find it")
	})

	c.It("TASK-008", "tasks/get results carry what their status needs", func(t *c.T) {
		s := modernSession(t)
		tool := findModern(t, s)
		res, _ := createModern(t, s, tool)
		id := taskIDOf(res)
		wait := pollWait(res["pollIntervalMs"])
		seenKeys := map[string]bool{} // inputRequests keys ever seen
		openKeys := map[string]bool{} // keys of the latest input_required poll
		deadline := time.Now().Add(pollBudget)
		polls := 0
		last := ""
		for polls < maxPolls {
			polls++
			resp := t.Call(s, "tasks/get", map[string]any{"taskId": id}, ext(s))
			get := t.ResultObject("tasks/get", resp)
			switch rt := c.ResultType(get); rt {
			case "complete":
			case "task":
				t.Warn(`tasks/get answered resultType "task"; the text says "complete" (the extension's own examples show "task", TOL-7)`)
			default:
				t.Violation(`resultType "complete"`, c.OrAbsent(get["resultType"]), "a tasks/get result has the wrong resultType")
			}
			st, _ := strOf(get["status"])
			if !statuses[st] {
				t.Violation("a valid status", c.OrAbsent(get["status"]), "a tasks/get result has an invalid status")
			}
			last = st
			switch st {
			case "input_required":
				reqs := obj(get["inputRequests"])
				if len(reqs) == 0 {
					t.Violation("inputRequests: an object with every outstanding request", c.OrAbsent(get["inputRequests"]), "an input_required task has no inputRequests")
				}
				for k := range reqs {
					if seenKeys[k] && !openKeys[k] {
						t.Violation("inputRequests keys never reused in a task's life", resp.Describe(), "inputRequests key %q was used again after it was closed", k)
					}
					seenKeys[k] = true
				}
				openKeys = map[string]bool{}
				for k := range reqs {
					openKeys[k] = true
				}
				// the harness has no user: it cannot answer; stop polling
				t.Note("the task asked for input (%d request(s)); the harness does not answer input requests", len(reqs))
				return
			case "completed":
				if obj(get["result"]) == nil {
					t.Violation("result: the tools/call result", c.OrAbsent(get["result"]), "a completed task's tasks/get result has no result object")
				}
			case "failed":
				e := obj(get["error"])
				_, hasCode := e["code"]
				_, msgOK := strOf(e["message"])
				if e == nil || !hasCode || !isInteger(e["code"]) || !msgOK {
					t.Violation("error: a JSON-RPC error object {code, message}", c.OrAbsent(get["error"]), "a failed task's tasks/get result has no JSON-RPC error")
				}
				if r := obj(get["result"]); r != nil && strings.TrimSpace(string(r["isError"])) == "true" {
					t.Violation("an isError tool result ends completed, never failed", resp.Describe(), "a task whose tool result has isError:true ended failed")
				}
			}
			if isTerminal(st) || time.Now().After(deadline) {
				break
			}
			sleep(t, wait)
		}
		if !isTerminal(last) {
			t.Note("the task was still %s after %d polls; judged the statuses seen", last, polls)
		}
	})

	c.It("TASK-009", "tasks/update and tasks/cancel acknowledge; unknown task ids get -32602", func(t *c.T) {
		s := modernSession(t)
		tool := findModern(t, s)
		res, _ := createModern(t, s, tool)
		id := taskIDOf(res)
		for _, m := range []struct {
			method string
			params map[string]any
		}{
			{"tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{}}},
			{"tasks/cancel", map[string]any{"taskId": id}},
		} {
			t.Step(m.method + " on the task")
			resp := t.Call(s, m.method, m.params, ext(s))
			r := t.ResultObject(m.method, resp)
			if rt := c.ResultType(r); rt != "complete" {
				t.Violation(`resultType "complete"`, c.OrAbsent(r["resultType"]), "%s on a known task: wrong resultType", m.method)
			}
			if extra := extraKeys(r, "resultType", "_meta"); len(extra) > 0 {
				t.Violation("an empty result (resultType and _meta only)", resp.Describe(), "%s on a known task answered with members %s", m.method, strings.Join(extra, ", "))
			}
		}
		unknown := unknownID()
		t.Step("tasks/get with an unknown taskId")
		resp := t.Call(s, "tasks/get", map[string]any{"taskId": unknown}, ext(s))
		t.ExpectErrorCode("tasks/get with an unknown taskId", resp, jsonrpc.CodeInvalidParams)
		for _, m := range []struct {
			method string
			params map[string]any
		}{
			{"tasks/update", map[string]any{"taskId": unknown, "inputResponses": map[string]any{}}},
			{"tasks/cancel", map[string]any{"taskId": unknown}},
		} {
			resp := t.Call(s, m.method, m.params, ext(s))
			if code, ok := resp.ErrorCode(); !ok || code != jsonrpc.CodeInvalidParams {
				t.Warn("%s with an unknown taskId: expected -32602 (SHOULD), got %s", m.method, resp.Describe())
			}
		}
	})

	c.It("TASK-010", "task methods from a request without the extension get -32021", func(t *c.T) {
		s := modernSession(t)
		tool := findModern(t, s)
		res, _ := createModern(t, s, tool)
		id := taskIDOf(res)
		for _, m := range []struct {
			method string
			params map[string]any
		}{
			{"tasks/get", map[string]any{"taskId": id}},
			{"tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{}}},
			{"tasks/cancel", map[string]any{"taskId": id}},
		} {
			t.Step(m.method + " without the extension")
			resp := t.Call(s, m.method, m.params, noExt(s))
			t.ExpectErrorCode(m.method+" from a request that does not declare "+TaskExt, resp, jsonrpc.CodeMissingCapability)
			var data struct {
				RequiredCapabilities struct {
					Extensions map[string]json.RawMessage `json:"extensions"`
				} `json:"requiredCapabilities"`
			}
			if resp.Msg.Error == nil || json.Unmarshal(resp.Msg.Error.Data, &data) != nil || data.RequiredCapabilities.Extensions[TaskExt] == nil {
				t.Violation(`error.data.requiredCapabilities.extensions["`+TaskExt+`"]`, resp.Describe(), "the -32021 error of %s does not name the extension", m.method)
			}
			t.ExpectStatus(m.method+" without the extension", resp, http.StatusBadRequest)
		}
	})

	c.It("TASK-011", "task ids are unguessable and bound to their principal", func(t *c.T) {
		s := modernSession(t)
		tool := findModern(t, s)
		var ids []string
		for range 3 {
			res, _ := createModern(t, s, tool)
			ids = append(ids, taskIDOf(res))
		}
		if why := guessable(ids); why != "" {
			t.Violation("high-entropy task ids with no sequential pattern", strings.Join(ids, ", "), "task ids are guessable: %s", why)
		}
		if !t.Env.Target.HasSecondPrincipal() {
			t.Note("ids judged; the principal binding needs a second principal (HTTP with a second credential)")
			return
		}
		s2 := t.OpenSecond()
		for _, m := range []struct {
			method string
			params map[string]any
		}{
			{"tasks/get", map[string]any{"taskId": ids[0]}},
			{"tasks/update", map[string]any{"taskId": ids[0], "inputResponses": map[string]any{}}},
			{"tasks/cancel", map[string]any{"taskId": ids[0]}},
		} {
			t.Step(m.method + " as the second principal")
			resp := t.Call(s2, m.method, m.params, ext(s2))
			t.Check(resp.IsError(), "an error: the task belongs to another principal", resp.Describe(),
				"%s of another principal's task succeeded", m.method)
		}
	})

	c.It("TASK-012", "tasks/list and tasks/result are gone (-32601)", func(t *c.T) {
		s := modernSession(t)
		id := unknownID()
		if f := lookModern(t, s); f.tool != nil {
			res, _ := createModern(t, s, f.tool)
			id = taskIDOf(res)
		}
		for _, m := range []struct {
			method string
			params map[string]any
		}{
			{"tasks/list", map[string]any{}},
			{"tasks/result", map[string]any{"taskId": id}},
		} {
			t.Step(m.method + " declaring the extension")
			resp := t.Call(s, m.method, m.params, ext(s))
			t.ExpectErrorCode(m.method+" (removed by the extension)", resp, jsonrpc.CodeMethodNotFound)
		}
	})
})
