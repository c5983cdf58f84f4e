package utilities

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	c "github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/jsonrpc"
	"github.com/mcpconform/mcpconform/internal/session"
	"github.com/mcpconform/mcpconform/internal/wire"
)

// On an arbitrary server nobody knows which request is slow, which one
// reports progress or which one logs. The checks therefore share one
// exercise per revision: the callable tools (call policy, derived or
// configured arguments) are called in several sessions at once, each with
// its own request shape, and every notifications/progress and
// notifications/message that arrives is judged afterwards (passively):
//
//	A  progress tokens (integer and string, alternately); legacy:
//	   logging/setLevel "debug" first; 2026-07-28: _meta logLevel "debug"
//	B  no progress token, no logLevel; legacy: logging/setLevel "error"
//	   first and logging/setLevel "verbose" last
//	C  (2026-07-28) progress tokens and _meta logLevel "warning"
//	D  (legacy; 2026-07-28 on stdio) progress tokens (and logLevel "debug"):
//	   a call still running after cancelAfter is cancelled
//	   (notifications/cancelled) and watched for cancelWatch
//
// Calls within a session are sequential, so on stdio a notification that
// arrives while a call is in flight belongs to that call. When the
// server's observed pace would not let one session call every tool within
// the search budget, each of A, B and C spreads them over up to maxShards
// sessions, which take the tools in order from the phase's queue, still
// one call at a time in each. The exercise is computed by the first check
// of the revision that needs it and cached.

const (
	// maxCalls bounds the tools called per session.
	maxCalls = 32
	// searchBudget bounds the calls of each session of the exercise, from
	// the moment they are all open: a search for requests that run long,
	// report progress or log. No call starts that its tool's observed pace
	// would not end within it (with cutGrace, less the round trip that
	// ends the session); a call still unanswered then is abandoned. The
	// NA reasons say how many tools were left out.
	searchBudget = time.Second
	cutGrace     = 250 * time.Millisecond
	// callPatience is how long the exercise waits for one call before it
	// goes on to the next tool: a slow tool does not hide the others. It
	// exceeds what phase D watches, so a tool abandoned after it is one
	// whose cancellation could not have been judged anyway.
	callPatience = cancelAfter + cancelWatch + 200*time.Millisecond
	// maxShards bounds the sessions each of A, B and C spreads its calls
	// over.
	maxShards = 4
	// cancelAfter is how long a call runs before it is cancelled (it also
	// gives an HTTP server, which gets the cancellation on another
	// connection, time to have received the request).
	cancelAfter = 100 * time.Millisecond
	// cancelGrace is the race window after a cancellation (TOL-5).
	cancelGrace = 200 * time.Millisecond
	// cancelWatch is how long a cancelled call is watched.
	cancelWatch = 700 * time.Millisecond
	// workLength is how long a call of a tool that takes a duration input
	// is made to last (conform.Paced): long enough to be cancelled while
	// running, short enough to be watched to its natural end.
	workLength = 400 * time.Millisecond
	// slowEnough is the uncancelled duration a tool needs for its
	// cancellation to be judged: without the cancellation, its response
	// would have come after the grace window.
	slowEnough = cancelAfter + cancelGrace
	// maxProbes bounds the calls cancelled in one session.
	maxProbes = 3
	// cancelBudget bounds phase D's search for a call to cancel, from
	// the moment the exercise's sessions are open: calls that answer
	// within cancelAfter are passed over one after another.
	cancelBudget = 2 * searchBudget
)

// levelRank orders the RFC 5424 levels.
var levelRank = map[string]int{
	"debug": 0, "info": 1, "notice": 2, "warning": 3,
	"error": 4, "critical": 5, "alert": 6, "emergency": 7,
}

type tool struct {
	name string
	args map[string]any
}

// call is one tools/call of a phase (or, in the shared session, any
// request that carried a progress token).
type call struct {
	method   string // "" for tools/call
	tool     string
	id       jsonrpc.ID
	token    json.RawMessage // nil: no progressToken
	logLevel string          // 2026-07-28 _meta logLevel ("" none)
	resp     *session.Response
	err      error
	// cut is how long the call ran before the exercise abandoned it (0:
	// it was not abandoned).
	cut time.Duration
	// overlapped: an abandoned call of the session was still running when
	// it was sent (its duration may include waiting for it).
	overlapped bool
	reqSeq     int64 // its request frame (0 when not found)
	respSeq    int64 // its response frame (0 when none)
	exchange   int64 // HTTP exchange (0 on stdio)
}

