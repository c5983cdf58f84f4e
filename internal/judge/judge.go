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
//     (TOOL-012; -32602 tolerated, TOL-3);
//   - an error with no id answering input whose id could not be read is
//     what JSON-RPC 2.0 prescribes, never a defect; with "id": null it is
//     tolerated with a WARN (TOL-14);
//   - a request left unanswered while the server answers others breaks
//     RPC-002 whatever its method (MissingAnswer); a server that dies or
//     stops answering breaks RPC-014 (Liveness).
//
// Every place that turns an observation into a verdict — the suite's
// checks, the run-wide observers, the session layer's faults, the
// fuzzer's oracle — grades through Rule.Judge or Level.
package judge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mcpconform/mcpconform/internal/catalog"
	"github.com/mcpconform/mcpconform/internal/jsonobj"
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
	// It never exceeds the requirement's own level. Before: the sub-case
	// level holds in the revisions before this one only ("": in all).
	Level  catalog.Level
	Before catalog.Revision
	// Crash: the server crashed or hung; FAIL whatever the level.
	Crash bool
	// Harness: the harness's own failure (ERROR, not the server's).
	Harness bool
	// Ref is the source of a sub-case level.
	Ref string
	// Tolerance is the catalog id (TOL-N) of a tolerated ambiguity: the
	// deviation is a WARN whatever the level, citing it.
	Tolerance string
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
	if r.Level != "" && r.Level != j.Level && j.Level == catalog.MUST && (r.Before == "" || rev != "" && rev < r.Before) {
		j.Level = r.Level
		j.Note = fmt.Sprintf("this sub-case of %s is %s (%s)", r.Requirement, r.Level, r.Ref)
	}
	if ok && rev != "" && !req.AppliesToRevision(rev) && !r.Crash {
		// The requirement is graded from another revision on: advice here.
		j.Level = catalog.SHOULD
		j.Note = fmt.Sprintf("%s applies to %s, not %s: reported as advice", r.Requirement, req.RevisionsString(), rev)
	}
	j.Verdict = Grade(j.Level, r.Crash)
	if r.Tolerance != "" && !r.Crash {
		j.Level, j.Verdict = catalog.SHOULD, WARN
		j.Note = "tolerated: " + r.Tolerance
	}
	if unconfirmed && !strict && j.Verdict == FAIL {
		j.Verdict = WARN
		j.Note = "unconfirmed: the defect did not show again when the case was re-run (a timing-dependent defect, or none); FAIL with --strict"
	}
	return j
}

// Rules of the defects both the suite and the fuzzer judge.
var (
	// An unknown method answered with another error code than -32601.
	// Before 2026-07-28 no keyword sentence names the code (only JSON-RPC
	// 2.0's table of codes; MethodNotFoundError is the 2026-07-28
	// schema's): a SHOULD there.
	UnknownMethodCode = Rule{Requirement: "RPC-007", Level: catalog.SHOULD, Before: catalog.R20260728,
		Ref: "before 2026-07-28 no keyword sentence names -32601, only JSON-RPC 2.0's table of codes"}
	// A response whose id is not the request's (value or JSON type), a
	// second response, a result addressed to no request.
	IDMismatch = Rule{Requirement: "RPC-002"}
	// A well-formed request left unanswered while the server answers
	// others (a barrier request sent after it): JSON-RPC's one response
	// per request, whatever the method.
	MissingAnswer = Rule{Requirement: "RPC-002"}
	// A response to a notification.
	NotificationAnswered = Rule{Requirement: "RPC-004"}
	// Invalid UTF-8 inside a string, executed (Go's encoding/json, among
	// others, replaces it with U+FFFD): RPC-005 is SHOULD.
	ExecutedInvalidUTF8 = Rule{Requirement: "RPC-005"}
	// A parse error answered with another code than -32700.
	ParseErrorCode = Rule{Requirement: "RPC-005"}
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
	// The server died (the process exited, the connection ended) or
	// stopped answering after input: RPC-014, whatever the input.
	ServerLost = Rule{Requirement: "RPC-014", Crash: true}
)

// Liveness is the rule of a server that dies or stops answering after
// input it may reject (RPC-014, MUST): a FAIL whatever the level of the
// rule the input tested.
func Liveness() Rule { return ServerLost }

