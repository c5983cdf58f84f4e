package serverrequests

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/internal/catalog"
	c "github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/jsonrpc"
	"github.com/mcpconform/mcpconform/internal/session"
	"github.com/mcpconform/mcpconform/internal/wire"
)

// Nobody knows which tool of an arbitrary server sends sampling, roots or
// elicitation requests, so the LEG checks share one exercise per revision
// and transport: sessions that declare different client capabilities each
// call the callable tools (call policy, configured or derived arguments),
// and every request the server sends, and every -32042 error it answers,
// is judged afterwards against what that session declared.
//
//	bare      no capabilities at all
//	form      roots (listChanged), sampling without tools, elicitation
//	          (2025-06-18: {}; 2025-11-25: {form:{}} only)
//	url       (2025-11-25) elicitation {url:{}} only
//
// The harness answers every server request but ping with -32601 (it has no
// user and no model); that is a legitimate client answer.

const (
	maxCalls = 32 // tools called per session
	// inFlight calls run at once in one session: every callable tool is
	// called (which tools were called does not depend on the server's
	// pace), and a server whose tools take seconds is not waited out tool
	// after tool (the checks that find no server request end NA, and an NA
	// costs next to nothing). Each call waits the patience at most (the
	// tool's own when the run saw it answer slower: T.ToolPatience).
	inFlight = 8
	// searchBudget: no new call starts after this long in one session (a
	// safety cap; the NA reason says how many calls were made).
	searchBudget = 10 * time.Second
	maxPages     = 50 // tools/list pages followed
)

type observed struct {
	method string
	params map[string]json.RawMessage
	raw    []byte
}

type legSession struct {
	label    string
	caps     map[string]any
	requests []observed
	urlErrs  []observed // -32042 error responses (raw = the response)
	called   int
}

type exercise struct {
	mu       sync.Mutex
	sessions []*legSession
	refused  string // a call-policy refusal, when one happened
	problem  string // a harness problem that prevents judging
}

var exercises = c.NewMemo[*exercise]("the server-request sessions")

// run returns the revision's exercise, computing it on first use.
func run(t *c.T) *exercise { return exercises.Get(t, func() *exercise { return runExercise(t) }) }

func runExercise(t *c.T) *exercise {
	// The tool calls below wait only the patience (a tool that waits on
	// the client is not waited out): it must follow the server already.
	t.KnowLatency()
	ex := &exercise{}
	// The sessions are independent: they run at once.
	ls := plan(t.Rev)
	whys := make([]string, len(ls))
	var wg sync.WaitGroup
	for i := range ls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			whys[i] = ex.drive(t, ls[i])
		}()
	}
	wg.Wait()
	for i := range ls {
		if whys[i] != "" {
			ex.problem = whys[i]
			break
		}
		ex.sessions = append(ex.sessions, ls[i])
	}
	return ex
}

// sessionRequests are the requests the server sent one session of the
// exercise (frames as recorded, in order).
type sessionRequests struct {
	// Label says what the session's client declared.
	Label  string
	Frames [][]byte
}

// requestsSeen returns what the revision's server-request exercise saw,
// for the checks of other areas that judge the requests a server sends
// (RPC-009): each session's requests, the tool calls made, a call-policy
// refusal (when one happened) and a harness problem that prevents judging
// ("" none). The exercise is computed on first use (its sessions declare
// roots, sampling and elicitation, which is what makes a server send
// requests at all).
func requestsSeen(t *c.T) (out []sessionRequests, calls int, refused, problem string) {
	ex := run(t)
	for _, ls := range ex.sessions {
		r := sessionRequests{Label: ls.label}
		for _, o := range ls.requests {
			r.Frames = append(r.Frames, o.raw)
		}
		out = append(out, r)
		calls += ls.called
	}
	return out, calls, ex.refused, ex.problem
}

