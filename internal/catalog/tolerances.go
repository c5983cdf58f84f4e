package catalog

import (
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Tolerance is a question the specification leaves open, and how
// mcpconform grades each reading of it: an entry of the catalog beside the
// requirements, with an id ("TOL-13") that the verdicts invoking it cite.
// Ids are never reused; gaps in the numbering are questions that needed no
// tolerance.
type Tolerance struct {
	ID    string
	Title string
	// Question says what the specification leaves open.
	Question string
	// Readings are the answers a server may give, and the verdict each gets.
	Readings []Reading
	// Requirements are the ids of the checks that apply the tolerance.
	Requirements []string
	// Revisions the question arises in.
	Revisions []Revision
	// Source is where the conflicting sentences stand, in the catalog's
	// source notation (Links turns it into URLs).
	Source string
}

// Reading is one answer a server gives to an open question.
type Reading struct {
	Reading string
	Verdict string // PASS, WARN, a note (no effect on the verdict), FAIL
}

// Links returns the https URLs of the sentences that leave the question
// open, as they read in the newest revision it arises in.
func (t Tolerance) Links() []string {
	return Requirement{ID: t.ID, Source: t.Source, Revisions: t.Revisions}.Links("")
}

var tolerances = []Tolerance{
	{
		ID:       "TOL-1",
		Title:    "Which of several faults a request has is reported first",
		Question: `A request can carry several faults at once (a foreign Origin, missing authorization, a header that disagrees with the body, an unsupported version, missing _meta, an unknown method). The specification does not order the validations, so it does not say which error wins.`,
		Readings: []Reading{
			{"the error for the fault the check injected", "PASS"},
			{"the error for another fault the same request also has (for instance -32020 for a header/body mismatch where the check probes -32602, or -32022 where the header/body mismatch should win)", "WARN, or a note where the check cannot inject its fault alone"},
		},
		Requirements: []string{"HTTP-012", "HTTP-018", "TOOL-011", "LIFE-008"},
		Revisions:    revs(R20260728),
		Source:       `26:basic/transports/streamable-http.mdx "Server Validation", "Protocol Version Header"`,
	},
	{
		ID:       "TOL-2",
		Title:    "An unsupported version at initialize: counter-offer or error",
		Question: `The lifecycle text says the server answers an initialize naming a version it does not support with another version it supports (a result); the page's own example shows a -32602 error with data.supported and data.requested instead.`,
		Readings: []Reading{
			{"a result offering a version the server supports", "PASS"},
			{"a -32602 error whose data lists the supported versions", "WARN"},
			{"anything else (an echo of the unsupported version, another error)", "FAIL"},
		},
		Requirements: []string{"LIFE-002"},
		Revisions:    LegacyRevisions,
		Source:       `<rev>:basic/lifecycle.mdx "Version Negotiation"`,
	},
	{
		ID:       "TOL-3",
		Title:    "Invalid tool arguments: isError result or -32602",
		Question: `From 2025-11-25 the tools page says argument validation errors are tool execution errors (a result with isError: true, SEP-1303); the 2026-07-28 schema's InvalidParamsError and its example for invalid tool arguments show a -32602 protocol error.`,
		Readings: []Reading{
			{"a result with isError: true that says what is wrong", "PASS"},
			{"a JSON-RPC error -32602", "WARN"},
			{"a successful result (the tool ran on the invalid input)", "FAIL"},
		},
		Requirements: []string{"TOOL-012", "STALE-005"},
		Revisions:    from(R20251125),
		Source:       `<rev>:server/tools.mdx "Error Handling"; seps/1303-input-validation-errors-as-tool-execution-errors.md; schema InvalidParamsError`,
	},
	{
		ID:       "TOL-4",
		Title:    "How a server ends a subscriptions/listen stream",
		Question: `The subscriptions page says the server should send a final result carrying the subscription id and then close; the cancellation page says it must send notifications/cancelled for the listen request; on HTTP, closing the stream ends it too.`,
		Readings: []Reading{
			{"a final result with the subscription id in _meta", "PASS"},
			{"notifications/cancelled naming the listen request (stdio)", "PASS"},
			{"the listen stream closed without a final result (HTTP)", "PASS, with a note"},
		},
		Requirements: []string{"SUB-006"},
		Revisions:    revs(R20260728),
		Source:       `26:basic/patterns/subscriptions.mdx "Graceful Closure"; 26:basic/patterns/cancellation.mdx`,
	},
	{
		ID:       "TOL-5",
		Title:    "A response that crosses a cancellation",
		Question: `The transport pages say that after a cancellation the server must not send further messages for the request; the cancellation pattern says it should not send a response, and allows that a response may already be on its way (a race).`,
		Readings: []Reading{
			{"nothing more for the cancelled request", "PASS"},
			{"a response or progress within 200 ms of the cancellation, or before the server answered a later request (it had not read the cancellation yet)", "PASS (a race)"},
			{"a response or progress after that", "FAIL"},
		},
		Requirements: []string{"CAN-003"},
		Revisions:    revs(R20260728),
		Source:       `26:basic/transports/stdio.mdx "Cancellation"; 26:basic/patterns/cancellation.mdx`,
	},
	{
		ID:       "TOL-6",
		Title:    "A task-required tool called without a task (2025-11-25)",
		Question: `The tasks page says a call without task augmentation to a tool whose taskSupport is "required" must get -32601, and also that receivers may answer -32600.`,
		Readings: []Reading{
			{"error -32601", "PASS"},
			{"error -32600", "WARN"},
		},
		Requirements: []string{"TASK-002"},
		Revisions:    revs(R20251125),
		Source:       `25c:basic/utilities/tasks.mdx "Tool-Level Negotiation", "Protocol Errors"`,
	},
	{
		ID:       "TOL-7",
		Title:    "The resultType of tasks/get in the tasks extension",
		Question: `The tasks extension's normative text says a tasks/get result has resultType "complete"; its own error-handling examples show resultType "task".`,
		Readings: []Reading{
			{`resultType "complete"`, "PASS"},
			{`resultType "task"`, "WARN"},
		},
		Requirements: []string{"TASK-008"},
		Revisions:    revs(R20260728),
		Source:       `ext-tasks:specification/draft/tasks.md "Task Polling", "Protocol Errors"`,
	},

	{
		ID:       "TOL-13",
		Title:    "An invalid cursor served as the first page",
		Question: `The pagination page asks for -32602 on an invalid cursor only as a SHOULD; some servers ignore a cursor they do not know and serve the first page.`,
		Readings: []Reading{
			{"error -32602", "PASS"},
			{"the first page, as if no cursor had been sent", "WARN"},
		},
		Requirements: []string{"PAG-002"},
		Revisions:    AllRevisions,
		Source:       `<rev>:server/utilities/pagination.mdx "Error Handling"`,
	},
	{
		ID:       "TOL-14",
		Title:    `An error response with "id": null`,
		Question: `JSON-RPC 2.0 answers a message whose id cannot be read (a parse error, an invalid request) with "id": null; the MCP schema has no null id and wants the member omitted.`,
		Readings: []Reading{
			{"the id omitted", "PASS"},
			{`"id": null on the error to input whose id could not be read`, "WARN"},
			{`"id": null on the error to a request whose id the server could read`, "FAIL (RPC-002)"},
			{`an error addressed to no request (id null or omitted) after a notification the server could not process (a malformed cancellation): answered like unreadable input, although a notification gets no response`, "WARN on stdio; over HTTP the reply's status is HTTP-004's"},
		},
		Requirements: []string{"RPC-005", "RPC-006", "RPC-002", "RPC-004", "CAN-002"},
		Revisions:    AllRevisions,
		Source:       `JSON-RPC 2.0 "Response object"; schema JSONRPCErrorResponse`,
	},
	{
		ID:       "TOL-16",
		Title:    "A foreign Host header on a localhost server",
		Question: `The specification's normative rule against DNS rebinding is about the Origin header; rejecting a foreign Host header on a server bound to localhost is the security best practice, not a MUST sentence.`,
		Readings: []Reading{
			{"a foreign Host rejected (4xx)", "PASS"},
			{"a foreign Host served", "WARN (HTTP-002 is a SHOULD)"},
		},
		Requirements: []string{"HTTP-002", "HTTP-001"},
		Revisions:    from(R20250326),
		Source:       `docs/docs/<rev>/tutorials/security/security_best_practices.mdx; <rev>:basic/transports.mdx "Security Warning"`,
	},
	{
		ID:       "TOL-17",
		Title:    "The era of a request that names no protocol version",
		Question: `2026-07-28 requests carry the protocol version in _meta; a request without it is malformed there, but a server that speaks both eras may read it as legacy traffic (legacy requests name no version after initialize).`,
		Readings: []Reading{
			{"a 2026-07-28-only server rejects it (-32602, or -32020 over HTTP)", "PASS"},
			{"a server that speaks both eras answers it as legacy traffic", "PASS, with a note; such answers are not judged by era"},
		},
		Requirements: []string{"LIFE-008"},
		Revisions:    revs(R20260728),
		Source:       `26:basic/index.mdx "Statelessness"; 26:basic/versioning.mdx "Backward Compatibility with Initialization-Based Versions"`,
	},
	{
		ID:       "TOL-18",
		Title:    "How a batch is rejected after 2025-03-26",
		Question: `2025-06-18 removed JSON-RPC batching, but no sentence says how a server rejects a batch: one error for the array, an error per element, or an HTTP 4xx.`,
		Readings: []Reading{
			{"an HTTP 4xx, one -32600 error for the array, or one error per element", "PASS"},
			{"one error for the array with another code than -32600", "WARN"},
			{"an element executed with a success status", "WARN (RPC-008 is a SHOULD from 2025-06-18)"},
		},
		Requirements: []string{"RPC-008"},
		Revisions:    from(R20250618),
		Source:       `25b:changelog.mdx; JSON-RPC 2.0 "Batch"`,
	},
	{
		ID:       "TOL-19",
		Title:    "A CRLF line ending on stdio",
		Question: `The stdio transport delimits messages by newlines and says nothing of a carriage return before the newline; the line without its newline is still a valid JSON text (JSON allows trailing whitespace), and clients on some platforms write CRLF.`,
		Readings: []Reading{
			{"the request served", "PASS"},
			{"the line rejected (a parse error), left unanswered, or the process ended", "WARN"},
		},
		Requirements: []string{"STD-004"},
		Revisions:    AllRevisions,
		Source:       `<rev>:basic/transports.mdx`,
	},
	{
		ID:       "TOL-20",
		Title:    "A request without MCP-Protocol-Version to a server that also speaks older revisions",
		Question: `A server that supports clients older than 2025-06-18 MAY treat a POST without MCP-Protocol-Version as 2025-03-26; only a server that does not MUST reject it (400, -32020). The sentence leaves open what such a server does with a 2026-07-28 request whose header is missing.`,
		Readings: []Reading{
			{"400 with -32020", "PASS"},
			{"treated as a 2025-03-26 request (an error a legacy session gives, e.g. -32601 for server/discover)", "PASS, with a note"},
			{"served with the version its _meta names, or another answer", "WARN"},
		},
		Requirements: []string{"HTTP-011"},
		Revisions:    revs(R20260728),
		Source:       `26:basic/transports/streamable-http.mdx "Protocol Version Header"`,
	},
	{
		ID:       "TOL-21",
		Title:    "An error or a stall from the server's own backend",
		Question: `A server that fronts a database, a cluster or a cloud API answers -32603, or an isError tool result, when that backend is unreachable or refuses the server's credentials, and a tool that waits on the network stalls while the server keeps answering. The specification makes a well-formed JSON-RPC error a conforming answer (resources, tools and completion list -32603 among the errors a server returns) and sets no time limit on a tool's work; a CI job often runs the server without its backend.`,
		Readings: []Reading{
			{"a well-formed error or isError result naming the backend's failure (ECONNREFUSED, getaddrinfo, fetch failed, a timeout, 401/403 or unauthorized from upstream, an invalid API key)", "NA with the reason, or a note beside the verdict of what could be judged; WARN under --strict"},
			{"a tools/call that stalls on its ordinary arguments too while the server answers its other requests (a slow tool)", "a note; WARN under --strict"},
			{"a tools/call that stalls on hostile input while the same tool answers its ordinary arguments", "FAIL (TOOL-014)"},
		},
		Requirements: []string{"RES-001", "RES-002", "RES-003", "RES-004", "CMP-001", "PRM-001", "TOOL-001", "TOOL-012", "TOOL-014", "LIFE-013"},
		Revisions:    AllRevisions,
		Source:       `<rev>:server/resources.mdx "Error Handling"; <rev>:server/tools.mdx "Error Handling"`,
	},
	{
		ID:       "TOL-22",
		Title:    "A ping before initialize",
		Question: `The lifecycle says the initialization phase MUST be the first interaction between client and server, and also that the client SHOULD NOT send requests other than pings before the server has answered initialize; the ping page has the receiver answer every ping. A ping sent as the very first message breaks the first sentence, so what a server does with it is not fixed.`,
		Readings: []Reading{
			{"an empty result", "PASS"},
			{"a JSON-RPC error (the server wants initialize first)", "PASS, with a note"},
			{"no answer, or the server process ends", "WARN; the pings the lifecycle allows (after initialize) are judged on another process"},
		},
		Requirements: []string{"LIFE-016"},
		Revisions:    LegacyRevisions,
		Source:       `<rev>:basic/lifecycle.mdx "Initialization"; <rev>:basic/utilities/ping.mdx`,
	},
}

var tolByID = map[string]*Tolerance{}

func init() {
	for i := range tolerances {
		t := &tolerances[i]
		if _, dup := tolByID[t.ID]; dup {
			panic("catalog: duplicate tolerance id " + t.ID)
		}
		for _, id := range t.Requirements {
			if _, ok := byID[id]; !ok {
				panic("catalog: tolerance " + t.ID + " names unknown requirement " + id)
			}
		}
		tolByID[t.ID] = t
	}
}

// Tolerances returns every tolerance, in id order.
func Tolerances() []Tolerance {
	out := make([]Tolerance, len(tolerances))
	copy(out, tolerances)
	sort.SliceStable(out, func(i, j int) bool { return tolNum(out[i].ID) < tolNum(out[j].ID) })
	return out
}

// GetTolerance returns the tolerance with the given id.
func GetTolerance(id string) (Tolerance, bool) {
	t, ok := tolByID[id]
	if !ok {
		return Tolerance{}, false
	}
	return *t, true
}

func tolNum(id string) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(id, "TOL-"))
	return n
}

var tolRef = regexp.MustCompile(`\bTOL-\d+\b`)

// TolerancesIn returns the tolerances a text (a verdict's message or
// note) cites, in order of first mention.
func TolerancesIn(texts ...string) []Tolerance {
	var out []Tolerance
	seen := map[string]bool{}
	for _, s := range texts {
		for _, id := range tolRef.FindAllString(s, -1) {
			if t, ok := tolByID[id]; ok && !seen[id] {
				seen[id] = true
				out = append(out, *t)
			}
		}
	}
	return out
}