// Level returns the level of requirement id in revision rev (its
// catalog level there; MUST for an id the catalog does not know).
func Level(id string, rev catalog.Revision) catalog.Level {
	if req, ok := catalog.Get(id); ok {
		return req.LevelFor(rev)
	}
	return catalog.MUST
}

// GradeAt is the verdict of a deviation from a requirement of level
// level: soft marks a SHOULD sub-case of it (graded SHOULD whatever the
// requirement's level). The run-wide observers and the session layer's
// faults grade through it, the checks through Grade and Rule.Judge.
func GradeAt(level catalog.Level, soft bool) Verdict {
	if soft && level == catalog.MUST {
		level = catalog.SHOULD
	}
	return Grade(level, false)
}

// Fault is what is wrong with a message a client sent.
type Fault string

// Faults.
const (
	// FaultNone: a well-formed message.
	FaultNone Fault = ""
	// FaultUnparseable: not JSON (truncated, garbage).
	FaultUnparseable Fault = "unparseable"
	// FaultInvalidUTF8: JSON with invalid UTF-8 (inside a string).
	FaultInvalidUTF8 Fault = "invalid-utf8"
	// FaultTooDeep: valid JSON nested deeper than ParserDepthFloor.
	FaultTooDeep Fault = "too-deep"
	// FaultNotObject: valid JSON that is not an object (42, "x", null).
	FaultNotObject Fault = "not-object"
	// FaultBatch: a JSON array (a batch; none since 2025-06-18).
	FaultBatch Fault = "batch"
	// FaultInvalidEnvelope: a JSON object that is neither a request nor a
	// notification (no method, a method that is not a string, {}).
	FaultInvalidEnvelope Fault = "invalid-envelope"
	// FaultWrongVersion: "jsonrpc" is not "2.0" (or absent).
	FaultWrongVersion Fault = "wrong-jsonrpc-version"
	// FaultInvalidID: a request whose id is null, fractional or structured.
	FaultInvalidID Fault = "invalid-id"
	// FaultParamsNotObject: a request whose params are not an object.
	FaultParamsNotObject Fault = "params-not-object"
	// FaultEmbeddedNewline: a raw newline inside a stdio message.
	FaultEmbeddedNewline Fault = "embedded-newline"
)

// Faults lists every fault kind.
func Faults() []Fault {
	return []Fault{FaultUnparseable, FaultInvalidUTF8, FaultTooDeep, FaultNotObject, FaultBatch,
		FaultInvalidEnvelope, FaultWrongVersion, FaultInvalidID, FaultParamsNotObject, FaultEmbeddedNewline}
}

// ParserDepthFloor is the nesting depth above which a server's parser may
// legitimately refuse a message (serde_json stops at 128, other readers
// at 64; go-sdk at 10000): the refusal is a parse error with no id (the id
// could not be determined), or, at worst, silence (RPC-005, a SHOULD).
const ParserDepthFloor = 32

// Classify returns the fault of raw, one message a client sent (stdio:
// one line of it; a raw newline inside splits it).
func Classify(raw []byte, stdio bool) Fault {
	if stdio && bytes.ContainsAny(raw, "\r\n") {
		return FaultEmbeddedNewline
	}
	if !utf8.Valid(raw) {
		return FaultInvalidUTF8
	}
	m, err := jsonrpc.Decode(raw)
	if err != nil {
		trimmed := bytes.TrimSpace(raw)
		switch {
		case !jsonobj.Valid(trimmed):
			return FaultUnparseable
		case trimmed[0] == '[':
			return FaultBatch
		}
		return FaultNotObject
	}
	if Depth(raw) > ParserDepthFloor {
		return FaultTooDeep
	}
	switch {
	case m.JSONRPC != "2.0":
		return FaultWrongVersion
	case !m.MethodIsString:
		if !m.HasMethod && (m.HasResult || m.HasError) {
			return FaultNone // a response (the client's answer to a server request)
		}
		return FaultInvalidEnvelope
	case m.HasID && !m.ID.Valid():
		return FaultInvalidID
	case m.HasParams && !isObject(m.Params):
		return FaultParamsNotObject
	}
	return FaultNone
}

func isObject(raw json.RawMessage) bool {
	b := bytes.TrimSpace(raw)
	return len(b) > 0 && b[0] == '{'
}

// Depth returns the deepest nesting of arrays and objects in raw (strings
// skipped; raw need not be valid).
func Depth(raw []byte) int {
	depth, deepest, inString, escaped := 0, 0, false, false
	for _, c := range raw {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '[' || c == '{':
			depth++
			deepest = max(deepest, depth)
		case c == ']' || c == '}':
			depth--
		}
	}
	return deepest
}

