package repro

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/internal/catalog"
	"github.com/mcpconform/mcpconform/internal/result"
)

// Rules judged on the server message a FAIL's evidence names (the
// result's Evidence frames): the script replays the exchange that
// provoked it and judges what comes back the way the requirement does.
// Which earlier messages of the connection the message needs, Verify
// finds.
//
//   - answer: the evidence is a response; the script replays the request
//     it answers and judges that answer (judgeMember: want/bad EREs);
//   - unsolicited: the evidence is a server request or notification (or a
//     stdout line) the requirement forbids; the script replays the
//     connection's last input before it, then the era's probe, and
//     judges every server line that came (judgeUnsolicited: bad ERE);
//   - silent: the evidence answers a notification; the script sends the
//     notification, then the probe: any response other than to the
//     script's own requests is the violation (judgeSilent);
//   - echo: the evidence answers a request with its id in another JSON
//     type; the script looks for the answer with the id as sent
//     (judgeEcho).
type evKind int

const (
	evAnswer evKind = iota + 1
	evUnsolicited
	evSilent
	evEcho
	evAccepted
	evProgress
	evBurst
)

type evRule struct {
	kind evKind
	// when: the result's message must contain it ("" for any).
	when string
	// revisions the rule holds in (none: all).
	revisions []catalog.Revision
	want, bad string
	unless    string // evUnsolicited: a line matching bad is fine when it matches unless
	nonRPC    bool   // evUnsolicited: any line that is not JSON-RPC 2.0
	// listChanged: evUnsolicited's violation is a list_changed
	// notification for a list whose listChanged initialize's answer does
	// not declare (legacy revisions)
	listChanged bool
	says        string
	expect      string
}

// evRules: the requirements judged through their evidence. The EREs run
// over answers and lines with JSON whitespace removed (norm).
var evRules = map[string][]evRule{
	"RPC-004":  {{kind: evSilent, expect: "a notification gets no response (JSON-RPC 2.0: the Server MUST NOT reply to a Notification)"}},
	"LIFE-003": {{kind: evSilent, expect: "notifications/initialized, a notification, gets no response"}},
	"CAN-002":  {{kind: evSilent, expect: "notifications/cancelled, a notification, gets no response"}},
	"LEG-001": {{kind: evUnsolicited, bad: `"method":"elicitation/create"`, says: "it sent elicitation/create to a client that declared no capabilities",
		expect: "no elicitation/create to a client that did not declare elicitation (the script's initialize declares none)"}},
	"LEG-002": {{kind: evUnsolicited, bad: `"method":"(roots/list|sampling/createMessage)"`, says: "it sent a roots or sampling request to a client that declared no capabilities",
		expect: "no roots/list or sampling/createMessage to a client that did not declare roots or sampling (the script's initialize declares none)"}},
	"RPC-010": {{kind: evUnsolicited, revisions: []catalog.Revision{catalog.Modern}, bad: `^\{("jsonrpc":"2\.0",)?"id":[^,]*,"method":"|^\{("jsonrpc":"2\.0",)?"method":"[^"]*",("params":\{[^{}]*\},)?"id":`, says: "it sent a request (a message with an id and a method)",
		expect: "under 2026-07-28 the server sends only responses and notifications, never a request"}},
	"STD-001": {{kind: evUnsolicited, nonRPC: true, says: "it wrote a line to stdout that is not a JSON-RPC message",
		expect: "the server writes only JSON-RPC messages to stdout, one per line"}},
	"RPC-012": {{kind: evAnswer, when: "-32002", revisions: []catalog.Revision{catalog.Modern}, bad: `"error":\{(.*,)?"code":-32002[,}]`, says: "its answer carries the removed code -32002",
		expect: "2026-07-28 answers never carry -32002 (an unknown resource gets -32602)"}},
	"RPC-011": {{kind: evAnswer, revisions: []catalog.Revision{catalog.Modern}, want: `"error":|"resultType":"(complete|task|input_required)"`, says: "its result lacks a known resultType",
		expect: `every 2026-07-28 result carries resultType "complete", "task" or "input_required"`}},
	"LOG-001": {{kind: evUnsolicited, when: "RFC 5424", bad: `"method":"notifications/message"`, unless: `"level":"(debug|info|notice|warning|error|critical|alert|emergency)"`,
		says: "a log message has a level that is not an RFC 5424 level", expect: "log messages carry one of the RFC 5424 levels debug, info, notice, warning, error, critical, alert, emergency"}},
	"LIFE-005": {{kind: evUnsolicited, when: "list_changed", listChanged: true, revisions: legacyRevisions, says: "it sent a list_changed notification for a list whose listChanged it did not declare",
		expect: "a server sends notifications/<list>/list_changed only for a list whose capability declares listChanged"}},
	"STALE-003": {{kind: evUnsolicited, when: "list_changed", listChanged: true, revisions: legacyRevisions, says: "it sent a list_changed notification for a list whose listChanged it did not declare",
		expect: "a server sends notifications/<list>/list_changed only for a list whose capability declares listChanged"}},
	"PROG-002": {{kind: evProgress, expect: "progress notifications for a request increase strictly and stop once the request is answered"}},
	"HTTP-004": {{kind: evAccepted, expect: "a POSTed notification or response gets HTTP 202 Accepted with an empty body (or a 4xx when the server does not accept it)"}},
	"RPC-002":  {{kind: evBurst, when: "requests in flight", expect: "with many requests in flight at once, each gets a response carrying its own id"}, {kind: evEcho, expect: "a response carries the id of the request it answers, with its JSON type"}},
}