func plan(rev catalog.Revision) []*legSession {
	form := &legSession{label: "a client declaring roots (listChanged) and sampling", caps: map[string]any{
		"roots":    map[string]any{"listChanged": true},
		"sampling": map[string]any{},
	}}
	out := []*legSession{{label: "a client declaring no capabilities", caps: map[string]any{}}, form}
	switch {
	case rev >= catalog.R20251125:
		form.caps["elicitation"] = map[string]any{"form": map[string]any{}}
		form.label = "a client declaring roots (listChanged), sampling (without tools) and elicitation {form:{}}"
		out = append(out, &legSession{label: "a client declaring only elicitation {url:{}}", caps: map[string]any{
			"elicitation": map[string]any{"url": map[string]any{}},
		}})
	case rev >= catalog.R20250618:
		form.caps["elicitation"] = map[string]any{}
		form.label = "a client declaring roots (listChanged), sampling and elicitation"
	}
	return out
}

// drive opens a session declaring ls.caps, calls the callable tools and
// records what the server sent. It returns a harness problem, or "".
func (ex *exercise) drive(t *c.T, ls *legSession) string {
	mark := t.Mark()
	s, err := t.Env.Target.SessionStarting(t.Rev)
	if err != nil {
		return fmt.Sprintf("could not connect to the target for %s: %v", ls.label, err)
	}
	defer t.Env.CloseLater(s)
	resp, err := s.InitializeWith(t.Ctx, string(t.Rev), ls.caps)
	if err != nil || !resp.IsResult() {
		return fmt.Sprintf("initialize from %s failed (%s); the handshake is LIFE-001's concern", ls.label, c.Describe(resp, err))
	}
	var init struct {
		ProtocolVersion string                     `json:"protocolVersion"`
		Capabilities    map[string]json.RawMessage `json:"capabilities"`
	}
	_ = resp.Result(&init)
	hdr := http.Header{}
	if t.HTTP() {
		if resp.Reply != nil {
			if sid := resp.Reply.Header.Get(session.HeaderSessionID); sid != "" {
				hdr.Set(session.HeaderSessionID, sid)
			}
		}
		if init.ProtocolVersion >= string(catalog.R20250618) {
			hdr.Set(session.HeaderProtocolVersion, init.ProtocolVersion)
		}
	}
	if reply, err := s.SendRaw(t.Ctx, jsonrpc.Notification("notifications/initialized", nil), &wire.SendOptions{Header: hdr}); err == nil && reply != nil {
		select {
		case <-reply.Done:
		case <-time.After(s.Timeout()):
		}
	}
	o := &session.CallOptions{Header: hdr}
	if raw, ok := init.Capabilities["tools"]; ok && string(raw) != "null" {
		var tools []json.RawMessage
		cursor := ""
		for page := 0; page < maxPages; page++ {
			p := map[string]any{}
			if cursor != "" {
				p["cursor"] = cursor
			}
			r, err := t.TryCall(s, "tools/list", p, o)
			if err != nil || !r.IsResult() {
				break
			}
			var res struct {
				Tools      []json.RawMessage `json:"tools"`
				NextCursor *string           `json:"nextCursor"`
			}
			if r.Result(&res) != nil {
				break
			}
			tools = append(tools, res.Tools...)
			if res.NextCursor == nil || *res.NextCursor == "" || *res.NextCursor == cursor {
				break
			}
			cursor = *res.NextCursor
		}
		start := time.Now()
		// The calls run a few at a time: what matters is what the server
		// sends while its tools run, not their results, and a slow tool
		// does not hold up the others.
		var calls sync.WaitGroup
		slots := make(chan struct{}, inFlight)
		for _, tool := range tools {
			if ls.called == maxCalls || time.Since(start) > searchBudget {
				break
			}
			if ok, why := t.MayCall(tool); !ok {
				ex.mu.Lock()
				ex.refused = why
				ex.mu.Unlock()
				continue
			}
			args, _, ok := t.PacedArgs(tool, c.QuickWork)
			if !ok {
				continue
			}
			select {
			case slots <- struct{}{}:
			case <-t.Ctx.Done():
			}
			if t.Ctx.Err() != nil {
				break
			}
			ls.called++
			calls.Add(1)
			go func() {
				defer calls.Done()
				defer func() { <-slots }()
				// A tool that waits on the client (a request on a stream the
				// harness does not read) is not waited out: the patience,
				// or the tool's own pace when the run saw it slower.
				co := *o
				co.Timeout = t.ToolPatience(c.ItemKey(tool, "name"))
				r, err := t.TryCall(s, "tools/call", map[string]any{"name": c.ItemKey(tool, "name"), "arguments": args}, &co)
				if err == nil {
					if code, isErr := r.ErrorCode(); isErr && code == jsonrpc.CodeURLElicitation {
						ex.mu.Lock()
						ls.urlErrs = append(ls.urlErrs, observed{method: c.ItemKey(tool, "name"), raw: r.Frame.Raw})
						ex.mu.Unlock()
					}
				}
			}()
		}
		calls.Wait()
	}
	// barrier: whatever the server meant to send for the calls has been sent
	_, _ = t.TryCall(s, "ping", nil, o)
	t.Quiet(s)
	for _, f := range t.FramesSince(mark) {
		if f.Conn != s.Conn().Name() || f.Dir != wire.In || f.Kind != wire.KindMessage || f.Truncated {
			continue
		}
		msg, err := c.Decode(f)
		if err != nil || msg.Kind() != jsonrpc.KindRequest {
			continue
		}
		var p map[string]json.RawMessage
		_ = json.Unmarshal(msg.Params, &p)
		ls.requests = append(ls.requests, observed{method: msg.Method, params: p, raw: f.Raw})
	}
	return ""
}

