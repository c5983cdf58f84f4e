// Package observe judges the run-wide invariants : the
// requirements of the form "never …" or "every message …" are judged by
// observers that every frame of the whole run passes through, whichever
// check provoked it, not only on the probe of the requirement's own check.
//
// The recorder hands every frame (redacted, in sequence order) to
// Observer.Frame. The observer keeps, per connection, what it needs to give
// a server message its context: the request it answers (method, era,
// declared client capabilities, progress token), the negotiated legacy
// revision, the server's declared capabilities, and the check that was
// running. Each rule (rules.go) judges one requirement on one message; the
// first offending exchange of each requirement and revision is kept with
// the check that provoked it. After every check ran, Apply folds the
// violations into the results: a requirement violated anywhere in the run
// is never a PASS.
package observe

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/internal/catalog"
	"github.com/mcpconform/mcpconform/internal/jsonobj"
	"github.com/mcpconform/mcpconform/internal/jsonrpc"
	"github.com/mcpconform/mcpconform/internal/msgcheck"
	"github.com/mcpconform/mcpconform/internal/wire"
)

// Meta keys of 2026-07-28 (as in internal/session, which observe does not import).
const (
	metaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	metaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	tasksExtension         = "io.modelcontextprotocol/tasks"
)

// Detection names the phase before the first check (era detection).
const Detection = "era detection (before the checks)"

// Limits that bound the observer's memory.
const (
	maxPending    = 4096    // requests awaiting an answer, per connection
	keepRequest   = 4 << 10 // bytes of a request frame kept for the quote
	keepOffending = 64 << 10
	// maxOffending caps the offending frames a violation names.
	maxOffending = 256
	maxConns     = 4096
	// maxValid bounds a request the harness sends as valid: a larger one is
	// a robustness probe (oversized payloads), and its payload is kept
	// until answered.
	maxValid = 64 << 10
	// maxCancelled bounds the unsettled cancellations kept per connection.
	maxCancelled = 64
	// CancelGrace is the race window after a cancellation (TOL-5), the same as CAN-003's own probe.
	CancelGrace = 200 * time.Millisecond
)

type vkey struct {
	req  string
	rev  catalog.Revision
	soft bool
}

// request is what the observer remembers of a request the harness sent.
type request struct {
	method string
	rev    catalog.Revision // "" when its era is ambiguous
	caps   map[string]json.RawMessage
	token  string // progressToken (canonical JSON), "" when none
	task   bool   // a task-augmented request (2025-11-25 params.task)
	// modernShaped: its _meta carries a protocolVersion (of any value): a
	// 2026-07-28 request, even with a version the server does not support.
	modernShaped bool
	check        string
	frame        wire.Frame
	seq          int64 // Seq of the request frame
	// valid marks a request the harness sent as valid (wellFormed): its
	// answers are judged against the message model (RPC-013); answers to
	// robustness and fault probes are not (house rule 9). raw is its
	// payload, kept until it is answered, to tell the server's echo of the
	// harness's own input from its own content.
	valid bool
	raw   []byte
	// cancelled is the harness's notifications/cancelled naming this
	// request (2026-07-28 stdio, CAN-003), nil when none.
	cancelled *cancellation
}

// cancellation is one notifications/cancelled the harness sent for a
// request in flight.
type cancellation struct {
	seq int64     // Seq of the cancellation frame
	at  time.Time // when it was sent
	// settled: the server has answered a request sent after the
	// cancellation, so it has read it (stdio is read in order): what it
	// sends for the cancelled request from then on is no race.
	settled bool
}

type progressState struct {
	req      *request
	last     float64
	seen     bool
	answered bool
}

