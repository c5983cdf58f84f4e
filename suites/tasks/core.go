package tasks

import (
	"encoding/json"
	"fmt"
	"time"

	c "github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/jsonrpc"
	"github.com/mcpconform/mcpconform/internal/session"
)

// 2025-11-25 core tasks (TASK-001…005): a task-augmented tools/call
// (params.task) of a tool whose execution.taskSupport is optional or
// required, declared by capabilities.tasks.requests.tools.call.

const (
	coreTTL = 60000
	// afterTerminal is how long a terminal task is watched for changes.
	afterTerminal = 300 * time.Millisecond
	// listTasks is how many tasks TASK-005 creates (more than a page of
	// most servers' lists is not needed: any missing one fails).
	listTasks = 6
)

// transitions are the allowed status changes (a status may also stay).
var transitions = map[string]map[string]bool{
	"working":        {"working": true, "input_required": true, "completed": true, "failed": true, "cancelled": true},
	"input_required": {"input_required": true, "working": true, "completed": true, "failed": true, "cancelled": true},
	"completed":      {"completed": true},
	"failed":         {"failed": true},
	"cancelled":      {"cancelled": true},
}

// coreSession returns the shared session, or NA when the server does not
// declare task-augmented tools/call.
func coreSession(t *c.T) *session.Session {
	s := t.Shared()
	if !c.Declared(s, "tasks") {
		t.NA("the server does not declare capabilities.tasks")
	}
	var caps struct {
		Requests struct {
			Tools struct {
				Call json.RawMessage `json:"call"`
			} `json:"tools"`
		} `json:"requests"`
	}
	if json.Unmarshal(s.Capabilities()["tasks"], &caps) != nil || caps.Requests.Tools.Call == nil || isNull(caps.Requests.Tools.Call) {
		t.NA("the server declares tasks but not tasks.requests.tools.call")
	}
	return s
}

// coreSub reports whether capabilities.tasks[sub] is declared.
func coreSub(s *session.Session, sub string) bool {
	v, ok := obj(s.Capabilities()["tasks"])[sub]
	return ok && !isNull(v)
}

// findCore returns a callable tool with taskSupport optional or required.
func findCore(t *c.T, s *session.Session) *taskTool {
	tools, _, refused := callableTools(t, s)
	for _, tool := range tools {
		if tool.support == "optional" || tool.support == "required" {
			return tool
		}
	}
	why := fmt.Sprintf("none of %d callable tool(s) has execution.taskSupport optional or required", len(tools))
	if len(tools) == 0 && refused != "" {
		t.PolicyNA("%s; %s", why, refused)
	}
	t.NA("%s", why)
	return nil
}

// createCore sends a task-augmented call and returns the task.
func createCore(t *c.T, s *session.Session, tool *taskTool) (map[string]json.RawMessage, *session.Response) {
	// A task may be listed to every session (tasks/list): with lanes over
	// HTTP, the checks that create tasks (which are the ones that judge
	// listings) run one at a time; the others go on.
	t.Exclusive(c.TasksLock)
	p := toolCall(tool)
	p["task"] = map[string]any{"ttl": coreTTL}
	resp := t.Call(s, "tools/call", p, nil)
	res := t.ResultObject("task-augmented tools/call of "+tool.name, resp)
	task := obj(res["task"])
	if task == nil {
		t.Violation("a CreateTaskResult {task: {...}}", resp.Describe(), "the task-augmented call of %s was not answered with a task", tool.name)
	}
	if id, ok := strOf(task["taskId"]); !ok || id == "" {
		t.Violation("task.taskId: a string", c.OrAbsent(task["taskId"]), "the task created by %s has no string taskId", tool.name)
	}
	return task, resp
}

// getStatus polls tasks/get once.
func getStatus(t *c.T, s *session.Session, id string) (string, map[string]json.RawMessage, *session.Response) {
	resp := t.Call(s, "tasks/get", map[string]any{"taskId": id}, nil)
	res := t.ResultObject("tasks/get", resp)
	st, _ := strOf(res["status"])
	if !statuses[st] {
		t.Violation("a valid task status", c.OrAbsent(res["status"]), "tasks/get answered an invalid status")
	}
	return st, res, resp
}