func declared(ls *legSession, name string) bool { _, ok := ls.caps[name]; return ok }

func subDeclared(ls *legSession, name, sub string) bool {
	m, _ := ls.caps[name].(map[string]any)
	_, ok := m[sub]
	return ok
}

func str(p map[string]json.RawMessage, key string) (string, bool) {
	var s string
	err := json.Unmarshal(p[key], &s)
	return s, err == nil
}

// nothing ends a check that saw no request of the kinds it judges.
func (ex *exercise) nothing(t *c.T, what string) {
	calls := 0
	for _, ls := range ex.sessions {
		calls += ls.called
	}
	why := fmt.Sprintf("the server sent no %s, even to a client that declared it (%d tool call(s) in %d sessions, %d at a time, each waited at most the patience or twice the tool's slowest answer seen); nothing to judge", what, calls, len(ex.sessions), inFlight)
	if calls == 0 && ex.refused != "" {
		t.PolicyNA("%s; %s", why, ex.refused)
	}
	t.NA("%s", why)
}

var _ = c.Area("server-requests", func() {
	c.It("LEG-001", "elicitation/create goes only to clients that declared it, in a mode they declared", func(t *c.T) {
		ex := run(t)
		if ex.problem != "" {
			t.Error("%s", ex.problem)
		}
		seen := 0
		for _, ls := range ex.sessions {
			for _, r := range ls.requests {
				if r.method != "elicitation/create" {
					continue
				}
				if !declared(ls, "elicitation") {
					t.Violation("no elicitation/create to a client that did not declare elicitation", c.Clip(r.raw),
						"the server sent elicitation/create to %s", ls.label)
				}
				seen++
				if t.Rev < catalog.R20251125 {
					continue
				}
				mode, hasMode := str(r.params, "mode")
				if !hasMode {
					mode = "form" // the 2025-11-25 default
				}
				switch {
				case mode == "url" && !subDeclared(ls, "elicitation", "url"):
					t.Violation(`a "url" elicitation only to a client that declared elicitation.url`, c.Clip(r.raw),
						"the server sent a url-mode elicitation/create to %s", ls.label)
				case mode == "form" && !subDeclared(ls, "elicitation", "form") && len(ls.caps["elicitation"].(map[string]any)) > 0:
					t.Violation(`a form elicitation only to a client that declared elicitation.form (or elicitation {})`, c.Clip(r.raw),
						"the server sent a form-mode elicitation/create to %s", ls.label)
				}
			}
		}
		if seen == 0 {
			ex.nothing(t, "elicitation/create")
		}
		t.Note("judged %d elicitation/create request(s)", seen)
	})

	c.It("LEG-002", "sampling/createMessage and roots/list go only to clients that declared them", func(t *c.T) {
		ex := run(t)
		if ex.problem != "" {
			t.Error("%s", ex.problem)
		}
		seen := 0
		for _, ls := range ex.sessions {
			for _, r := range ls.requests {
				var capName string
				switch r.method {
				case "sampling/createMessage":
					capName = "sampling"
				case "roots/list":
					capName = "roots"
				default:
					continue
				}
				seen++
				if !declared(ls, capName) {
					t.Violation("no "+r.method+" to a client that did not declare "+capName, c.Clip(r.raw),
						"the server sent %s to %s", r.method, ls.label)
				}
				if capName == "sampling" && t.Rev >= catalog.R20251125 && !subDeclared(ls, "sampling", "tools") {
					for _, k := range []string{"tools", "toolChoice"} {
						if _, ok := r.params[k]; ok {
							t.Violation("sampling/createMessage without "+k+" to a client that did not declare sampling.tools", c.Clip(r.raw),
								"the server sent a tool-enabled sampling request (%s) to %s", k, ls.label)
						}
					}
				}
			}
		}
		if seen == 0 {
			ex.nothing(t, "sampling/createMessage or roots/list")
		}
		t.Note("judged %d sampling/roots request(s)", seen)
	})

	c.It("LEG-003", "-32042 URL elicitation required errors list well-formed url elicitations", func(t *c.T) {
		ex := run(t)
		if ex.problem != "" {
			t.Error("%s", ex.problem)
		}
		seen := 0
		for _, ls := range ex.sessions {
			for _, e := range ls.urlErrs {
				seen++
				judgeURLError(t, e, ls)
			}
		}
		if seen == 0 {
			calls := 0
			for _, ls := range ex.sessions {
				calls += ls.called
			}
			why := fmt.Sprintf("no tool call was answered with -32042 (%d call(s), including from a client declaring elicitation.url); nothing to judge", calls)
			if calls == 0 && ex.refused != "" {
				t.PolicyNA("%s; %s", why, ex.refused)
			}
			t.NA("%s", why)
		}
		t.Note("judged %d -32042 error(s)", seen)
	})
})