// conn is the observer's state of one connection.
type conn struct {
	name      string
	transport string
	// legacy is the revision the connection's initialize negotiated (or
	// asked for, until the answer came).
	legacy catalog.Revision
	// era is the revision of the latest request sent that had one.
	era catalog.Revision
	// clientCaps are the capabilities the client declared in initialize.
	clientCaps map[string]json.RawMessage
	// serverCaps are the capabilities from the initialize or discover result.
	serverCaps  map[string]json.RawMessage
	initID      string // id of the initialize request
	initialized bool   // notifications/initialized was sent
	initFailed  bool   // initialize was answered with an error
	pending     map[string]*request
	exchanges   map[int64]*request
	judged      map[int64]bool // HTTP exchanges whose head was judged
	mcp         map[int64]bool // HTTP exchanges that carry MCP messages
	progress    map[string]*progressState
	lines       int // stdout lines seen (stdio)
	// sentBatch: the harness sent a JSON array (a batch) on this
	// connection; an array in reply is RPC-008's to judge, not a framing
	// fault (house rule 9: the harness's own framing).
	sentBatch bool
	// rootsNudged: the harness sent notifications/roots/list_changed on
	// this connection; a roots/list that follows is provoked by that
	// input, not an unprompted use of an undeclared capability.
	rootsNudged bool
	// mixed: requests of more than one revision were sent on this
	// connection, so a server message that answers none has no known era.
	mixed bool
	// sids are the Mcp-Session-Id values seen in responses (HTTP-007).
	sids map[string]bool
	// requestIDs are the ids of the requests the server sent (RPC-009),
	// at most maxPending.
	requestIDs map[string]bool
	// cancelled are the requests the harness cancelled whose
	// cancellation is not settled yet (bounded).
	cancelled []*request
	// posted are the HTTP exchanges that POSTed one well-formed
	// notification (or legacy response), until their reply is judged
	// (HTTP-004).
	posted map[int64]*request
	// streams holds per exchange what HTTP-005 and HTTP-009 track of an
	// event stream.
	streams map[int64]*stream
	// eventIDs maps the SSE event ids seen in a session (by its
	// Mcp-Session-Id, "" without one) to the exchange that first carried
	// each (HTTP-009).
	eventIDs map[string]map[string]int64
}

// stream is the observer's state of one HTTP exchange's event stream.
type stream struct {
	session  string // the Mcp-Session-Id the request carried
	answered bool   // the response to the exchange's request arrived on it
	resuming bool   // a GET with Last-Event-ID
	// headJudged: the reply's head was judged (HTTP-019); authJudged: its
	// challenge (AUTH-003, AUTH-004, AUTH-009)
	headJudged, authJudged bool
}

// Observer watches every frame of a run. It is safe for concurrent use.
type Observer struct {
	mu         sync.Mutex
	check      string
	conns      map[string]*conn
	first      map[vkey]*Violation
	order      []vkey
	tasks      bool // the server advertised the tasks extension somewhere
	transports map[string]bool
	// legacyServed: some initialize was answered with a result naming a
	// legacy revision, so the server serves the legacy era too (rules of
	// modernOnly do not bind it).
	legacyServed bool
	// validResults caches the results (revision, method, result bytes)
	// found valid for the message model (RPC-013): the lists every check
	// fetches again are validated once.
	validResults map[[sha256.Size]byte]bool
	// validRequests caches whether the harness's requests (revision,
	// definition, params) are valid for the model (wellFormed).
	validRequests map[[sha256.Size]byte]bool
	// laneOf, when set (SetLanes), names the lane of a connection; lanes
	// run their checks concurrently, each naming its own (SetCheckIn).
	laneOf    func(conn string) string
	laneCheck map[string]string
}

// New returns an observer with no check running yet.
func New() *Observer {
	return &Observer{check: Detection, conns: map[string]*conn{}, first: map[vkey]*Violation{}, transports: map[string]bool{}}
}

// SetCheck names the check that runs from now on.
func (o *Observer) SetCheck(name string) {
	if o == nil {
		return
	}
	o.mu.Lock()
	o.check = name
	o.mu.Unlock()
}

