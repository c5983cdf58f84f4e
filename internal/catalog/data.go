package catalog

// This file and data_features.go, data_transport.go (then data_client.go)
// are the requirement table, in catalog order. Titles and
// statements are our own words; SpecLevel is the level as the spec's
// sentences state it; Source names the pages and sections in a shorthand
// that Links turns into published URLs: "<rev>:basic/lifecycle.mdx
// "Version Negotiation"" is that page of each revision the requirement
// applies to, at that section; "26:", "25c:", "25b:", "25a:" and "24:"
// name one revision (2026-07-28 … 2024-11-05); "schema Name" a schema
// definition; "ext-tasks:" the tasks extension; "seps/N-…" a SEP.
//
// Grading conventions:
//   - Level is the level of the newest revision the requirement applies to;
//     LevelByRevision lists the revisions that are graded differently.
//   - Items that mix levels for sub-checks of one revision ("MUST / SHOULD")
//     are graded MUST, and the Statement names the parts that are only SHOULD
//     (or MAY); the checks grade those parts as warnings.
//   - "derived" items (a consequence of normative text without a keyword
//     sentence) are graded SHOULD unless their SpecLevel says
//     "MUST (derived)" or "MUST NOT (derived)".

// shouldIn grades the given revisions SHOULD (for LevelByRevision).
func shouldIn(rs ...Revision) map[Revision]Level { return levelIn(SHOULD, rs) }

// mustIn grades the given revisions MUST (for LevelByRevision).
func mustIn(rs ...Revision) map[Revision]Level { return levelIn(MUST, rs) }

func levelIn(l Level, rs []Revision) map[Revision]Level {
	m := make(map[Revision]Level, len(rs))
	for _, r := range rs {
		m[r] = l
	}
	return m
}

// requirements is the server table in catalog order: the base protocol
// (this file), the server features (data_features.go), then utilities,
// legacy, the transports, authorization and stale references
// (data_transport.go). The client tables follow it (data_client.go).
var requirements = concat(baseRequirements, featureRequirements, transportRequirements)

func concat(tables ...[]Requirement) []Requirement {
	var out []Requirement
	for _, t := range tables {
		out = append(out, t...)
	}
	return out
}

