// Package scenario holds the scenario servers of `mcpconform client` (issue
// 32): the servers mcpconform plays to a client under test, each a small
// MCP server on the official Go SDK, served over Streamable HTTP on
// 127.0.0.1 or over stdio through a relay process the client starts, with
// every byte of the client's traffic recorded (wire.Recorder) for the
// client checks (suites/client) to judge. The package starts the client
// under test too: drop-in for the official conformance harness (the URL as
// the last argument or in {url}, MCP_CONFORMANCE_SCENARIO,
// MCP_CONFORMANCE_PROTOCOL_VERSION, MCP_CONFORMANCE_CONTEXT), bounded by a
// deadline, its process group reaped.
package scenario

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpconform/mcpconform/internal/catalog"
	"github.com/mcpconform/mcpconform/internal/wire"
)

// Scenario is one scenario server.
type Scenario struct {
	// Name is the scenario's name in reports; Client the name a client
	// written for the official harness knows it by (its
	// MCP_CONFORMANCE_SCENARIO): the official scenario whose client
	// behaviour the scenario needs ("tools_call": list the tools, call
	// add_numbers).
	Name, Client string
	// About says what the scenario server does, for reports.
	About string
	// Legacy and Modern: the eras it is played in.
	Legacy, Modern bool
	// HTTPOnly: only over Streamable HTTP; StdioOnly: only over stdio.
	HTTPOnly, StdioOnly bool
	// discoverError is the JSON-RPC error code a legacy scenario server
	// answers server/discover with over stdio (0: -32601, Method not
	// found); the stdio transport names -32601 and -32602 as common.
	discoverError int
	// setup adds the scenario's features to the server of one run.
	setup func(s *mcp.Server, r *Run)
	// expire: the first tools/call naming a session gets HTTP 404 (the
	// session ended): the client must open a new one (legacy HTTP).
	expire bool
	// reconnect: the call of test_reconnection gets a stream closed after
	// its priming event (reconnect.go; legacy HTTP).
	reconnect bool
	// since is the first revision it is played in ("": every one of its
	// eras).
	since catalog.Revision
	// BlackBox: the scenario of the black-box mode (Client.BlackBox),
	// played only there, and alone.
	BlackBox bool
	// context is the MCP_CONFORMANCE_CONTEXT the client gets ("": none).
	context string
	// invalidTools: the tools/list answers carry tools whose x-mcp-header
	// marks are invalid (headers.go; 2026-07-28 HTTP).
	invalidTools bool
	// auth: the MCP endpoint is a protected resource with a mock
	// authorization server (auth.go; HTTP).
	auth *Auth
	// rejectFirst: the client's first 2026-07-28 request gets
	// UnsupportedProtocolVersionError, supported [2026-07-28] (era.go).
	rejectFirst bool
	// junk: the scenario server can precede a message with these
	// messages (Run.junkDue; hostile.go; nil: none).
	junk func() [][]byte
	// pageSize: the server's page size for its lists (0: the SDK's).
	pageSize int
	// older: the server supports only the revision before the run's (a
	// legacy client offering the run's revision gets the older one in
	// the initialize result, and must go on with it or disconnect).
	older bool
	// icons: the server and its tool carry icons whose fetches the run
	// sees (icons.go).
	icons bool
}

