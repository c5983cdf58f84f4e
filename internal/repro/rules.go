package repro

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/mcpconform/mcpconform/internal/catalog"
	"github.com/mcpconform/mcpconform/internal/jsonobj"
	"github.com/mcpconform/mcpconform/internal/result"
)

type judgeKind int

const (
	// judgeNone replays the exchange and exits 2: no rule judges it.
	judgeNone judgeKind = iota
	// judgeCrash: after the input, the server must still answer the
	// era's probe (ping, server/discover); no answer or an ended process
	// is the violation.
	judgeCrash
	// judgeCode: the answer to the last message must be an error with
	// code; another code, or a result, is the violation.
	judgeCode
	// judgeStatus: the last HTTP request must get status; another status
	// is the violation (after a DELETE the server accepted, for HTTP-008).
	judgeStatus
	// judgeBatch: no element of the batch may be answered (the revision
	// has no batches); the probe after it must be.
	judgeBatch
	// judgeParse: the answer to unparseable input (an error without id)
	// must carry -32700; another code is the violation.
	judgeParse
	// judgeExecuted: an invalid request must not be executed: after it and
	// the probe, no result may answer anything but the script's own
	// requests.
	judgeExecuted
	// judgeMember: the answer to the last message must match want (an
	// ERE over the normalised answer) and must not match bad.
	judgeMember
	// judgeResult: the answer to the last message must be a result; an
	// error is the violation.
	judgeResult
	// judgeUnsolicited: after the last message and the era's probe, no
	// server line may match bad (nonRPC: every line must be JSON-RPC).
	judgeUnsolicited
	// judgeSilent: the last message is a notification: no response may
	// answer it (any response but to the script's own requests).
	judgeSilent
	// judgeEcho: the answer to the last message must carry its id as
	// sent; the same id in another JSON type is the violation.
	judgeEcho
	// judgeBurst (stdio): the messages are written at once (in flight
	// together); each must get a response with its own id while the
	// server answers the probe after them.
	judgeBurst
	// judgeProgress: the progress notifications for the last message (by
	// its progressToken) increase strictly and none comes after its
	// answer.
	judgeProgress
	// judgeAnswered: the last message must get an answer within WAIT;
	// none, while the server answers the probe after it, is the
	// violation (a hang on that input).
	judgeAnswered
	// judgeModel: the answer's member at a JSON pointer must meet the
	// message model's constraint (RPC-013).
	judgeModel
	// judgeAccepted (HTTP): the POSTed notification or response (the last
	// message; none: the handshake's notifications/initialized) gets 202
	// with an empty body, or a 4xx.
	judgeAccepted
)

type judge struct {
	kind judgeKind
	// code, codes: judgeCode's accepted error codes (none: any error);
	// status, statuses: judgeStatus's accepted HTTP statuses.
	code     int
	codes    []int64
	status   int
	statuses []int
	// want, bad: judgeMember's expressions; wantSays, badSays what a
	// mismatch means.
	want, bad, wantSays, badSays string
	// nonRPC: judgeUnsolicited's violation is any line that is not a
	// JSON-RPC 2.0 message (bad unused); unless: a line matching bad that
	// matches unless is fine.
	nonRPC      bool
	unless      string
	listChanged bool
	// deleted: the index (in the plan's messages) of the DELETE whose
	// acceptance the status judgement presupposes; -1 for none.
	deleted int
	why     string // judgeNone: why the script cannot judge
	// orResult: judgeCode takes a result as a conforming answer too
	orResult bool
	model    constraint
}

// rule is one requirement's entry: how to pick the messages from a
// transcript and how to judge the answer.
type rule struct {
	judge judge
	// pick returns the indexes (into tx) of the sent frames to replay, the
	// last being the one the violation is about; nil when none fits.
	pick func(in input) []int
	// expect says what the specification requires, in words.
	expect string
}

