package conform

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/internal/catalog"
	"github.com/mcpconform/mcpconform/internal/judge"
	"github.com/mcpconform/mcpconform/internal/result"
	"github.com/mcpconform/mcpconform/internal/session"
	"github.com/mcpconform/mcpconform/internal/target"
	"github.com/mcpconform/mcpconform/internal/wire"
)

// durationName matches input properties that set how long a tool works
// ("duration", "delayMs", "sleep_seconds", "wait").
var durationName = regexp.MustCompile(`(?i)^(duration|delay|sleep|wait|pause|seconds|secs|millis|milliseconds|ms)([_-]?(ms|millis|milliseconds|s|sec|secs|seconds|in[_-]?(ms|seconds)))?$`)

// Paced returns a copy of args (derived for tool, its raw object from
// tools/list) in which every numeric input whose name says it sets how long
// the tool works (duration, delay, sleep, wait …) is set so the call lasts
// about d instead of its default: a server whose demo tool runs for ten
// seconds by default is not waited out by every check that calls it, and a
// check that needs a call still running (cancellation) gets one of a known,
// short length. The unit is read from the name and description ("ms",
// "millisecond" → milliseconds; else seconds, or milliseconds when the
// default is 100 or more); the schema's minimum and maximum are kept.
// changed lists the inputs set (empty: args returned as they were).
// Configured arguments (--config) are the user's and are never paced.
func Paced(tool json.RawMessage, args map[string]any, d time.Duration) (out map[string]any, changed []string) {
	var obj struct {
		InputSchema struct {
			Properties map[string]json.RawMessage `json:"properties"`
		} `json:"inputSchema"`
	}
	if json.Unmarshal(tool, &obj) != nil || len(obj.InputSchema.Properties) == 0 {
		return args, nil
	}
	out = args
	for name, raw := range obj.InputSchema.Properties {
		if !durationName.MatchString(name) {
			continue
		}
		var p struct {
			Type        json.RawMessage `json:"type"`
			Description string          `json:"description"`
			Default     *float64        `json:"default"`
			Minimum     *float64        `json:"minimum"`
			Maximum     *float64        `json:"maximum"`
			ExclMin     *float64        `json:"exclusiveMinimum"`
		}
		if json.Unmarshal(raw, &p) != nil {
			continue
		}
		typ := strings.Trim(string(p.Type), `"`)
		if typ != "number" && typ != "integer" {
			continue
		}
		lower := strings.ToLower(name + " " + p.Description)
		ms := strings.Contains(lower, "millisecond") || strings.Contains(lower, "ms") && !strings.Contains(lower, "second")
		if !ms && !strings.Contains(lower, "second") && p.Default != nil && *p.Default >= 100 {
			ms = true
		}
		v := d.Seconds()
		if ms {
			v = float64(d.Milliseconds())
		}
		if typ == "integer" {
			v = math.Ceil(v)
		}
		if p.Minimum != nil && v < *p.Minimum {
			v = *p.Minimum
		}
		if p.ExclMin != nil && v <= *p.ExclMin {
			continue // a value just above it would be a guess of its scale
		}
		if p.Maximum != nil && v > *p.Maximum {
			v = *p.Maximum
		}
		if p.Default != nil && *p.Default <= v {
			continue // already quick
		}
		if len(changed) == 0 {
			out = make(map[string]any, len(args)+1)
			for k, x := range args {
				out[k] = x
			}
		}
		out[name] = v
		changed = append(changed, name)
	}
	return out, changed
}

// QuickWork is how long a paced call of a tool that takes a duration lasts
// in checks that only need its result.
const QuickWork = 50 * time.Millisecond

// PacedArgs is ArgsFor with derived arguments Paced to d (configured ones
// are the user's and kept as given).
func (t *T) PacedArgs(tool json.RawMessage, d time.Duration) (args map[string]any, source string, ok bool) {
	args, source, ok = t.ArgsFor(tool)
	if ok && source == "derived" {
		args, _ = Paced(tool, args, d)
	}
	return args, source, ok
}

// Adaptive waits (target.Patience: the suite and the fuzzer wait alike).
const (
	// PatienceFloor is the shortest adaptive wait.
	PatienceFloor = target.PatienceFloor
	// minLatencySamples: with fewer answers observed, the timeout is used.
	minLatencySamples = target.MinLatencySamples
)

// Patience is how long to wait for an answer the server may legitimately
// never send, when no barrier can decide it (target.Patience).
func (e *Env) Patience() time.Duration { return e.Target.Patience() }

// Patience is Env.Patience.
func (t *T) Patience() time.Duration { return t.Env.Patience() }