// All lists the scenarios, in the order they run.
var All = []*Scenario{
	{Name: "everything", Client: "everything", Legacy: true, Modern: true, BlackBox: true, icons: true,
		About: "black-box mode: one server with every feature the scenarios have (a tool that, in the legacy era, asks a client that declared elicitation.url to open a page and pings it, tools that ask for input in 2026-07-28, one of them endlessly, a tool whose schema $refs a canary, icons of every scheme, a resource, a prompt): whatever the client does is judged", setup: everything},
	{Name: "initialize", Client: "initialize", Legacy: true,
		About: "a plain server: the client opens a session and lists the tools", setup: addNumbers},
	{Name: "tools_call", Client: "tools_call", Legacy: true, Modern: true,
		About: "a server with the tool add_numbers: the client lists the tools and calls it", setup: addNumbers},
	{Name: "request-metadata", Client: "request-metadata", Modern: true,
		About: "a 2026-07-28 server: the client discovers it and sends its requests with the per-request metadata", setup: addNumbers},
	{Name: "version-negotiation", Client: "request-metadata", Modern: true, rejectFirst: true,
		About: "the client's first request gets UnsupportedProtocolVersionError (-32022) listing 2026-07-28 as supported: the client retries with a version from the list", setup: addNumbers},
	{Name: "http-standard-headers", Client: "http-standard-headers", Modern: true, HTTPOnly: true,
		About: "a tool, a resource and a prompt: the client's POSTs carry Mcp-Method and Mcp-Name", setup: everyFeature},
	{Name: "sep-2322-client-request-state", Client: "sep-2322-client-request-state", Modern: true,
		About: "tools that answer input_required first: the client's retry must carry a new id, the requestState verbatim and keyed inputResponses", setup: mrtrTools},
	{Name: "sse-retry", Client: "sse-retry", Legacy: true, HTTPOnly: true, reconnect: true, since: catalog.R20251125,
		About: "the call of test_reconnection gets a stream closed after a priming event with retry: 250: the client must wait before it resumes with Last-Event-ID", setup: reconnectTools},
	{Name: "json-schema-ref-no-deref", Client: "json-schema-ref-no-deref", Modern: true,
		About: "a tool whose inputSchema has a $ref to a network URI (a canary on the scenario server): the client must not fetch it", setup: schemaRefTools},
	{Name: "http-custom-headers", Client: "http-custom-headers", Modern: true, HTTPOnly: true, context: headerContext("http-custom-headers"),
		About: "a tool whose inputSchema marks properties with x-mcp-header, and the calls to make of it (MCP_CONFORMANCE_CONTEXT): each present, non-null value goes in an Mcp-Param header", setup: customHeaderTools},
	{Name: "mrtr-endless", Client: "sep-2322-client-request-state", Modern: true,
		About: "test_mrtr_endless answers every call with input_required (a confirmation and the round in requestState) until the 25th round, the harness's cap: a client that bounds a request gives up before", setup: endlessMRTR},
	{Name: "http-invalid-tool-headers", Client: "http-invalid-tool-headers", Modern: true, HTTPOnly: true, invalidTools: true,
		About: "tools whose x-mcp-header marks break the constraints beside a valid one: the client must drop them and never call them", setup: invalidHeaderTools},
	{Name: "older-version", Client: "tools_call", Legacy: true, older: true, since: catalog.R20250326,
		About: "the server supports only the revision before the run's: the client must go on with the version the initialize result names (its MCP-Protocol-Version header too) or disconnect", setup: addNumbers},
	{Name: "elicitation-sep1034-client-defaults", Client: "elicitation-sep1034-client-defaults", Legacy: true, since: catalog.R20251125,
		About: "test_client_elicitation_defaults asks the client, when it declared elicitation, for a form whose five fields (string, integer, number, enum, boolean) all have defaults and none is required", setup: elicitDefaults},
	{Name: "roots", Client: "tools_call", Legacy: true,
		About: "add_numbers asks the client for its roots (roots/list) before it answers, when the client declared roots: the client must answer", setup: rootsAddNumbers},
	{Name: "ping", Client: "tools_call", Legacy: true,
		About: "add_numbers pings the client before it answers: the client must answer the ping", setup: pingingAddNumbers},
	{Name: "pagination", Client: "tools_call", Legacy: true, Modern: true, pageSize: 2,
		About: "tools/list has two pages (add_numbers on the first): a client that asks for the second sends the nextCursor back as it got it", setup: pagedTools},
	{Name: "elicitation-url-undeclared", Client: "elicitation-sep1034-client-defaults", Legacy: true, since: catalog.R20251125,
		About: "test_client_elicitation_defaults first asks a client that declared elicitation without url for a URL-mode elicitation (which it must refuse with -32602), then for the form", setup: elicitURLUndeclared},
	{Name: "elicitation-url", Client: "elicitation-sep1034-client-defaults", Legacy: true, since: catalog.R20251125, context: urlModeContext,
		About: "test_client_elicitation_defaults first asks a client that declared elicitation.url to open a page of the scenario server's (a URL-mode elicitation: only the user's browser may fetch it), then sends notifications/elicitation/complete for it twice and for an unknown id, then asks for the form: a client that ignored the completions answers it", setup: elicitURLDeclared},
	{Name: "icons", Client: "tools_call", Legacy: true, Modern: true, icons: true,
		About: "the server and add_numbers carry icons: an https: one (a witness: a client that fetches icons tries it), a data: one, and file:, ws: and javascript: ones a client must never fetch", setup: iconTools},
	{Name: "undeclared-requests", Client: "tools_call", Legacy: true,
		About: "add_numbers first sends the client the server requests of each capability it did not declare (roots/list, sampling/createMessage, elicitation/create): a client answers each with an error", setup: undeclaredRequests},
	{Name: "hostile-messages", Client: "tools_call", Legacy: true, junk: junkMessages,
		About: "add_numbers pings the client, sends it a message that is not JSON and a response to an id it never sent, then pings it again: a client that ignores the junk answers the second ping as it did the first", setup: sendThenPing(JunkNote, true)},
	{Name: "large-message", Client: "tools_call", Legacy: true, junk: largeMessage,
		About: "add_numbers pings the client, sends it a log message (notifications/message) of 1088 KiB, then pings it again: a client that takes a large message in its stride answers the second ping as it did the first", setup: sendThenPing(LargeNote, false)},
	{Name: "discover-invalid-params", Client: "tools_call", Legacy: true, StdioOnly: true, discoverError: -32602,
		About: "a legacy stdio server that answers the server/discover probe with -32602 (Invalid params), not -32601: a dual-era client falls back to initialize all the same", setup: addNumbers},
	{Name: "session-expiry", Client: "tools_call", Legacy: true, HTTPOnly: true, expire: true,
		About: "the session ends (HTTP 404) when the client calls add_numbers: the client must initialize a new session", setup: addNumbers},
	authScenario("auth/metadata-default", "the 401 challenge names the path-based protected resource metadata; the authorization server's RFC 8414 metadata is at the root of its issuer",
		&Auth{Header: PRMPath, PRM: PRMPath, Meta: MetaOAuth}),
	authScenario("auth/metadata-var1", "no resource_metadata in the challenge: the metadata is at the path-based well-known URI; the authorization server has OpenID Connect discovery only",
		&Auth{PRM: PRMPath, Meta: MetaOIDC}),
	authScenario("auth/metadata-var2", "no resource_metadata in the challenge: the metadata is at the root well-known URI only; the issuer has the path /tenant1 (RFC 8414 path insertion)",
		&Auth{PRM: PRMRoot, IssuerPath: "/tenant1", Meta: MetaOAuth}),
	authScenario("auth/metadata-var3", "the challenge names a custom metadata URL; the issuer /tenant1 has OpenID Connect discovery by path appending only",
		&Auth{Header: PRMCustom, PRM: PRMCustom, IssuerPath: "/tenant1", Meta: MetaOIDCAppend}),
	authScenario("auth/scope-from-www-authenticate", "the 401 challenge names the scope mcp:read; the metadata's scopes_supported is wider",
		&Auth{Header: PRMPath, PRM: PRMPath, Meta: MetaOAuth, ChallengeScope: "mcp:read", Scopes: []string{"mcp:read", "mcp:write", "mcp:admin"}}),
	authScenario("auth/scope-from-scopes-supported", "no scope in the challenge; the metadata's scopes_supported lists mcp:read and mcp:write",
		&Auth{Header: PRMPath, PRM: PRMPath, Meta: MetaOAuth, Scopes: []string{"mcp:read", "mcp:write"}}),
	authScenario("auth/scope-omitted-when-undefined", "no scope in the challenge and no scopes_supported: the client omits scope",
		&Auth{Header: PRMPath, PRM: PRMPath, Meta: MetaOAuth}),
	authScenario("auth/pre-registration", "the authorization server has no registration endpoint; the client is given a client_id and secret (MCP_CONFORMANCE_CONTEXT)",
		&Auth{Header: PRMPath, PRM: PRMPath, Meta: MetaOAuth, Prereg: true}),
	authScenario("auth/basic-cimd", "the authorization server advertises client ID metadata documents (and dynamic registration)",
		&Auth{Header: PRMPath, PRM: PRMPath, Meta: MetaOAuth, CIMD: true}),
	authScenario("auth/scope-step-up", "the 401 challenge names mcp:basic; a tools/call needs mcp:write too and gets 403 insufficient_scope naming it (2025-11-25: with mcp:basic; 2026-07-28: alone, the client unions): the client re-authorizes and retries",
		&Auth{Header: PRMPath, PRM: PRMPath, Meta: MetaOAuth, ChallengeScope: "mcp:basic", Scopes: []string{"mcp:basic", "mcp:write"}, StepUp: "mcp:write"}),
	authScenario("auth/scope-retry-limit", "every tools/call gets 403 insufficient_scope, whatever scope the token has: the client re-authorizes no more than a few times, then gives up",
		&Auth{Header: PRMPath, PRM: PRMPath, Meta: MetaOAuth, ChallengeScope: "mcp:basic", Scopes: []string{"mcp:basic", "mcp:write"}, StepUp: "mcp:write", StepUpEndless: true}),
	modernAuth(authScenario("auth/metadata-issuer-mismatch", "the authorization server's metadata names another issuer than the one its URL was built from: the client must not use it (it cannot authorize)",
		&Auth{Header: PRMPath, PRM: PRMPath, Meta: MetaOAuth, IssuerMismatch: true})),
	authScenario("auth/token-endpoint-auth-basic", "the token endpoint supports client_secret_basic only; dynamic registration issues a secret for it",
		&Auth{Header: PRMPath, PRM: PRMPath, Meta: MetaOAuth, TokenAuth: AuthBasic}),
	authScenario("auth/token-endpoint-auth-post", "the token endpoint supports client_secret_post only; dynamic registration issues a secret for it",
		&Auth{Header: PRMPath, PRM: PRMPath, Meta: MetaOAuth, TokenAuth: AuthPost}),
	authScenario("auth/token-endpoint-auth-none", "the token endpoint supports none only (a public client); dynamic registration issues no secret",
		&Auth{Header: PRMPath, PRM: PRMPath, Meta: MetaOAuth, TokenAuth: AuthNone}),
	modernAuth(authScenario("auth/iss-supported", "the authorization server advertises the RFC 9207 iss parameter and its authorization response carries the issuer: the client proceeds",
		&Auth{Header: PRMPath, PRM: PRMPath, Meta: MetaOAuth, IssAdvertised: true, Iss: IssCorrect})),
	modernAuth(authScenario("auth/iss-not-advertised", "no iss advertised and none in the authorization response: the client proceeds",
		&Auth{Header: PRMPath, PRM: PRMPath, Meta: MetaOAuth, Iss: IssAbsent})),
	modernAuth(authScenario("auth/iss-supported-missing", "the iss parameter is advertised but the authorization response has none: the client must not redeem the code",
		&Auth{Header: PRMPath, PRM: PRMPath, Meta: MetaOAuth, IssAdvertised: true, Iss: IssAbsent})),
	modernAuth(authScenario("auth/iss-wrong-issuer", "the iss parameter is advertised and the authorization response names another issuer: the client must not redeem the code",
		&Auth{Header: PRMPath, PRM: PRMPath, Meta: MetaOAuth, IssAdvertised: true, Iss: IssWrong})),
	modernAuth(authScenario("auth/iss-unexpected", "no iss advertised, but the authorization response names another issuer: the client compares it anyway and must not redeem the code",
		&Auth{Header: PRMPath, PRM: PRMPath, Meta: MetaOAuth, Iss: IssWrong})),
	modernAuth(authScenario("auth/iss-normalized", "the iss parameter is advertised and the authorization response names the issuer with a trailing slash (equal only after normalization): the client must not redeem the code",
		&Auth{Header: PRMPath, PRM: PRMPath, Meta: MetaOAuth, IssAdvertised: true, Iss: IssNormalized})),
	modernAuth(authScenario("auth/authorization-server-migration", "once the client made an authorized request, the protected resource metadata names a second authorization server and the first one's tokens get 401: the client must re-register with the second, not reuse the first one's client credentials",
		&Auth{Header: PRMPath, PRM: PRMPath, Meta: MetaOAuth, ChallengeScope: "mcp:basic", Migrate: true})),
	modernAuth(authScenario("auth/offline-access-scope", "the authorization server's metadata offers offline_access in scopes_supported (the resource's does not): a client that wants refresh tokens may ask for it, and registers the refresh_token grant",
		&Auth{Header: PRMPath, PRM: PRMPath, Meta: MetaOAuth, ChallengeScope: "mcp:basic", Scopes: []string{"mcp:basic"}, ASScopes: []string{"mcp:basic", OfflineAccess}})),
	modernAuth(authScenario("auth/offline-access-not-supported", "the authorization server's metadata lists scopes without offline_access: the client does not ask for it",
		&Auth{Header: PRMPath, PRM: PRMPath, Meta: MetaOAuth, ChallengeScope: "mcp:basic", Scopes: []string{"mcp:basic", "mcp:read"}, ASScopes: []string{"mcp:basic", "mcp:read"}})),
	refusedAuthorizeURL("auth/authorization-url-javascript", JavascriptAuthorizeURL),
	refusedAuthorizeURL("auth/authorization-url-file", FileAuthorizeURL),
	modernAuth(authScenario("auth/resource-mismatch", "the protected resource metadata names another resource than the MCP server: the client must not use it (it cannot authorize)",
		&Auth{Header: PRMPath, PRM: PRMPath, Meta: MetaOAuth, ResourceMismatch: true})),
}

