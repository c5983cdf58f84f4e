package fuzz

import (
	"testing"

	"github.com/mcpconform/mcpconform/internal/catalog"
)

// Findings carry the requirement they break, its level and the verdict the
// suite would give; unconfirmed ones are WARN unless strict, except a
// crash (the connection ended), which is a fact.
func TestFindingsAreGradedLikeTheSuite(t *testing.T) {
	ping := []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	deep := []byte(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"x":` + nested(600) + `}}}`)
	for _, c := range []struct {
		prop, layer, code string
		msgs              [][]byte
		flaky, strict     bool
		req, level, verd  string
	}{
		{PropRaw, "fault", "executed-invalid-utf8", nil, false, false, "RPC-005", "SHOULD", "WARN"},
		{PropRaw, "fault", "executed-wrong-jsonrpc-version", nil, false, false, "RPC-006", "SHOULD", "WARN"},
		{PropIDs, "correlation", "unknown-id", [][]byte{ping}, false, false, "RPC-002", "MUST", "FAIL"},
		{PropIDs, "correlation", "unknown-id", [][]byte{ping}, true, false, "RPC-002", "MUST", "WARN"},
		{PropIDs, "correlation", "unknown-id", [][]byte{ping}, true, true, "RPC-002", "MUST", "FAIL"},
		// a server lost is RPC-014 whatever the input (judge.Liveness)
		{PropRaw, "transport", "crash", [][]byte{deep}, true, false, "RPC-014", "MUST", "FAIL"},
		{PropRaw, "liveness", "no-answer", [][]byte{deep}, true, false, "RPC-014", "MUST", "WARN"},
		{PropTools, "transport", "crash", [][]byte{ping}, false, false, "RPC-014", "MUST", "FAIL"},
		// a request left unanswered is RPC-002 whatever its method
		{PropTools, "response", "no-response", [][]byte{ping}, false, false, "RPC-002", "MUST", "FAIL"},
		{PropPrompts, "response", "no-response", [][]byte{ping}, false, false, "RPC-002", "MUST", "FAIL"},
		{PropResources, "response", "no-response", [][]byte{ping}, false, false, "RPC-002", "MUST", "FAIL"},
		{PropTools, "tools", "executed-invalid-arguments", nil, false, false, "TOOL-012", "SHOULD", "WARN"},
		{PropIDs, "message", "invalid-tools/list", nil, false, false, "RPC-013", "MUST", "FAIL"},
		{PropIDs, "params", "executed-unknown-method", nil, false, false, "RPC-007", "MUST", "FAIL"},
		{PropIDs, "params", "wrong-error-prompts/get", nil, false, false, "PRM-003", "SHOULD", "WARN"},
	} {
		f := Finding{Property: c.prop, Layer: c.layer, Code: c.code, Revision: string(catalog.Modern), Flaky: c.flaky,
			rule: ruleFor(c.prop, "stdio", "server/discover", problem{c.layer, c.code, ""}, c.msgs, nil)}
		f.grade(c.strict)
		if f.Requirement != c.req || f.Level != c.level || f.Verdict != c.verd || f.Unconfirmed != c.flaky {
			t.Errorf("%s (flaky %v, strict %v): %s %s %s, want %s %s %s", f.Signature(), c.flaky, c.strict, f.Requirement, f.Level, f.Verdict, c.req, c.level, c.verd)
		}
	}
	// the unknown method's code, as the suite's RPC-007 grades it
	// (judge.UnknownMethodCode): a SHOULD before 2026-07-28
	for rev, want := range map[catalog.Revision]string{catalog.R20251125: "WARN", catalog.Modern: "FAIL"} {
		f := Finding{Property: PropIDs, Layer: "params", Code: "wrong-error-unknown-method", Revision: string(rev),
			rule: ruleFor(PropIDs, "stdio", "ping", problem{"params", "wrong-error-unknown-method", ""}, nil, nil)}
		f.grade(false)
		if f.Requirement != "RPC-007" || f.Verdict != want {
			t.Errorf("wrong-error-unknown-method in %s: %s %s, want RPC-007 %s", rev, f.Requirement, f.Verdict, want)
		}
	}
}

func nested(n int) string {
	s := ""
	for range n {
		s += "["
	}
	for range n {
		s += "]"
	}
	return s
}

// A finding reproduced in any of its re-runs is confirmed and graded by
// its requirement's level, with its rate in the note; one reproduced in
// none stays unconfirmed (WARN unless strict; a crash stays FAIL).
func TestRateDecidesConfirmation(t *testing.T) {
	ping := [][]byte{[]byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`), []byte(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)}
	for _, c := range []struct {
		code               string
		flaky              bool
		reruns, reproduced int
		strict             bool
		verdict, note      string
		unconfirmed        bool
	}{
		{"no-response", true, 5, 3, false, "FAIL", "reproduced in 3 of 5 re-runs", false},
		{"no-response", true, 5, 1, false, "FAIL", "reproduced in 1 of 5 re-runs", false},
		{"no-response", true, 5, 0, false, "WARN", "unconfirmed: the defect did not show again when the case was re-run (a timing-dependent defect, or none); FAIL with --strict; reproduced in 0 of 5 re-runs", true},
		{"no-response", true, 5, 0, true, "FAIL", "reproduced in 0 of 5 re-runs", true},
		{"no-response", false, 5, 5, false, "FAIL", "reproduced in 5 of 5 re-runs", false},
		{"no-response", false, 1, 1, false, "FAIL", "reproduced in 1 of 1 re-run", false},
		{"no-response", false, 0, 0, false, "FAIL", "", false}, // not re-run (Go's engine)
	} {
		f := Finding{Property: PropIDs, Layer: "response", Code: c.code, Revision: string(catalog.Modern), Flaky: c.flaky,
			Reruns: c.reruns, Reproduced: c.reproduced, rule: ruleFor(PropIDs, "stdio", "server/discover", problem{"response", c.code, ""}, ping, nil)}
		f.grade(c.strict)
		if f.Requirement != "RPC-002" || f.Verdict != c.verdict || f.Note != c.note || f.Unconfirmed != c.unconfirmed {
			t.Errorf("%+v: %s %s %q unconfirmed %v, want RPC-002 %s %q unconfirmed %v", c, f.Requirement, f.Verdict, f.Note, f.Unconfirmed, c.verdict, c.note, c.unconfirmed)
		}
	}
	crash := Finding{Property: PropRaw, Layer: "transport", Code: "crash", Revision: string(catalog.Modern), Flaky: true, Reruns: 5,
		rule: ruleFor(PropRaw, "stdio", "server/discover", problem{"transport", "crash", ""}, ping, nil)}
	if crash.grade(false); crash.Verdict != "FAIL" || !crash.Unconfirmed {
		t.Errorf("a crash reproduced in none of its re-runs: %s, unconfirmed %v; want FAIL, unconfirmed", crash.Verdict, crash.Unconfirmed)
	}
}
