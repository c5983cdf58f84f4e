package judge

import (
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
		{"a crash on unparseable input fails whatever the level", ParseCrash, catalog.Modern, false, false, "RPC-005", catalog.SHOULD, FAIL},
		{"an envelope the sender broke, executed, is a WARN", ExecutedInvalidEnvelope, catalog.Modern, false, false, "RPC-006", catalog.SHOULD, WARN},
		{"an invalid id executed is RPC-006's MUST", ExecutedInvalidID, catalog.Modern, false, false, "RPC-006", catalog.MUST, FAIL},
		{"a wrong id is RPC-002's MUST", IDMismatch, catalog.LatestLegacy, false, false, "RPC-002", catalog.MUST, FAIL},
		{"unconfirmed is WARN", IDMismatch, catalog.Modern, true, false, "RPC-002", catalog.MUST, WARN},
		{"unconfirmed under strict keeps its level", IDMismatch, catalog.Modern, true, true, "RPC-002", catalog.MUST, FAIL},
		{"TOOL-012 is SHOULD", ExecutedInvalidArguments, catalog.Modern, false, false, "TOOL-012", catalog.SHOULD, WARN},
		{"TOOL-012 before 2025-11-25 is advice", ExecutedInvalidArguments, catalog.R20250618, false, false, "TOOL-012", catalog.SHOULD, WARN},
		{"fuzzed arguments crashing the server", ToolArgumentsCrash, catalog.Modern, false, false, "TOOL-014", catalog.MUST, FAIL},
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
		resp  string
		bad   bool
		req   string
	}{
		{FaultInvalidUTF8, `{"jsonrpc":"2.0","id":1,"result":{}}`, true, "RPC-005"},
		{FaultInvalidUTF8, `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"x"}}`, false, ""},
		{FaultWrongVersion, `{"jsonrpc":"2.0","id":1,"result":{}}`, true, "RPC-006"},
		{FaultWrongVersion, `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"x"}}`, true, "RPC-006"},
		{FaultUnparseable, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}`, false, ""},
		{FaultUnparseable, `{"jsonrpc":"2.0","error":{"code":-32603,"message":"x"}}`, true, "RPC-005"},
		{FaultTooDeep, `{"jsonrpc":"2.0","id":1,"result":{}}`, false, ""},
		{FaultEmbeddedNewline, `{"jsonrpc":"2.0","id":1,"result":{}}`, true, "STD-004"},
	} {
		r, why, bad := FaultAnswer(c.fault, msg(t, c.resp))
		if bad != c.bad || r.Requirement != c.req || bad && why == "" {
			t.Errorf("%s answered %s: %v %q %v", c.fault, c.resp, r, why, bad)
		}
	}
	if !IDUndeterminable(FaultTooDeep) || IDUndeterminable(FaultNone) {
		t.Error("an id-less error answers a message too deep to parse, never a well-formed one")
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