// refusedAuthorizeURL is an authorization scenario whose metadata names
// a dangerous authorization_endpoint: the client is told to run
// auth/metadata-default (a client written for the official harness
// authorizes as usual) and must refuse the URL.
func refusedAuthorizeURL(name, u string) *Scenario {
	s := authScenario(name, "the authorization server metadata's authorization_endpoint is "+u+": the client must reject the URL, never open it (it cannot authorize)",
		&Auth{Header: PRMPath, PRM: PRMPath, Meta: MetaOAuth, AuthorizeURL: u})
	s.Client = "auth/metadata-default"
	return s
}

// modernAuth plays an authorization scenario in 2026-07-28 only (the
// revision whose text states the rule it judges).
func modernAuth(s *Scenario) *Scenario {
	s.Legacy = false
	return s
}

// authScenario is an authorization scenario (auth.go): both eras, over
// HTTP, from 2025-11-25 (whose discovery rules it judges); the client,
// once authorized, lists the tools and calls one: add_numbers, or
// test-tool, which the official harness's auth scenarios serve.
func authScenario(name, about string, a *Auth) *Scenario {
	return &Scenario{Name: name, Client: name, Legacy: true, Modern: true, HTTPOnly: true, since: catalog.R20251125,
		auth: a, context: a.context(name), About: about, setup: authTools}
}