// Rules: the requirements whose scripts judge (exit 0 or 1).
var rules = map[string]rule{
	"RPC-014": {judge: judge{kind: judgeCrash}, pick: pickCrash,
		expect: "the server keeps answering after input it may reject (JSON-RPC 2.0: the Server MUST reply)"},
	"LIFE-010": {judge: judge{kind: judgeCode, code: -32022}, pick: pickWrongAnswer(-32022, unsupportedVersion),
		expect: "a request with an unsupported protocol version gets error -32022 (UnsupportedProtocolVersion)"},
	"RPC-007": {judge: judge{kind: judgeCode, code: -32601}, pick: pickWrongAnswer(-32601, unknownMethod),
		expect: "a request for a method the server does not know gets error -32601 (Method not found)"},
	"LIFE-014": {judge: judge{kind: judgeCode, code: -32601}, pick: pickWrongAnswer(-32601, removedMethod),
		expect: "in 2026-07-28, a removed legacy method (ping, logging/setLevel, …) gets error -32601"},
	"LIFE-008": {judge: judge{kind: judgeCode, code: -32602}, pick: pickWrongAnswer(-32602, func(m msg) bool { return m.method != "" }),
		expect: "a 2026-07-28 request missing required _meta protocol fields gets error -32602"},
	"RES-004": {judge: judge{kind: judgeCode, code: -32602}, pick: pickWrongAnswer(-32602, method("resources/read")),
		expect: "resources/read of an unknown URI gets error -32602 (2026-07-28; -32002 in earlier revisions)"},
	"RPC-001": {judge: judge{kind: judgeMember, want: `"jsonrpc":"2\.0"`, wantSays: `its answer lacks "jsonrpc":"2.0"`},
		pick:   pickAnswer(func(body string) bool { return !strings.Contains(norm(body), `"jsonrpc":"2.0"`) }),
		expect: `every message the server sends carries "jsonrpc": "2.0"`},
	"RPC-003": {judge: judge{kind: judgeMember, bad: `"result":.*"error":|"error":.*"result":`, badSays: "its answer carries both result and error"},
		pick: pickAnswer(func(body string) bool {
			b := norm(body)
			return strings.Contains(b, `"result":`) && strings.Contains(b, `"error":`)
		}),
		expect: "a response carries either result or error, never both"},
	"HTTP-001": {judge: judge{kind: judgeStatus, status: 403, deleted: -1}, pick: pickHeader("Origin"),
		expect: "a request with an invalid Origin header gets HTTP 403 Forbidden"},
	"HTTP-008": {judge: judge{kind: judgeStatus, status: 404}, pick: pickAfterDelete,
		expect: "a request naming a session the client DELETEd gets HTTP 404 Not Found"},
}

// crashLike: results of these requirements whose message says the server
// stopped answering are reproduced as crashes (the run-wide RPC-014 FAIL
// of the same input comes with them).
var crashLike = []string{"RPC-005", "RPC-006", "RPC-008", "TOOL-014"}

// pickUnanswered: the last request of the check's own that got no answer
// (the harness's probes aside).
func pickUnanswered(in input) []int {
	for i := len(in.tx) - 1; i >= 0; i-- {
		e := in.tx[i]
		if !sent(e) || !in.own[e.Seq] || in.isProbe(e) || handshakeMsg(e) {
			continue
		}
		if id, m := idAndMethod([]byte(e.Body)); id != "" && m != "" && in.answerOf(i) < 0 {
			return []int{i}
		}
	}
	return nil
}

