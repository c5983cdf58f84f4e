package fuzz

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpconform/mcpconform/internal/catalog"
	"github.com/mcpconform/mcpconform/internal/jsonrpc"
	"github.com/mcpconform/mcpconform/internal/judge"
	"github.com/mcpconform/mcpconform/internal/msgcheck"
	"github.com/mcpconform/mcpconform/internal/session"
	"github.com/mcpconform/mcpconform/internal/target"
	"github.com/mcpconform/mcpconform/internal/trigger"
	"github.com/mcpconform/mcpconform/internal/wire"
)

// Bounds.
const (
	maxTranscript = 40
	clipAt        = 240
	maxListPages  = 20
	maxTools      = 64
	maxLate       = 10000
)

// harness holds the session to the target; it is reopened after a crash
// or a hang.
type harness struct {
	tg      *target.Target
	rev     catalog.Revision
	s       *session.Session
	timeout time.Duration
	probe   string
	answer  []string // methods the server must answer (probe + declared lists)
	tools   []toolInfo
	mrtr    []mrtrTarget
	// answeredFaults holds the kinds of fault (faultIDs values) the
	// server has answered: their answers are awaited from then on.
	answeredFaults sync.Map
	invalid        []invalidReq     // requests to refuse (params.go)
	trigger        *trigger.Trigger // the run's catalog_change trigger (nil: none), for seq
	prompts        []promptInfo
	uris           []string
	templates      []string
	exchanges      atomic.Int64
	probes         atomic.Int64 // probes sent
	cases          atomic.Int64
	// late holds the id keys of earlier cases' messages on the harness's
	// session whose answers may still come (faults, cancelled requests)
	late map[string]string
	// lateSent holds, for the requests among late, their kind (paceKey)
	// and when their case began: a late answer tells how slow the kind is.
	lateSent map[string]lateReq
	// Probing: a case the server answered whole (every message a request,
	// each answered) goes without the liveness probe. quiet holds the id
	// keys of the last case's requests when it was such a case (another
	// answer to one of them is not the next case's defect); unprobed says
	// the last case was one; alwaysProbe is set once the server showed
	// what only a probe after each case attributes to its case (the
	// connection found ended after an unprobed case, another answer to a
	// request of one), and the probe follows every case from then on.
	quiet       map[string]bool
	unprobed    bool
	alwaysProbe bool
	// pace holds, per kind of request (paceKey), the longest answer time
	// observed: a request of a kind the server has answered is waited for
	// a multiple of that (and at least the patience).
	paceMu sync.Mutex
	pace   map[string]time.Duration
	// valid caches the message model's verdict on server messages
	// already validated (the same list or probe answer comes back case
	// after case).
	valid validCache
	// replay replays a finding's case for its re-runs (nil: replayCase;
	// the tests' fakes).
	replay replayFunc
}

func newHarness(ctx context.Context, tg *target.Target, rev catalog.Revision) (*harness, error) {
	h := &harness{tg: tg, timeout: tg.Timeout}
	if h.timeout <= 0 {
		h.timeout = 5 * time.Second
	}
	if rev == "" {
		d := tg.Detect(ctx)
		for r, s := range d.Sessions {
			if len(d.Revisions) == 0 || r != d.Revisions[0] {
				s.Close()
			}
		}
		if len(d.Revisions) == 0 {
			if d.Unreachable != nil {
				return nil, d.Unreachable
			}
			return nil, fmt.Errorf("no revision to fuzz: %s", strings.Join(d.Notes, "; "))
		}
		rev = d.Revisions[0]
		h.s = d.Sessions[rev]
	}
	h.rev = rev
	if h.s == nil {
		s, err := tg.Open(ctx, rev)
		if err != nil {
			return nil, fmt.Errorf("opening a %s session: %w", rev, err)
		}
		h.s = s
	}
	h.rev = h.s.Revision()
	h.probe = "ping"
	if h.s.Modern() {
		h.probe = "server/discover"
	}
	h.knowLatency(ctx)
	h.invalid = h.invalidRequests()
	h.answer = []string{h.probe}
	caps := h.s.Capabilities()
	for _, l := range []struct{ capability, method string }{
		{"tools", "tools/list"}, {"resources", "resources/list"}, {"resources", "resources/templates/list"}, {"prompts", "prompts/list"},
	} {
		if _, ok := caps[l.capability]; ok {
			h.answer = append(h.answer, l.method)
		}
	}
	return h, nil
}