func authTools(srv *mcp.Server, r *Run) {
	addNumbers(srv, r)
	mcp.AddTool(srv, &mcp.Tool{Name: "test-tool", Description: "A tool to call once authorized"},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "authorized"}}}, nil, nil
		})
}

// Get returns the scenario named name.
func Get(name string) (*Scenario, bool) {
	i := slices.IndexFunc(All, func(s *Scenario) bool { return s.Name == name })
	if i < 0 {
		return nil, false
	}
	return All[i], true
}

// Waits reports whether the scenario waits by design (the SSE retry a
// reconnecting client honours, the ping after hostile-messages' junk):
// such runs start first.
func (s *Scenario) Waits() bool { return s.reconnect || s.junk != nil }

// Junk reports whether the scenario server sends the client something
// between two pings (hostile-messages, large-message): the second ping's
// answer is that scenario's own requirement (CLI-030, CLI-037).
func (s *Scenario) Junk() bool { return s.junk != nil }

// IsAuth reports whether s is an authorization scenario (auth.go).
func (s *Scenario) IsAuth() bool { return s.auth != nil }

// Applies reports whether the scenario is played in rev over transport.
func (s *Scenario) Applies(rev catalog.Revision, transport string) bool {
	if s.HTTPOnly && transport != wire.HTTP || s.StdioOnly && transport != wire.Stdio {
		return false
	}
	if s.since != "" && rev < s.since {
		return false
	}
	if rev.IsLegacy() {
		return s.Legacy
	}
	return s.Modern
}

