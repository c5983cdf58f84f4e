package judge

import (
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/internal/catalog"
	"github.com/mcpconform/mcpconform/internal/jsonrpc"
)

func TestRulesGradeLikeTheSuite(t *testing.T) {
	for _, c := range []struct {
		name                string
		rule                Rule
		rev                 catalog.Revision
		unconfirmed, strict bool
		req                 string
		level               catalog.Level
		verdict             Verdict
	}{
		{"invalid UTF-8 executed is RPC-005's SHOULD", ExecutedInvalidUTF8, catalog.Modern, false, false, "RPC-005", catalog.SHOULD, WARN},
		{"a server lost after any input is RPC-014", Liveness(), catalog.Modern, false, false, "RPC-014", catalog.MUST, FAIL},
		{"a missing answer is RPC-002's MUST", MissingAnswer, catalog.R20241105, false, false, "RPC-002", catalog.MUST, FAIL},
		{"a tolerance is a WARN", NullID(FaultUnparseable), catalog.Modern, false, false, "RPC-005", catalog.SHOULD, WARN},
		{"an envelope the sender broke, executed, is a WARN", ExecutedInvalidEnvelope, catalog.Modern, false, false, "RPC-006", catalog.SHOULD, WARN},
		{"an invalid id executed is RPC-006's MUST", ExecutedInvalidID, catalog.Modern, false, false, "RPC-006", catalog.MUST, FAIL},
		{"a wrong id is RPC-002's MUST", IDMismatch, catalog.LatestLegacy, false, false, "RPC-002", catalog.MUST, FAIL},
		{"unconfirmed is WARN", IDMismatch, catalog.Modern, true, false, "RPC-002", catalog.MUST, WARN},
		{"unconfirmed under strict keeps its level", IDMismatch, catalog.Modern, true, true, "RPC-002", catalog.MUST, FAIL},
		{"TOOL-012 is SHOULD", ExecutedInvalidArguments, catalog.Modern, false, false, "TOOL-012", catalog.SHOULD, WARN},
		{"TOOL-012 before 2025-11-25 is advice", ExecutedInvalidArguments, catalog.R20250618, false, false, "TOOL-012", catalog.SHOULD, WARN},
	} {
		j := c.rule.Judge(c.rev, c.unconfirmed, c.strict)
		if j.Requirement != c.req || j.Level != c.level || j.Verdict != c.verdict {
			t.Errorf("%s: %+v, want %s %s %s", c.name, j, c.req, c.level, c.verdict)
		}
	}
	if Grade(catalog.MUST, false) != FAIL || Grade(catalog.SHOULD, false) != WARN || Grade(catalog.SHOULD, true) != FAIL {
		t.Error("Grade: MUST FAIL, SHOULD WARN, a crash FAIL")
	}
}