// event is one decoded frame of a phase's connection.
type event struct {
	f   wire.Frame
	msg *jsonrpc.Message
}

// phase is one session of the exercise.
type phase struct {
	key, what string
	// shard and of: this session is the shard-th of the of sessions of
	// the phase key, which take the tools from q
	shard, of int
	q         *toolQueue
	tokens    bool
	logLevel  string // 2026-07-28 _meta logLevel of its calls
	setLevel  string // legacy logging/setLevel before the calls ("" none)
	conn      string
	logging   bool // the session's server declared logging
	calls     []*call
	events    []event
	// legacy B: the answers to logging/setLevel "error" and "verbose"
	levelResp, badLevelResp *session.Response
	levelSeq                int64 // the setLevel response frame
	err                     error
}

// probe is a cancelled call of phase D.
type probe struct {
	cl        *call
	cancelSeq int64
	cancelAt  time.Time
	cancelErr error
	// watched: the call was watched for cancelWatch after its cancellation
	// with nothing else in flight (it was the last call of the session)
	watched bool
	// immediate: the cancellation followed the request at once (no tool
	// ran long enough to be cancelled while running)
	immediate bool
}

type exercise struct {
	tools   []tool
	noTools string // why no tool was called
	policy  bool   // noTools because of the call policy
	refused int    // tools the policy refused
	phases  []*phase
	cancel  *phase   // D (nil when not run)
	probes  []*probe // D's cancelled calls (none when every call answered in time)
	natural map[string]time.Duration
	// atLeast is the time a tool's call in A ran before the exercise
	// abandoned it (callPatience, or the end of the search budget): its
	// uncancelled duration is longer.
	atLeast map[string]time.Duration
	// naturalMsg is each tool's uncancelled response (A's), to tell the
	// call's own result, arriving in a race with its cancellation, from an
	// answer to the cancellation.
	naturalMsg map[string]*jsonrpc.Message
	modern     bool
	http       bool
	revision   string
}

var exercises = c.NewMemo[*exercise]("the utilities exercise")

// logLevelLock names what the exercises and LOG-002 share with one
// another (T.Exclusive): a server may keep one log level for every session.
const logLevelLock = "log level"

// exerciseFor returns the revision's exercise, running it on first use.
func exerciseFor(t *c.T) *exercise {
	return exercises.Get(t, func() *exercise { return runExercise(t) })
}

func runExercise(t *c.T) *exercise {
	ex := &exercise{modern: t.Modern(), http: t.HTTP(), revision: string(t.Rev),
		natural: map[string]time.Duration{}, atLeast: map[string]time.Duration{}, naturalMsg: map[string]*jsonrpc.Message{}}
	ex.tools, ex.noTools, ex.policy, ex.refused = callableTools(t)
	if len(ex.tools) == 0 {
		return ex
	}
	// The legacy exercise sets log levels (a server may keep one for
	// every session), which the exercises judge: with lanes over HTTP, the
	// exercises and the other setters of log levels run one at a time (on
	// stdio each of their sessions is a process of its own).
	t.Exclusive(logLevelLock)
	plans := []*phase{
		{key: "A", tokens: true, logLevel: "debug", setLevel: "debug"},
		{key: "B", setLevel: "error"},
	}
	if ex.modern {
		plans[0].setLevel, plans[1].setLevel = "", ""
		plans = append(plans, &phase{key: "C", tokens: true, logLevel: "warning"})
		plans[0].what = "with progress tokens and _meta logLevel \"debug\""
		plans[1].what = "without progress token or logLevel"
		plans[2].what = "with progress tokens and _meta logLevel \"warning\""
	} else {
		plans[0].what = "with progress tokens after logging/setLevel \"debug\""
		plans[1].what = "without progress token after logging/setLevel \"error\""
	}
	plans = shard(plans, shardsFor(t, ex.tools))
	if !ex.modern || !ex.http {
		ex.cancel = &phase{key: "D", tokens: true, what: "with progress tokens, cancelled after " + cancelAfter.String(), of: 1}
		if ex.modern {
			ex.cancel.logLevel = "debug"
		}
	}
	// The sessions may come from processes started ahead of need or just
	// now: each waits for the others' handshakes before its first call, so
	// that their calls run side by side (a call's time in A is its natural
	// duration for D).
	var wg, lineUp sync.WaitGroup
	lineUp.Add(len(plans))
	if ex.cancel != nil {
		lineUp.Add(1)
	}
	for _, ph := range plans {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runPhase(t, ex.tools, ph, &lineUp)
		}()
	}
	if ex.cancel != nil {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ex.probes = runCancel(t, ex.tools, ex.cancel, &lineUp)
		}()
	}
	wg.Wait()
	ex.phases = plans
	for _, a := range ex.shards("A") {
		for _, cl := range a.calls {
			switch {
			case cl.overlapped:
			case cl.resp != nil && cl.resp.Msg != nil:
				ex.natural[cl.tool] = cl.resp.Elapsed
				ex.naturalMsg[cl.tool] = cl.resp.Msg
			case cl.cut > 0:
				ex.atLeast[cl.tool] = cl.cut
			}
		}
	}
	return ex
}