// For lists the scenarios played in rev over transport: the black-box
// mode's (blackBox), or the others.
func For(rev catalog.Revision, transport string, blackBox bool) []*Scenario {
	var out []*Scenario
	for _, s := range All {
		if s.Applies(rev, transport) && s.BlackBox == blackBox {
			out = append(out, s)
		}
	}
	return out
}

// server builds the scenario's MCP server for revision rev.
func (s *Scenario) server(rev catalog.Revision, r *Run) *mcp.Server {
	version := rev
	if s.older {
		version = previous(rev)
	}
	impl := &mcp.Implementation{Name: "mcpconform-scenario-" + s.Name, Version: "1.0.0"}
	if r.icons != nil {
		impl.Icons = r.icons.set(r, "server")
	}
	srv := mcp.NewServer(impl,
		&mcp.ServerOptions{SupportedProtocolVersions: []string{string(version)}, PageSize: s.pageSize})
	if s.setup != nil {
		s.setup(srv, r)
	}
	return srv
}

// previous is the revision before rev (rev itself for the first).
func previous(rev catalog.Revision) catalog.Revision {
	i := slices.Index(catalog.AllRevisions, rev)
	if i <= 0 {
		return rev
	}
	return catalog.AllRevisions[i-1]
}

type addArgs struct {
	A float64 `json:"a" jsonschema:"the first number"`
	B float64 `json:"b" jsonschema:"the second number"`
}

