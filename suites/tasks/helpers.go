package tasks

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"strings"
	"time"

	c "github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/session"
)

// TaskExt is the 2026-07-28 tasks extension id.
const TaskExt = "io.modelcontextprotocol/tasks"

const (
	maxFinderCalls = 32              // tools tried to find one that creates a task
	finderBudget   = 5 * time.Second // no new try after this long
	pollBudget     = 3 * time.Second // how long a task is polled until it ends
	maxPolls       = 100             // polls per task
	minPoll        = 10 * time.Millisecond
	maxPoll        = 250 * time.Millisecond
)

var statuses = map[string]bool{"working": true, "input_required": true, "completed": true, "failed": true, "cancelled": true}

func isTerminal(s string) bool { return s == "completed" || s == "failed" || s == "cancelled" }

// taskTool is a tool (with arguments) whose call the server ran as a task.
type taskTool struct {
	name string
	args map[string]any
	// support is the 2025-11-25 execution.taskSupport ("" in 2026-07-28).
	support string
}

type found struct {
	tool    *taskTool
	why     string // why none was found
	refused string // a call-policy refusal, when one happened
}

// finds remembers the task tool found with the extension declared.
var finds = c.NewMemo[*found]("the search for a task tool")

// unknownID is a well-formed task id no server issued.
func unknownID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return "mcpconform-unknown-" + hex.EncodeToString(b)
}

// obj decodes an object (nil when raw is not one).
func obj(raw json.RawMessage) map[string]json.RawMessage {
	var o map[string]json.RawMessage
	if json.Unmarshal(raw, &o) != nil {
		return nil
	}
	return o
}

func strOf(raw json.RawMessage) (string, bool) {
	var s string
	err := json.Unmarshal(raw, &s)
	return s, err == nil
}

func isInteger(raw json.RawMessage) bool {
	var n json.Number
	if json.Unmarshal(raw, &n) != nil {
		return false
	}
	_, err := n.Int64()
	return err == nil
}

func isNull(raw json.RawMessage) bool { return strings.TrimSpace(string(raw)) == "null" }

// isoTime reports whether s is an ISO 8601 / RFC 3339 date-time.
func isoTime(s string) bool {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999Z0700", "2006-01-02T15:04:05.999999999"} {
		if _, err := time.Parse(layout, s); err == nil {
			return true
		}
	}
	return false
}

// pollWait turns a server poll interval (ms) into a bounded wait.
func pollWait(raw json.RawMessage) time.Duration {
	var ms float64
	if json.Unmarshal(raw, &ms) != nil || ms <= 0 {
		return 50 * time.Millisecond
	}
	d := time.Duration(ms * float64(time.Millisecond))
	return min(max(d, minPoll), maxPoll)
}

func sleep(t *c.T, d time.Duration) {
	select {
	case <-time.After(d):
	case <-t.Ctx.Done():
	}
}

// callableTools walks tools/list on s and returns the tools the policy lets
// the check call, with their arguments, and one refusal reason.
func callableTools(t *c.T, s *session.Session) (out []*taskTool, items []json.RawMessage, refused string) {
	w := t.Listing(s, "tools/list")
	for _, tool := range w.Items {
		if ok, why := t.MayCall(tool); !ok {
			refused = why
			continue
		}
		args, _, ok := t.ArgsFor(tool)
		if !ok {
			continue
		}
		out = append(out, &taskTool{name: c.ItemKey(tool, "name"), args: args, support: taskSupport(tool)})
		items = append(items, tool)
	}
	return out, items, refused
}

// taskSupport returns a tool's execution.taskSupport ("" when absent).
func taskSupport(tool json.RawMessage) string {
	var x struct {
		Execution struct {
			TaskSupport string `json:"taskSupport"`
		} `json:"execution"`
	}
	_ = json.Unmarshal(tool, &x)
	return x.Execution.TaskSupport
}

// notFound ends a check for which no tool created a task.
func notFound(t *c.T, f *found) {
	if f.refused != "" && strings.Contains(f.why, "no callable") {
		t.PolicyNA("%s; %s", f.why, f.refused)
	}
	t.NA("%s", f.why)
}