// answerCodes are the JSON-RPC error codes that answer a fault (JSON-RPC
// 2.0, https://www.jsonrpc.org/specification#error_object): -32700 for
// input that is not JSON (or not UTF-8, which MCP messages are), -32600
// for JSON that is not a valid request, and -32602 as well for params that
// are not an object. A message nested past ParserDepthFloor may get any
// answer (the specification sets no depth), and so may each line of a
// message split over lines on stdio (the lines of a message the client
// framed wrongly; STD-004 judges what the message itself got): they have
// no entry.
var answerCodes = map[Fault][]int64{
	FaultUnparseable:     {jsonrpc.CodeParseError},
	FaultInvalidUTF8:     {jsonrpc.CodeParseError},
	FaultNotObject:       {jsonrpc.CodeInvalidRequest},
	FaultBatch:           {jsonrpc.CodeInvalidRequest},
	FaultInvalidEnvelope: {jsonrpc.CodeInvalidRequest},
	FaultWrongVersion:    {jsonrpc.CodeInvalidRequest},
	FaultInvalidID:       {jsonrpc.CodeInvalidRequest},
	FaultParamsNotObject: {jsonrpc.CodeInvalidRequest, jsonrpc.CodeInvalidParams},
}

// AnswerCodes returns the error codes that answer a message with fault f
// (nil: any answer will do).
func AnswerCodes(f Fault) []int64 { return answerCodes[f] }

// Requirement returns the requirement whose rules answer fault f: RPC-005
// for input that cannot be parsed, RPC-006 for JSON that is not a valid
// request, RPC-008 for a batch, STD-004 for a message split over lines.
func Requirement(f Fault) string {
	switch f {
	case FaultUnparseable, FaultInvalidUTF8, FaultTooDeep:
		return "RPC-005"
	case FaultBatch:
		return "RPC-008"
	case FaultEmbeddedNewline:
		return "STD-004"
	}
	return "RPC-006"
}

// Reply is what came back for a message with a fault: the JSON-RPC
// message that answers it (nil: none) and, on Streamable HTTP, the status
// of the exchange that carried it (0: stdio, or no HTTP response).
type Reply struct {
	Msg    *jsonrpc.Message
	Status int
}

// Deviation is one rule an answer breaks, and why.
type Deviation struct {
	Rule Rule
	// Kind names the deviation: "executed", "other-id" (executed and
	// answered with another id), "wrong-code", "unanswered", "null-id".
	Kind string
	Why  string
}

// FaultAnswer judges reply, the answer to a message with fault f whose id
// was sentID (its JSON text without white space; "" when it has none or it
// could not be read), the server having answered a request sent after it
// (silence is then its answer to f). It returns the rules the answer
// breaks (none: a fair answer). An error with "id": null is tolerated
// (TOL-14: plain JSON-RPC for an id that could not be read, but not valid
// for the MCP schema) with a WARN.
func FaultAnswer(f Fault, sentID string, reply Reply) []Deviation {
	resp := reply.Msg
	if f == FaultNone {
		return nil
	}
	if resp == nil {
		if reply.Status >= 400 && reply.Status < 500 {
			return nil // Streamable HTTP: rejected at the HTTP layer, whose body MAY carry the error
		}
		if f == FaultEmbeddedNewline {
			return nil // judged by STD-004's own probe (what each line got)
		}
		if f == FaultTooDeep && sentID == "" {
			return nil // a notification nested deep: nothing to answer
		}
		return []Deviation{{Silence(f), "unanswered", fmt.Sprintf("a message with %s got no answer although the server answered the request sent after it; %s would tell the client", words(f), codesText(f))}}
	}
	if resp.HasResult {
		if f == FaultInvalidID && sentID != "" && RawID(resp) != sentID {
			return []Deviation{{ExecutedInvalidID, "other-id", fmt.Sprintf("a request with an invalid id (%s) was executed and answered with id %s; a response carries the id of the request it answers", sentID, RawID(resp))}}
		}
		r, why := Executed(f)
		if why == "" {
			return nil
		}
		return []Deviation{{r, "executed", fmt.Sprintf("a message with %s was %s", words(f), why)}}
	}
	var out []Deviation
	if code, ok := resp.ErrorCode(); ok && answerCodes[f] != nil && !slices.Contains(answerCodes[f], code) {
		out = append(out, Deviation{WrongCode(f), "wrong-code", fmt.Sprintf("a message with %s got error %d; %s answers it", words(f), code, codesText(f))})
	}
	if resp.HasID && resp.ID.IsNull() {
		out = append(out, Deviation{NullID(f), "null-id", fmt.Sprintf(`the error answering a message with %s carries "id": null; the MCP schema wants the id omitted (plain JSON-RPC, tolerated: TOL-14)`, words(f))})
	}
	return out
}