// shardsFor is how many sessions each phase spreads the tools over: as
// many as the server's median answer time needs for the calls to take at
// most 3/4 of the search budget in each, at most maxShards. One session is
// the rule: on stdio each is a process whose start-up costs CPU. (A tool's
// own slowest answer is no guide here: on a loaded machine the first
// calls of a freshly started runtime are slow.)
func shardsFor(t *c.T, tools []tool) int {
	total := time.Duration(len(tools)) * t.Env.Target.Latency().Quantile(0.5)
	per := searchBudget * 3 / 4
	return max(1, min(maxShards, int((total+per-1)/per)))
}

// toolQueue hands a phase's tools, in order, to its sessions.
type toolQueue struct {
	mu   sync.Mutex
	next int
	// late counts the tools no session of the phase called within the
	// search budget.
	late int
}

// take returns the index of the next tool (-1 when none is left).
func (q *toolQueue) take(n int) int {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.next == n {
		return -1
	}
	q.next++
	return q.next - 1
}

func (q *toolQueue) leftOut() {
	q.mu.Lock()
	q.late++
	q.mu.Unlock()
}

// pace is how long a call of the tool is expected to take: the slowest
// answer the run saw from it, or else the server's median answer.
func pace(t *c.T, name string) time.Duration {
	l := t.Env.Target.Latency()
	if d, ok := l.Tool(name); ok {
		return d
	}
	return l.Quantile(0.5)
}

// shard replaces each phase by n sessions of its kind.
func shard(plans []*phase, n int) []*phase {
	var out []*phase
	for _, ph := range plans {
		q := &toolQueue{}
		for i := range n {
			cp := *ph
			cp.shard, cp.of, cp.q = i, n, q
			out = append(out, &cp)
		}
	}
	return out
}

// shards returns the sessions of phase key.
func (ex *exercise) shards(key string) []*phase {
	var out []*phase
	for _, ph := range ex.phases {
		if ph.key == key {
			out = append(out, ph)
		}
	}
	return out
}

// callableTools lists the tools the call policy allows, with arguments.
func callableTools(t *c.T) (tools []tool, why string, policy bool, refused int) {
	s := t.Shared()
	if !c.Declared(s, "tools") {
		return nil, "the server declares no tools capability, so no request could be made to run long, report progress or log", false, 0
	}
	w := t.Listing(s, "tools/list")
	if len(w.Items) == 0 {
		if w.Problem != "" {
			return nil, "tools/list could not be walked (" + w.Problem + ")", false, 0
		}
		return nil, "the server lists no tools", false, 0
	}
	var lastRefusal string
	noArgs := 0
	for _, it := range w.Items {
		if len(tools) == maxCalls {
			break
		}
		if ok, reason := t.MayCall(it); !ok {
			refused++
			lastRefusal = reason
			continue
		}
		args, _, ok := t.PacedArgs(it, workLength)
		if !ok {
			noArgs++
			continue
		}
		tools = append(tools, tool{name: c.ItemKey(it, "name"), args: args})
	}
	switch {
	case len(tools) > 0:
		return tools, "", false, refused
	case refused > 0 && noArgs == 0:
		return nil, fmt.Sprintf("none of the %d listed tools may be called (%s)", len(w.Items), lastRefusal), true, refused
	}
	return nil, fmt.Sprintf("no arguments could be derived for any of the %d callable tools", noArgs), false, refused
}