var baseRequirements = []Requirement{
	// ---------------------------------------------------------------- LIFE
	{
		ID:        "LIFE-001",
		Title:     "initialize echoes a supported version with capabilities and serverInfo",
		Statement: `An initialize request naming a protocolVersion the server supports must get a result with that same protocolVersion, a capabilities object, and serverInfo with name and version.`,
		Level:     MUST,
		SpecLevel: "MUST",
		Revisions: LegacyRevisions,
		Source:    `<rev>:basic/lifecycle.mdx; schema/<rev>/schema.json InitializeResult`,
	},
	{
		ID:        "LIFE-002",
		Title:     "initialize with an unknown version gets a counter-offer",
		Statement: `An initialize with protocolVersion "1900-01-01" must get a result offering another version the server supports (choosing its latest is SHOULD). A -32602 error with data.{supported,requested} is tolerated with a warning.`,
		Level:     MUST,
		SpecLevel: "MUST (latest: SHOULD)",
		Revisions: LegacyRevisions,
		Source:    `<rev>:basic/lifecycle.mdx "Version Negotiation"`,
	},
	{
		ID:        "LIFE-003",
		Title:     "notifications/initialized gets no response",
		Statement: `The server must not answer notifications/initialized: nothing on stdio, and 202 with an empty body on HTTP.`,
		Level:     MUST,
		SpecLevel: "MUST",
		Revisions: LegacyRevisions,
		Source:    `24:basic/messages.mdx; <rev>:basic/index.mdx; <rev>:basic/transports.mdx`,
	},
	{
		ID:        "LIFE-004",
		Title:     "No early server traffic before initialized except ping and logs",
		Statement: `Until notifications/initialized arrives, the server should send no requests other than ping and no notifications other than notifications/message.`,
		Level:     SHOULD,
		SpecLevel: "SHOULD NOT",
		Revisions: LegacyRevisions,
		Source:    `<rev>:basic/lifecycle.mdx "Initialization"`,
	},
	{
		ID:              "LIFE-005",
		Title:           "Server uses only negotiated capabilities",
		Statement:       `The server must not send sampling/createMessage, roots/list or elicitation/create to a client that did not declare them, nor list_changed or resources/updated notifications without declaring listChanged or subscribe. This is SHOULD in 2024-11-05 and 2025-03-26.`,
		Level:           MUST,
		SpecLevel:       "2025-06-18…2025-11-25 MUST (2024-11-05, 2025-03-26: SHOULD)",
		Revisions:       LegacyRevisions,
		LevelByRevision: shouldIn(R20241105, R20250326),
		Source:          `25b:basic/lifecycle.mdx "Operation"; <rev>:server/{tools,prompts,resources}.mdx`,
	},
	{
		ID:        "LIFE-006",
		Title:     "server/discover returns a complete DiscoverResult",
		Statement: `server/discover with valid _meta must return resultType "complete", a non-empty string array supportedVersions, a capabilities object, an integer ttlMs >= 0 and cacheScope "public" or "private".`,
		Level:     MUST,
		SpecLevel: "MUST",
		Revisions: revs(R20260728),
		Source:    `26:server/discover.mdx; schema DiscoverResult`,
	},
	{
		ID:        "LIFE-007",
		Title:     "Results carry serverInfo in _meta",
		Statement: `Every result, discover included, should carry _meta["io.modelcontextprotocol/serverInfo"] with string name and version.`,
		Level:     SHOULD,
		SpecLevel: "SHOULD",
		Revisions: revs(R20260728),
		Source:    `26:basic/index.mdx "Per-response protocol fields"`,
	},
	{
		ID:        "LIFE-008",
		Title:     "Requests missing required protocol metadata get -32602",
		Statement: `A request with no params, no _meta, no protocolVersion, no clientCapabilities, clientCapabilities null, or a non-string protocolVersion must be rejected with -32602 (HTTP 400).`,
		Level:     MUST,
		SpecLevel: "MUST",
		Revisions: revs(R20260728),
		Source:    `26:basic/index.mdx "Per-request protocol fields"; schema RequestParams`,
	},
	{
		ID:        "LIFE-009",
		Title:     "clientInfo is optional in request _meta",
		Statement: `A request that omits only io.modelcontextprotocol/clientInfo must be processed normally (HTTP 200).`,
		Level:     MUST,
		SpecLevel: "MUST (schema)",
		Revisions: revs(R20260728),
		Source:    `26:basic/index.mdx; schema RequestMetaObject`,
	},
	{
		ID:        "LIFE-010",
		Title:     "Unsupported protocol version gets -32022 with supported/requested",
		Statement: `A request using version "1900-01-01" in header and _meta must get -32022 with a non-empty string array data.supported and data.requested "1900-01-01" (HTTP 400). That data.supported equals discover's supportedVersions as a set is a derived SHOULD.`,
		Level:     MUST,
		SpecLevel: "MUST",
		Revisions: revs(R20260728),
		Source:    `26:basic/versioning.mdx; schema UnsupportedProtocolVersionError`,
	},
	{
		ID:        "LIFE-011",
		Title:     "Missing client capability gets -32021 with an object",
		Statement: `When a request needs a client capability it did not declare, the error must be -32021 with data.requiredCapabilities as a ClientCapabilities object such as {"elicitation":{}}, not an array (HTTP 400).`,
		Level:     MUST,
		SpecLevel: "MUST",
		Revisions: revs(R20260728),
		Source:    `26:basic/index.mdx; schema MissingRequiredClientCapabilityError`,
	},
	{
		ID:        "LIFE-012",
		Title:     "Client capabilities do not carry over between requests",
		Statement: `The server must not reuse capabilities from an earlier request: after an MRTR tool call declaring elicitation, a second call on the same connection declaring {} must not get elicitation/create (expect -32021 or a result needing no elicitation).`,
		Level:     MUST,
		SpecLevel: "MUST NOT",
		Revisions: revs(R20260728),
		Source:    `26:basic/index.mdx "Statelessness"; schema RequestMetaObject`,
	},
	{
		ID:        "LIFE-013",
		Title:     "List results do not vary per connection or by side effect",
		Statement: `With the same credentials, tools/list, resources/list and prompts/list must return the same sets on two fresh connections and before and after unrelated calls, allowing for real change events.`,
		Level:     MUST,
		SpecLevel: "MUST NOT",
		Revisions: revs(R20260728),
		Source:    `26:server/tools.mdx, 26:server/resources.mdx, 26:server/prompts.mdx "Capabilities"`,
	},
	{
		ID:        "LIFE-014",
		Title:     "Removed legacy methods get -32601",
		Statement: `A modern-only server must answer ping, logging/setLevel, resources/subscribe and resources/unsubscribe, sent with valid _meta and headers, with -32601 (HTTP 404).`,
		Level:     MUST,
		SpecLevel: "MUST",
		Revisions: revs(R20260728),
		Source:    `26:basic/transports/streamable-http.mdx "Protocol Version Header"; 26:changelog.mdx`,
	},
	{
		ID:        "LIFE-015",
		Title:     "Legacy initialize is rejected with an error naming supported versions",
		Statement: `A modern-only server must answer a legacy-shaped initialize with a JSON-RPC error (any code on stdio; 400 on HTTP without MCP headers). Naming the supported versions in the message or data is SHOULD.`,
		Level:     MUST,
		SpecLevel: "MUST (error) / SHOULD (content)",
		Revisions: revs(R20260728),
		Source:    `26:basic/versioning.mdx "Backward Compatibility with Initialization-Based Versions"`,
	},
	{
		ID:        "LIFE-016",
		Title:     "ping gets a prompt empty result, also before initialization completes",
		Statement: `ping must get a prompt {} result with the same id, including when sent before initialize has completed.`,
		Level:     MUST,
		SpecLevel: "MUST",
		Revisions: LegacyRevisions,
		Source:    `<rev>:basic/utilities/ping.mdx; <rev>:basic/lifecycle.mdx`,
	},

	// ----------------------------------------------------------------- RPC
	{
		ID:        "RPC-001",
		Title:     "Every message is a JSON-RPC 2.0 object; errors have code and message",
		Statement: `Each server message must be a single JSON object with "jsonrpc":"2.0" (2025-03-26 batch replies excepted), and each error must have an integer code and a string message.`,
		Level:     MUST,
		SpecLevel: "MUST",
		Revisions: AllRevisions,
		Source:    `24:basic/messages.mdx; <rev>:basic/index.mdx; schema Error`,
	},
	{
		ID:        "RPC-002",
		Title:     "Response id matches the request id and its JSON type",
		Statement: `A response's id must equal the request's id with the same JSON type; probe with string "7" and integer 7 on separate requests.`,
		Level:     MUST,
		SpecLevel: "MUST",
		Revisions: AllRevisions,
		Source:    `24:basic/messages.mdx; <rev>:basic/index.mdx`,
	},
	{
		ID:        "RPC-003",
		Title:     "Responses have exactly one of result and error",
		Statement: `Every response must contain exactly one of result and error.`,
		Level:     MUST,
		SpecLevel: "MUST",
		Revisions: AllRevisions,
		Source:    `24:basic/messages.mdx; 25b:basic/index.mdx`,
	},
	{
		ID:        "RPC-004",
		Title:     "Notifications never get a response",
		Statement: `The server must not respond to any notification: known ones, unknown ones such as notifications/x-fuzz, or ones with junk params.`,
		Level:     MUST,
		SpecLevel: "MUST NOT",
		Revisions: AllRevisions,
		Source:    `<rev>:basic/index.mdx "Notifications"`,
	},
	{
		ID:        "RPC-005",
		Title:     "Unparseable input gets -32700 and the server survives",
		Statement: `Truncated JSON or invalid UTF-8 should get -32700 with the id omitted (a null id is a warning), and a stdio server should keep running.`,
		Level:     SHOULD,
		SpecLevel: "SHOULD (JSON-RPC 2.0)",
		Revisions: AllRevisions,
		Source:    `JSON-RPC 2.0; schema ParseError (2025-11-25+)`,
	},
	{
		ID:        "RPC-006",
		Title:     "Invalid requests get -32600 and are never executed",
		Statement: `Requests with no method, jsonrpc "1.0", id null, {} or 1.5, or a non-string method must never be executed (MCP forbids a null id). Answering them with -32600 is the JSON-RPC SHOULD.`,
		Level:     MUST,
		SpecLevel: "SHOULD (JSON-RPC 2.0; MCP MUST on id)",
		Revisions: AllRevisions,
		Source:    `<rev>:basic/index.mdx "Requests" (ID MUST NOT be null); schema InvalidRequestError`,
	},
	{
		ID:              "RPC-007",
		Title:           "Unknown methods get -32601",
		Statement:       `An unknown method such as fuzz/none must get a JSON-RPC error, -32601 in 2026-07-28 (on HTTP with status 404). Before 2026-07-28 no keyword sentence names the code (only JSON-RPC 2.0's table of codes): another error code there is a WARN; in 2024-11-05 and 2025-03-26 (whose sibling codes are SHOULD) the whole check is.`,
		Level:           MUST,
		SpecLevel:       "MUST (2026 HTTP: plus status 404); the code before 2026-07-28: no keyword sentence (SHOULD); 2024-11-05, 2025-03-26: SHOULD",
		Revisions:       AllRevisions,
		LevelByRevision: shouldIn(R20241105, R20250326),
		Source:          `schema MethodNotFoundError; 26:basic/transports/streamable-http.mdx`,
	},
	{
		ID:              "RPC-008",
		Title:           "Batches: accepted in 2025-03-26, rejected afterwards",
		Statement:       `In 2025-03-26 a batch of requests and notifications must be accepted with one response per request. From 2025-06-18 an array body or line should be rejected (4xx or -32600) with none of its elements run with a success status.`,
		Level:           SHOULD,
		SpecLevel:       "2025-03-26 MUST; 2025-06-18+ SHOULD (derived)",
		Revisions:       from(R20250326),
		LevelByRevision: mustIn(R20250326),
		Source:          `25a:basic/index.mdx "Batching"; 25b:changelog.mdx; 26:basic/transports/streamable-http.mdx "Sending Messages"`,
	},
	{
		ID:        "RPC-009",
		Title:     "Server-sent request ids are non-null and never reused",
		Statement: `Requests the server sends (sampling, elicitation, roots, ping) must use string or integer ids that are never null and never reused within the session.`,
		Level:     MUST,
		SpecLevel: "MUST",
		Revisions: LegacyRevisions,
		Source:    `<rev>:basic/index.mdx "Requests"`,
	},
	{
		ID:        "RPC-010",
		Title:     "Server never sends JSON-RPC requests",
		Statement: `The server must never send a message with both method and id, on stdout, a POST SSE stream or a listen stream, including standalone elicitation/create, sampling/createMessage and roots/list.`,
		Level:     MUST,
		SpecLevel: "MUST NOT",
		Revisions: revs(R20260728),
		Source:    `26:basic/patterns/index.mdx; 26:basic/transports/stdio.mdx; 26:basic/transports/streamable-http.mdx`,
	},
	{
		ID:        "RPC-011",
		Title:     "Every result has a known string resultType",
		Statement: `Every result must have a string resultType that is "complete", "input_required", or a value advertised by a negotiated extension ("task" only under the Tasks extension).`,
		Level:     MUST,
		SpecLevel: "MUST",
		Revisions: revs(R20260728),
		Source:    `26:basic/index.mdx "ResultType"; schema Result`,
	},
	{
		ID:        "RPC-012",
		Title:     "No removed or reserved error codes",
		Statement: `The server must never emit -32002, -32042, or any code in -32020..-32099 other than -32020, -32021 and -32022. Avoiding codes in -32000..-32019 is SHOULD NOT.`,
		Level:     MUST,
		SpecLevel: "MUST NOT / SHOULD NOT",
		Revisions: revs(R20260728),
		Source:    `26:basic/index.mdx "Error Codes"`,
	},
	{
		ID:        "RPC-013",
		Title:     "Every message validates against the revision's JSON schema",
		Statement: `Every server message must validate as JSONRPCMessage and against its method, result or notification definition in schema/<rev>/schema.json. From 2025-06-18, _meta keys must follow the key grammar and use reserved prefixes only for keys the spec or an official extension defines.`,
		Level:     MUST,
		SpecLevel: "MUST (schema)",
		Revisions: AllRevisions,
		Source:    `schema/<rev>/schema.json; <rev>:basic/index.mdx "_meta"`,
	},
	{
		ID:        "RPC-014",
		Title:     "The server keeps answering after input it may reject",
		Statement: `Input the server is entitled to reject (malformed, invalid, oversized, unknown, out of order) must not end the process, close the connection or silence the server: JSON-RPC 2.0 requires a reply to every request, so the next well-formed request still gets its response. Judged over every check of the run.`,
		Level:     MUST,
		SpecLevel: "MUST (JSON-RPC 2.0: the Server MUST reply with a Response)",
		Revisions: AllRevisions,
		Source:    `JSON-RPC 2.0 "Response object"; <rev>:basic/index.mdx "Responses"`,
	},

	// ----------------------------------------------------------------- PAG
	{
		ID:        "PAG-001",
		Title:     "Paginated results have their item array and a string nextCursor",
		Statement: `Every paginated list result must have its item array (tools, resources, resourceTemplates or prompts), with nextCursor either absent or a string.`,
		Level:     MUST,
		SpecLevel: "MUST (schema)",
		Revisions: AllRevisions,
		Source:    `schema PaginatedResult; <rev>:server/utilities/pagination.mdx`,
	},
	{
		ID:        "PAG-002",
		Title:     "Invalid cursors get -32602",
		Statement: `A made-up cursor ("!!invalid!!", 4 KB of random data, base64 of {"page":-1}) or a non-string cursor (123, null, {}) should get -32602, and must never crash the server or produce a 5xx.`,
		Level:     SHOULD,
		SpecLevel: "SHOULD",
		Revisions: AllRevisions,
		Source:    `<rev>:server/utilities/pagination.mdx "Error Handling"`,
	},
	{
		ID:        "PAG-003",
		Title:     "Same cursor returns the same page",
		Statement: `Repeating a request with the same valid cursor while the list is unchanged should return the same page.`,
		Level:     SHOULD,
		SpecLevel: "SHOULD",
		Revisions: AllRevisions,
		Source:    `<rev>:server/utilities/pagination.mdx "Implementation Guidelines"`,
	},
	{
		ID:        "PAG-004",
		Title:     "Cursor traversal ends without duplicates",
		Statement: `Following nextCursor (capped at 1000 pages) should terminate and yield no duplicate keys (tool name, resource uri, template uriTemplate, prompt name) while the list is unchanged.`,
		Level:     SHOULD,
		SpecLevel: "SHOULD (derived)",
		Revisions: AllRevisions,
		Source:    `<rev>:server/utilities/pagination.mdx; 26:server/utilities/caching.mdx "Interaction with Pagination"`,
	},
	{
		ID:        "PAG-005",
		Title:     "tools/list order is deterministic",
		Statement: `Two consecutive full tools/list traversals should return the tools in the same order.`,
		Level:     SHOULD,
		SpecLevel: "SHOULD",
		Revisions: revs(R20260728),
		Source:    `26:server/tools.mdx "Capabilities"`,
	},
	{
		ID:        "PAG-006",
		Title:     "cacheScope is constant across the pages of one traversal",
		Statement: `Every page of a single list traversal must carry the same cacheScope.`,
		Level:     MUST,
		SpecLevel: "MUST",
		Revisions: revs(R20260728),
		Source:    `26:server/utilities/caching.mdx "Interaction with Pagination"`,
	},

	// --------------------------------------------------------------- CACHE
	{
		ID:        "CACHE-001",
		Title:     "Cacheable results carry ttlMs and cacheScope",
		Statement: `Complete results of server/discover, tools/list, prompts/list, resources/list, resources/templates/list and resources/read (including reads finished via MRTR) must carry an integer ttlMs >= 0 and cacheScope "public" or "private".`,
		Level:     MUST,
		SpecLevel: "MUST",
		Revisions: revs(R20260728),
		Source:    `26:server/utilities/caching.mdx "Cacheable Results"; schema CacheableResult`,
	},
	{
		ID:        "CACHE-002",
		Title:     "input_required results carry no caching hints",
		Statement: `An input_required result should carry neither ttlMs nor cacheScope.`,
		Level:     SHOULD,
		SpecLevel: "SHOULD NOT (descriptive)",
		Revisions: revs(R20260728),
		Source:    `26:server/utilities/caching.mdx "Cacheable Results"`,
	},
	{
		ID:        "CACHE-003",
		Title:     "Per-principal content is marked private",
		Statement: `A result whose content differs between two principals should be marked private; a result marked public should be byte-identical across principals apart from _meta.`,
		Level:     SHOULD,
		SpecLevel: "SHOULD (derived)",
		Revisions: revs(R20260728),
		Source:    `26:server/utilities/caching.mdx "Cache Scope Field", "Security Considerations"`,
	},
}