// evRuleFor returns the evidence rule of in, when one applies.
func (in input) evRuleFor() (rule, bool) {
	for _, e := range evRules[in.requirement] {
		if e.when != "" && !strings.Contains(in.message, e.when) {
			continue
		}
		if len(e.revisions) > 0 && !slices.Contains(e.revisions, catalog.Revision(in.revision)) {
			continue
		}
		if e.kind == evUnsolicited && in.requirement == "STD-001" && in.transport != "stdio" || e.kind == evAccepted && in.transport != "http" || e.kind == evBurst && in.transport != "stdio" {
			continue
		}
		r := rule{expect: e.expect}
		switch e.kind {
		case evAnswer:
			r.judge = judge{kind: judgeMember, want: e.want, bad: e.bad, wantSays: e.says, badSays: e.says}
			r.pick = pickEvidenceAnswer
		case evUnsolicited:
			r.judge = judge{kind: judgeUnsolicited, bad: e.bad, badSays: e.says, nonRPC: e.nonRPC, unless: e.unless, listChanged: e.listChanged}
			if e.listChanged {
				r.judge.bad = `"method":"notifications/(tools|prompts|resources)/list_changed"`
			}
			r.pick = pickBeforeEvidence
		case evSilent:
			r.judge = judge{kind: judgeSilent}
			r.pick = pickAnsweredNotification
		case evEcho:
			r.judge = judge{kind: judgeEcho}
			r.pick = pickEchoed
		case evAccepted:
			r.judge = judge{kind: judgeAccepted}
			r.pick = pickAcceptedPost
		case evBurst:
			r.judge = judge{kind: judgeBurst}
			r.pick = pickBurst
		case evProgress:
			r.judge = judge{kind: judgeProgress}
			r.pick = pickProgressRequest
		}
		return r, true
	}
	return rule{}, false
}

// evidenceFrames: the indexes (into tx) of the result's evidence frames.
func (in input) evidenceFrames() []int {
	var out []int
	for i, e := range in.tx {
		if slices.Contains(in.evidence, e.Seq) {
			out = append(out, i)
		}
	}
	return out
}

// requestOf: the index of the sent request the response tx[a] answers.
func (in input) requestOf(a int) int {
	ans := in.tx[a]
	for i := a - 1; i >= 0; i-- {
		e := in.tx[i]
		if !sent(e) || e.Conn != ans.Conn {
			continue
		}
		if in.transport == "http" && ans.Exchange != 0 {
			if e.Exchange == ans.Exchange {
				return i
			}
			continue
		}
		if id, _ := idAndMethod([]byte(e.Body)); id != "" && answerLine(ans.Body, e.Body) != "" {
			return i
		}
	}
	return -1
}

// pickEvidenceAnswer: the request an evidence response answers.
func pickEvidenceAnswer(in input) []int {
	for _, a := range in.evidenceFrames() {
		if i := in.requestOf(a); i >= 0 {
			return []int{i}
		}
	}
	return nil
}

// pickBeforeEvidence: the connection's last input before the first
// evidence frame (probes and the handshake left out); none when the
// server spoke before any input (a start-up banner): the judgement's
// probe is then the only input.
func pickBeforeEvidence(in input) []int {
	ev := in.evidenceFrames()
	if len(ev) == 0 {
		return nil
	}
	e := in.tx[ev[0]]
	for i := ev[0] - 1; i >= 0; i-- {
		x := in.tx[i]
		if x.Conn == e.Conn && sent(x) && !handshakeMsg(x) && !in.isProbe(x) {
			return []int{i}
		}
	}
	return []int{}
}