func words(f Fault) string {
	switch f {
	case FaultUnparseable:
		return "unparseable JSON"
	case FaultInvalidUTF8:
		return "invalid UTF-8"
	case FaultTooDeep:
		return "nesting past common parsers' limits"
	case FaultNotObject:
		return "JSON that is not an object"
	case FaultBatch:
		return "a JSON array (a batch)"
	case FaultInvalidEnvelope:
		return "an invalid JSON-RPC envelope"
	case FaultWrongVersion:
		return `a "jsonrpc" member other than "2.0"`
	case FaultInvalidID:
		return "an invalid id"
	case FaultParamsNotObject:
		return "params that are not an object"
	case FaultEmbeddedNewline:
		return "a raw newline inside it"
	}
	return string(f)
}

func codesText(f Fault) string {
	cs := answerCodes[f]
	if len(cs) == 0 {
		return "an error (or a result)"
	}
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = fmt.Sprint(c)
	}
	return "error " + strings.Join(parts, " or ")
}

// SentID returns the id of raw, a message a client sent, as sent without
// white space ("" when it has none or raw is not a JSON object).
func SentID(raw []byte) string {
	m, err := jsonrpc.Decode(raw)
	if err != nil || !m.HasID {
		return ""
	}
	return RawID(m)
}

// RawID returns m's id as sent, without white space ("absent" when it has
// none).
func RawID(m *jsonrpc.Message) string {
	if !m.HasID {
		return "absent"
	}
	if raw, ok := m.Members["id"]; ok {
		return strings.Join(strings.Fields(string(raw)), "")
	}
	return m.ID.String()
}

// WrongCode is the rule an error with another code than AnswerCodes(f)
// breaks: the JSON-RPC error code is a SHOULD (RPC-005's, RPC-006's
// sub-case); a batch rejected with another code than -32600 is tolerated
// (TOL-18: no revision after 2025-03-26 says how to reject one).
func WrongCode(f Fault) Rule {
	switch Requirement(f) {
	case "RPC-005":
		return ParseErrorCode
	case "RPC-008":
		return Rule{Requirement: "RPC-008", Level: catalog.SHOULD, Tolerance: "TOL-18"}
	case "STD-004":
		return Rule{Requirement: "STD-004", Level: catalog.SHOULD, Ref: "stdio framing binds the client"}
	}
	return InvalidRequestCode
}

// Silence is the rule a fault left unanswered (the server answering the
// request after it) breaks: JSON-RPC's SHOULD to tell the client.
func Silence(f Fault) Rule {
	switch Requirement(f) {
	case "RPC-005":
		return ParseErrorCode
	case "RPC-008":
		return Rule{Requirement: "RPC-008", Level: catalog.SHOULD, Tolerance: "TOL-18"}
	}
	return InvalidRequestCode
}

// NullID is the tolerance of an error answering fault f with "id": null.
func NullID(f Fault) Rule {
	return Rule{Requirement: Requirement(f), Level: catalog.SHOULD, Tolerance: "TOL-14"}
}

// Executed returns the rule that executing a message with fault f breaks
// and why ("" when executing it is no defect: a parser that goes deeper).
func Executed(f Fault) (Rule, string) {
	switch f {
	case FaultInvalidUTF8:
		return ExecutedInvalidUTF8, "executed instead of rejected (MCP messages are UTF-8; answering -32700 is the JSON-RPC SHOULD)"
	case FaultInvalidEnvelope, FaultWrongVersion, FaultNotObject, FaultInvalidID, FaultParamsNotObject:
		return ExecutedInvalidEnvelope, "executed instead of rejected with -32600 (JSON-RPC 2.0 calls it invalid; that rule binds the sender)"
	case FaultBatch:
		return Rule{Requirement: "RPC-008", Level: catalog.SHOULD, Ref: "no batches after 2025-03-26"}, "executed although the revision has no batches"
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