// ToolPatience is the patience for a call of tool name: the server's
// (Patience), or twice the slowest answer the run saw from that tool when
// longer (a tool that takes seconds is slow, not silent), at most the
// per-request timeout.
func (t *T) ToolPatience(name string) time.Duration {
	p := t.Patience()
	if d, ok := t.Env.Target.Latency().Tool(name); ok {
		p = max(p, 2*d)
	}
	return min(p, max(t.Env.Target.Timeout, t.Patience()))
}

// KnowLatency makes Patience follow the server before a check relies on it
// to cut short waits for answers that may never come: while fewer than
// minLatencySamples answers were timed (a check that runs first), it sends
// the revision's probe on the shared session until they are. Without it
// such a check waits the whole per-request timeout.
func (t *T) KnowLatency() {
	l := t.Env.Target.Latency()
	if l.Count() >= minLatencySamples {
		return
	}
	s, err := t.Env.sharedOf(t.Ctx, t.Rev, t.worker())
	if err != nil {
		return // the shared session's trouble is other checks' to judge
	}
	m, p := t.Probe()
	for i := 0; i < 2*minLatencySamples && l.Count() < minLatencySamples && t.Ctx.Err() == nil; i++ {
		if _, err := s.Call(t.Ctx, m, p, nil); err != nil {
			return
		}
	}
}

// The quiet window: the grace, after a barrier request was answered, for a
// server that handles messages concurrently to send what it meant to send
// for the messages before the barrier (T.Settle, T.Quiet). Like Patience it
// follows the server's observed pace: windowFactor × the p99 of the answer
// times observed so far, at least WindowFloor, at most DefaultWindow (also
// used while fewer than minLatencySamples answers were observed). An
// explicit Env.Window (--window) is used as given.
const (
	// DefaultWindow is the longest adaptive quiet window.
	DefaultWindow = 25 * time.Millisecond
	// WindowFloor is the shortest adaptive quiet window.
	WindowFloor = 5 * time.Millisecond
	// windowFactor multiplies the observed p99.
	windowFactor = 3
)

// QuietWindow returns the quiet window (see DefaultWindow).
func (e *Env) QuietWindow() time.Duration {
	if e.Window > 0 {
		return e.Window
	}
	if e.Target == nil {
		return DefaultWindow
	}
	return e.Target.QuietWindow()
}

// Window is Env.QuietWindow.
func (t *T) Window() time.Duration { return t.Env.QuietWindow() }

// Quiet waits the quiet window (less when the check's context ends) and
// returns how long it waited. When sessions are given, it ends as soon as
// nothing more can arrive on any of them (Session.Idle: Streamable HTTP
// with every exchange ended and no GET stream open, for a server answers a
// request only on that request's own response): the event, not the clock.
func (t *T) Quiet(ss ...*session.Session) time.Duration {
	w := t.Window()
	ctx, cancel := context.WithTimeout(t.Ctx, w)
	defer cancel()
	began := time.Now()
	if len(ss) > 0 && !slices.ContainsFunc(ss, func(s *session.Session) bool { return s == nil || !s.WaitIdle(ctx) }) {
		return time.Since(began)
	}
	<-ctx.Done()
	return time.Since(began)
}

// ApplyFaults judges, after every check ran, the faults the session layer
// recognised anywhere in the run (session.Faults: e.g. an error answered
// with "id": null to the only request in flight on stdio, RPC-002): each
// result of the fault's requirement that passed (or warned) fails by its
// level, with the first occurrence quoted, so the fault is reported once,
// under its requirement, whichever check's traffic showed it and whenever.
// red redacts what the server sent.
func ApplyFaults(results []result.Result, faults *session.Faults, red *wire.Redactor) {
	for i := range results {
		r := &results[i]
		if r.Verdict != PASS && r.Verdict != WARN {
			continue
		}
		kept, total := faults.For(r.Requirement)
		if total == 0 {
			continue
		}
		f := kept[0]
		r.Verdict = Verdict(judge.GradeAt(catalog.Level(r.Level), false)) // the one grader's
		r.Expected = red.String(fmt.Sprintf("the error response to %s (id %s) carries that id", f.Method, requestID(f.Request)))
		r.Actual = red.String(Clip(f.Response.Raw))
		r.Message = red.String(fmt.Sprintf("the server answered %s (the only request in flight on %s, %s session) with an error whose id is null; %d such response(s) in the run",
			f.Method, f.Response.Conn, f.Revision, total))
		for _, x := range kept[1:] {
			r.Notes = append(r.Notes, red.String(fmt.Sprintf("note: also: %s on %s answered %s", x.Method, x.Response.Conn, Clip(x.Response.Raw))))
		}
	}
}

func requestID(f wire.Frame) string {
	if m, err := Decode(f); err == nil && m.HasID {
		return m.ID.String()
	}
	return "?"
}