func addNumbersTool(srv *mcp.Server, before func(ctx context.Context, req *mcp.CallToolRequest)) {
	addNumbersAs(srv, &mcp.Tool{Name: "add_numbers", Description: "Adds two numbers"}, before)
}

// addNumbersAs adds add_numbers declared as tool.
func addNumbersAs(srv *mcp.Server, tool *mcp.Tool, before func(ctx context.Context, req *mcp.CallToolRequest)) {
	mcp.AddTool(srv, tool,
		func(ctx context.Context, req *mcp.CallToolRequest, in addArgs) (*mcp.CallToolResult, any, error) {
			if before != nil {
				before(ctx, req)
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint(in.A + in.B)}}}, nil, nil
		})
}

func addNumbers(srv *mcp.Server, _ *Run) { addNumbersTool(srv, nil) }

// pingingAddNumbers: add_numbers pings the client first (and answers
// whatever the ping got: the check judges the client's answer).
func pingingAddNumbers(srv *mcp.Server, r *Run) {
	addNumbersTool(srv, func(ctx context.Context, req *mcp.CallToolRequest) { pingClient(ctx, req.Session, r) })
}

// pingClient pings the client (and goes on whatever the ping got: the
// check judges the client's answer).
func pingClient(ctx context.Context, ss *mcp.ServerSession, r *Run) {
	if ss != nil {
		r.note("the scenario server sends ping to the client")
		// bounded: a client that never answers ends the call (its
		// answer, however late, is still recorded and judged)
		ctx, cancel := r.awaitClient(ctx)
		defer cancel()
		_ = ss.Ping(ctx, nil)
	}
}

// everything is the black-box mode's server: every feature the other
// scenarios have, for the revision of the run.
func everything(srv *mcp.Server, r *Run) {
	everyResource(srv)
	if r.Revision.IsLegacy() {
		// a client that declared elicitation.url is asked to open a page
		// (the completions follow), then pinged
		addNumbersAs(srv, iconTool(r), func(ctx context.Context, req *mcp.CallToolRequest) {
			askURLDeclared(ctx, req.Session, r)
			pingClient(ctx, req.Session, r)
		})
		return
	}
	addNumbersAs(srv, iconTool(r), nil)
	endlessMRTR(srv, r)
	schemaRefTools(srv, r)
}

// serverRequestWait bounds the scenario server's wait for the client's
// answer to its own request (ping, roots/list) before it answers the call.
const serverRequestWait = 3 * time.Second

// rootsAddNumbers: add_numbers asks the client for its roots first (the
// go-sdk sends roots/list only to a client that declared roots).
func rootsAddNumbers(srv *mcp.Server, r *Run) {
	addNumbersTool(srv, func(ctx context.Context, req *mcp.CallToolRequest) {
		if req.Session != nil {
			r.note("the scenario server asks the client for its roots")
			ctx, cancel := r.awaitClient(ctx)
			defer cancel()
			_, _ = req.Session.ListRoots(ctx, nil)
		}
	})
}

// elicitDefaultsSchema is the form elicitDefaults asks for (SEP-1034:
// every primitive type with a default, none required).
var elicitDefaultsSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"name":     map[string]any{"type": "string", "description": "User name", "default": "John Doe"},
		"age":      map[string]any{"type": "integer", "description": "User age", "default": 30},
		"score":    map[string]any{"type": "number", "description": "User score", "default": 95.5},
		"status":   map[string]any{"type": "string", "description": "User status", "enum": []string{"active", "inactive", "pending"}, "default": "active"},
		"verified": map[string]any{"type": "boolean", "description": "Verification status", "default": true},
	},
	"required": []string{},
}

