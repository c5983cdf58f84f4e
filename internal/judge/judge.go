// Package judge holds the judging rules that the suite's checks and the
// fuzzer share, so that a defect gets the same requirement, level and
// verdict whichever of them saw it:
//
//   - grading: a violation of a MUST is FAIL, of a SHOULD is WARN; a crash
//     or a hang is FAIL whatever the level (robustness is never optional);
//     a defect seen once and never reproduced is WARN unless strict;
//   - the answers to malformed input (RPC-005, RPC-006, STD-004): which
//     error codes answer which fault, what executing it breaks, and at
//     which level (a rule that binds only the client makes the server's
//     leniency a WARN at most);
//   - the answer to tools/call with arguments that break the inputSchema
//     (TOOL-012, TOL-3);
//   - an error with no id (or id null) answering input whose id could not
//     be read is what JSON-RPC 2.0 prescribes, never a defect (TOL-14).
package judge

import (
	"fmt"
	"slices"

	"github.com/mcpconform/mcpconform/internal/catalog"
	"github.com/mcpconform/mcpconform/internal/jsonrpc"
	"github.com/mcpconform/mcpconform/internal/result"
)

// Verdict of one judged defect (the result model's vocabulary).
type Verdict = result.Verdict

// Verdicts.
const (
	PASS  = result.PASS
	FAIL  = result.FAIL
	WARN  = result.WARN
	ERROR = result.ERROR
)

// Grade is the verdict of a violation of a requirement graded at level:
// FAIL for MUST, WARN otherwise; FAIL whatever the level when the server
// crashed or hung.
func Grade(level catalog.Level, crash bool) Verdict {
	if crash || level == catalog.MUST {
		return FAIL
	}
	return WARN
}

// Rule is one kind of defect: the requirement it breaks and the level of
// that sub-case (a requirement's sub-case may bind less than the
// requirement: RPC-006 is MUST for its id rules, SHOULD for the JSON-RPC
// envelope rules that bind the sender).
type Rule struct {
	Requirement string
	// Level of the sub-case ("": the requirement's level in the revision).
	// It never exceeds the requirement's own level.
	Level catalog.Level
	// Crash: the server crashed or hung; FAIL whatever the level.
	Crash bool
	// Harness: the harness's own failure (ERROR, not the server's).
	Harness bool
	// Ref is the source of a sub-case level or a tolerance.
	Ref string
}

// Judgement is a Rule applied in a revision.
type Judgement struct {
	Requirement string        `json:"requirement"`
	Level       catalog.Level `json:"level"`
	Verdict     Verdict       `json:"verdict"`
	// Note explains a verdict below the requirement's level (sub-case
	// level, requirement outside the revision, unconfirmed).
	Note string `json:"note,omitempty"`
}

// Judge grades r in revision rev. A defect seen once and never reproduced
// (unconfirmed) is WARN unless strict; a crash or hang is FAIL only when
// confirmed or strict.
func (r Rule) Judge(rev catalog.Revision, unconfirmed, strict bool) Judgement {
	if r.Harness {
		return Judgement{Requirement: r.Requirement, Verdict: ERROR, Note: "the harness's own failure"}
	}
	j := Judgement{Requirement: r.Requirement, Level: catalog.MUST}
	req, ok := catalog.Get(r.Requirement)
	if ok {
		j.Level = req.LevelFor(rev)
	}
	if r.Level != "" && r.Level != j.Level && j.Level == catalog.MUST {
		j.Level = r.Level
		j.Note = fmt.Sprintf("this sub-case of %s is %s (%s)", r.Requirement, r.Level, r.Ref)
	}
	if ok && rev != "" && !req.AppliesToRevision(rev) && !r.Crash {
		// The requirement is graded from another revision on: advice here.
		j.Level = catalog.SHOULD
		j.Note = fmt.Sprintf("%s applies to %s, not %s: reported as advice", r.Requirement, req.RevisionsString(), rev)
	}
	j.Verdict = Grade(j.Level, r.Crash)
	if unconfirmed && !strict && j.Verdict == FAIL {
		j.Verdict = WARN
		j.Note = "unconfirmed: the defect did not show again when the case was re-run (a timing-dependent defect, or none); FAIL with --strict"
	}
	return j
}