func msg(t *testing.T, raw string) *jsonrpc.Message {
	t.Helper()
	m, err := jsonrpc.Decode([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestFaultAnswers(t *testing.T) {
	for _, c := range []struct {
		fault Fault
		sent  string
		resp  string
		kinds []string
		req   string
	}{
		{FaultInvalidUTF8, "", `{"jsonrpc":"2.0","id":1,"result":{}}`, []string{"executed"}, "RPC-005"},
		{FaultInvalidUTF8, "", `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"x"}}`, []string{"wrong-code"}, "RPC-005"},
		{FaultWrongVersion, "", `{"jsonrpc":"2.0","id":1,"result":{}}`, []string{"executed"}, "RPC-006"},
		{FaultWrongVersion, "", `{"jsonrpc":"2.0","id":1,"error":{"code":-32700,"message":"x"}}`, []string{"wrong-code"}, "RPC-006"},
		{FaultUnparseable, "", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}`, []string{"null-id"}, "RPC-005"},
		{FaultUnparseable, "", `{"jsonrpc":"2.0","error":{"code":-32700,"message":"x"}}`, nil, ""},
		{FaultUnparseable, "", `{"jsonrpc":"2.0","error":{"code":-32600,"message":"x"}}`, []string{"wrong-code"}, "RPC-005"},
		{FaultTooDeep, "", `{"jsonrpc":"2.0","id":1,"result":{}}`, nil, ""},
		{FaultEmbeddedNewline, "", `{"jsonrpc":"2.0","id":1,"result":{}}`, []string{"executed"}, "STD-004"},
		{FaultInvalidID, "1.5", `{"jsonrpc":"2.0","id":1,"result":{}}`, []string{"other-id"}, "RPC-006"},
		{FaultInvalidID, "1.5", `{"jsonrpc":"2.0","id":1.5,"result":{}}`, []string{"executed"}, "RPC-006"},
		{FaultParamsNotObject, "", `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"x"}}`, nil, ""},
		{FaultBatch, "", `{"jsonrpc":"2.0","error":{"code":-32700,"message":"x"}}`, []string{"wrong-code"}, "RPC-008"},
	} {
		ds := FaultAnswer(c.fault, c.sent, Reply{Msg: msg(t, c.resp)})
		var kinds []string
		for _, d := range ds {
			kinds = append(kinds, d.Kind)
			if d.Rule.Requirement != c.req || d.Why == "" {
				t.Errorf("%s answered %s: %+v, want %s", c.fault, c.resp, d, c.req)
			}
		}
		if strings.Join(kinds, ",") != strings.Join(c.kinds, ",") {
			t.Errorf("%s answered %s: %v, want %v", c.fault, c.resp, kinds, c.kinds)
		}
	}
	if ds := FaultAnswer(FaultUnparseable, "", Reply{}); len(ds) != 1 || ds[0].Kind != "unanswered" {
		t.Errorf("silence to unparseable input: %+v", ds)
	}
	if ds := FaultAnswer(FaultUnparseable, "", Reply{Status: 400}); len(ds) != 0 {
		t.Errorf("an HTTP 400 answers unparseable input: %+v", ds)
	}
}

func TestClassify(t *testing.T) {
	for raw, want := range map[string]Fault{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`:            FaultNone,
		`{"jsonrpc":"2.0","id":1,"method":"pi`:                FaultUnparseable,
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"p\xff\"}": FaultInvalidUTF8,
		`42`:                                   FaultNotObject,
		`[1,2]`:                                FaultBatch,
		`{}`:                                   FaultWrongVersion,
		`{"jsonrpc":"2.0"}`:                    FaultInvalidEnvelope,
		`{"jsonrpc":"2.0","id":1}`:             FaultInvalidEnvelope,
		`{"jsonrpc":"2.0","id":1,"method":42}`: FaultInvalidEnvelope,
		`{"jsonrpc":"1.0","id":1,"method":"ping"}`:            FaultWrongVersion,
		`{"jsonrpc":"2.0","id":null,"method":"ping"}`:         FaultInvalidID,
		`{"jsonrpc":"2.0","id":1,"method":"ping","params":7}`: FaultParamsNotObject,
		`{"jsonrpc":"2.0","id":1,"result":{}}`:                FaultNone,
		`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":` + strings.Repeat("[", 40) + strings.Repeat("]", 40) + `}}`: FaultTooDeep,
	} {
		if got := Classify([]byte(raw), false); got != want {
			t.Errorf("%s: %q, want %q", raw, got, want)
		}
	}
	if Classify([]byte("{\"jsonrpc\":\n\"2.0\"}"), true) != FaultEmbeddedNewline {
		t.Error("a raw newline on stdio")
	}
}

func TestBadArguments(t *testing.T) {
	for _, c := range []struct {
		resp   string
		modern bool
		want   ArgsAnswer
	}{
		{`{"jsonrpc":"2.0","id":1,"result":{"isError":true,"content":[]}}`, false, ArgsToolError},
		{`{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`, false, ArgsExecuted},
		{`{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required"}}`, true, ArgsInputRequired},
		{`{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required"}}`, false, ArgsExecuted},
		{`{"jsonrpc":"2.0","id":1,"result":[]}`, false, ArgsNotObject},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"x"}}`, false, ArgsInvalidParams},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":-32020,"message":"x"}}`, true, ArgsHeaderMismatch},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"x"}}`, false, ArgsWrongError},
	} {
		if got := BadArguments(c.modern, msg(t, c.resp)); got != c.want {
			t.Errorf("%s (modern %v): %d, want %d", c.resp, c.modern, got, c.want)
		}
	}
}

// TestUnknownMethodCodeLevels: another code than -32601 for an unknown
// method is a WARN before 2026-07-28 (no keyword sentence names it) and a
// FAIL in 2026-07-28, for the suite and the fuzzer alike.
func TestUnknownMethodCodeLevels(t *testing.T) {
	for rev, want := range map[catalog.Revision]Verdict{
		catalog.R20241105: WARN, catalog.R20250326: WARN, catalog.R20250618: WARN, catalog.R20251125: WARN, catalog.R20260728: FAIL,
	} {
		if got := UnknownMethodCode.Judge(rev, false, false).Verdict; got != want {
			t.Errorf("%s: %s, want %s", rev, got, want)
		}
	}
}
