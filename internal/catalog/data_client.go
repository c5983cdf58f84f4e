package catalog

import "strings"

// The client half (issue 32): requirements on MCP clients and hosts, which
// mcpconform judges by playing scenario servers (internal/scenario) and
// reading the client's traffic (suites/client). Same conventions as the
// server table (data.go); ids CLI-NNN, and CAUTH-NNN for authorization. A client requirement's check runs
// in `mcpconform client`, never against a server, and the reverse.

// clientPrefixes are the id prefixes of client requirements.
var clientPrefixes = map[string]bool{"CLI": true, "CAUTH": true}

// Client reports whether r is a requirement on clients (judged by
// `mcpconform client`) rather than on servers.
func (r Requirement) Client() bool { return IsClientID(r.ID) }

// IsClientID reports whether id names a client requirement.
func IsClientID(id string) bool {
	p, _, _ := cutPrefix(id)
	return clientPrefixes[p]
}

var clientRequirements = []Requirement{
	{
		ID:        "CLI-001",
		Title:     "the client opens with initialize: protocolVersion, capabilities, clientInfo",
		Statement: `A legacy-era client's first request on a connection (a session, over HTTP) is initialize, whose params hold a protocolVersion string, a capabilities object and clientInfo with name and version; only pings may come before its response.`,
		Level:     MUST,
		SpecLevel: "MUST",
		Revisions: LegacyRevisions,
		Source:    `<rev>:basic/lifecycle.mdx "Initialization"; schema/<rev>/schema.json InitializeRequest`,
	},
	{
		ID:        "CLI-002",
		Title:     "the client sends notifications/initialized after a successful initialize",
		Statement: `After the server answered initialize with a result, the client sends notifications/initialized before its other requests (pings aside).`,
		Level:     MUST,
		SpecLevel: "MUST",
		Revisions: LegacyRevisions,
		Source:    `<rev>:basic/lifecycle.mdx "Initialization"`,
	},
	{
		ID:        "CLI-003",
		Title:     "no request but ping before the initialize response",
		Statement: `Until the server answered initialize, the client sends no request other than ping.`,
		Level:     SHOULD,
		SpecLevel: "SHOULD NOT",
		Revisions: LegacyRevisions,
		Source:    `<rev>:basic/lifecycle.mdx "Initialization"`,
	},
	{
		ID:        "CLI-004",
		Title:     "request ids are strings or integers, never null, never reused",
		Statement: `Every request id the client sends is a string or an integer, not null; in the legacy era it is not reused within the session, in 2026-07-28 it differs from every id of the client's still awaiting a response.`,
		Level:     MUST,
		SpecLevel: "MUST",
		Revisions: AllRevisions,
		Source:    `<rev>:basic/index.mdx "Requests"`,
	},
	{
		ID:        "CLI-005",
		Title:     "client messages are JSON-RPC 2.0; responses answer server requests",
		Statement: `Each message the client sends is a JSON-RPC 2.0 object with "jsonrpc": "2.0": a request with a method and an id, a notification with a method and no id, or a response (result xor error) whose id is that of a request the server sent.`,
		Level:     MUST,
		SpecLevel: "MUST",
		Revisions: AllRevisions,
		Source:    `<rev>:basic/index.mdx "Notifications"; <rev>:basic/index.mdx "Responses"`,
	},
	{
		ID:         "CLI-006",
		Title:      "the client echoes Mcp-Session-Id on every request of the session",
		Statement:  `Once the server returned an Mcp-Session-Id with the initialize result, every later HTTP request of that session carries it.`,
		Level:      MUST,
		SpecLevel:  "MUST",
		Revisions:  between(R20250326, R20251125),
		Transports: []string{HTTP},
		Source:     `<rev>:basic/transports.mdx "Session Management"`,
	},
	{
		ID:         "CLI-007",
		Title:      "MCP-Protocol-Version on every HTTP request after initialize",
		Statement:  `After initialize, every HTTP request of the client carries the MCP-Protocol-Version header; its value should be the negotiated version (a different one is a WARN).`,
		Level:      MUST,
		SpecLevel:  "MUST (value: SHOULD)",
		Revisions:  between(R20250618, R20251125),
		Transports: []string{HTTP},
		Source:     `<rev>:basic/transports.mdx "Protocol Version Header"`,
	},
	{
		ID:         "CLI-008",
		Title:      "POST accepts both application/json and text/event-stream",
		Statement:  `Every POST of the client carries an Accept header listing both application/json and text/event-stream.`,
		Level:      MUST,
		SpecLevel:  "MUST",
		Revisions:  from(R20250326),
		Transports: []string{HTTP},
		Source:     `<rev>:basic/transports.mdx "Sending Messages to the Server"; 26:basic/transports/streamable-http.mdx "Sending Messages"`,
	},
	{
		ID:         "CLI-009",
		Title:      "HTTP 404 for the session leads to a new initialize without a session id",
		Statement:  `When a request carrying an Mcp-Session-Id gets HTTP 404, the client starts a new session: a new initialize request without an Mcp-Session-Id header.`,
		Level:      MUST,
		SpecLevel:  "MUST",
		Revisions:  between(R20250326, R20251125),
		Transports: []string{HTTP},
		Source:     `<rev>:basic/transports.mdx "Session Management"`,
	},
	{
		ID:        "CLI-010",
		Title:     "the client answers a server ping with an empty result",
		Statement: `A ping request from the server gets a response with the same id and an empty result, promptly.`,
		Level:     MUST,
		SpecLevel: "MUST",
		Revisions: LegacyRevisions,
		Source:    `<rev>:basic/utilities/ping.mdx "Behavior Requirements"`,
	},
	{
		ID:        "CLI-011",
		Title:     "every 2026-07-28 request carries _meta protocolVersion and clientCapabilities",
		Statement: `Every request of a 2026-07-28 client (server/discover included) carries params._meta io.modelcontextprotocol/protocolVersion and io.modelcontextprotocol/clientCapabilities.`,
		Level:     MUST,
		SpecLevel: "MUST",
		Revisions: revs(R20260728),
		Source:    `26:basic/index.mdx "Per-request protocol fields"; schema RequestMetaObject`,
	},
	{
		ID:        "CLI-012",
		Title:     "every 2026-07-28 request carries _meta clientInfo",
		Statement: `Every request of a 2026-07-28 client should carry params._meta io.modelcontextprotocol/clientInfo with name and version.`,
		Level:     SHOULD,
		SpecLevel: "SHOULD",
		Revisions: revs(R20260728),
		Source:    `26:basic/index.mdx "Per-request protocol fields"; schema RequestMetaObject`,
	},
	{
		ID:         "CLI-013",
		Title:      "MCP-Protocol-Version on every POST, equal to the _meta protocolVersion",
		Statement:  `Every POST of a 2026-07-28 client carries the MCP-Protocol-Version header, with the value of the request's _meta io.modelcontextprotocol/protocolVersion.`,
		Level:      MUST,
		SpecLevel:  "MUST",
		Revisions:  revs(R20260728),
		Transports: []string{HTTP},
		Source:     `26:basic/transports/streamable-http.mdx "Protocol Version Header"`,
	},
	{
		ID:         "CLI-014",
		Title:      "Mcp-Method on every POST, Mcp-Name on tools/call, resources/read and prompts/get",
		Statement:  `Every POST of a 2026-07-28 client carries Mcp-Method with the body's method; tools/call and prompts/get carry Mcp-Name with params.name, resources/read with params.uri.`,
		Level:      MUST,
		SpecLevel:  "MUST",
		Revisions:  revs(R20260728),
		Transports: []string{HTTP},
		Source:     `26:basic/transports/streamable-http.mdx "Standard Request Headers"`,
	},
	{
		ID:        "CLI-015",
		Title:     "an input_required retry: new id, requestState verbatim, keyed inputResponses",
		Statement: `After an input_required result, the client's retry is a new request (a different id) with the same method and name, requestState echoed byte for byte (omitted when none came), and inputResponses keyed by the inputRequests keys.`,
		Level:     MUST,
		SpecLevel: "MUST",
		Revisions: revs(R20260728),
		Source:    `26:basic/patterns/mrtr.mdx "Client Requirements (Basic Workflow)"; schema InputRequiredResult`,
	},
	{
		ID:         "CLI-016",
		Title:      "the client waits the SSE retry time before it reconnects",
		Statement:  `When the server closed a POST's event stream after an event that set retry, the client waits at least that many milliseconds before it reconnects (50 ms of slack: the clocks of the two ends).`,
		Level:      MUST,
		SpecLevel:  "MUST",
		Revisions:  revs(R20251125),
		Transports: []string{HTTP},
		Source:     `25c:basic/transports.mdx "Sending Messages to the Server"`,
	},
	{
		ID:         "CLI-017",
		Title:      "the client resumes a closed stream with GET and Last-Event-ID",
		Statement:  `When the server closed a POST's event stream before its response, the client should resume it with a GET carrying Last-Event-ID: the id of the last event it received.`,
		Level:      SHOULD,
		SpecLevel:  "SHOULD",
		Revisions:  revs(R20251125),
		Transports: []string{HTTP},
		Source:     `25c:basic/transports.mdx "Resumability and Redelivery"; 25c:basic/transports.mdx "Sending Messages to the Server"`,
	},
	{
		ID:        "CLI-018",
		Title:     "the client never dereferences a $ref to a network URI",
		Statement: `A $ref in a schema the server sent (a tool's inputSchema) that names a network URI is never fetched by the client on its own.`,
		Level:     MUST,
		SpecLevel: "MUST NOT",
		Revisions: revs(R20260728),
		Source:    `26:basic/index.mdx "$ref Resolution"`,
	},
	{
		ID:        "CLI-019",
		Title:     "the client uses only the capabilities the server declared",
		Statement: `In a legacy session the client sends no request of a feature the server did not declare in its initialize result: tools/*, resources/* (resources/subscribe: resources.subscribe), prompts/*, logging/setLevel, completion/complete, tasks/*.`,
		Level:     MUST,
		SpecLevel: "MUST",
		Revisions: LegacyRevisions,
		Source:    `<rev>:basic/lifecycle.mdx "Operation"`,
	},
	{
		ID:         "CLI-020",
		Title:      "tools/call mirrors x-mcp-header arguments into Mcp-Param headers",
		Statement:  `For a tool whose inputSchema marks a property with x-mcp-header: "{Name}", a tools/call carrying a value there that is not null carries Mcp-Param-{Name} with it (strings as they are, integers in decimal, booleans as true/false; a value that is not plain ASCII, has surrounding whitespace or looks like a sentinel as =?base64?…?=), and no such header when the value is absent or null.`,
		Level:      MUST,
		SpecLevel:  "MUST",
		Revisions:  revs(R20260728),
		Transports: []string{HTTP},
		Source:     `26:basic/transports/streamable-http.mdx "Custom Headers from Tool Parameters"; 26:basic/transports/streamable-http.mdx "Value Encoding"`,
	},
	{
		ID:         "CLI-021",
		Title:      "a tool whose x-mcp-header marks are invalid is dropped, never called",
		Statement:  `A tool whose x-mcp-header marks break the constraints (empty or not a token, duplicated ignoring case, on a property that is not a string, integer or boolean, or not reached through properties alone) is left out of the client's tools and never called.`,
		Level:      MUST,
		SpecLevel:  "MUST",
		Revisions:  revs(R20260728),
		Transports: []string{HTTP},
		Source:     `26:basic/transports/streamable-http.mdx "Schema Extension"; 26:server/tools.mdx`,
	},
	{
		ID:        "CLI-022",
		Title:     "the client answers every request of the server, with its id",
		Statement: `Each request the server sends (roots/list, sampling/createMessage, elicitation/create …) gets a response from the client with the request's id: a result, or an error with an integer code (MCP messages follow JSON-RPC 2.0, whose receiver of a request MUST reply).`,
		Level:     MUST,
		SpecLevel: "MUST",
		Revisions: LegacyRevisions,
		Source:    `<rev>:basic/index.mdx "Messages"; <rev>:basic/index.mdx "Responses"`,
	},
}