// Coverage says what the scripts of a requirement's results judge
// (mcpconform list shows it): judged, or why they replay the exchange and
// exit 2.
func Coverage(id string) (judged bool, note string) {
	switch id {
	case "RPC-014":
		return true, "a crash or hang after the input: no answer to the era's liveness request"
	case "RPC-005":
		return true, "judged when the server stopped answering (as RPC-014) or answered another code than -32700; other sub-cases (oversized input dropped, executed invalid UTF-8) replay and exit 2"
	case "RPC-006":
		return true, "judged when an invalid request is executed (a result comes back for it) or the server stopped answering (as RPC-014); a wrong or missing error replays and exits 2"
	case "RPC-008":
		return true, "judged when a batch is executed in a revision without batches, or the server stopped answering; the 2025-03-26 acceptance replays and exits 2"
	case "RPC-013":
		return true, "the member the message model finds wrong in the answer the verdict rests on, at its JSON pointer (presence, type, enum, constant, bound, array length, base64, URI, _meta key) read in awk; a constraint with no short form (a URI template, a JSON Schema), or a message that answers no request of the run, replays and exits 2"
	case "TOOL-014":
		return true, "judged when a fuzzed call was left unanswered while the server answered others, or its answer breaks the message model; other sub-cases replay and exit 2"
	case "AUTH-001", "AUTH-003", "AUTH-005", "AUTH-007", "AUTH-009":
		return false, "replays the exchange and exits 2: the metadata documents, challenges and the run's extra tokens (weak, expired, foreign, in the query) are not replayed by a script"
	}
	if r, ok := rules[id]; ok {
		return true, r.expect
	}
	if es := evRules[id]; len(es) > 0 {
		return true, es[0].expect + " (judged on the message the verdict rests on)"
	}
	if r, ok := catalog.Get(id); ok && len(r.Transports) == 1 && r.Transports[0] == "stdio" {
		return false, "replays the exchange and exits 2: stdio framing and process behaviour have no short rule yet"
	}
	if strings.HasPrefix(id, "AUTH-") {
		return false, "replays the exchange and exits 2: the tokens it needs are the run's, which a script never holds"
	}
	return false, "judged where its check recorded what the answer had to be (a JSON-RPC error or one of its codes, a result, an HTTP status: the result's claim); otherwise it replays the exchange and exits 2 (no short rule judges its answer yet)"
}

// ruleFor returns the rule of a result (by its requirement and message).
func (in input) ruleFor() (rule, bool) {
	if slices.Contains(crashLike, in.requirement) && strings.Contains(in.message, "stopped answering") {
		return rules["RPC-014"], true
	}
	if in.code == "transport/crash" || strings.HasSuffix(in.code, "/crash") {
		return rules["RPC-014"], true
	}
	if r, ok := in.claimRule(); ok {
		return r, true
	}
	if in.requirement == "TOOL-014" && strings.Contains(in.message, "hangs") {
		return rule{judge: judge{kind: judgeAnswered}, pick: pickUnanswered,
			expect: "a tools/call with fuzzed arguments gets an answer (a result or an error), never silence while the server answers other requests"}, true
	}
	if r, ok := in.evRuleFor(); ok {
		return r, true
	}
	if in.requirement == "RPC-013" {
		if r, ok := in.modelRule(); ok {
			return r, true
		}
	}
	switch in.requirement {
	case "RPC-005":
		if strings.Contains(in.message, "-32600") || strings.Contains(in.message, "wrong error code") || strings.Contains(in.message, "wrong code") {
			return rule{judge: judge{kind: judgeParse}, pick: pickUnparseable,
				expect: "unparseable input gets error -32700 (Parse error)"}, true
		}
	case "RPC-006":
		if strings.Contains(in.message, "executed") {
			return rule{judge: judge{kind: judgeExecuted}, pick: pickExecutedInvalid,
				expect: "an invalid request (wrong jsonrpc, an id that is null, fractional or not a string or integer, no method, params not an object) is rejected with -32600, never executed"}, true
		}
	case "RPC-008":
		if in.revision != string(catalog.R20250326) && strings.Contains(in.message, "executed") {
			return rule{judge: judge{kind: judgeBatch}, pick: pickBatch,
				expect: fmt.Sprintf("a JSON-RPC batch is not executed in %s (batches exist only in 2025-03-26)", in.revision)}, true
		}
	}
	if r, ok := rules[in.requirement]; ok {
		return r, true
	}
	if len(in.evidence) > 0 && in.finding == nil {
		// a requirement whose verdict names the member of the answer
		// the message model also finds wrong
		return in.modelRule()
	}
	return rule{}, false
}

// modelRule: the message model's member judged on an evidence answer.
func (in input) modelRule() (rule, bool) {
	if idx, c := in.pickModel(); idx != nil {
		return rule{judge: judge{kind: judgeModel, model: c}, pick: func(input) []int { return idx },
			expect: "every message is valid for the revision's message model: the answer's member " + orRoot(c.ptr) + " is " + c.words}, true
	}
	return rule{}, false
}

