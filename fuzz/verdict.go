package fuzz

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/mcpconform/mcpconform/internal/catalog"
	"github.com/mcpconform/mcpconform/internal/jsonrpc"
	"github.com/mcpconform/mcpconform/internal/judge"
	"github.com/mcpconform/mcpconform/internal/wire"
)

// A finding is judged like the suite judges a check (internal/judge): the
// catalog requirement it breaks, that requirement's level in the revision
// (or its sub-case's), and the verdict: FAIL for a MUST, a crash or a
// hang; WARN for a SHOULD, and for a defect that never showed again
// (unconfirmed) unless the campaign is strict.

// caseFaults is what is wrong with the messages of a case.
type caseFaults struct {
	parse    bool // unparseable, invalid UTF-8, or nested past judge.ParserDepthFloor
	envelope bool // a JSON object that is not a JSON-RPC 2.0 request or notification
	badID    bool // a request whose id is null, fractional or structured
	newline  bool // stdio: a raw newline inside a message
}

func classifyCase(msgs [][]byte, stdio bool) caseFaults {
	var c caseFaults
	for _, raw := range msgs {
		if stdio && bytes.ContainsAny(raw, "\r\n") {
			c.newline = true
			continue
		}
		m, err := jsonrpc.Decode(raw)
		switch {
		case err != nil || !utf8.Valid(raw) || jsonDepth(raw) > judge.ParserDepthFloor:
			c.parse = true
		case m.JSONRPC != "2.0" || !m.MethodIsString && m.Kind() != jsonrpc.KindResponse:
			c.envelope = true
		case m.Kind() == jsonrpc.KindRequest && !m.ID.Valid():
			c.envelope, c.badID = true, true
		}
	}
	return c
}

// crashRule is the requirement a crash or hang on the case breaks: the
// robustness rule of its most hostile input, else of what the property
// sends.
func crashRule(prop string, c caseFaults) judge.Rule {
	req := ""
	switch {
	case c.parse:
		req = "RPC-005"
	case c.envelope:
		req = "RPC-006"
	case c.newline:
		req = "STD-004"
	case prop == PropTools:
		req = "TOOL-014"
	case prop == PropPrompts:
		req = "PRM-004"
	case prop == PropResources:
		req = "RES-008"
	case prop == PropMRTR:
		req = "MRTR-006"
	default:
		req = "RPC-002" // every request gets its response
	}
	return judge.Rule{Requirement: req, Crash: true}
}

// listRequirement is the requirement that a method the server declared
// (the liveness probe, a list) is served.
func listRequirement(method string) string {
	switch method {
	case "tools/list":
		return "TOOL-001"
	case "resources/list":
		return "RES-001"
	case "resources/templates/list":
		return "RES-002"
	case "prompts/list":
		return "PRM-001"
	case "server/discover":
		return "LIFE-006"
	}
	return "LIFE-016" // ping
}

// ruleFor maps a problem of a case to the rule it breaks.
func ruleFor(prop, transport, probe string, p problem, msgs [][]byte, steps []Step) judge.Rule {
	all := msgs
	for _, st := range steps {
		for _, m := range st.Messages {
			b, _ := m.Bytes()
			all = append(all, b)
		}
	}
	c := classifyCase(all, transport == wire.Stdio)
	switch p.Layer + "/" + p.Code {
	case "transport/crash", "transport/reopen-failed", "transport/connect-failed", "liveness/no-answer",
		"response/no-response", "lifecycle/initialize-unanswered":
		return crashRule(prop, c)
	case "liveness/error":
		return judge.Rule{Requirement: listRequirement(probe)}
	case "framing/not-json":
		if transport == wire.Stdio {
			return judge.Rule{Requirement: "STD-001"}
		}
		return judge.Rule{Requirement: "RPC-001"}
	case "correlation/result-without-id":
		if c.badID {
			return judge.ExecutedInvalidID
		}
		return judge.IDMismatch
	case "fault/wrong-error-code":
		if c.envelope && !c.parse {
			return judge.InvalidRequestCode
		}
		return judge.ParseErrorCode
	case "lifecycle/initialize-refused":
		return judge.Rule{Requirement: "LIFE-001"}
	case "model/not-served":
		method, _, _ := strings.Cut(p.Detail, " ")
		return judge.Rule{Requirement: listRequirement(method)}
	case "model/cursor-refused":
		return judge.Rule{Requirement: "PAG-004"}
	case "model/retry-refused":
		return judge.Rule{Requirement: "MRTR-005"}
	case "model/unannounced-change":
		return judge.Rule{Requirement: "STALE-002"}
	case "http/ended-session-served":
		return judge.Rule{Requirement: "HTTP-008"}
	case "http/delete-failed", "http/reuse-failed":
		return judge.Rule{Requirement: "HTTP-008", Crash: true}
	case "harness/bad-step", "harness/trigger-failed":
		return judge.Rule{Harness: true}
	}
	switch {
	case p.Layer == "correlation":
		return judge.IDMismatch
	case p.Layer == "fault" && strings.HasPrefix(p.Code, "executed-"):
		r, _ := judge.Executed(judge.Fault(strings.TrimPrefix(p.Code, "executed-")))
		return r
	case p.Layer == "message":
		return judge.SchemaInvalid
	case p.Layer == "params":
		return refusalRule(p.Code)
	case p.Layer == "tools":
		return judge.ExecutedInvalidArguments // TOOL-012, both codes
	}
	return judge.Rule{Harness: true} // a problem no rule names yet: the harness's
}

// grade sets f's requirement, level and verdict. A crash (the connection
// ended) is a fact and stays FAIL unconfirmed; any other defect that never
// showed again is WARN unless strict.
func (f *Finding) grade(strict bool) {
	unconfirmed := f.Flaky && f.Layer+"/"+f.Code != "transport/crash"
	j := f.rule.Judge(catalog.Revision(f.Revision), unconfirmed, strict)
	f.Requirement, f.Level, f.Verdict, f.Note = j.Requirement, string(j.Level), string(j.Verdict), j.Note
	f.Unconfirmed = f.Flaky
}

// Exercised lists the requirements whose rules the cases of property prop
// put to the test (the reports give each a result: PASS when no finding
// names it).
func Exercised(prop string) []string {
	switch prop {
	case PropIDs:
		return []string{"RPC-002", "RPC-004", "RPC-007", "RPC-013", "PRM-003", "RES-004", "CMP-002", "LOG-002"}
	case PropRaw:
		return []string{"RPC-005", "RPC-006", "STD-004"}
	case PropTools:
		return []string{"TOOL-012", "TOOL-014", "RPC-013"}
	case PropPrompts:
		return []string{"PRM-004", "RPC-013"}
	case PropResources:
		return []string{"RES-008", "RPC-013"}
	case PropMRTR:
		return []string{"MRTR-006", "RPC-013"}
	case PropSeq:
		return []string{"LIFE-001", "LIFE-016", "PAG-004", "HTTP-008"}
	}
	return nil
}
