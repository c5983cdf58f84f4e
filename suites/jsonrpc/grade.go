package jsonrpc

import (
	"slices"

	"github.com/mcpconform/mcpconform/internal/catalog"
	"github.com/mcpconform/mcpconform/internal/judge"
	"github.com/mcpconform/mcpconform/internal/wire"
)

// GradedAnswer is one deviation RPC-005 or RPC-006 found in the answer to
// a malformed message, graded.
type GradedAnswer struct {
	judge.Judgement
	Why string
}

// GradeFaultAnswer is how RPC-005 and RPC-006 grade reply, what came back
// for payload (a message the check sent as is) on transport in revision
// rev, the server having answered the barrier request sent after it: the
// fault is judge.Classify's, the rules judge.FaultAnswer's, the verdicts
// Rule.Judge's — the fuzzer's oracle grades the same input through the
// same functions. FAILs come first.
func GradeFaultAnswer(payload []byte, reply judge.Reply, rev catalog.Revision, transport string) []GradedAnswer {
	f := judge.Classify(payload, transport == wire.Stdio)
	var out []GradedAnswer
	for _, d := range judge.FaultAnswer(f, judge.SentID(payload), reply) {
		out = append(out, GradedAnswer{d.Rule.Judge(rev, false, false), d.Why})
	}
	slices.SortStableFunc(out, func(a, b GradedAnswer) int { return failFirst(a.Verdict, b.Verdict) })
	return out
}

// replyOf is the judge's view of what came back: the JSON-RPC answer and
// the HTTP status of the exchange (0 on stdio, or when no HTTP response
// came).
func replyOf(got *received, reply *wire.Reply) judge.Reply {
	var r judge.Reply
	if got != nil {
		r.Msg = got.msg
	}
	if reply != nil {
		r.Status = reply.Status
	}
	return r
}

// failFirst orders graded answers with the FAILs first.
func failFirst(a, b judge.Verdict) int {
	switch {
	case a == b:
		return 0
	case a == judge.FAIL:
		return -1
	case b == judge.FAIL:
		return 1
	}
	return 0
}