// tokenFor is the progress token of the i-th call: integers and strings
// alternately.
func tokenFor(key string, i int) json.RawMessage {
	if i%2 == 0 {
		return json.RawMessage(fmt.Sprint(1000 + i))
	}
	b, _ := json.Marshal(fmt.Sprintf("mcpconform-%s-%d", strings.ToLower(key), i))
	return b
}

// callParams builds the params and options of a tools/call of ph.
func (ph *phase) callParams(s *session.Session, tl tool, i int) (map[string]any, *session.CallOptions, *call) {
	cl := &call{tool: tl.name, id: s.NewID(), logLevel: ph.logLevel}
	if ph.tokens {
		cl.token = tokenFor(ph.key, i)
	}
	params := map[string]any{"name": tl.name, "arguments": tl.args}
	o := &session.CallOptions{ID: &cl.id}
	meta := map[string]any{}
	if cl.token != nil {
		meta["progressToken"] = cl.token
	}
	if s.Modern() {
		mm := s.ModernMeta()
		for k, v := range meta {
			mm[k] = v
		}
		if cl.logLevel != "" {
			mm[session.MetaLogLevel] = cl.logLevel
		}
		o.Meta = mm
	} else {
		cl.logLevel = ""
		if len(meta) > 0 {
			params["_meta"] = meta
		}
	}
	return params, o, cl
}

// openLinedUp opens a session of the exercise and waits until every
// session of the group has been opened (or failed to).
func openLinedUp(t *c.T, lineUp *sync.WaitGroup) (*session.Session, error) {
	s, err := t.Env.Target.OpenStarting(t.Ctx, t.Rev)
	lineUp.Done()
	if err == nil {
		lineUp.Wait()
	}
	return s, err
}

func runPhase(t *c.T, tools []tool, ph *phase, lineUp *sync.WaitGroup) {
	mark := t.Mark()
	s, err := openLinedUp(t, lineUp)
	if err != nil {
		ph.err = err
		return
	}
	// Closing (a server may keep a process alive while work it started
	// runs) must not hold the check up.
	defer t.Env.CloseLater(s)
	ph.conn = s.Conn().Name()
	ph.logging = c.Declared(s, "logging")
	// The calls leave room for the round trip that ends the session (the
	// barrier of Settle).
	cut := time.Now().Add(searchBudget + cutGrace - t.Env.Target.Latency().Quantile(0.5))
	if !s.Modern() && ph.logging && ph.setLevel != "" {
		ph.levelResp, _ = s.Call(t.Ctx, "logging/setLevel", map[string]any{"level": ph.setLevel}, nil)
	}
	abandoned := false
	for i := ph.q.take(len(tools)); i >= 0; i = ph.q.take(len(tools)) {
		tl := tools[i]
		if t.Ctx.Err() != nil || time.Now().Add(pace(t, tl.name)).After(cut) {
			ph.q.leftOut()
			continue
		}
		params, o, cl := ph.callParams(s, tl, i)
		sent := time.Now()
		until := sent.Add(callPatience)
		if cut.Before(until) {
			until = cut
		}
		ctx, cancel := context.WithDeadline(t.Ctx, until)
		cl.overlapped = abandoned
		cl.resp, cl.err = s.Call(ctx, "tools/call", params, o)
		cancel()
		if cl.err != nil && ctx.Err() != nil && t.Ctx.Err() == nil {
			cl.cut = time.Since(sent)
			abandoned = true
		}
		ph.calls = append(ph.calls, cl)
	}
	if !s.Modern() && ph.logging && ph.key == "B" && ph.shard == 0 {
		ph.badLevelResp, _ = s.Call(t.Ctx, "logging/setLevel", map[string]any{"level": "verbose"}, nil)
	}
	if ph.badLevelResp != nil && ph.badLevelResp.Msg != nil {
		t.Quiet(s) // an answered request was the barrier already
	} else {
		t.Settle(s)
	}
	ph.collect(t, mark)
}

