package repro

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/internal/result"
)

// claimRule is the rule of a result whose check recorded its claim (what
// the answer to one request had to be): the script replays that request
// and judges its answer the same way.
func (in input) claimRule() (rule, bool) {
	c := in.claim
	if c == nil {
		return rule{}, false
	}
	r := rule{pick: pickClaimed, expect: in.title + ": " + describeClaim(c)}
	switch c.Kind {
	case result.ClaimError:
		r.judge = judge{kind: judgeCode, codes: c.Codes, orResult: c.OrResult}
	case result.ClaimResult:
		r.judge = judge{kind: judgeResult}
	case result.ClaimStatus:
		if in.transport != "http" {
			return rule{}, false
		}
		r.judge = judge{kind: judgeStatus, statuses: c.Statuses, deleted: -1}
	case result.ClaimModel:
		a := slices.IndexFunc(in.tx, func(e result.Exchange) bool { return e.Seq == c.Answer })
		if a < 0 {
			return rule{}, false
		}
		i := in.requestOf(a)
		if i < 0 {
			return rule{}, false
		}
		_, method := idAndMethod([]byte(in.tx[i].Body))
		con, ok := in.modelConstraint(a, method)
		if !ok {
			return rule{}, false
		}
		return rule{judge: judge{kind: judgeModel, model: con}, pick: func(input) []int { return []int{i} },
			expect: in.title + ": the answer's member " + orRoot(con.ptr) + " is " + con.words}, true
	default:
		return rule{}, false
	}
	return r, true
}

// describeClaim says what a claim requires, in words.
func describeClaim(c *result.Claim) string {
	switch c.Kind {
	case result.ClaimError:
		if len(c.Codes) == 0 {
			return "the answer is a JSON-RPC error"
		}
		var cs []string
		for _, k := range c.Codes {
			cs = append(cs, fmt.Sprint(k))
		}
		return "the answer is a JSON-RPC error with code " + strings.Join(cs, " or ")
	case result.ClaimResult:
		return "the answer is a JSON-RPC result"
	case result.ClaimStatus:
		var ss []string
		for _, k := range c.Statuses {
			ss = append(ss, fmt.Sprint(k))
		}
		return "the HTTP status is " + strings.Join(ss, " or ")
	}
	return c.Kind
}

// pickClaimed: the request the claimed answer answers (same connection,
// same id; over HTTP, the same exchange).
func pickClaimed(in input) []int {
	a := slices.IndexFunc(in.tx, func(e result.Exchange) bool { return e.Seq == in.claim.Answer })
	if a < 0 {
		return nil
	}
	ans := in.tx[a]
	for i := a - 1; i >= 0; i-- {
		e := in.tx[i]
		if !sent(e) || e.Conn != ans.Conn || handshakeMsg(e) {
			continue
		}
		if in.transport == "http" && ans.Exchange != 0 {
			if e.Exchange == ans.Exchange {
				return []int{i}
			}
			continue
		}
		id, _ := idAndMethod([]byte(e.Body))
		if id != "" && answerLine(ans.Body, e.Body) != "" {
			return []int{i}
		}
	}
	return nil
}

// historyOf merges the transcripts of every result of rep (a frame once,
// by Seq): the run's traffic as far as the report kept it.
func historyOf(rep *result.Report) []result.Exchange {
	seen := map[int64]bool{}
	var out []result.Exchange
	for _, r := range rep.Results {
		for _, e := range r.Transcript {
			if !seen[e.Seq] {
				seen[e.Seq] = true
				out = append(out, e)
			}
		}
	}
	slices.SortFunc(out, func(a, b result.Exchange) int { return cmp.Compare(a.Seq, b.Seq) })
	return out
}

// prefixMsgs are the messages of in.prefix (Seqs of the history), in order.
func (in input) prefixMsgs() []msg {
	var out []msg
	for _, seq := range in.prefix {
		i, ok := slices.BinarySearchFunc(in.history, seq, func(e result.Exchange, s int64) int { return cmp.Compare(e.Seq, s) })
		if ok && sent(in.history[i]) {
			out = append(out, in.msgOf(in.history[i]))
		}
	}
	return stripHandshake(out)
}

// earlier are the Seqs of the sent frames of the connection of the
// plan's first message that came before it in the run (the handshake
// left out): where Verify looks for the
// messages a state-dependent fault needs.
func (in input) earlier() []int64 {
	_, idx, ok := in.picked()
	if !ok || in.finding != nil || len(idx) == 0 {
		return nil
	}
	first := in.tx[idx[0]]
	var out []int64
	for _, e := range in.history {
		if e.Seq >= first.Seq {
			break
		}
		// the harness's probes too: a request that finished is state
		// (notifications/cancelled for it)
		if e.Conn == first.Conn && sent(e) && !handshakeMsg(e) {
			out = append(out, e.Seq)
		}
	}
	return out
}

// handshakeBefore tells how far the run had gone with the legacy
// handshake on e's connection when it sent e: handshake (initialize was
// sent; true when the report does not tell) and noInitialized
// (initialize without notifications/initialized).
func (in input) handshakeBefore(e result.Exchange) (handshake, noInitialized bool) {
	frames := in.history
	if len(frames) == 0 {
		frames = in.tx
	}
	sawInit, sawInitialized, any := false, false, false
	for _, f := range frames {
		if f.Seq >= e.Seq {
			break
		}
		if f.Conn != e.Conn || !sent(f) {
			continue
		}
		any = true
		switch _, m := idAndMethod([]byte(f.Body)); m {
		case "initialize":
			sawInit = true
		case "notifications/initialized":
			sawInitialized = true
		}
	}
	if _, m := idAndMethod([]byte(e.Body)); !any || !sawInit || m == "notifications/initialized" {
		// nothing recorded of the connection's start, or the exchange is
		// the handshake's notification itself: the full handshake
		return true, false
	}
	return true, !sawInitialized
}

// recordedInit: the params of the last initialize the run sent on e's
// connection before e (nil when the report does not hold it).
func (in input) recordedInit(e result.Exchange) json.RawMessage {
	frames := in.history
	if len(frames) == 0 {
		frames = in.tx
	}
	var params json.RawMessage
	for _, f := range frames {
		if f.Seq >= e.Seq {
			break
		}
		if f.Conn != e.Conn || !sent(f) || f.Truncated {
			continue
		}
		var m struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal([]byte(f.Body), &m) == nil && m.Method == "initialize" && len(m.Params) > 0 && m.Params[0] == '{' {
			params = m.Params
		}
	}
	return params
}