func (j judge) expectation(in input) string {
	if r, ok := in.ruleFor(); ok {
		e, link := r.expect, in.link
		if r.judge.kind == judgeCrash && in.requirement != "RPC-014" {
			// the liveness requirement's sentence, not the input's
			if req, ok := catalog.Get("RPC-014"); ok {
				if ls := req.Links(catalog.Revision(in.revision)); len(ls) > 0 {
					link = ls[0]
				}
			}
		}
		if link != "" {
			e += " (" + link + ")"
		}
		return e
	}
	e := in.title
	if in.link != "" {
		e += " (" + in.link + ")"
	}
	return e
}

// plan picks what the script sends.
func (in input) plan() plan {
	if in.finding != nil {
		p := plan{handshake: !in.modern(), msgs: stripHandshake(in.finding)}
		if r, ok := in.ruleFor(); ok && r.judge.kind == judgeCrash {
			p.judge = r.judge
		} else {
			p.judge = judge{why: "this finding (" + in.code + ") is judged by the fuzzer's oracle: compare the answers above with the finding's detail"}
		}
		return p
	}
	if r, idx, ok := in.picked(); ok {
		if idx != nil && len(idx) == 0 && r.judge.observes() {
			// the server spoke before any input: the probe alone
			return plan{handshake: !in.modern(), judge: r.judge, prefix: in.prefixMsgs()}
		} else if len(idx) > 0 {
			var msgs []msg
			for _, i := range idx {
				msgs = append(msgs, in.msgOf(in.tx[i]))
			}
			ownInit := !in.modern() && msgs[len(msgs)-1].method == "initialize"
			if !in.modern() && !ownInit {
				msgs = stripHandshake(msgs) // the script makes its own
			}
			p := plan{handshake: !in.modern() && !ownInit, msgs: msgs, judge: r.judge, prefix: in.prefixMsgs()}
			if ownInit {
				// the exchange judged is initialize itself: no handshake
				// before it, the run's own initialize
				p.msgs = msgs[len(msgs)-1:]
			}
			if p.handshake {
				// the handshake as far as the run had done it on the
				// connection (LIFE-016: a request before initialized)
				p.handshake, p.noInitialized = in.handshakeBefore(in.tx[idx[0]])
				p.initParams = in.recordedInit(in.tx[idx[0]])
			}
			if p.judge.kind == judgeStatus && p.judge.deleted == 0 {
				p.judge.deleted = slices.IndexFunc(p.msgs, func(m msg) bool { return m.http == "DELETE" })
			}
			if len(p.msgs) > 0 || p.judge.observes() {
				return p
			}
		}
	}
	// No rule, or the rule found nothing to replay: the whole exchange of
	// the last connection the check used.
	p := plan{judge: judge{why: "no rule judges this requirement's answer automatically: compare the answers above with the expected"}}
	conn := ""
	for i := len(in.tx) - 1; i >= 0; i-- {
		if e := in.tx[i]; e.Direction == "send" && (e.Kind == "message" || e.Kind == "body") {
			conn = e.Conn
			break
		}
	}
	for _, e := range in.tx {
		if e.Conn == conn && e.Direction == "send" && (e.Kind == "message" || e.Kind == "body") {
			p.msgs = append(p.msgs, in.msgOf(e))
		}
	}
	if len(p.msgs) > 50 {
		p.msgs = p.msgs[len(p.msgs)-50:]
	}
	if !in.modern() && (len(p.msgs) == 0 || p.msgs[0].method != "initialize") {
		p.handshake = true
		p.msgs = stripHandshake(p.msgs)
	}
	return p
}

// stripHandshake drops recorded legacy handshake messages (the script
// makes its own).
func stripHandshake(ms []msg) []msg {
	var out []msg
	for _, m := range ms {
		if m.method == "initialize" || m.method == "notifications/initialized" {
			continue
		}
		out = append(out, m)
	}
	return out
}

// sent reports whether e is a sent JSON-RPC payload (or HTTP body).
func sent(e result.Exchange) bool {
	return e.Direction == "send" && (e.Kind == "message" || e.Kind == "body")
}

// isProbe: a harness barrier or liveness request (ping or
// server/discover with a numeric id).
func (in input) isProbe(e result.Exchange) bool {
	id, method := idAndMethod([]byte(e.Body))
	if method != "ping" && method != "server/discover" {
		return false
	}
	return id != "" && id[0] != '"'
}