var _ = c.Area("tasks", func() {
	c.It("TASK-001", "a task-augmented tools/call creates a well-formed task whose statuses follow the rules", func(t *c.T) {
		s := coreSession(t)
		tool := findCore(t, s)
		task, resp := createCore(t, s, tool)
		if st, _ := strOf(task["status"]); st != "working" {
			t.Violation(`task.status "working"`, c.OrAbsent(task["status"]), "a new task must start working")
		}
		for _, k := range []string{"createdAt", "lastUpdatedAt"} {
			if v, ok := strOf(task[k]); !ok || v == "" {
				t.Violation("task."+k+": a date-time string", c.OrAbsent(task[k]), "the new task has no %s: %s", k, resp.Describe())
			}
		}
		ttl, ok := task["ttl"]
		var n float64
		if !ok || !(isNull(ttl) || json.Unmarshal(ttl, &n) == nil) {
			t.Violation("task.ttl: a number or null", c.OrAbsent(ttl), "the new task has no ttl")
		}
		id, _ := strOf(task["taskId"])
		wait := pollWait(task["pollInterval"])
		prev := "working"
		var terminalAt time.Time
		deadline := time.Now().Add(pollBudget)
		for polls := 0; polls < maxPolls && time.Now().Before(deadline); polls++ {
			st, _, r := getStatus(t, s, id)
			if !transitions[prev][st] {
				t.Violation("allowed transitions only; terminal statuses never change", r.Describe(), "the task went from %s to %s", prev, st)
			}
			prev = st
			if st == "input_required" {
				t.Note("the task asked for input; the harness does not answer; judged the statuses seen")
				return
			}
			if isTerminal(st) {
				if terminalAt.IsZero() {
					terminalAt = time.Now()
				}
				if time.Since(terminalAt) > afterTerminal {
					return
				}
			}
			sleep(t, wait)
		}
		if !isTerminal(prev) {
			t.Note("the task was still %s when polling stopped; judged the statuses seen", prev)
		}
	})

	c.It("TASK-002", "tool-level task negotiation is enforced", func(t *c.T) {
		s := coreSession(t)
		tools, _, refused := callableTools(t, s)
		var required, plain *taskTool
		for _, tool := range tools {
			switch tool.support {
			case "required":
				required = cmp(required, tool)
			case "", "forbidden":
				plain = cmp(plain, tool)
			}
		}
		if required == nil && plain == nil {
			if refused != "" && len(tools) == 0 {
				t.PolicyNA("no callable tool to judge; %s", refused)
			}
			t.NA("no callable tool with taskSupport required, forbidden or unspecified")
		}
		if required != nil {
			t.Step("call " + required.name + " (taskSupport required) without task")
			resp := t.Call(s, "tools/call", toolCall(required), nil)
			code, isErr := resp.ErrorCode()
			switch {
			case isErr && code == jsonrpc.CodeMethodNotFound:
			case isErr && code == jsonrpc.CodeInvalidRequest:
				t.Warn("%s without task got -32600; the text says -32601 and also allows -32600 (TOL-6)", required.name)
			default:
				t.Violation("-32601 (a required task-augmented tool called without task)", resp.Describe(), "%s (taskSupport required) was called without task and not refused with -32601", required.name)
			}
		}
		if plain != nil {
			t.Step("task-augmented call of " + plain.name + " (taskSupport " + orNone(plain.support) + ")")
			p := toolCall(plain)
			p["task"] = map[string]any{"ttl": coreTTL}
			resp := t.Call(s, "tools/call", p, nil)
			if code, isErr := resp.ErrorCode(); !isErr || code != jsonrpc.CodeMethodNotFound {
				t.Warn("a task-augmented call of %s (taskSupport %s) SHOULD get -32601; got %s", plain.name, orNone(plain.support), resp.Describe())
			}
		}
	})

	c.It("TASK-003", "tasks/result returns the outcome with the related-task _meta, after the task ends", func(t *c.T) {
		s := coreSession(t)
		tool := findCore(t, s)
		task, _ := createCore(t, s, tool)
		id, _ := strOf(task["taskId"])
		t.Step("tasks/result right away (blocks until the task ends)")
		resp := t.Call(s, "tasks/result", map[string]any{"taskId": id}, nil)
		if resp.IsResult() {
			res := resp.Msg.ResultObject()
			var meta struct {
				Related *struct {
					TaskID *string `json:"taskId"`
				} `json:"io.modelcontextprotocol/related-task"`
			}
			if json.Unmarshal(res["_meta"], &meta) != nil || meta.Related == nil || meta.Related.TaskID == nil || *meta.Related.TaskID != id {
				t.Violation(`_meta["io.modelcontextprotocol/related-task"].taskId = "`+id+`"`, resp.Describe(), "the tasks/result result does not name its task")
			}
			if _, ok := res["content"]; !ok {
				t.Violation("the tools/call result (content)", resp.Describe(), "the tasks/result result is not the tool's result")
			}
		} else if !resp.IsError() {
			t.Violation("the tool's result or error", resp.Describe(), "tasks/result answered neither a result nor an error")
		}
		st, _, r := getStatus(t, s, id)
		t.Check(isTerminal(st), "a terminal status once tasks/result has answered", r.Describe(),
			"tasks/result answered while the task was still %s", st)
	})

	c.It("TASK-004", "unknown tasks and invalid cursors get -32602; a cancelled task stays cancelled", func(t *c.T) {
		s := coreSession(t)
		unknown := unknownID()
		methods := []string{"tasks/get", "tasks/result"}
		if coreSub(s, "cancel") {
			methods = append(methods, "tasks/cancel")
		}
		for _, m := range methods {
			t.Step(m + " with an unknown taskId")
			resp := t.Call(s, m, map[string]any{"taskId": unknown}, nil)
			t.ExpectErrorCode(m+" with an unknown taskId", resp, jsonrpc.CodeInvalidParams)
		}
		if coreSub(s, "list") {
			t.Step("tasks/list with an invalid cursor")
			resp := t.Call(s, "tasks/list", map[string]any{"cursor": "mcpconform-invalid-cursor"}, nil)
			t.ExpectErrorCode("tasks/list with an invalid cursor", resp, jsonrpc.CodeInvalidParams)
		}
		if !coreSub(s, "cancel") {
			t.Note("tasks.cancel is not declared: cancellation not judged")
			return
		}
		tool := findCore(t, s)
		task, _ := createCore(t, s, tool)
		id, _ := strOf(task["taskId"])
		t.Step("tasks/cancel on the new task")
		resp := t.Call(s, "tasks/cancel", map[string]any{"taskId": id}, nil)
		if !resp.IsResult() {
			st, _, _ := getStatus(t, s, id)
			if isTerminal(st) {
				// As when tasks.cancel is not declared: the answers above
				// were judged, the cancellation could not be.
				t.Note("the task ended (%s) before it could be cancelled: cancellation not judged", st)
				return
			}
			t.Violation("a result (the task is not terminal)", resp.Describe(), "tasks/cancel of a %s task failed", st)
		}
		if st, _, r := getStatus(t, s, id); st != "cancelled" {
			t.Violation(`status "cancelled" after a successful tasks/cancel`, r.Describe(), "the cancelled task is %s", st)
		}
		sleep(t, afterTerminal)
		if st, _, r := getStatus(t, s, id); st != "cancelled" {
			t.Violation(`status "cancelled", for good`, r.Describe(), "the cancelled task became %s", st)
		}
		t.Step("tasks/cancel again (the task is terminal)")
		resp = t.Call(s, "tasks/cancel", map[string]any{"taskId": id}, nil)
		t.ExpectErrorCode("tasks/cancel of a terminal task", resp, jsonrpc.CodeInvalidParams)
	})

	c.It("TASK-005", "tasks/list shows every task tasks/get can see", func(t *c.T) {
		s := coreSession(t)
		if !coreSub(s, "list") {
			t.NA("the server does not declare tasks.list")
		}
		tool := findCore(t, s)
		want := map[string]bool{}
		for range listTasks {
			task, _ := createCore(t, s, tool)
			id, _ := strOf(task["taskId"])
			want[id] = true
		}
		seen := map[string]bool{}
		cursor := ""
		pages := 0
		for ; pages < maxPages; pages++ {
			p := map[string]any{}
			if cursor != "" {
				p["cursor"] = cursor
			}
			resp := t.Call(s, "tasks/list", p, nil)
			res := t.ResultObject("tasks/list", resp)
			var items []map[string]json.RawMessage
			if json.Unmarshal(res["tasks"], &items) != nil {
				t.Violation("tasks: an array of tasks", c.OrAbsent(res["tasks"]), "a tasks/list page has no tasks array")
			}
			for _, it := range items {
				if id, ok := strOf(it["taskId"]); ok {
					seen[id] = true
				}
			}
			next, ok := strOf(res["nextCursor"])
			if !ok || next == "" || next == cursor {
				break
			}
			cursor = next
		}
		for id := range want {
			if !seen[id] {
				// tasks/get must see it, or it is not "visible"
				if st, _, _ := getStatus(t, s, id); st != "" {
					t.Violation("every task visible through tasks/get in tasks/list", fmt.Sprintf("%d task(s) listed in %d page(s)", len(seen), pages+1),
						"task %s (%s) is missing from tasks/list", id, st)
				}
			}
		}
		t.Note("%d created task(s) found among %d listed", len(want), len(seen))
	})
})

// cmp keeps the first tool.
func cmp(have, tool *taskTool) *taskTool {
	if have != nil {
		return have
	}
	return tool
}

func orNone(s string) string {
	if s == "" {
		return "unspecified"
	}
	return s
}

const maxPages = 50