// collect keeps the frames of the phase's connection and ties requests and
// responses to the calls.
func (ph *phase) collect(t *c.T, mark int64) {
	byID := map[string]*call{}
	for _, cl := range ph.calls {
		byID[cl.id.Key()] = cl
	}
	for _, f := range t.FramesSince(mark) {
		if f.Conn != ph.conn || f.Kind != wire.KindMessage {
			continue
		}
		msg, err := c.Decode(f)
		if err != nil {
			continue
		}
		ph.events = append(ph.events, event{f: f, msg: msg})
		if !msg.HasID {
			continue
		}
		switch {
		case f.Dir == wire.Out && msg.HasMethod:
			if cl := byID[msg.ID.Key()]; cl != nil && msg.Method == "tools/call" && cl.reqSeq == 0 {
				cl.reqSeq, cl.exchange = f.Seq, f.Exchange
			}
		case f.Dir == wire.In && msg.Kind() == jsonrpc.KindResponse:
			if cl := byID[msg.ID.Key()]; cl != nil && cl.respSeq == 0 {
				cl.respSeq = f.Seq
			}
			if ph.levelResp != nil && ph.levelSeq == 0 && msg.ID.Key() == ph.levelResp.ID.Key() {
				ph.levelSeq = f.Seq
			}
		}
	}
	for _, cl := range ph.calls {
		if cl.respSeq == 0 && cl.resp != nil && cl.resp.Msg != nil {
			cl.respSeq = cl.resp.Frame.Seq // matched by the session despite the id's type
		}
	}
}

// notes returns the server→client notifications with method.
func (ph *phase) notes(method string) []event {
	var out []event
	for _, e := range ph.events {
		if e.f.Dir == wire.In && e.msg.Kind() == jsonrpc.KindNotification && e.msg.Method == method {
			out = append(out, e)
		}
	}
	return out
}

// activeAt returns the calls whose request was sent and not yet answered
// when frame seq arrived.
func (ph *phase) activeAt(seq int64) []*call {
	var out []*call
	for _, cl := range ph.calls {
		if cl.reqSeq != 0 && cl.reqSeq < seq && (cl.respSeq == 0 || seq < cl.respSeq) {
			out = append(out, cl)
		}
	}
	return out
}

// callByToken returns the call whose progress token is tok (same JSON
// type); loose matches ignore the type (7 and "7").
func (ph *phase) callByToken(tok json.RawMessage, loose bool) *call {
	k := jsonrpc.RawID(tok)
	for _, cl := range ph.calls {
		if cl.token == nil {
			continue
		}
		ck := jsonrpc.RawID(cl.token)
		if ck.Key() == k.Key() || (loose && ck.LooseKey() == k.LooseKey()) {
			return cl
		}
	}
	return nil
}

// callOfExchange returns the call made by HTTP exchange x.
func (ph *phase) callOfExchange(x int64) *call {
	for _, cl := range ph.calls {
		if x != 0 && cl.exchange == x {
			return cl
		}
	}
	return nil
}

// requestOfExchange returns the request frame of HTTP exchange x.
func (ph *phase) requestOfExchange(x int64) *jsonrpc.Message {
	for _, e := range ph.events {
		if x != 0 && e.f.Exchange == x && e.f.Dir == wire.Out {
			return e.msg
		}
	}
	return nil
}

// sharedPhase views the shared session (the other checks' traffic, from
// its handshake until now) as a phase: every request that carried a
// progress token is a call.
func sharedPhase(t *c.T) *phase {
	s := t.Shared()
	ph := &phase{key: "shared", what: "of the other checks on the shared session", conn: s.Conn().Name(), logging: c.Declared(s, "logging")}
	ph.events = connEvents(t, ph.conn)
	for _, e := range ph.events {
		if e.f.Dir != wire.Out || e.msg.Kind() != jsonrpc.KindRequest {
			continue
		}
		var p struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		}
		if json.Unmarshal(e.msg.Params, &p) != nil || p.Meta["progressToken"] == nil {
			continue
		}
		ph.tokens = true
		ph.calls = append(ph.calls, &call{method: e.msg.Method, id: e.msg.ID, token: p.Meta["progressToken"], reqSeq: e.f.Seq, exchange: e.f.Exchange})
	}
	return ph
}