func handshakeMsg(e result.Exchange) bool {
	_, method := idAndMethod([]byte(e.Body))
	return method == "initialize" || method == "notifications/initialized"
}

// answerOf returns the index of the recorded answer to the request tx[i]
// (same connection, same id), or -1.
func (in input) answerOf(i int) int {
	id, _ := idAndMethod([]byte(in.tx[i].Body))
	if id == "" {
		return -1
	}
	for j := i + 1; j < len(in.tx); j++ {
		e := in.tx[j]
		if e.Conn != in.tx[i].Conn || e.Direction != "recv" || e.Kind != "message" {
			continue
		}
		if in.transport == "http" && e.Exchange != in.tx[i].Exchange {
			continue
		}
		for _, line := range strings.Split(e.Body, "\n") {
			if rid, method := idAndMethod([]byte(line)); rid == id && method == "" {
				return j
			}
		}
	}
	return -1
}

// pickCrash: the input after which the server stopped: the last message
// sent on a connection before the server closed it (or before a probe it
// never answered), probes and the handshake left out.
func pickCrash(in input) []int {
	// The inputs sent on conn before tx[before] since the server last said
	// anything there: one of them stopped it, and nothing tells which (a
	// row of notifications gets no answers to tell them apart), so the
	// script replays them all, in order.
	lastInputs := func(conn string, before int) []int {
		var out []int
		for i := before - 1; i >= 0; i-- {
			e := in.tx[i]
			if e.Conn != conn {
				continue
			}
			if e.Direction == "recv" && e.Kind == "message" {
				break
			}
			if sent(e) && !in.isProbe(e) && !handshakeMsg(e) {
				out = append([]int{i}, out...)
			}
		}
		return out
	}
	for c, e := range in.tx {
		if e.Kind == "closed" && e.Direction == "recv" && !strings.Contains(e.Note, "by harness") && in.unanswered(e.Conn, c) {
			if is := lastInputs(e.Conn, c); len(is) > 0 {
				return is
			}
		}
	}
	for i, e := range in.tx {
		if sent(e) && in.isProbe(e) && in.answerOf(i) < 0 {
			if is := lastInputs(e.Conn, i); len(is) > 0 {
				return is
			}
		}
	}
	return nil
}

// unanswered reports whether a request sent on conn before tx[before]
// got no answer: a process that ends then stopped answering; one that
// ends with everything answered was shut down (its stdin closed).
func (in input) unanswered(conn string, before int) bool {
	for i := 0; i < before; i++ {
		if e := in.tx[i]; e.Conn == conn && sent(e) {
			if id, _ := idAndMethod([]byte(e.Body)); id != "" && in.answerOf(i) < 0 {
				return true
			}
		}
	}
	return false
}

// pickWrongAnswer: the last request for which pred holds whose recorded
// answer is not the error code (another code, or a result).
func pickWrongAnswer(code int, pred func(msg) bool) func(in input) []int {
	return func(in input) []int {
		for i := len(in.tx) - 1; i >= 0; i-- {
			e := in.tx[i]
			if !sent(e) || handshakeMsg(e) {
				continue
			}
			a := in.answerOf(i)
			if a < 0 || answerCode(in.tx[a].Body, in.tx[i].Body) == code {
				continue
			}
			if m := in.msgOf(e); pred(m) {
				return []int{i}
			}
		}
		return nil
	}
}

// answerCode is the error code of the response in body answering the
// request req (0 for a result).
func answerCode(body, req string) int {
	id, _ := idAndMethod([]byte(req))
	for _, line := range strings.Split(body, "\n") {
		var r struct {
			ID    json.RawMessage `json:"id"`
			Error *struct {
				Code int `json:"code"`
			} `json:"error"`
		}
		if json.Unmarshal([]byte(line), &r) == nil && string(r.ID) == id {
			if r.Error != nil {
				return r.Error.Code
			}
			return 0
		}
	}
	return 0
}

// pickAnswer: the last request whose recorded answer (its line) bad
// holds for.
func pickAnswer(bad func(answer string) bool) func(in input) []int {
	return func(in input) []int {
		for i := len(in.tx) - 1; i >= 0; i-- {
			e := in.tx[i]
			if !sent(e) || handshakeMsg(e) {
				continue
			}
			if a := in.answerOf(i); a >= 0 && bad(answerLine(in.tx[a].Body, e.Body)) {
				return []int{i}
			}
		}
		return nil
	}
}

