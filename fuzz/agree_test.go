package fuzz

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/internal/catalog"
	"github.com/mcpconform/mcpconform/internal/jsonrpc"
	"github.com/mcpconform/mcpconform/internal/judge"
	"github.com/mcpconform/mcpconform/internal/wire"
	sjsonrpc "github.com/mcpconform/mcpconform/suites/jsonrpc"
)

// One judge: the suite's grading of the answer to a malformed message
// (RPC-005 and RPC-006, suites/jsonrpc.GradeFaultAnswer) and the fuzzer's
// (the oracle's gradeFaultAnswer) give the same requirement, level and
// verdict for the same message, answer, revision and transport — every
// fault kind, every kind of answer. A few rows are pinned as well, so that
// the grading of both changing together is seen too.

// agreeMessages are malformed messages of every fault kind (the fuzzer's
// raw property generates each of them; the suite sends most).
var agreeMessages = []string{
	`{"jsonrpc":"2.0","id":1,"method":"ping"`,                                                           // truncated
	"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\",\"params\":{\"_meta\":{\"x\":\"caf\xc3\x28\"}}}", // invalid UTF-8
	"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\",\"params\":{\"_meta\":{\"x\":\"caf\xc3",          // invalid UTF-8, cut
	`[]`, `[1,2]`, `[{"jsonrpc":"2.0"}]`, // arrays (batches)
	`42`, `null`, `"x"`, // JSON that is not an object
	`{}`, `{"jsonrpc":"2.0"}`, `{"jsonrpc":"2.0","id":3}`, `{"jsonrpc":"2.0","id":4,"method":42}`, // envelopes
	`{"jsonrpc":"1.0","id":5,"method":"ping"}`, `{"id":6,"method":"ping"}`, `{"jsonrpc":2.0,"id":"v","method":"ping"}`, // versions
	`{"jsonrpc":"2.0","id":null,"method":"ping"}`, `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, `{"jsonrpc":"2.0","id":{},"method":"ping"}`, // ids
	`{"jsonrpc":"2.0","id":7,"method":"ping","params":"x"}`,                                                                       // params
	`{"jsonrpc":"2.0","id":8,"method":"ping","params":{"_meta":{"d":` + strings.Repeat("[", 40) + strings.Repeat("]", 40) + `}}}`, // too deep
	`{"jsonrpc":"2.0","method":"notifications/x","params":{"d":` + strings.Repeat("[", 40) + strings.Repeat("]", 40) + `}}`,       // a deep notification
	"{\"jsonrpc\":\"2.0\",\n\"id\":9,\"method\":\"ping\"}",                                                                        // a raw newline (a fault on stdio)
}

// agreeAnswers returns the answers to raw (sent is its id as sent, "" when
// unreadable): silence, errors of each code addressed to no request, to
// null and to its id, a result.
func agreeAnswers(t *testing.T, sent string) map[string]judge.Reply {
	t.Helper()
	dec := func(s string) *jsonrpc.Message {
		m, err := jsonrpc.Decode([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	out := map[string]judge.Reply{
		"silence":     {},
		"HTTP 400":    {Status: 400},
		"HTTP 200":    {Status: 200},
		"dropped":     {Status: 0},
		"result id 1": {Msg: dec(`{"jsonrpc":"2.0","id":1,"result":{}}`)},
	}
	for _, code := range []int64{-32700, -32600, -32602, -32603} {
		out[fmt.Sprintf("%d no id", code)] = judge.Reply{Msg: dec(fmt.Sprintf(`{"jsonrpc":"2.0","error":{"code":%d,"message":"x"}}`, code))}
		out[fmt.Sprintf("%d id null", code)] = judge.Reply{Msg: dec(fmt.Sprintf(`{"jsonrpc":"2.0","id":null,"error":{"code":%d,"message":"x"}}`, code))}
		if sent != "" && sent != "null" && !strings.HasPrefix(sent, "{") {
			out[fmt.Sprintf("%d its id", code)] = judge.Reply{Msg: dec(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":"x"}}`, sent, code))}
		}
	}
	if sent != "" && !strings.HasPrefix(sent, "{") {
		out["result its id"] = judge.Reply{Msg: dec(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{}}`, sent))}
	}
	return out
}

func suiteGrades(raw []byte, r judge.Reply, rev catalog.Revision, tr string) []string {
	var out []string
	for _, g := range sjsonrpc.GradeFaultAnswer(raw, r, rev, tr) {
		out = append(out, fmt.Sprintf("%s %s %s", g.Requirement, g.Level, g.Verdict))
	}
	slices.Sort(out)
	return out
}

func fuzzGrades(raw []byte, r judge.Reply, rev catalog.Revision, tr string) []string {
	var out []string
	for _, f := range gradeFaultAnswer(raw, r, rev, tr) {
		out = append(out, fmt.Sprintf("%s %s %s", f.Requirement, f.Level, f.Verdict))
	}
	slices.Sort(out)
	return out
}

func TestSuiteAndFuzzerGradeAlike(t *testing.T) {
	kinds := map[judge.Fault]bool{}
	rows := 0
	for _, tr := range []string{wire.Stdio, wire.HTTP} {
		for _, rev := range []catalog.Revision{catalog.R20250326, catalog.LatestLegacy, catalog.Modern} {
			for _, m := range agreeMessages {
				raw := []byte(m)
				kinds[judge.Classify(raw, tr == wire.Stdio)] = true
				for name, r := range agreeAnswers(t, judge.SentID(raw)) {
					if tr == wire.Stdio && r.Status != 0 {
						continue
					}
					rows++
					s, f := suiteGrades(raw, r, rev, tr), fuzzGrades(raw, r, rev, tr)
					if strings.Join(s, "; ") != strings.Join(f, "; ") {
						t.Errorf("%s %s: %q answered %s: the suite grades %v, the fuzzer %v", tr, rev, clip(raw), name, s, f)
					}
				}
			}
		}
	}
	for _, k := range judge.Faults() {
		if !kinds[k] {
			t.Errorf("no message of fault kind %s in the table", k)
		}
	}
	t.Logf("%d inputs graded alike", rows)
}

// The pinned rows: the grading both sides share.
func TestOneJudgePinned(t *testing.T) {
	rev := catalog.Modern
	dec := func(s string) *jsonrpc.Message { m, _ := jsonrpc.Decode([]byte(s)); return m }
	for _, c := range []struct {
		msg, answer string
		status      int
		tr          string
		want        []string
	}{
		// unparseable input answered -32600: RPC-005's SHOULD, a WARN
		{`{"jsonrpc":"2.0","id":1,"method":"ping"`, `{"jsonrpc":"2.0","error":{"code":-32600,"message":"x"}}`, 0, wire.Stdio, []string{"RPC-005 SHOULD WARN"}},
		{`{"jsonrpc":"2.0","id":1,"method":"ping"`, `{"jsonrpc":"2.0","error":{"code":-32700,"message":"x"}}`, 0, wire.Stdio, nil},
		{`{"jsonrpc":"2.0","id":1,"method":"ping"`, ``, 0, wire.Stdio, []string{"RPC-005 SHOULD WARN"}},
		{`{"jsonrpc":"2.0","id":1,"method":"ping"`, ``, 400, wire.HTTP, nil},
		{`{"jsonrpc":"2.0","id":1,"method":"ping"`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}`, 0, wire.Stdio, []string{"RPC-005 SHOULD WARN"}},
		// an invalid envelope answered -32700: RPC-006's SHOULD sub-case
		{`{"jsonrpc":"1.0","id":5,"method":"ping"}`, `{"jsonrpc":"2.0","id":5,"error":{"code":-32700,"message":"x"}}`, 0, wire.Stdio, []string{"RPC-006 SHOULD WARN"}},
		{`{"jsonrpc":"1.0","id":5,"method":"ping"}`, `{"jsonrpc":"2.0","id":5,"result":{}}`, 0, wire.Stdio, []string{"RPC-006 SHOULD WARN"}},
		// an invalid id executed and answered with another id: the MUST
		{`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, `{"jsonrpc":"2.0","id":1,"result":{}}`, 0, wire.Stdio, []string{"RPC-006 MUST FAIL"}},
		{`{"jsonrpc":"2.0","id":7,"method":"ping","params":"x"}`, `{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"x"}}`, 0, wire.HTTP, nil},
		// a batch rejected with another code than -32600: tolerated
		{`[]`, `{"jsonrpc":"2.0","error":{"code":-32700,"message":"x"}}`, 0, wire.Stdio, []string{"RPC-008 SHOULD WARN"}},
		// invalid UTF-8 executed
		{"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\",\"params\":{\"x\":\"\xff\"}}", `{"jsonrpc":"2.0","id":2,"result":{}}`, 0, wire.Stdio, []string{"RPC-005 SHOULD WARN"}},
	} {
		r := judge.Reply{Status: c.status}
		if c.answer != "" {
			r.Msg = dec(c.answer)
		}
		raw := []byte(c.msg)
		want := strings.Join(c.want, "; ")
		if s := strings.Join(suiteGrades(raw, r, rev, c.tr), "; "); s != want {
			t.Errorf("suite: %q answered %q: %q, want %q", c.msg, c.answer, s, want)
		}
		if f := strings.Join(fuzzGrades(raw, r, rev, c.tr), "; "); f != want {
			t.Errorf("fuzzer: %q answered %q: %q, want %q", c.msg, c.answer, f, want)
		}
	}
}