// usable reports the phases that ran, and explains the others.
func (ex *exercise) usable(t *c.T) []*phase {
	var out []*phase
	for _, ph := range ex.phases {
		if ph.err != nil {
			t.Note("session %s (calls %s) could not be opened: %v", ph.key, ph.what, ph.err)
			continue
		}
		out = append(out, ph)
	}
	if len(out) == 0 && len(ex.phases) > 0 {
		t.Error("no session of the exercise could be opened: %v", ex.phases[0].err)
	}
	return out
}

// requireTools ends the check as NA when the exercise could call nothing.
func (ex *exercise) requireTools(t *c.T) {
	if len(ex.tools) > 0 {
		return
	}
	if ex.policy {
		t.PolicyNA("%s", ex.noTools)
	}
	t.NA("%s", ex.noTools)
}

// tried describes the exercise for NA messages.
func (ex *exercise) tried() string {
	var parts []string
	late := 0
	for _, ph := range ex.phases {
		if ph.shard != 0 {
			continue
		}
		calls := 0
		for _, sh := range ex.shards(ph.key) {
			calls += len(sh.calls)
		}
		late = max(late, ph.q.late)
		where := ""
		if ph.of > 1 {
			where = fmt.Sprintf(" (over %d sessions)", ph.of)
		}
		parts = append(parts, fmt.Sprintf("%d call(s) %s%s", calls, ph.what, where))
	}
	s := fmt.Sprintf("%d callable tool(s) (%s), each in separate sessions: %s", len(ex.tools), toolNames(ex.tools), strings.Join(parts, "; "))
	if late > 0 {
		s += fmt.Sprintf("; %d of the tools were not called in at least one kind of session: at their pace the calls would not have ended within the exercise's budget of %s", late, searchBudget)
	}
	if ex.refused > 0 {
		s += fmt.Sprintf("; %d tool(s) were not called under the call policy", ex.refused)
	}
	return s
}

func toolNames(ts []tool) string {
	names := make([]string, 0, len(ts))
	for _, tl := range ts {
		names = append(names, tl.name)
	}
	sort.Strings(names)
	if len(names) > 6 {
		return strings.Join(names[:6], ", ") + fmt.Sprintf(", … %d more", len(names)-6)
	}
	return strings.Join(names, ", ")
}

// param returns params[key] of a message (nil when absent).
func param(m *jsonrpc.Message, key string) (json.RawMessage, bool) {
	var p map[string]json.RawMessage
	if json.Unmarshal(m.Params, &p) != nil {
		return nil, false
	}
	v, ok := p[key]
	return v, ok
}

// paramString returns params[key] as a string.
func paramString(m *jsonrpc.Message, key string) (string, bool) {
	raw, ok := param(m, key)
	if !ok {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// describeCall names a call for messages.
func describeCall(cl *call) string {
	s := fmt.Sprintf("tools/call %s (id %s", cl.tool, cl.id)
	if cl.method != "" {
		s = fmt.Sprintf("%s (id %s", cl.method, cl.id)
	}
	if cl.token != nil {
		s += ", progressToken " + string(cl.token)
	}
	if cl.logLevel != "" {
		s += ", logLevel " + cl.logLevel
	}
	return s + ")"
}

// watchAfterCancel waits out the watch window after pr's cancellation (what
// arrives in it is judged) and marks the probe watched.
// settle sends the era's probe request right after a cancellation, in the
// background: once the server has answered it, it has read the
// cancellation (stdio is read in order), and what it sends for the
// cancelled request from then on, past the race window, is no race
// (settledSeq; the run-wide CAN-003 rule reads the same event).
func settle(t *c.T, s *session.Session) {
	m, p := t.Probe()
	go func() { _, _ = s.Call(t.Ctx, m, p, nil) }()
}