func (h *harness) close() {
	if h.s != nil {
		h.s.Close()
		h.s = nil
	}
}

func (h *harness) reopen(ctx context.Context) error {
	h.close()
	h.late = nil
	h.lateSent = nil
	h.quiet = nil
	h.unprobed = false
	s, err := h.tg.Open(ctx, h.rev)
	if err != nil {
		return err
	}
	h.s = s
	return nil
}

// headers returns the HTTP headers a request for method with params needs
// on the harness's own session.
func (h *harness) headers(method string, params json.RawMessage) http.Header {
	if h.s.Transport() != wire.HTTP {
		return http.Header{}
	}
	return session.HTTPHeaders(h.s.Modern(), h.s.SessionID(), h.rev, method, params)
}

type sent struct {
	id      jsonrpc.ID
	method  string
	count   int
	mayDrop bool // cancelled in the same case: no response is fine
	// quiet: the last case, answered whole and not probed, had a request
	// with this id: a second answer to this id may be its.
	quiet bool
	// badArgs: a tools/call whose arguments break the tool's inputSchema
	// (the validator's reason); the answer must be an isError result or
	// JSON-RPC error -32602.
	badArgs, tool string
	// earlier names an earlier case's message with the same id whose
	// answer was still due when this case began: an answer to this id may
	// be that one's, and is never held against this case alone.
	earlier string
	depth   int    // nesting, when past judge.ParserDepthFloor
	pace    string // paceKey
	// refuse: a request the server must refuse (unknown method, invalid
	// params), judged by judgeRefusal
	refuse *invalidReq
}

// xopts tune exchangeOn for a session other than the harness's own (the
// state machines open one per case).
type xopts struct {
	s *session.Session // nil: the harness's session (reopened when broken)
	// headers gives the HTTP headers of each message and of the probe
	// (nil: the harness session's).
	headers func(method string, params json.RawMessage) http.Header
	// lateOK holds the id keys of requests cancelled earlier: a response
	// to one of them may still come.
	lateOK map[string]bool
	// lateFrom holds the id keys of earlier cases' messages whose answers
	// may still come, each with the case it belongs to.
	lateFrom map[string]string
	// rejectOK: on HTTP, a 4xx reply is an answer to the request it carried.
	rejectOK bool
	// together puts the messages in flight together: on stdio in one
	// write, over HTTP released at once (the re-runs of a concurrency
	// defect, rerun.go).
	together bool
}

// late reports whether an answer to id key k may still come from an
// earlier case.
func (xo xopts) late(k string) bool { return xo.lateOK[k] || xo.lateFrom[k] != "" }

// outcome is one judged exchange.
type outcome struct {
	probs      []problem
	transcript []string
	resp       map[string]*jsonrpc.Message // the response to each request, by id key
	header     map[string]http.Header      // HTTP: the reply headers of each request, by id key
	status     map[string]int              // HTTP: the reply status of each request, by id key
	broken     bool                        // the connection ended or stopped answering
}

// exchange sends msgs back to back on the harness's session and judges
// the exchange (see exchangeOn).
func (h *harness) exchange(ctx context.Context, msgs [][]byte) ([]problem, []string) {
	o := h.exchangeOn(ctx, msgs, xopts{})
	return o.probs, o.transcript
}