// judgeURLError checks one -32042 error response.
func judgeURLError(t *c.T, e observed, ls *legSession) {
	msg, err := jsonrpc.Decode(e.raw)
	if err != nil || !msg.HasError {
		t.Error("could not re-read a recorded -32042 response: %v", err)
	}
	var er struct {
		Data *struct {
			Elicitations *[]map[string]json.RawMessage `json:"elicitations"`
		} `json:"data"`
	}
	want := `error.data.elicitations: a non-empty array of {mode:"url", elicitationId, url, message}`
	if json.Unmarshal(msg.ErrorRaw, &er) != nil || er.Data == nil || er.Data.Elicitations == nil || len(*er.Data.Elicitations) == 0 {
		t.Violation(want, c.Clip(e.raw), "the -32042 error of %s (to %s) lists no elicitations", e.method, ls.label)
	}
	for i, el := range *er.Data.Elicitations {
		var missing []string
		if mode, _ := str(el, "mode"); mode != "url" {
			missing = append(missing, `mode "url"`)
		}
		for _, k := range []string{"elicitationId", "url", "message"} {
			if v, ok := str(el, k); !ok || v == "" {
				missing = append(missing, k)
			}
		}
		if len(missing) > 0 {
			t.Violation(want, c.Clip(e.raw), "elicitation %d of the -32042 error of %s lacks %s", i, e.method, strings.Join(missing, ", "))
		}
	}
}