// Rules of the defects both the suite and the fuzzer judge.
var (
	// A response whose id is not the request's (value or JSON type), a
	// second response, a result addressed to no request, a request left
	// unanswered while the server answers others.
	IDMismatch = Rule{Requirement: "RPC-002"}
	// A response to a notification.
	NotificationAnswered = Rule{Requirement: "RPC-004"}
	// Invalid UTF-8 inside a string, executed (Go's encoding/json, among
	// others, replaces it with U+FFFD): RPC-005 is SHOULD.
	ExecutedInvalidUTF8 = Rule{Requirement: "RPC-005"}
	// A parse error answered with another code than -32700.
	ParseErrorCode = Rule{Requirement: "RPC-005"}
	// Input the server could not parse (truncated, too deep, not UTF-8)
	// crashed or hung it.
	ParseCrash = Rule{Requirement: "RPC-005", Crash: true}
	// A request whose envelope breaks JSON-RPC 2.0 ("jsonrpc" not "2.0",
	// result or error members) executed: the envelope rules bind the
	// sender, so the server's leniency is a WARN (RPC-006's MUST is the
	// id rule: a null, fractional or structured id is never executed).
	ExecutedInvalidEnvelope = Rule{Requirement: "RPC-006", Level: catalog.SHOULD, Ref: "JSON-RPC 2.0 binds the client; MCP's MUST is on the id"}
	ExecutedInvalidID       = Rule{Requirement: "RPC-006"}
	// An invalid request answered with another code than -32600 (or -32700).
	InvalidRequestCode = Rule{Requirement: "RPC-006", Level: catalog.SHOULD, Ref: "JSON-RPC 2.0 SHOULD"}
	// A message with a raw newline (stdio), executed: the server reads
	// stdin as a JSON stream, not as lines; the rule binds the client.
	ExecutedEmbeddedNewline = Rule{Requirement: "STD-004", Level: catalog.SHOULD, Ref: "stdio framing binds the client"}
	// Every server message validates against the revision's schema.
	SchemaInvalid = Rule{Requirement: "RPC-013"}
	// tools/call with arguments that break the inputSchema.
	ExecutedInvalidArguments = Rule{Requirement: "TOOL-012"}
	InvalidArgumentsError    = Rule{Requirement: "TOOL-012"}
	// Fuzzed tool arguments crashed or hung the server.
	ToolArgumentsCrash = Rule{Requirement: "TOOL-014", Crash: true}
)

// Fault is what is wrong with a message a client sent.
type Fault string

// Faults.
const (
	// FaultNone: a well-formed message.
	FaultNone Fault = ""
	// FaultUnparseable: not JSON, truncated, not an object; or an error
	// addressed to no request, answering such input.
	FaultUnparseable Fault = "unparseable"
	// FaultInvalidUTF8: JSON with invalid UTF-8 inside a string.
	FaultInvalidUTF8 Fault = "invalid-utf8"
	// FaultTooDeep: valid JSON nested deeper than ParserDepthFloor.
	FaultTooDeep Fault = "too-deep"
	// FaultInvalidEnvelope: a JSON object with a valid id and a string
	// method that is not a JSON-RPC 2.0 request.
	FaultInvalidEnvelope Fault = "invalid-envelope"
	// FaultWrongVersion: "jsonrpc" is not "2.0".
	FaultWrongVersion Fault = "wrong-jsonrpc-version"
	// FaultEmbeddedNewline: a raw newline inside a stdio message.
	FaultEmbeddedNewline Fault = "embedded-newline"
)

// ParserDepthFloor is the nesting depth above which a server's parser may
// legitimately refuse a message (serde_json stops at 128, other readers
// at 64; go-sdk at 10000): the refusal is a parse error with no id (the id
// could not be determined), or, at worst, silence (RPC-005, a SHOULD).
const ParserDepthFloor = 32

// answerCodes are the JSON-RPC error codes that answer a fault: parse
// error and invalid request (either may come first in a reader); invalid
// UTF-8 inside a string may also surface as invalid params.
var answerCodes = map[Fault][]int64{
	FaultUnparseable:     {jsonrpc.CodeParseError, jsonrpc.CodeInvalidRequest},
	FaultTooDeep:         {jsonrpc.CodeParseError, jsonrpc.CodeInvalidRequest},
	FaultInvalidEnvelope: {jsonrpc.CodeParseError, jsonrpc.CodeInvalidRequest},
	FaultWrongVersion:    {jsonrpc.CodeParseError, jsonrpc.CodeInvalidRequest},
	FaultInvalidUTF8:     {jsonrpc.CodeParseError, jsonrpc.CodeInvalidRequest, jsonrpc.CodeInvalidParams},
}