// pickAnsweredNotification: the notifications an evidence frame may
// answer: those the connection sent since the server's previous message
// (over HTTP, the one the exchange carried), in order, with the requests
// a notifications/cancelled among them names.
func pickAnsweredNotification(in input) []int {
	for _, a := range in.evidenceFrames() {
		e := in.tx[a]
		var out []int
		for i := a - 1; i >= 0; i-- {
			x := in.tx[i]
			if x.Conn != e.Conn {
				continue
			}
			if in.transport == "http" && e.Exchange != 0 {
				if x.Exchange == e.Exchange && sent(x) {
					return []int{i}
				}
				continue
			}
			if x.Direction == "recv" && x.Kind == "message" && len(out) > 0 {
				break
			}
			if id, m := idAndMethod([]byte(x.Body)); sent(x) && id == "" && strings.HasPrefix(m, "notifications/") && m != "notifications/initialized" || sent(x) && m == "notifications/initialized" && in.requirement == "LIFE-003" {
				out = append([]int{i}, out...)
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	return nil
}

// pickEchoed: the request whose answer (an evidence frame) carries its
// id in another JSON type (7 answered as "7").
func pickEchoed(in input) []int {
	for _, a := range in.evidenceFrames() {
		ans := in.tx[a]
		aid, m := idAndMethod([]byte(firstLine(ans.Body)))
		if aid == "" || m != "" {
			continue
		}
		for i := a - 1; i >= 0; i-- {
			x := in.tx[i]
			if x.Conn != ans.Conn || !sent(x) {
				continue
			}
			if id, _ := idAndMethod([]byte(x.Body)); id != "" && id != aid && strings.Trim(id, `"`) == strings.Trim(aid, `"`) {
				return []int{i}
			}
		}
	}
	return nil
}

// pickAcceptedPost: the POSTed notification or response whose reply an
// evidence frame is.
func pickAcceptedPost(in input) []int {
	for _, a := range in.evidenceFrames() {
		e := in.tx[a]
		for i := a; i >= 0; i-- {
			x := in.tx[i]
			if x.Conn != e.Conn || x.Exchange != e.Exchange || !sent(x) {
				continue
			}
			return []int{i} // notifications/initialized: the script's handshake sends it
		}
	}
	return nil
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

var _ = result.FAIL

// pickProgressRequest: the request whose progress an evidence frame
// reports (the connection's last request before it that carries the
// notification's progressToken).
func pickProgressRequest(in input) []int {
	for _, a := range in.evidenceFrames() {
		tok := progressToken([]byte(firstLine(in.tx[a].Body)), "params")
		if tok == "" {
			continue
		}
		for i := a - 1; i >= 0; i-- {
			x := in.tx[i]
			if x.Conn == in.tx[a].Conn && sent(x) && progressToken([]byte(x.Body), "params", "_meta") == tok {
				return []int{i}
			}
		}
	}
	return nil
}

// progressToken: the JSON text of the progressToken at path (keys) of a
// message ("" when none).
func progressToken(b []byte, path ...string) string {
	var v map[string]json.RawMessage
	if json.Unmarshal(b, &v) != nil {
		return ""
	}
	for _, k := range path {
		var next map[string]json.RawMessage
		if json.Unmarshal(v[k], &next) != nil {
			return ""
		}
		v = next
	}
	return string(v["progressToken"])
}

// legacyRevisions: the revisions of the initialize handshake that have
// listChanged capabilities.
var legacyRevisions = []catalog.Revision{catalog.R20250326, catalog.R20250618, catalog.R20251125, catalog.R20241105}

// pickBurst: the check's requests that were in flight together on one
// connection: each sent while another of them was still unanswered (the
// largest such block; requests that were each answered before the next
// was sent are left out).
func pickBurst(in input) []int {
	type req struct{ i, ans int }
	byConn := map[string][]req{}
	var conns []string
	for i, e := range in.tx {
		if !in.own[e.Seq] || !sent(e) || in.isProbe(e) {
			continue
		}
		if id, m := idAndMethod([]byte(e.Body)); id == "" || m == "" {
			continue
		}
		if _, ok := byConn[e.Conn]; !ok {
			conns = append(conns, e.Conn)
		}
		a := in.answerOf(i)
		if a < 0 {
			a = len(in.tx)
		}
		byConn[e.Conn] = append(byConn[e.Conn], req{i, a})
	}
	var best []int
	for _, c := range conns {
		rs := byConn[c]
		var cur []int
		open := -1 // the latest answer index of the block so far
		for _, r := range rs {
			if len(cur) > 0 && r.i > open {
				if len(cur) > len(best) {
					best = cur
				}
				cur = nil
			}
			cur = append(cur, r.i)
			open = max(open, r.ans)
		}
		if len(cur) > len(best) {
			best = cur
		}
	}
	if len(best) < 2 {
		return nil
	}
	return best
}