// SetLanes tells the observer that checks run concurrently in lanes, and
// which lane a connection (a wire.Frame's Conn) belongs to ("" for none).
func (o *Observer) SetLanes(laneOf func(conn string) string) {
	if o == nil {
		return
	}
	o.mu.Lock()
	o.laneOf = laneOf
	o.laneCheck = map[string]string{}
	o.mu.Unlock()
}

// SetCheckIn names the check that runs from now on in lane (SetLanes).
func (o *Observer) SetCheckIn(lane, name string) {
	if o == nil {
		return
	}
	o.mu.Lock()
	if o.laneCheck == nil {
		o.laneCheck = map[string]string{}
	}
	o.laneCheck[lane] = name
	o.mu.Unlock()
}

// checkOn names the check running where c's traffic comes from: its
// lane's, else the one check running.
func (o *Observer) checkOn(c *conn) string {
	if o.laneOf != nil {
		if name, ok := o.laneCheck[o.laneOf(c.name)]; ok {
			return name
		}
	}
	return o.check
}

// Violations returns the first violation of each requirement and revision,
// in the order they were seen.
func (o *Observer) Violations() []Violation {
	if o == nil {
		return nil
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	out := make([]Violation, 0, len(o.order))
	for _, k := range o.order {
		if o.legacyServed && modernOnly[k.req] {
			continue
		}
		out = append(out, *o.first[k])
	}
	return out
}

func (o *Observer) connOf(f wire.Frame) *conn {
	c := o.conns[f.Conn]
	if c == nil {
		if len(o.conns) >= maxConns {
			o.conns = map[string]*conn{} // bound memory on absurd runs
		}
		tr := wire.Stdio
		if f.HTTP != nil {
			tr = wire.HTTP
		}
		c = &conn{name: f.Conn, transport: tr, pending: map[string]*request{}, exchanges: map[int64]*request{}, judged: map[int64]bool{}, mcp: map[int64]bool{}, progress: map[string]*progressState{}}
		o.conns[f.Conn] = c
	}
	if f.HTTP != nil {
		c.transport = wire.HTTP
	}
	return c
}

// Frame observes one frame (the recorder's redacted copy, Seq set).
//
// It returns the message it decoded from an incoming frame (nil when it
// decoded none), for the recorder to hand to the frame's reader
// (wire.Frame.Decoded): each message is decoded once.
func (o *Observer) Frame(f wire.Frame) any {
	if o == nil || f.Conn == "" {
		return nil
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	c := o.connOf(f)
	switch {
	case f.Dir == wire.Out && f.HTTP != nil && f.Exchange != 0 && f.Kind != wire.KindNote:
		// An MCP exchange: a POSTed JSON payload, or a GET that listens for
		// an event stream. Other HTTP traffic (protected-resource metadata,
		// well-known documents) carries no MCP messages.
		if len(c.mcp) >= maxPending {
			c.mcp = map[int64]bool{}
		}
		c.mcp[f.Exchange] = f.HTTP.Method == "POST" && f.Kind == wire.KindMessage ||
			f.HTTP.Method == "GET" && strings.Contains(f.HTTP.Header.Get("Accept"), "text/event-stream")
		if c.mcp[f.Exchange] {
			o.exchange(c, f)
		}
		if f.Kind == wire.KindMessage {
			o.sent(c, f)
		}
	case f.Dir == wire.Out && f.Kind == wire.KindMessage:
		o.sent(c, f)
	case f.Dir == wire.In && (f.Kind == wire.KindMessage || f.Kind == wire.KindBody):
		if m := o.received(c, f); m != nil {
			return m
		}
	}
	return nil
}

// metaMember is a member of a request's _meta as the observer keeps it: its
// JSON when at most maxMetaMember bytes, else nothing (the harness's _meta
// also carries its multi-megabyte stimuli, which are not copied again).
type metaMember []byte

const maxMetaMember = 64 << 10

func (m *metaMember) UnmarshalJSON(b []byte) error {
	if len(b) <= maxMetaMember {
		*m = append((*m)[:0], b...)
	}
	return nil
}

// sentParams are the members of a sent request's params the observer keeps.
type sentParams struct {
	Meta            map[string]metaMember      `json:"_meta"`
	ProtocolVersion string                     `json:"protocolVersion"`
	Capabilities    map[string]json.RawMessage `json:"capabilities"`
	Task            json.RawMessage            `json:"task"`
}

var sentParamNames = []string{"_meta", "protocolVersion", "capabilities", "task"}

// decode fills p from raw as json.Unmarshal does. Params of megabytes (the
// robustness probes' stimuli, valid JSON) are first cut down to the
// members p keeps, and a large _meta to its members with the large values
// elided (a metaMember keeps nothing of them anyway): unmarshalling the
// megabytes again was the observer's largest cost.
func (p *sentParams) decode(raw json.RawMessage) {
	ms, ok := []jsonobj.Member(nil), false
	if len(raw) >= jsonobj.Large {
		ms, ok = jsonobj.Members(raw)
	}
	if !ok {
		_ = json.Unmarshal(raw, p)
		return
	}
	elided := map[string]bool{} // _meta keys whose last value was large
	var b bytes.Buffer
	b.WriteByte('{')
	for _, m := range ms {
		if !slices.ContainsFunc(sentParamNames, func(n string) bool { return strings.EqualFold(n, m.Key) }) {
			continue // json.Unmarshal would ignore it too
		}
		v := m.Value
		if strings.EqualFold(m.Key, "_meta") {
			switch inner, ok := jsonobj.Members(v); {
			case ok && len(v) > maxMetaMember:
				v = elideLarge(inner, elided)
			case ok:
				for _, im := range inner {
					delete(elided, im.Key) // a later small value wins
				}
			case string(v) == "null":
				clear(elided) // the map is dropped
			}
		}
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		writeMember(&b, m.Key, v)
	}
	b.WriteByte('}')
	_ = json.Unmarshal(b.Bytes(), p)
	for k := range elided {
		if p.Meta != nil {
			p.Meta[k] = nil // present, nothing kept: what a large value decodes to
		}
	}
}

// elideLarge rebuilds an object with every value over maxMetaMember bytes
// replaced by null, noting those keys in elided (and forgetting a key whose
// later value is small: the last duplicate wins).
func elideLarge(ms []jsonobj.Member, elided map[string]bool) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range ms {
		if i > 0 {
			b.WriteByte(',')
		}
		if len(m.Value) > maxMetaMember {
			writeMember(&b, m.Key, json.RawMessage("null"))
			elided[m.Key] = true
		} else {
			writeMember(&b, m.Key, m.Value)
			delete(elided, m.Key)
		}
	}
	b.WriteByte('}')
	return b.Bytes()
}

func writeMember(b *bytes.Buffer, key string, v json.RawMessage) {
	k, _ := json.Marshal(key)
	b.Write(k)
	b.WriteByte(':')
	b.Write(v)
}

// sent records what a request or notification of the harness tells.
func (o *Observer) sent(c *conn, f wire.Frame) {
	if t := bytes.TrimSpace(f.Raw); len(t) > 0 && t[0] == '[' {
		c.sentBatch = true
	}
	m, ok := f.Decoded.(*jsonrpc.Message) // built by the session
	if !ok {
		var err error
		if m, err = jsonrpc.Decode(f.Raw); err != nil {
			return
		}
	}
	if !m.HasMethod || !m.HasID {
		o.posting(c, f, m)
	}
	if !m.HasMethod {
		return
	}
	var params sentParams
	params.decode(m.Params)
	if !m.HasID {
		switch m.Method {
		case "notifications/initialized":
			c.initialized = true
		case "notifications/roots/list_changed":
			c.rootsNudged = true
		case "notifications/cancelled":
			o.cancelled(c, f, m)
		}
		return
	}
	r := &request{method: m.Method, check: o.checkOn(c), frame: keep(f, keepRequest), seq: f.Seq, task: len(params.Task) > 0 && string(params.Task) != "null"}
	_, r.modernShaped = params.Meta[metaProtocolVersion]
	var pv string
	// A 2026-07-28 request: a supported modern protocolVersion and a
	// clientCapabilities object. Without the capabilities its era is
	// ambiguous on a dual-era server (it may be served as legacy traffic,
	// TOL-17): such answers are not judged by era.
	if json.Unmarshal(params.Meta[metaProtocolVersion], &pv) == nil && pv != "" && !catalog.Revision(pv).IsLegacy() && catalog.Revision(pv).Known() &&
		json.Unmarshal(params.Meta[metaClientCapabilities], &r.caps) == nil && r.caps != nil {
		r.rev = catalog.Revision(pv)
	} else if m.Method == "initialize" {
		if rv := catalog.Revision(params.ProtocolVersion); rv.IsLegacy() && rv.Known() {
			c.legacy, r.rev = rv, rv
		}
		c.clientCaps, c.initID, c.initialized, c.initFailed = params.Capabilities, m.ID.Key(), false, false
	} else {
		r.rev = c.legacy
	}
	if tok, ok := params.Meta["progressToken"]; ok {
		r.token = canonical(json.RawMessage(tok))
		c.progress[r.token] = &progressState{req: r}
	}
	if r.rev != "" {
		if c.era != "" && c.era != r.rev {
			c.mixed = true
		}
		c.era = r.rev
	}
	if r.valid = o.wellFormed(f, m, r.rev); r.valid {
		r.raw = append([]byte(nil), f.Raw...)
	}
	if len(c.pending) >= maxPending {
		c.pending = map[string]*request{}
	}
	c.pending[m.ID.Key()] = r
	if f.Exchange != 0 {
		if len(c.exchanges) >= maxPending {
			c.exchanges, c.judged = map[int64]*request{}, map[int64]bool{}
		}
		c.exchanges[f.Exchange] = r
	}
}

// event is one server message in its context.
type event struct {
	o   *Observer
	c   *conn
	f   wire.Frame
	m   *jsonrpc.Message // nil when the payload is not a JSON object
	err error            // why m is nil
	req *request         // the request m answers, or whose HTTP exchange carried it
	// posted is the notification or response whose POST this reply
	// answers (HTTP-004), nil when none.
	posted *request
	resp   bool             // m is the response to req
	rev    catalog.Revision // the revision m belongs to ("" unknown)

	res     map[string]json.RawMessage // m's result object, decoded once
	resDone bool

	// auth is the reply's Bearer challenges, parsed once for the AUTH rules.
	auth struct {
		done, ok bool
		status   int
		chs      []map[string]string
	}
}

// result returns the result object of m (nil when m has none or it is not
// an object), decoding it once for every rule.
func (e *event) result() map[string]json.RawMessage {
	if !e.resDone {
		e.resDone = true
		if e.m != nil && e.m.HasResult {
			e.res = e.m.ResultObject()
		}
	}
	return e.res
}

func (o *Observer) received(c *conn, f wire.Frame) *jsonrpc.Message {
	if c.transport == wire.HTTP && !c.mcp[f.Exchange] {
		return nil // not an MCP exchange (or its request was not seen)
	}
	e := &event{o: o, c: c, f: f, rev: c.era}
	if c.transport == wire.Stdio {
		c.lines++
	}
	decoded := e.classify()
	if f.Exchange != 0 {
		if r := c.exchanges[f.Exchange]; r != nil {
			e.req, e.rev = r, r.rev
		}
		if r := c.posted[f.Exchange]; r != nil {
			e.posted, e.rev = r, r.rev
			delete(c.posted, f.Exchange) // its reply is judged once, on its first frame
		}
	}
	if e.m != nil && e.m.Kind() == jsonrpc.KindResponse && e.m.HasID {
		if r := c.pending[e.m.ID.Key()]; r != nil {
			e.req, e.resp, e.rev = r, true, r.rev
			delete(c.pending, e.m.ID.Key())
		}
	}
	for _, rl := range rules {
		if f.Truncated && !rl.truncated {
			continue
		}
		rl.judge(e)
	}
	if e.m != nil && e.resp {
		streamAnswered(c, e)
		o.answered(c, e)
	}
	return decoded
}

// answered updates the connection state after a response was judged.
func (o *Observer) answered(c *conn, e *event) {
	e.req.raw = nil
	kept := c.cancelled[:0]
	for _, r := range c.cancelled {
		if e.req.seq > r.cancelled.seq {
			r.cancelled.settled = true
			continue
		}
		kept = append(kept, r)
	}
	clear(c.cancelled[len(kept):])
	c.cancelled = kept
	res := e.result()
	if caps, ok := res["capabilities"]; ok && (e.req.method == "initialize" || e.req.method == "server/discover") {
		var m map[string]json.RawMessage
		if json.Unmarshal(caps, &m) == nil {
			c.serverCaps = m
			var ext map[string]json.RawMessage
			if json.Unmarshal(m["extensions"], &ext) == nil {
				if _, ok := ext[tasksExtension]; ok {
					o.tasks = true
				}
			}
		}
	}
	if e.req.method == "initialize" && e.m.ID.Key() == c.initID {
		c.initFailed = !e.m.HasResult
		var pv string
		if json.Unmarshal(res["protocolVersion"], &pv) == nil && catalog.Revision(pv).IsLegacy() && catalog.Revision(pv).Known() {
			c.legacy, c.era = catalog.Revision(pv), catalog.Revision(pv)
			if e.m.HasResult && !e.m.HasError {
				o.legacyServed = true
			}
		}
	}
	if e.req.token != "" {
		if p := c.progress[e.req.token]; p != nil && p.req == e.req && !e.req.task && !isTaskCreation(res) {
			p.answered = true
		}
	}
}

func isTaskCreation(res map[string]json.RawMessage) bool {
	if string(res["resultType"]) == `"task"` {
		return true
	}
	_, task := res["task"]
	_, content := res["content"]
	return task && !content
}

// violate keeps the first violation of rule id in the event's revision.
func (e *event) violate(id string, soft bool, format string, args ...any) {
	o := e.o
	req, ok := catalog.Get(id)
	if !ok {
		return
	}
	if e.rev != "" && !req.AppliesTo(e.rev, e.c.transport) {
		return
	}
	if e.rev == "" && !req.AppliesToTransport(e.c.transport) {
		return
	}
	k := vkey{id, e.rev, soft}
	if v := o.first[k]; v != nil {
		v.Count++
		if len(v.Offending) < maxOffending {
			v.Offending = append(v.Offending, e.f.Seq)
		}
		return
	}
	check := o.checkOn(e.c)
	var frames []wire.Frame
	if r := e.req; r != nil || e.posted != nil {
		if r == nil {
			r = e.posted
		}
		check = r.check
		frames = append(frames, r.frame)
	}
	frames = append(frames, keep(e.f, keepOffending))
	o.first[k] = &Violation{Requirement: id, Revision: e.rev, Transport: e.c.transport, Soft: soft, Check: check,
		Message: fmt.Sprintf(format, args...), Frames: frames, Count: 1, Offending: []int64{e.f.Seq}, Head: headRules[id]}
	o.order = append(o.order, k)
}

// keep copies f with its payload cut at n bytes.
func keep(f wire.Frame, n int) wire.Frame {
	raw := f.Raw
	if len(raw) > n {
		raw = raw[:n]
		f.Truncated = true
	}
	f.Raw = append([]byte(nil), raw...)
	if f.HTTP != nil {
		h := *f.HTTP
		f.HTTP = &h
	}
	return f
}

func canonical(raw json.RawMessage) string {
	var buf bytes.Buffer
	if json.Compact(&buf, raw) == nil {
		return buf.String()
	}
	return string(raw)
}

// cancelled records the harness's notifications/cancelled for a 2026-07-28
// request in flight on a stdio connection (CAN-003; on HTTP, closing the
// stream is the cancellation, CAN-004).
func (o *Observer) cancelled(c *conn, f wire.Frame, m *jsonrpc.Message) {
	if c.transport != wire.Stdio {
		return
	}
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(m.Params, &p) != nil || len(p.RequestID) == 0 {
		return
	}
	r := c.pending[jsonrpc.RawID(p.RequestID).Key()]
	if r == nil || r.rev != catalog.Modern || r.cancelled != nil {
		return
	}
	r.cancelled = &cancellation{seq: f.Seq, at: f.Time}
	if len(c.cancelled) >= maxCancelled {
		c.cancelled = c.cancelled[1:]
	}
	c.cancelled = append(c.cancelled, r)
}

// wellFormed reports whether the harness sent request m (frame f) as a
// valid request of revision rev: one JSON-RPC 2.0 request framed alone (no
// blank line or raw newline around or inside it), a string or integer id,
// object params or none, not oversized, and valid for the revision's
// client message model. Robustness and fault probes (malformed ids,
// params that are not objects, unknown methods, missing or wrong _meta,
// oversized payloads) are not: what the server answers them may echo the
// harness's own malformed input.
func (o *Observer) wellFormed(f wire.Frame, m *jsonrpc.Message, rev catalog.Revision) bool {
	raw := f.Raw
	if rev == "" || !rev.Known() || f.Truncated || len(raw) == 0 || len(raw) > maxValid ||
		len(bytes.TrimSpace(raw)) != len(raw) || bytes.ContainsAny(raw, "\r\n") {
		return false
	}
	if m.JSONRPC != "2.0" || !m.ID.Valid() || !m.MethodIsString || m.Method == "" || m.HasResult || m.HasError {
		return false
	}
	if m.HasParams && (len(m.Params) == 0 || m.Params[0] != '{') {
		return false
	}
	def := clientRequests[m.Method]
	if def == "" {
		return false
	}
	// A request with the envelope's members only (checked above) is
	// decided by its revision, method and params: the harness sends the
	// same ones again and again under new ids, validated once.
	var key [sha256.Size]byte
	cacheable := len(m.Members) == 3 || (len(m.Members) == 4 && m.HasParams)
	if cacheable {
		h := sha256.New()
		h.Write([]byte("request\x00" + string(rev) + "\x00" + def + "\x00"))
		h.Write(m.Params)
		copy(key[:], h.Sum(nil))
		if v, ok := o.validRequests[key]; ok {
			return v
		}
	}
	// a method the revision does not define is a probe too (the model has
	// no definition of it there: ValidateAs says so)
	valid := len(msgcheck.ValidateAs(string(rev), def, raw)) == 0
	if cacheable {
		if o.validRequests == nil || len(o.validRequests) >= maxValidResults {
			o.validRequests = map[[sha256.Size]byte]bool{}
		}
		o.validRequests[key] = valid
	}
	return valid
}

// clientRequests are the schema definitions of the requests a client
// sends, by method (the members of each revision's ClientRequest union).
var clientRequests = map[string]string{
	"initialize":               "InitializeRequest",
	"ping":                     "PingRequest",
	"server/discover":          "DiscoverRequest",
	"tools/list":               "ListToolsRequest",
	"tools/call":               "CallToolRequest",
	"prompts/list":             "ListPromptsRequest",
	"prompts/get":              "GetPromptRequest",
	"resources/list":           "ListResourcesRequest",
	"resources/templates/list": "ListResourceTemplatesRequest",
	"resources/read":           "ReadResourceRequest",
	"resources/subscribe":      "SubscribeRequest",
	"resources/unsubscribe":    "UnsubscribeRequest",
	"subscriptions/listen":     "SubscriptionsListenRequest",
	"completion/complete":      "CompleteRequest",
	"logging/setLevel":         "SetLevelRequest",
	"tasks/get":                "GetTaskRequest",
	"tasks/result":             "GetTaskPayloadRequest",
	"tasks/cancel":             "CancelTaskRequest",
	"tasks/list":               "ListTasksRequest",
}