// answerLine is the line of body answering the request req.
func answerLine(body, req string) string {
	id, _ := idAndMethod([]byte(req))
	for _, line := range strings.Split(body, "\n") {
		if rid, m := idAndMethod([]byte(line)); rid == id && m == "" {
			return line
		}
	}
	return ""
}

// norm drops JSON whitespace as the scripts do.
func norm(s string) string {
	return strings.Map(func(r rune) rune {
		if r == ' ' || r == '\t' || r == '\r' || r == '\n' {
			return -1
		}
		return r
	}, s)
}

func method(name string) func(msg) bool { return func(m msg) bool { return m.method == name } }

func unsupportedVersion(m msg) bool {
	known := func(v string) bool { return catalog.Revision(v).Known() }
	for _, h := range m.headers {
		if strings.EqualFold(h[0], "MCP-Protocol-Version") && !known(h[1]) {
			return true
		}
	}
	var p struct {
		Params struct {
			ProtocolVersion string                     `json:"protocolVersion"`
			Meta            map[string]json.RawMessage `json:"_meta"`
		} `json:"params"`
	}
	if json.Unmarshal(m.body, &p) != nil {
		return false
	}
	var v string
	_ = json.Unmarshal(p.Params.Meta["io.modelcontextprotocol/protocolVersion"], &v)
	return (v != "" && !known(v)) || (p.Params.ProtocolVersion != "" && !known(p.Params.ProtocolVersion))
}

// unknownMethod: a method no revision defines (the checks name theirs
// with an mcpconform prefix).
func unknownMethod(m msg) bool {
	return strings.Contains(m.method, "mcpconform") || strings.Contains(m.method, "no-such")
}

func removedMethod(m msg) bool {
	switch m.method {
	case "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe", "initialize", "roots/list":
		return true
	}
	return false
}

// pickHeader: the last request that carried the header.
func pickHeader(name string) func(in input) []int {
	return func(in input) []int {
		for i := len(in.tx) - 1; i >= 0; i-- {
			if e := in.tx[i]; sent(e) && e.HTTP != nil {
				for h := range e.HTTP.Header {
					if strings.EqualFold(h, name) {
						return []int{i}
					}
				}
			}
		}
		return nil
	}
}

// pickAfterDelete: the connection's DELETE of its session and the last
// request after it that names the session.
func pickAfterDelete(in input) []int {
	for i := len(in.tx) - 1; i >= 0; i-- {
		e := in.tx[i]
		if !sent(e) || e.HTTP == nil || e.HTTP.Method != "POST" {
			continue
		}
		sid := header(e, "Mcp-Session-Id")
		if sid == "" {
			continue
		}
		for d := i - 1; d >= 0; d-- {
			if x := in.tx[d]; sent(x) && x.HTTP != nil && x.HTTP.Method == "DELETE" && header(x, "Mcp-Session-Id") == sid {
				return []int{d, i}
			}
		}
	}
	return nil
}

func header(e result.Exchange, name string) string {
	for h, vs := range e.HTTP.Header {
		if strings.EqualFold(h, name) && len(vs) > 0 {
			return vs[0]
		}
	}
	return ""
}

// pickUnparseable: the last sent input that is not JSON whose answer
// (an error without id) carried another code than -32700.
func pickUnparseable(in input) []int {
	for i := len(in.tx) - 1; i >= 0; i-- {
		e := in.tx[i]
		if !sent(e) || e.Truncated {
			continue
		}
		b := in.msgOf(e).body
		if jsonobj.Valid(b) {
			continue
		}
		for j := i + 1; j < len(in.tx); j++ {
			x := in.tx[j]
			if x.Conn == e.Conn && x.Direction == "recv" && x.Kind == "message" && strings.Contains(x.Body, `"error"`) && !strings.Contains(x.Body, "-32700") {
				id, _ := idAndMethod([]byte(x.Body))
				if id == "" {
					return []int{i}
				}
			}
			if sent(x) && x.Conn == e.Conn && !in.isProbe(x) {
				break
			}
		}
	}
	return nil
}

