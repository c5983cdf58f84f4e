package observe

import (
	"github.com/mcpconform/mcpconform/internal/catalog"
	"github.com/mcpconform/mcpconform/internal/wire"
)

// Violation is the first offending exchange of one requirement in one
// revision ("" when the connection's revision was not known yet).
type Violation struct {
	Requirement string
	Revision    catalog.Revision
	Transport   string
	// Soft marks a violation of a SHOULD part of the requirement: graded at
	// most WARN whatever the requirement's level.
	Soft bool
	// Check names the check that provoked the message (Detection before the
	// first check).
	Check   string
	Message string
	// Frames are the offending frame and, before it, the request it answers.
	Frames []wire.Frame
	// Count is how many messages of the run broke the requirement this way.
	Count int
	// Offending are the Seq of the offending frames (the first
	// maxOffending of them): the verdict's evidence (result.Evidence), or,
	// for a rule about an HTTP reply's status and headers (headRules), the
	// evidence of those frames' head (result.HeadEvidence).
	Offending []int64
	Head      bool
	// Expected and Actual, when set, say what the requirement asks and
	// what the server did (else: the rule's generic text and the quote of
	// the offending frame).
	Expected, Actual string
}

// headRules judge an HTTP reply's status line and headers (a content type,
// a session id, an SSE event id, a buffering header, an authorization
// challenge), not the message its frame carries: their evidence is the
// frame's head, which another rule's verdict on the message does not share
// (result.Invariants).
var headRules = map[string]bool{
	"HTTP-003": true, "HTTP-007": true, "HTTP-009": true, "HTTP-019": true, "HTTP-020": true,
	"AUTH-003": true, "AUTH-004": true, "AUTH-009": true,
}