// exchangeOn sends msgs back to back and judges the exchange: every request
// (a well-formed message with a string or integer id) gets exactly one
// response with the same id and JSON type (a request cancelled in the same
// case may get none); notifications and faults get no result; every server
// message is valid for the revision; the server answers a liveness probe
// afterwards; no crash, no hang past the per-response deadline. The
// harness's own session is reopened when it crashed or hung.
func (h *harness) exchangeOn(ctx context.Context, msgs [][]byte, xo xopts) outcome {
	own := xo.s == nil
	if own && h.unprobed && h.s != nil {
		if closed, _ := h.s.Closed(); closed {
			// The connection ended after the last case, which the server
			// had answered and which was not probed: a defect of that case
			// (not this one's), found again from now on by the probe after
			// every case.
			h.alwaysProbe = true
			h.close()
		}
	}
	var quiet map[string]bool // the last case's, when it went unprobed
	if own {
		quiet, h.quiet = h.quiet, nil
	}
	if own && h.s == nil {
		if err := h.reopen(ctx); err != nil {
			return outcome{probs: []problem{{"transport", "reopen-failed", err.Error()}}, broken: true}
		}
	}
	s := xo.s
	if own {
		s = h.s
	}
	hdrs := xo.headers
	if hdrs == nil {
		hdrs = h.headers
	}
	if own {
		if h.late == nil || len(h.late) > maxLate {
			h.late = map[string]string{}
			h.lateSent = map[string]lateReq{}
		}
		xo.lateFrom = h.late
	}
	caseNo := h.cases.Load()
	stdio := s.Transport() == wire.Stdio
	reqs := map[string]*sent{}
	loose := map[string]*sent{}
	faultIDs := map[string]judge.Fault{} // id key of a faulty message whose id is readable → the fault
	var idless []int                     // the faulty messages whose id cannot be read (or is not valid)
	faultIdx := map[string]int{}         // id key of faultIDs → the message's index
	faultAnswered := make([]bool, len(msgs))
	var idlessAnswers []session.Event
	var order []*sent
	var cancels []string
	faults := 0
	// each message decoded once
	decoded := make([]*jsonrpc.Message, len(msgs))
	decodeErr := make([]error, len(msgs))
	for i, raw := range msgs {
		decoded[i], decodeErr[i] = jsonrpc.Decode(raw)
	}
	kinds := make([]judge.Fault, len(msgs)) // each message's fault (judge.Classify)
	for i, raw := range msgs {
		m, err := decoded[i], decodeErr[i]
		kind := judge.Classify(raw, stdio)
		kinds[i] = kind
		switch {
		case kind == judge.FaultNone && err == nil && m.Kind() == jsonrpc.KindRequest && reqs[m.ID.Key()] == nil,
			kind == judge.FaultTooDeep && err == nil && m.Kind() == jsonrpc.KindRequest && m.JSONRPC == "2.0" && m.MethodIsString && m.ID.Valid() && reqs[m.ID.Key()] == nil:
			r := &sent{id: m.ID, method: m.Method, earlier: xo.lateFrom[m.ID.Key()], quiet: quiet[m.ID.Key()], pace: paceKey(m.Method, m.Params)}
			if kind == judge.FaultTooDeep {
				// Valid JSON deeper than some parsers go (serde_json stops
				// at 128 levels, go-sdk at 10000): a parse error, addressed
				// to the request or to none, is a fair answer; silence
				// a WARN (judge.FaultAnswer), as long as the server stays
				// alive.
				faults++
				r.mayDrop = true
				r.depth = judge.Depth(raw)
				faultIDs[m.ID.Key()] = judge.FaultTooDeep
				faultIdx[m.ID.Key()] = i
			}
			if m.Method == "tools/call" {
				r.tool, r.badArgs = h.argumentFault(m.Params)
			}
			r.refuse = h.refusal(m.Method, m.Params)
			reqs[m.ID.Key()] = r
			order = append(order, r)
			if _, taken := loose[m.ID.LooseKey()]; !taken {
				loose[m.ID.LooseKey()] = r
			}
		case (kind == judge.FaultNone || kind == judge.FaultTooDeep && m.JSONRPC == "2.0" && m.MethodIsString) && err == nil && m.Kind() == jsonrpc.KindNotification:
			if kind == judge.FaultTooDeep {
				// nested deep: a parse error (addressed to no request) is
				// a fair answer, silence too; a cancellation still counts
				faults++
				idless = append(idless, i)
			}
			if m.Method == "notifications/cancelled" {
				var p struct {
					RequestID json.RawMessage `json:"requestId"`
				}
				if json.Unmarshal(m.Params, &p) == nil && len(p.RequestID) > 0 {
					cancels = append(cancels, jsonrpc.RawID(p.RequestID).Key())
				}
			}
		case kind == judge.FaultNone:
			// a response (or a request reusing an id of the case: dedupeIDs
			// leaves none)
		default:
			faults++
			if err == nil && m.ID.Valid() && reqs[m.ID.Key()] == nil {
				faultIDs[m.ID.Key()] = kind // its answer carries its id
				faultIdx[m.ID.Key()] = i
			} else {
				idless = append(idless, i) // its answer, if any, is addressed to no request
			}
		}
	}
	awaited := 0
	for _, r := range reqs {
		if !r.mayDrop {
			awaited++
		}
	}
	for _, k := range cancels {
		if r := reqs[k]; r != nil && !r.mayDrop {
			r.mayDrop = true
			awaited--
		}
	}

	out := outcome{resp: map[string]*jsonrpc.Message{}, header: map[string]http.Header{}, status: map[string]int{}}
	mark := h.tg.Recorder.Seq()
	began := time.Now()
	var probs []problem
	var wg sync.WaitGroup
	var rejMu sync.Mutex
	rejected := map[int64]bool{}            // HTTP exchanges answered with a 4xx
	rejectedReqs := 0                       // requests answered at the HTTP layer (rejectOK)
	msgStatus := make([]int, len(msgs))     // HTTP: the reply status of each message
	msgExchange := make([]int64, len(msgs)) // HTTP: the exchange of each message
	together := xo.together && len(msgs) > 1
	start := make(chan struct{}) // HTTP, together: closed once every request is ready to go
	for i, raw := range msgs {
		var method string
		var params json.RawMessage
		switch m := decoded[i]; {
		case decodeErr[i] != nil:
			method, params = methodOf(raw)
		case m.MethodIsString:
			method, params = m.Method, m.Params
		}
		so := &wire.SendOptions{Header: hdrs(method, params)}
		h.exchanges.Add(1)
		if stdio && together {
			continue // one write, below
		}
		if stdio {
			if _, err := s.SendRaw(ctx, raw, so); err != nil {
				break // judged below (closed or not reading)
			}
			continue
		}
		key := ""
		if m, err := decoded[i], decodeErr[i]; err == nil && m.Kind() == jsonrpc.KindRequest && m.ID.Valid() {
			key = m.ID.Key()
		}
		send := func(i int, raw []byte) {
			defer wg.Done()
			// The reply body is read under this context: keep it until
			// the whole body was delivered.
			cctx, cancel := context.WithTimeout(ctx, h.timeout)
			defer cancel()
			if reply, err := s.Conn().Send(cctx, raw, so); err == nil && reply != nil {
				rejMu.Lock()
				msgStatus[i], msgExchange[i] = reply.Status, reply.Exchange
				if key != "" {
					out.status[key] = reply.Status
					out.header[key] = reply.Header
				}
				if reply.Status >= 400 && reply.Status < 500 {
					rejected[reply.Exchange] = true
					if key != "" && xo.rejectOK && reqs[key] != nil && !reqs[key].mayDrop {
						rejectedReqs++
					}
				}
				rejMu.Unlock()
				select {
				case <-reply.Done:
				case <-cctx.Done():
				}
			}
		}
		wg.Add(1)
		switch {
		case len(msgs) == 1:
			send(i, raw) // nothing else to put in flight (the judging waits for the body anyway)
		case together:
			go func() { <-start; send(i, raw) }()
		default:
			go send(i, raw) // HTTP: all in flight together
		}
	}
	close(start)
	if stdio && together {
		_, _ = s.SendRaw(ctx, joinLines(msgs), &wire.SendOptions{Raw: true}) // a failed write is judged below (closed or not reading)
	}

	// Wait until every request is answered (or accounted for by a response
	// with an unknown id, or by an error addressed to no request when every
	// message was well-formed), the connection ends, or the server's
	// patience (its observed pace, target.Patience) runs out: the probe
	// after the case then decides, as a barrier, whether anything more
	// comes; the per-response timeout is the bound for a hung server only.
	wctx, cancel := context.WithTimeout(ctx, h.patience())
	isRejected := func(x int64) bool { rejMu.Lock(); defer rejMu.Unlock(); return rejected[x] }
	after := mark
	answered, unknown := 0, 0
	var evs []session.Event
	for {
		// (a session keeps thousands of events: each look at them costs)
		evs = s.Events(mark)
		answered, unknown = 0, 0
		seen := map[string]bool{}
		for _, e := range evs {
			after = max(after, e.Frame.Seq)
			if e.Msg == nil || e.Msg.Kind() != jsonrpc.KindResponse {
				continue
			}
			if r := reqs[e.Msg.ID.Key()]; r != nil && e.Msg.HasID {
				if !seen[e.Msg.ID.Key()] && !r.mayDrop {
					answered++
				}
				seen[e.Msg.ID.Key()] = true
			} else if e.Msg.HasID && !e.Msg.ID.IsNull() && !xo.late(e.Msg.ID.Key()) && !quiet[e.Msg.ID.Key()] && faultIDs[e.Msg.ID.Key()] == "" {
				unknown++
			} else if faults == 0 && e.Msg.IsError() && (!e.Msg.HasID || e.Msg.ID.IsNull()) && !isRejected(e.Frame.Exchange) {
				unknown++ // all well-formed: it answers one of them (error-without-id)
			}
		}
		rejMu.Lock()
		answered += rejectedReqs
		rejMu.Unlock()
		// A response with an id no request had stands for one that will
		// not come with the right id: once every request is accounted
		// for, nothing more is awaited.
		if closed, _ := s.Closed(); closed || answered+unknown >= awaited {
			break
		}
		if _, ok := s.WaitEvent(wctx, after, func(session.Event) bool { return true }); !ok {
			break
		}
	}
	cancel()
	wg.Wait()

	// The liveness probe doubles as the barrier after which the exchange
	// is judged; a case (or a state machine's step) the server answered
	// whole goes without: the answers show it alive, and what it does after
	// them shows in the next exchange (a state machine's next step is the
	// same case; a message property's next case turns the probe on, see
	// quiet and alwaysProbe).
	probe := h.alwaysProbe || faults > 0 || len(order) < len(msgs) || awaited < len(order) ||
		answered < awaited || unknown > 0 || len(rejected) > 0
	if own {
		h.unprobed = !probe
	}
	var resp *session.Response
	var perr error
	if probe {
		h.exchanges.Add(1)
		// An id of its own kind: the session's integer ids may equal an
		// id of the case whose answer is still to come (a request that
		// may go unanswered, like one nested too deep, is not waited for).
		id := jsonrpc.StringID(fmt.Sprintf("mcpconform-probe-%d", h.probes.Add(1)))
		payload := jsonrpc.Request(id, h.probe, nil)
		if s.Modern() {
			payload = request(id, h.probe, map[string]any{"_meta": s.ModernMeta()})
		}
		_, p := methodOf(payload)
		resp, perr = s.CallRaw(ctx, id, payload, &wire.SendOptions{Header: hdrs(h.probe, p)}, h.timeout)
	}
	if probe {
		if perr == nil {
			h.awaitAfterBarrier(ctx, s, mark, reqs, faultIDs, cancels, len(idless), unknown)
		}
		evs = s.Events(mark) // the probe's answer and what came before it
	}
	closed, cerr := s.Closed()
	if !closed && perr != nil && errors.Is(perr, wire.ErrClosed) {
		closed, cerr = true, perr // the probe saw the end first
	}
	broken := false
	switch {
	case closed:
		detail := "the connection ended"
		if cerr != nil {
			detail += ": " + cerr.Error()
		}
		probs = append(probs, problem{"transport", "crash", detail})
		broken = true
	case perr != nil:
		probs = append(probs, problem{"liveness", "no-answer", fmt.Sprintf("the liveness probe %s got no answer: %v", h.probe, perr)})
		broken = true
	case probe && !resp.IsResult():
		probs = append(probs, problem{"liveness", "error", fmt.Sprintf("the liveness probe %s was answered %s", h.probe, resp.Describe())})
	}

	for _, e := range evs {
		if e.DecodeErr != nil {
			probs = append(probs, problem{"framing", "not-json", "the server wrote a message that is not JSON-RPC: " + clip(e.Frame.Raw)})
			continue
		}
		if e.Msg == nil || e.Frame.Truncated {
			continue
		}
		method := ""
		if e.Msg.Kind() == jsonrpc.KindResponse {
			if k := e.Msg.ID.Key(); e.Msg.HasID && quiet[k] && (reqs[k] == nil || reqs[k].count > 0) {
				// another answer to a request of the last case, answered
				// whole and not probed: not this case's defect, but the
				// probe is needed from now on
				h.alwaysProbe = true
			}
			switch r := reqs[e.Msg.ID.Key()]; {
			case r != nil && e.Msg.HasID:
				if i, ok := faultIdx[e.Msg.ID.Key()]; ok {
					faultAnswered[i] = true // a request nested deep, answered
				}
				if r.count == 0 && r.earlier == "" && !e.Frame.Time.IsZero() {
					h.observePace(r.pace, e.Frame.Time.Sub(began))
				}
				r.count++
				method = r.method
				if out.resp[e.Msg.ID.Key()] == nil {
					out.resp[e.Msg.ID.Key()] = e.Msg
					if r.badArgs != "" {
						probs = append(probs, judgeBadArgs(s.Modern(), r, e.Msg)...)
					}
					if r.refuse != nil {
						probs = append(probs, judgeRefusal(s.Modern(), r.refuse, r, e.Msg)...)
					}
				}
			case !e.Msg.HasID || e.Msg.ID.IsNull():
				switch {
				case e.Msg.HasResult:
					probs = append(probs, problem{"correlation", "result-without-id", "a result addressed to no request: " + clip(e.Msg.Raw)})
				case faults == 0 && !rejected[e.Frame.Exchange]: // the error body of a 4xx rejection may be addressed to no request
					// every message was well-formed, so every id could be
					// read (JSON-RPC 2.0 wants a null id only when it
					// could not be determined)
					probs = append(probs, problem{"correlation", "error-without-id", "an error addressed to no request although every message was well-formed: " + clip(e.Msg.Raw)})
				case faults > 0:
					// matched to the case's faults below (the body of a 4xx
					// rejection too: its code is judged as RPC-005 and
					// RPC-006 judge it)
					idlessAnswers = append(idlessAnswers, e)
				}
			case faultIDs[e.Msg.ID.Key()] != "":
				// before the late answers: a re-run of the case (rapid
				// reproducing or shrinking it) sends the same ids again
				fault := faultIDs[e.Msg.ID.Key()]
				h.answeredFaults.Store(fault, true)
				if i := faultIdx[e.Msg.ID.Key()]; !faultAnswered[i] {
					faultAnswered[i] = true
					probs = append(probs, judgeFault(msgs[i], fault, judge.Reply{Msg: e.Msg, Status: msgStatus[i]})...)
				}
			case xo.late(e.Msg.ID.Key()) || quiet[e.Msg.ID.Key()]:
				// a late answer to a request cancelled earlier (or a second
				// one to the last case's): slow, not dropped — its kind is
				// waited for longer from now on
				if l, ok := h.lateSent[e.Msg.ID.Key()]; own && ok {
					h.observePace(l.pace, e.Frame.Time.Sub(l.at))
					delete(h.lateSent, e.Msg.ID.Key())
				}
			case strings.HasPrefix(e.Msg.ID.String(), `"mcpconform-probe-`):
				// the probe's own response
				continue
			case loose[e.Msg.ID.LooseKey()] != nil:
				r := loose[e.Msg.ID.LooseKey()]
				probs = append(probs, problem{"correlation", "id-type-changed", fmt.Sprintf("the request with id %s (%s) was answered with id %s (%s): %s", r.id, r.id.TypeName(), e.Msg.ID, e.Msg.ID.TypeName(), clip(e.Msg.Raw))})
			default:
				probs = append(probs, problem{"correlation", "unknown-id", fmt.Sprintf("a response with id %s, which no request in flight had: %s", clip([]byte(e.Msg.ID.String())), clip(e.Msg.Raw))})
			}
		}
		ps := h.valid.validate(h.rev, e.Msg, method)
		if e.Msg.Kind() == jsonrpc.KindResponse && (!e.Msg.HasID || e.Msg.ID.IsNull()) {
			// An error for input whose id could not be read: the id is
			// omitted or null, which older schemas reject (an ambiguity,
			// TOL-14, graded by RPC-005/006 and not here).
			ps = slices.DeleteFunc(slices.Clone(ps), func(p msgcheck.Problem) bool { return p.Path == "/id" })
		}
		if len(ps) > 0 {
			if other := crossedWith(h.rev, e.Msg, method, order); other != nil {
				r := reqs[e.Msg.ID.Key()]
				probs = append(probs, problem{"correlation", "crossed-responses", fmt.Sprintf("the response to %s (id %s) is a %s result, the answer to another request in flight (id %s): %s",
					method, clip([]byte(r.id.String())), other.method, clip([]byte(other.id.String())), clip(e.Msg.Raw))})
				continue
			}
			what := method
			if what == "" {
				what = e.Msg.Kind().String()
			}
			probs = append(probs, problem{"message", "invalid-" + what, fmt.Sprintf("%s (%d problems) in %s", ps[0].String(), len(ps), clip(e.Msg.Raw))})
		}
	}
	// The answers addressed to no request go to the case's faults not
	// answered by id; what is left of the faults got no answer, judged
	// once the probe after the case was answered. In order: a reader
	// answers the lines (or bodies) it cannot take in the order they came,
	// so each answer goes to the earliest fault not answered yet (a message
	// split over lines on stdio takes an answer per line); when none is
	// left, to one nested deep (which may get any answer or none); past
	// those it is a further answer, judged only when it answers none of
	// the case's faults. Over HTTP only the message its exchange carried
	// is a candidate.
	owed := make([]int, len(msgs)) // answers each fault may still take
	for i, raw := range msgs {
		switch {
		case kinds[i] == judge.FaultNone || faultAnswered[i]:
		case kinds[i] == judge.FaultEmbeddedNewline:
			for _, l := range bytes.FieldsFunc(raw, func(r rune) bool { return r == '\r' || r == '\n' }) {
				if len(bytes.TrimSpace(l)) > 0 {
					owed[i]++
				}
			}
		default:
			owed[i] = 1
		}
	}
	for _, e := range idlessAnswers {
		cand := -1
		for _, deep := range []bool{false, true} {
			for i := range msgs {
				if owed[i] > 0 && (kinds[i] == judge.FaultTooDeep) == deep && (stdio || msgExchange[i] == e.Frame.Exchange) {
					cand = i
					break
				}
			}
			if cand >= 0 {
				break
			}
		}
		if cand < 0 {
			first := -1
			for i := range msgs {
				if kinds[i] == judge.FaultNone || !stdio && msgExchange[i] != e.Frame.Exchange {
					continue
				}
				if len(judge.FaultAnswer(kinds[i], "", judge.Reply{Msg: e.Msg, Status: msgStatus[i]})) == 0 {
					first = -1
					break
				}
				if first < 0 {
					first = i
				}
			}
			if cand = first; cand < 0 {
				continue
			}
		} else {
			owed[cand]--
		}
		faultAnswered[cand] = true
		probs = append(probs, judgeFault(msgs[cand], kinds[cand], judge.Reply{Msg: e.Msg, Status: msgStatus[cand]})...)
	}
	if probe && perr == nil && !closed {
		for i := range msgs {
			if kinds[i] == judge.FaultNone || faultAnswered[i] {
				continue
			}
			if m := decoded[i]; m != nil && m.ID.Valid() && (slices.Contains(cancels, m.ID.Key()) || reqs[m.ID.Key()] != nil && reqs[m.ID.Key()].count > 0) {
				continue // cancelled, or answered as the request it also is
			}
			probs = append(probs, judgeFault(msgs[i], kinds[i], judge.Reply{Status: msgStatus[i]})...)
		}
	}
	crossed := false // a response came with an id no request had: the missing response is that defect, not a hang
	for _, p := range probs {
		crossed = crossed || p.Code == "unknown-id" || p.Code == "id-type-changed" || p.Code == "error-without-id"
	}
	if !closed && !broken {
		for _, r := range order {
			rejMu.Lock()
			st := out.status[r.id.Key()]
			rejMu.Unlock()
			switch {
			case r.count == 0 && (crossed || r.mayDrop):
			case r.count == 0 && xo.rejectOK && st >= 400 && st < 500:
			case r.count == 0:
				// the probe after the case was answered (else the server
				// was lost, reported above): the barrier says no answer
				// is coming
				probs = append(probs, problem{"response", "no-response", fmt.Sprintf("no response to %s (id %s), although the server answered the %s sent after it (and %s more went by)", r.method, clip([]byte(r.id.String())), h.probe, h.waitFor(r.pace).Round(time.Millisecond))})
			case r.count == 2 && (r.earlier != "" || r.quiet):
				// one of them answers the earlier case's message
			case r.count > 1:
				probs = append(probs, problem{"correlation", "duplicate-response", fmt.Sprintf("%d responses to %s (id %s)", r.count, r.method, clip([]byte(r.id.String())))})
			}
		}
	}
	for i, p := range probs {
		for _, r := range order {
			if r.earlier != "" && strings.Contains(p.Detail, "(id "+clip([]byte(r.id.String()))+")") {
				probs[i].Detail += fmt.Sprintf(" [the answer may be the late one to an earlier case's message with the same id (%s)]", r.earlier)
				break
			}
		}
	}
	if len(probs) > 0 || !own { // rendering frames costs: only for findings (and the state machines' steps)
		out.transcript = h.transcript(s, mark)
	}
	if own {
		// Answers to this case's faults and dropped requests may still
		// come during the next cases: they are not the next cases' defects.
		byKey := map[string][]byte{}
		for i, raw := range msgs {
			if m, err := decoded[i], decodeErr[i]; err == nil && m.ID.Valid() {
				byKey[m.ID.Key()] = raw
			}
		}
		for k := range faultIDs {
			h.late[k] = fmt.Sprintf("case %d: %s", caseNo, clip(byKey[k]))
		}
		for _, r := range order {
			switch {
			case r.count == 0 || r.count == 1 && r.earlier != "":
				h.late[r.id.Key()] = fmt.Sprintf("case %d: %s", caseNo, clip(byKey[r.id.Key()]))
				if r.count == 0 {
					h.lateSent[r.id.Key()] = lateReq{r.pace, began}
				}
			case r.earlier != "":
				delete(h.late, r.id.Key()) // both answers came
			case !probe:
				// no probe was the barrier: another answer may still come
				if h.quiet == nil {
					h.quiet = map[string]bool{}
				}
				h.quiet[r.id.Key()] = true
			}
		}
	}
	if !own && xo.lateOK != nil {
		// the state machines' next steps on the same session
		for k := range faultIDs {
			xo.lateOK[k] = true
		}
		for _, r := range order {
			if r.count == 0 {
				xo.lateOK[r.id.Key()] = true
			}
		}
	}
	if broken && own {
		_ = h.reopen(ctx) // a failed reopen is reported by the next exchange
	}
	out.probs, out.broken = probs, broken
	return out
}