// AnswerCodes returns the error codes that answer a message with fault f.
func AnswerCodes(f Fault) []int64 { return answerCodes[f] }

// FaultAnswer judges the response resp to a message with fault f (for an
// error addressed to no request, f is FaultUnparseable): the rule it
// breaks and why, or ok when it is a fair answer. An error with no id or
// id null is never judged here (TOL-14: tolerated for input whose id could
// not be read).
func FaultAnswer(f Fault, resp *jsonrpc.Message) (Rule, string, bool) {
	if resp.HasResult {
		r, why := Executed(f)
		return r, why, why != ""
	}
	allowed, known := answerCodes[f]
	code, ok := resp.ErrorCode()
	if !known || !ok || slices.Contains(allowed, code) {
		return Rule{}, "", false
	}
	rule := ParseErrorCode
	if f == FaultInvalidEnvelope || f == FaultWrongVersion {
		rule = InvalidRequestCode
	}
	return rule, fmt.Sprintf("answered with code %d; a malformed message is answered with %v", code, allowed), true
}

// Executed returns the rule that executing a message with fault f breaks
// and why ("" when executing it is no defect: a parser that goes deeper).
func Executed(f Fault) (Rule, string) {
	switch f {
	case FaultInvalidUTF8:
		return ExecutedInvalidUTF8, "executed instead of rejected (MCP messages are UTF-8; answering -32700 is the JSON-RPC SHOULD)"
	case FaultInvalidEnvelope, FaultWrongVersion:
		return ExecutedInvalidEnvelope, "executed instead of rejected with -32600"
	case FaultEmbeddedNewline:
		return ExecutedEmbeddedNewline, "executed: a message split over two lines was read as one"
	case FaultTooDeep, FaultNone:
		return Rule{}, ""
	}
	return ParseErrorCode, "executed although it could not be parsed"
}

// ArgsAnswer is the kind of answer to tools/call with arguments that break
// the tool's inputSchema.
type ArgsAnswer int

// Kinds of answer to schema-violating arguments.
const (
	ArgsToolError      ArgsAnswer = iota // an isError result: the answer (TOOL-012)
	ArgsInvalidParams                    // JSON-RPC -32602: tolerated with a warning (TOL-3)
	ArgsInputRequired                    // 2026-07-28 input_required: asks first, validation may follow
	ArgsHeaderMismatch                   // 2026-07-28 -32020: a mirrored argument's header checked first
	ArgsExecuted                         // a result without isError: executed on invalid input
	ArgsWrongError                       // another JSON-RPC error code
	ArgsNotObject                        // the result is not an object (the schema judges it)
	ArgsNoCode                           // an error without an integer code (the schema judges it)
)

// BadArguments classifies resp, the answer to tools/call with arguments
// that break the tool's inputSchema.
func BadArguments(modern bool, resp *jsonrpc.Message) ArgsAnswer {
	if !resp.IsError() {
		res := resp.ResultObject()
		switch {
		case res == nil:
			return ArgsNotObject
		case string(res["isError"]) == "true":
			return ArgsToolError
		case modern && string(res["resultType"]) == `"input_required"`:
			return ArgsInputRequired
		}
		return ArgsExecuted
	}
	code, ok := resp.ErrorCode()
	switch {
	case !ok:
		return ArgsNoCode
	case code == jsonrpc.CodeInvalidParams:
		return ArgsInvalidParams
	case code == jsonrpc.CodeHeaderMismatch && modern:
		return ArgsHeaderMismatch
	}
	return ArgsWrongError
}

// IDUndeterminable reports whether an error addressed to no request (id
// omitted or null) is a fair answer to a case that held a message with
// fault f: JSON-RPC 2.0 prescribes a null id exactly when the id could not
// be determined, which a parser's nesting or size limit, a truncated or an
// unparseable message all cause.
func IDUndeterminable(f Fault) bool { return f != FaultNone }
