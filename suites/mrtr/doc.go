// Package mrtr holds the multi round-trip request checks (MRTR-xxx).
//
// The targets are found once per revision and transport
// (c.MRTRTargets, internal/conform/mrtr.go; the lifecycle checks LIFE-011
// and LIFE-012 use them too): every listed prompt
// (prompts/get with its required arguments), resource (resources/read) and
// tool the call policy allows (tools/call with ArgsFor's arguments) is asked
// once by a client declaring elicitation (form and URL), sampling (tools,
// context) and roots; those answered input_required are the targets. The
// retry driver is session.RoundTrip (internal/session/mrtr.go): scripted
// answers, a new id per round, the original params, the requestState token
// echoed byte for byte, a cap on rounds.
//
// Negative checks (MRTR-006…010) first need the baseline: the flow must
// complete with correct answers (else MRTR-005 judges it and the target is
// skipped with a note); tampering and replay are judged only on flows that
// do not also complete without their requestState. MRTR-006 runs a rapid
// property over mutations of a real requestState (state.go) and quotes the
// shrunk mutation.
//
// Without targets the checks are NA with a reason telling the user how to
// name an MRTR tool: allow it (--call-tools all, or call_tools in --config)
// and give its arguments under sample_arguments.
package mrtr
