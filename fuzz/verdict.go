package fuzz

import (
	"fmt"
	"strings"

	"github.com/mcpconform/mcpconform/internal/catalog"
	"github.com/mcpconform/mcpconform/internal/judge"
	"github.com/mcpconform/mcpconform/internal/wire"
)

// A finding is judged like the suite judges a check (internal/judge): the
// catalog requirement it breaks, that requirement's level in the revision
// (or its sub-case's), and the verdict: FAIL for a MUST, a crash or a
// hang; WARN for a SHOULD, and for a defect that never showed again
// (unconfirmed) unless the campaign is strict.

// hasFault reports whether one of msgs has fault f (judge.Classify).
func hasFault(msgs [][]byte, stdio bool, f judge.Fault) bool {
	for _, raw := range msgs {
		if judge.Classify(raw, stdio) == f {
			return true
		}
	}
	return false
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

// ruleFor maps a problem of a case to the rule it breaks: the one
// grader's (internal/judge). A server that dies or stops answering breaks
// RPC-014 (judge.Liveness), whatever the input; a request left unanswered
// while the server answers the probe after it breaks RPC-002
// (judge.MissingAnswer), whatever its method; what an answer says is the
// method's own requirement.
func ruleFor(prop, transport, probe string, p problem, msgs [][]byte, steps []Step) judge.Rule {
	if r, ok := faultRule(p.Code); ok && p.Layer == "fault" {
		return r
	}
	all := msgs
	for _, st := range steps {
		for _, m := range st.Messages {
			b, _ := m.Bytes()
			all = append(all, b)
		}
	}
	switch p.Layer + "/" + p.Code {
	case "transport/crash", "transport/reopen-failed", "transport/connect-failed", "liveness/no-answer",
		"lifecycle/initialize-unanswered":
		return judge.Liveness()
	case "response/no-response":
		return judge.MissingAnswer
	case "liveness/error":
		return judge.Rule{Requirement: listRequirement(probe)}
	case "framing/not-json":
		if transport == wire.Stdio {
			return judge.Rule{Requirement: "STD-001"}
		}
		return judge.Rule{Requirement: "RPC-001"}
	case "correlation/result-without-id":
		if hasFault(all, transport == wire.Stdio, judge.FaultInvalidID) {
			// a request with id null executed and answered with it: the
			// sender's rule broken, leniency (as RPC-006 grades it)
			return judge.ExecutedInvalidEnvelope
		}
		return judge.IDMismatch
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
	case p.Layer == "message":
		return judge.SchemaInvalid
	case p.Layer == "params":
		return refusalRule(p.Code)
	case p.Layer == "tools":
		return judge.ExecutedInvalidArguments // TOOL-012, both codes
	}
	return judge.Rule{Harness: true} // a problem no rule names yet: the harness's
}

// grade sets f's requirement, level and verdict, and the note says how
// often its re-runs reproduced it (Rate). A finding that showed again in
// any re-run is confirmed: a MUST broken is FAIL, however rarely it shows.
// A crash (the connection ended) is a fact and stays FAIL unconfirmed; any
// other defect that never showed again is WARN unless strict.
func (f *Finding) grade(strict bool) {
	f.Unconfirmed = f.Flaky && f.Reproduced == 0
	j := f.rule.Judge(catalog.Revision(f.Revision), f.Unconfirmed && f.Layer+"/"+f.Code != "transport/crash", strict)
	f.Requirement, f.Level, f.Verdict, f.Note = j.Requirement, string(j.Level), string(j.Verdict), j.Note
	if rate := f.Rate(); rate != "" {
		f.Note = strings.TrimPrefix(f.Note+"; "+rate, "; ")
	}
}

// Rate says how often the re-runs of f reproduced it ("reproduced in 3 of
// 5 re-runs"); "" when it was not re-run.
func (f Finding) Rate() string {
	switch f.Reruns {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf("reproduced in %d of 1 re-run", f.Reproduced)
	}
	return fmt.Sprintf("reproduced in %d of %d re-runs", f.Reproduced, f.Reruns)
}

// Exercised lists the requirements whose rules the cases of property prop
// put to the test (the reports give each a result: PASS when no finding
// names it).
func Exercised(prop string) []string {
	switch prop {
	case PropIDs:
		return []string{"RPC-002", "RPC-014", "RPC-004", "RPC-007", "RPC-013", "PRM-003", "RES-004", "CMP-002", "LOG-002"}
	case PropRaw:
		return []string{"RPC-005", "RPC-006", "RPC-008", "STD-004", "RPC-014"}
	case PropTools:
		return []string{"TOOL-012", "TOOL-014", "RPC-002", "RPC-013", "RPC-014"}
	case PropPrompts:
		return []string{"PRM-004", "RPC-002", "RPC-013", "RPC-014"}
	case PropResources:
		return []string{"RES-008", "RPC-002", "RPC-013", "RPC-014"}
	case PropMRTR:
		return []string{"MRTR-006", "RPC-002", "RPC-013", "RPC-014"}
	case PropSeq:
		return []string{"LIFE-001", "LIFE-016", "PAG-004", "HTTP-008", "RPC-002", "RPC-014"}
	}
	return nil
}