// pagedTools: add_numbers and three more tools, listed two a page
// (Scenario.pageSize), add_numbers first by name.
func pagedTools(srv *mcp.Server, r *Run) {
	addNumbers(srv, r)
	for _, name := range []string{"echo_page_two", "noop_page_two", "zz_last_page"} {
		mcp.AddTool(srv, &mcp.Tool{Name: name, Description: "a tool on a later page of tools/list",
			InputSchema: map[string]any{"type": "object", "properties": map[string]any{}}},
			func(context.Context, *mcp.CallToolRequest, map[string]any) (*mcp.CallToolResult, any, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil, nil
			})
	}
}

// elicitURLUndeclared: test_client_elicitation_defaults sends a URL-mode
// elicitation to a client whose elicitation capability has no url (it
// must answer -32602, CLI-028), then the form of elicitDefaults. go-sdk
// v1.8.0's ServerSession.Elicit refuses to send a mode the client did not
// declare, so the scenario, hostile on purpose, lifts that guard for the
// one request: the session's stored client capabilities get url for it
// (the check reads the client's own initialize on the wire).
func elicitURLUndeclared(srv *mcp.Server, r *Run) {
	elicitDefaultsAfter(srv, r, func(ctx context.Context, ss *mcp.ServerSession) { askURLMode(ctx, ss, r) })
}

// elicitDefaultsAfter is elicitDefaults, with before run first on every
// call of test_client_elicitation_defaults.
func elicitDefaultsAfter(srv *mcp.Server, r *Run, before func(context.Context, *mcp.ServerSession)) {
	elicitDefaults(srv, r)
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if ct, ok := req.(*mcp.CallToolRequest); ok && ct.Params != nil && ct.Params.Name == "test_client_elicitation_defaults" {
				before(ctx, ct.Session)
			}
			return next(ctx, method, req)
		}
	})
}

func askURLMode(ctx context.Context, ss *mcp.ServerSession, r *Run) {
	ip := ss.InitializeParams()
	if ip == nil || ip.Capabilities == nil || ip.Capabilities.Elicitation == nil || ip.Capabilities.Elicitation.URL != nil {
		return // no elicitation (CLI-022 judges what it answers), or url declared
	}
	defer liftGuard(ip, func(c *mcp.ClientCapabilities) {
		el := *c.Elicitation
		el.URL = &mcp.URLElicitationCapabilities{}
		c.Elicitation = &el
	})()
	r.note("the scenario server asks the client, which declared elicitation without url, for a URL-mode elicitation")
	ctx, cancel := r.awaitClient(ctx)
	defer cancel()
	_, _ = ss.Elicit(ctx, &mcp.ElicitParams{Mode: "url", Message: "Open this page to go on", URL: r.base + ElicitURLPath, ElicitationID: "mcpconform-url-1"})
}

// elicitDefaults: test_client_elicitation_defaults asks the client for a
// form whose fields all have defaults (the go-sdk sends elicitation/create
// only to a client that declared elicitation), then answers.
func elicitDefaults(srv *mcp.Server, r *Run) {
	mcp.AddTool(srv, &mcp.Tool{Name: "test_client_elicitation_defaults", Description: "Asks the client for a form whose fields all have defaults",
		InputSchema: map[string]any{"type": "object", "properties": map[string]any{}}},
		func(ctx context.Context, req *mcp.CallToolRequest, _ map[string]any) (*mcp.CallToolResult, any, error) {
			r.note("the scenario server asks the client for a form whose fields have defaults (elicitation/create)")
			ctx, cancel := r.awaitClient(ctx)
			defer cancel()
			res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "Test client default value handling - please accept with defaults", RequestedSchema: elicitDefaultsSchema})
			text := "elicitation: "
			switch {
			case err != nil:
				text += err.Error()
			default:
				text += res.Action
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
		})
}

// everyFeature: a tool, a resource and a prompt.
func everyFeature(srv *mcp.Server, r *Run) {
	addNumbers(srv, r)
	everyResource(srv)
}

// everyResource: a resource and a prompt.
func everyResource(srv *mcp.Server) {
	srv.AddResource(&mcp.Resource{URI: "test://scenario/readme", Name: "readme", MIMEType: "text/plain"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: "scenario"}}}, nil
		})
	srv.AddPrompt(&mcp.Prompt{Name: "greeting", Description: "a greeting"},
		func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "hello"}}}}, nil
		})
}