// invalidRequest: a JSON object that is no valid JSON-RPC 2.0 request of
// MCP's (id a string or an integer, method a string, params an object).
func invalidRequest(b []byte) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(b, &m) != nil {
		return false
	}
	if string(m["jsonrpc"]) != `"2.0"` {
		return true
	}
	if id, ok := m["id"]; ok {
		var n json.Number
		var str string
		if json.Unmarshal(id, &str) != nil && (json.Unmarshal(id, &n) != nil || strings.ContainsAny(string(id), ".eE")) {
			return true
		}
	}
	var method string
	if json.Unmarshal(m["method"], &method) != nil {
		return true
	}
	if p, ok := m["params"]; ok && (len(p) == 0 || p[0] != '{') {
		return true
	}
	return false
}

// pickExecutedInvalid: the last invalid request after which (before the
// connection's next input) a result arrived that answers no probe.
func pickExecutedInvalid(in input) []int {
	for i := len(in.tx) - 1; i >= 0; i-- {
		e := in.tx[i]
		if !sent(e) || handshakeMsg(e) || !invalidRequest(in.msgOf(e).body) {
			continue
		}
		probes := map[string]bool{}
		for j := i + 1; j < len(in.tx); j++ {
			x := in.tx[j]
			if x.Conn != e.Conn {
				continue
			}
			if sent(x) {
				if !in.isProbe(x) {
					break
				}
				id, _ := idAndMethod([]byte(x.Body))
				probes[id] = true
				continue
			}
			if x.Direction == "recv" && x.Kind == "message" && strings.Contains(norm(x.Body), `"result":`) {
				if id, _ := idAndMethod([]byte(x.Body)); !probes[id] {
					return []int{i}
				}
			}
		}
	}
	return nil
}

// pickBatch: the last batch sent whose elements were answered.
func pickBatch(in input) []int {
	for i := len(in.tx) - 1; i >= 0; i-- {
		e := in.tx[i]
		if sent(e) && strings.HasPrefix(strings.TrimSpace(e.Body), "[") && len(batchIDs([]byte(e.Body))) > 0 {
			return []int{i}
		}
	}
	return nil
}

// batchIDs are the ids (JSON text) of a batch's requests.
func batchIDs(b []byte) []string {
	var elems []json.RawMessage
	if json.Unmarshal(b, &elems) != nil {
		return nil
	}
	var ids []string
	for _, el := range elems {
		if id, _ := idAndMethod(el); id != "" {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids
}

// observes: a judgement that needs no message of its own (the server
// spoke at start-up, or answered the handshake's notification).
func (j judge) observes() bool {
	return j.kind == judgeUnsolicited || j.kind == judgeAccepted || j.kind == judgeSilent || j.kind == judgeModel
}

// picked: the rule of in and the frames (indexes into tx) its script
// sends: what the rule picks, after the check's own earlier messages on
// that connection (the state it set up for its claim: a tool removed, a
// task finished), which the script always replays (Verify adds other
// checks' messages only when needed).
func (in input) picked() (rule, []int, bool) {
	r, ok := in.ruleFor()
	if !ok {
		return r, nil, false
	}
	idx := r.pick(in)
	if len(idx) == 0 || !r.judge.keepsOwn() || len(in.own) == 0 {
		return r, idx, true
	}
	first := in.tx[idx[0]]
	var own []int
	for i := idx[0] - 1; i >= 0 && len(own) < maxOwn; i-- {
		e := in.tx[i]
		if e.Conn != first.Conn || !sent(e) || !in.own[e.Seq] || handshakeMsg(e) || in.isProbe(e) || slices.Contains(idx, i) {
			continue
		}
		if in.transport == "http" && e.HTTP != nil && e.HTTP.Method != "POST" {
			continue
		}
		own = append([]int{i}, own...)
	}
	return r, append(own, idx...), true
}

// maxOwn caps the check's own earlier messages a script replays.
const maxOwn = 30

// keepsOwn: the judgements whose scripts replay the check's own earlier
// messages before the exchange (the older rules pick theirs).
func (j judge) keepsOwn() bool {
	switch j.kind {
	case judgeCode, judgeResult, judgeMember, judgeModel, judgeEcho, judgeUnsolicited, judgeSilent:
		return true
	}
	return false
}