// authRevisions are the revisions whose authorization the CAUTH checks
// judge: 2025-11-25 brought the discovery rules they rest on (well-known
// fallbacks, OpenID Connect discovery, scope selection, client ID
// metadata documents), which 2026-07-28 keeps.
var authRevisions = revs(R20251125, R20260728)

var clientAuthRequirements = []Requirement{
	{
		ID:         "CAUTH-001",
		Title:      "resource metadata: the challenge's URL, else the well-known URIs in order",
		Statement:  `A client that authorizes uses the protected resource metadata (RFC 9728) to find the authorization server: it fetches the resource_metadata URL of the 401 challenge when there is one, else the path-based well-known URI first and the root one after it.`,
		Level:      MUST,
		SpecLevel:  "MUST",
		Revisions:  authRevisions,
		Transports: []string{HTTP},
		Source:     `25c:basic/authorization.mdx "Protected Resource Metadata Discovery Requirements"; 26:basic/authorization/authorization-server-discovery.mdx "Protected Resource Metadata Discovery Requirements"`,
	},
	{
		ID:         "CAUTH-002",
		Title:      "authorization server metadata: the well-known endpoints in the prescribed order",
		Statement:  `The client tries the authorization server's metadata endpoints in the order the spec gives for its issuer: with a path, RFC 8414 path insertion, OpenID Connect path insertion, then OpenID Connect path appending; without, RFC 8414 then OpenID Connect at the root.`,
		Level:      MUST,
		SpecLevel:  "MUST",
		Revisions:  authRevisions,
		Transports: []string{HTTP},
		Source:     `25c:basic/authorization.mdx "Authorization Server Metadata Discovery"; 26:basic/authorization/authorization-server-discovery.mdx "Authorization Server Metadata Discovery"`,
	},
	{
		ID:         "CAUTH-003",
		Title:      "PKCE with S256: the token request's verifier matches the challenge",
		Statement:  `Every authorization request carries a code_challenge with code_challenge_method S256 (the server advertises it), and the token request that redeems its code carries the code_verifier whose SHA-256 is that challenge.`,
		Level:      MUST,
		SpecLevel:  "MUST",
		Revisions:  authRevisions,
		Transports: []string{HTTP},
		Source:     `25c:basic/authorization.mdx "Authorization Code Protection"; 26:basic/authorization/security-considerations.mdx "Authorization Code Protection"`,
	},
	{
		ID:         "CAUTH-004",
		Title:      "the resource parameter names the MCP server in authorization and token requests",
		Statement:  `Both the authorization request and the token request carry the resource parameter (RFC 8707), and it is the MCP server's canonical URI.`,
		Level:      MUST,
		SpecLevel:  "MUST",
		Revisions:  authRevisions,
		Transports: []string{HTTP},
		Source:     `25c:basic/authorization.mdx "Resource Parameter Implementation"; 26:basic/authorization/index.mdx "Resource Parameter Implementation"`,
	},
	{
		ID:         "CAUTH-005",
		Title:      "the access token in the Authorization header of every request, never the query",
		Statement:  `Once it holds an access token, the client sends Authorization: Bearer with every HTTP request to the MCP server, and never puts the token in the URI query string.`,
		Level:      MUST,
		SpecLevel:  "MUST",
		Revisions:  authRevisions,
		Transports: []string{HTTP},
		Source:     `25c:basic/authorization.mdx "Token Requirements"; 26:basic/authorization/index.mdx "Token Requirements"`,
	},
	{
		ID:         "CAUTH-006",
		Title:      "scope: the challenge's, else scopes_supported, else none",
		Statement:  `The authorization request asks for the scope of the 401 challenge when it named one, else for every scope of the metadata's scopes_supported, and omits scope when neither is defined.`,
		Level:      SHOULD,
		SpecLevel:  "SHOULD",
		Revisions:  authRevisions,
		Transports: []string{HTTP},
		Source:     `25c:basic/authorization.mdx "Scope Selection Strategy"; 26:basic/authorization/index.mdx "Scope Selection Strategy"`,
	},
	{
		ID:         "CAUTH-007",
		Title:      "static client credentials are used when the client is given them",
		Statement:  `A client given a pre-registered client_id and secret for the server (MCP_CONFORMANCE_CONTEXT) authorizes with that client_id, where the authorization server offers no registration.`,
		Level:      SHOULD,
		SpecLevel:  "SHOULD",
		Revisions:  authRevisions,
		Transports: []string{HTTP},
		Source:     `25c:basic/authorization.mdx "Preregistration"; 26:basic/authorization/client-registration.mdx "Pre-registration"`,
	},
	{
		ID:         "CAUTH-008",
		Title:      "a client ID metadata document where the server supports them",
		Statement:  `When the authorization server advertises client_id_metadata_document_supported, the client identifies itself with an https URL with a path (its metadata document) rather than registering dynamically.`,
		Level:      SHOULD,
		SpecLevel:  "SHOULD",
		Revisions:  authRevisions,
		Transports: []string{HTTP},
		Source:     `25c:basic/authorization.mdx "Client ID Metadata Documents"; 26:basic/authorization/client-registration.mdx "Client ID Metadata Documents"`,
	},
	{
		ID:         "CAUTH-009",
		Title:      "step-up: a 403 insufficient_scope leads to re-authorizing with its scope",
		Statement:  `When a request with the client's token gets HTTP 403 with a Bearer insufficient_scope challenge, the client (acting for a user) re-authorizes asking for the challenged scope — in 2026-07-28 the union of the challenge's scopes and those it asked for before — and retries the request with the new token.`,
		Level:      SHOULD,
		SpecLevel:  "SHOULD",
		Revisions:  authRevisions,
		Transports: []string{HTTP},
		Source:     `25c:basic/authorization.mdx "Step-Up Authorization Flow"; 26:basic/authorization/index.mdx "Step-Up Authorization Flow"`,
	},
	{
		ID:         "CAUTH-010",
		Title:      "step-up retries are limited",
		Statement:  `A client whose re-authorized requests keep getting 403 insufficient_scope stops after a few attempts (mcpconform allows 3 re-authorizations in a scenario run) and treats it as a permanent authorization failure.`,
		Level:      SHOULD,
		SpecLevel:  "SHOULD",
		Revisions:  authRevisions,
		Transports: []string{HTTP},
		Source:     `25c:basic/authorization.mdx "Step-Up Authorization Flow"; 26:basic/authorization/index.mdx "Step-Up Authorization Flow"`,
	},
	{
		ID:         "CAUTH-011",
		Title:      "authorization server metadata naming another issuer is not used",
		Statement:  `The issuer of authorization server metadata must be identical to the issuer its well-known URL was built from (RFC 8414 section 3.3); when they differ the client must not use the metadata: no registration, authorization or token request to the endpoints it names.`,
		Level:      MUST,
		SpecLevel:  "MUST",
		Revisions:  revs(R20260728),
		Transports: []string{HTTP},
		Source:     `26:basic/authorization/authorization-server-discovery.mdx "Authorization Server Metadata Discovery"`,
	},
	{
		ID:         "CAUTH-012",
		Title:      "protected resource metadata naming another resource is not used",
		Statement:  `MCP clients must use OAuth 2.0 Protected Resource Metadata (RFC 9728) to find the authorization server, and RFC 9728 section 3.3 forbids using a metadata document whose resource is not the resource it was fetched for: the client must not go to the authorization servers it names.`,
		Level:      MUST,
		SpecLevel:  "MUST",
		Revisions:  revs(R20260728),
		Transports: []string{HTTP},
		Source:     `26:basic/authorization/index.mdx "Overview"; 26:basic/authorization/authorization-server-discovery.mdx "Protected Resource Metadata Discovery Requirements"`,
	},
	{
		ID:         "CAUTH-013",
		Title:      "the authorization response's iss is validated before the code is redeemed",
		Statement:  `Before sending the authorization code to a token endpoint the client must validate the response's iss as RFC 9207 section 2.4 and the spec's table say: with authorization_response_iss_parameter_supported, an absent iss is rejected; a present iss, advertised or not, must equal the issuer recorded from the metadata by simple string comparison; neither advertised nor present, the client proceeds. A rejected response's code is never redeemed; an accepted one's is (judged when the client redeemed a code in another scenario of the run).`,
		Level:      MUST,
		SpecLevel:  "MUST",
		Revisions:  revs(R20260728),
		Transports: []string{HTTP},
		Source:     `26:basic/authorization/index.mdx "Authorization Response Validation"`,
	},
	{
		ID:         "CAUTH-014",
		Title:      "the iss is compared without normalization",
		Statement:  `The client must not apply scheme or host case folding, default-port elision, trailing-slash or percent-encoding normalization before comparing iss with the recorded issuer: an iss equal to the issuer only after normalization (a trailing slash) is a mismatch, and the code is not redeemed. Judged when the client rejected a mismatched iss elsewhere in the run; a client that never compares iss is CAUTH-013's.`,
		Level:      MUST,
		SpecLevel:  "MUST NOT",
		Revisions:  revs(R20260728),
		Transports: []string{HTTP},
		Source:     `26:basic/authorization/index.mdx "Authorization Response Validation"`,
	},
	{
		ID:         "CAUTH-015",
		Title:      "the token request authenticates the client by the method the server supports",
		Statement:  `A client issued client credentials must authenticate at the token endpoint (OAuth 2.1 section 3.2.1), with one method per request (section 2.4): where the authorization server supports only client_secret_basic or only client_secret_post and registration issued a secret for it, the token request uses that method. Where it supports only none (a public client, no secret issued), sending client authentication anyway is graded as a warning.`,
		Level:      MUST,
		SpecLevel:  "MUST / SHOULD (derived)",
		Revisions:  authRevisions,
		Transports: []string{HTTP},
		Source:     `25c:basic/authorization.mdx "Dynamic Client Registration"; 26:basic/authorization/client-registration.mdx "Dynamic Client Registration"; OAuth 2.1 section 3.2.1; OAuth 2.1 section 2.4`,
	},
}

// the client table follows the server table (package variables are
// initialised before catalog.go's init indexes them)
var _ = func() bool {
	requirements = append(append(requirements, clientRequirements...), clientAuthRequirements...)
	return true
}()

func cutPrefix(id string) (prefix, num string, ok bool) { return strings.Cut(id, "-") }
