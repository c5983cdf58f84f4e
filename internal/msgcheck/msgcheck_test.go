package msgcheck

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

const (
	v241105 = "2024-11-05"
	v250326 = "2025-03-26"
	v250618 = "2025-06-18"
	v251125 = "2025-11-25"
	v260728 = "2026-07-28"
)

func rules(ps []Problem) []string {
	var rs []string
	for _, p := range ps {
		rs = append(rs, p.Rule)
	}
	return rs
}

// serverCase is a server message and the rules it must (only) break.
type serverCase struct {
	name   string
	rev    string
	method string // request method the response answers
	msg    string
	want   []string // exact rule set, in any order; nil means valid
}

func TestValidateServerMessage(t *testing.T) {
	cases := []serverCase{
		// JSON-RPC envelope
		{"valid legacy result", v250618, "ping", `{"jsonrpc":"2.0","id":1,"result":{}}`, nil},
		{"wrong version", v250618, "ping", `{"jsonrpc":"1.0","id":1,"result":{}}`, []string{"jsonrpc.version"}},
		{"missing version", v241105, "ping", `{"id":1,"result":{}}`, []string{"jsonrpc.version"}},
		{"null id on result", v250618, "ping", `{"jsonrpc":"2.0","id":null,"result":{}}`, []string{"jsonrpc.id"}},
		{"null id on error 2025-11-25", v251125, "", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`, []string{"jsonrpc.id"}},
		{"fractional id", v260728, "", `{"jsonrpc":"2.0","id":1.5,"result":{"resultType":"complete"}}`, []string{"jsonrpc.id"}},
		{"integral float id is an integer", v260728, "", `{"jsonrpc":"2.0","id":1.0,"result":{"resultType":"complete"}}`, nil},
		{"error without id before 2025-11-25", v250618, "", `{"jsonrpc":"2.0","error":{"code":-32700,"message":"parse error"}}`, []string{"jsonrpc.id"}},
		{"error without id from 2025-11-25", v251125, "", `{"jsonrpc":"2.0","error":{"code":-32700,"message":"parse error"}}`, nil},
		{"both result and error", v250618, "ping", `{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"x"}}`, []string{RuleResultAndError}},
		{"neither", v250618, "", `{"jsonrpc":"2.0","id":1}`, []string{"jsonrpc.kind"}},
		{"error code not integer", v250618, "", `{"jsonrpc":"2.0","id":1,"error":{"code":"-32600","message":"x"}}`, []string{"jsonrpc.error.code"}},
		{"error message missing", v250618, "", `{"jsonrpc":"2.0","id":1,"error":{"code":-32600}}`, []string{"jsonrpc.error.message"}},
		{"not an object", v250618, "", `"hello"`, []string{"jsonrpc"}},
		{"batch in 2025-03-26", v250326, "", `[{"jsonrpc":"2.0","id":1,"result":{}}]`, nil},
		{"empty batch", v250326, "", `[]`, []string{RuleBatch}},
		{"batch elsewhere", v250618, "", `[{"jsonrpc":"2.0","id":1,"result":{}}]`, []string{"jsonrpc.batch"}},
		{"duplicate member", v250618, "ping", `{"jsonrpc":"2.0","id":1,"id":2,"result":{}}`, []string{RuleDuplicateKey}},
		{"unknown notification: envelope only", v250618, "", `{"jsonrpc":"2.0","method":"notifications/custom","params":{"x":1}}`, nil},
		{"notification params not object", v250618, "", `{"jsonrpc":"2.0","method":"notifications/custom","params":[1]}`, []string{"jsonrpc.params"}},

		// requests from servers
		{"legacy ping request", v250618, "", `{"jsonrpc":"2.0","id":"s1","method":"ping"}`, nil},
		{"legacy request a server may not send", v250618, "", `{"jsonrpc":"2.0","id":"s1","method":"tools/call","params":{"name":"x"}}`, []string{RuleServerRequest}},
		{"legacy request with null id", v250618, "", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, []string{RuleRequestID}},
		{"2025-11-25 request with null id", v251125, "", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, []string{RuleRequestID, "jsonrpc.id"}},
		{"2026 servers send no requests", v260728, "", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, []string{RuleServerRequest}},
		{"legacy sampling request missing maxTokens", v250618, "", `{"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{"messages":[]}}`, []string{"createMessageRequest.params.maxTokens"}},

		// results and resultType
		{"2026 result without resultType", v260728, "", `{"jsonrpc":"2.0","id":1,"result":{}}`, []string{"result.resultType"}},
		{"2026 unknown resultType", v260728, "", `{"jsonrpc":"2.0","id":1,"result":{"resultType":"partial"}}`, []string{RuleResultType}},
		{"2026 task resultType", v260728, "tools/call", `{"jsonrpc":"2.0","id":1,"result":{"resultType":"task","content":[]}}`, []string{RuleResultTypeExtension}},
		{"input_required where MRTR is not allowed", v260728, "tools/list",
			`{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","tools":[],"ttlMs":0,"cacheScope":"public"}}`, []string{RuleResultType}},
		{"legacy result may omit resultType", v250618, "tools/call", `{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`, nil},

		// caching
		{"tools/list without cache hints", v260728, "tools/list", `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[]}}`,
			[]string{"cache.ttlMs", "cache.cacheScope"}},
		{"negative ttlMs", v260728, "resources/list", `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","resources":[],"ttlMs":-1,"cacheScope":"public"}}`,
			[]string{"cache.ttlMs"}},
		{"fractional ttlMs", v260728, "prompts/list", `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","prompts":[],"ttlMs":1.5,"cacheScope":"public"}}`,
			[]string{"cache.ttlMs"}},
		{"bad cacheScope", v260728, "server/discover",
			`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{},"ttlMs":0,"cacheScope":"shared"}}`,
			[]string{"cache.cacheScope"}},
		{"input_required result carries no cache hints", v260728, "resources/read",
			`{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","requestState":"s"}}`, nil},

		// MRTR
		{"empty InputRequiredResult", v260728, "tools/call", `{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required"}}`,
			[]string{RuleInputRequiredEmpty}},
		{"input request with a method MRTR does not allow", v260728, "tools/call",
			`{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"a":{"method":"tools/call","params":{}}}}}`,
			[]string{"inputRequest.method"}},
		{"elicitation without message", v260728, "prompts/get",
			`{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"a":{"method":"elicitation/create","params":{"requestedSchema":{"type":"object","properties":{}}}}}}}`,
			[]string{"elicitRequestFormParams.message"}},
		{"URL elicitation needs url", v260728, "tools/call",
			`{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"a":{"method":"elicitation/create","params":{"mode":"url","message":"m"}}}}}`,
			[]string{"elicitRequestURLParams.url"}},
		{"roots input request needs no params", v260728, "tools/call",
			`{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"r":{"method":"roots/list"}}}}`, nil},
		{"duplicate inputRequests keys", v260728, "tools/call",
			`{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"r":{"method":"roots/list"},"r":{"method":"roots/list"}}}}`,
			[]string{RuleDuplicateKey}},

		// tools and content
		{"tool inputSchema type must be object", v250618, "tools/list",
			`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"t","inputSchema":{"type":"array"}}]}}`, []string{"tool.inputSchema.type"}},
		{"tool without inputSchema", v241105, "tools/list", `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"t"}]}}`, []string{"tool.inputSchema"}},
		{"tool annotation hint not boolean", v250326, "tools/list",
			`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"t","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":"yes"}}]}}`,
			[]string{"toolAnnotations.readOnlyHint"}},
		{"outputSchema must be an object schema in 2025-06-18", v250618, "tools/list",
			`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"t","inputSchema":{"type":"object"},"outputSchema":{"type":"array"}}]}}`,
			[]string{"tool.outputSchema.type"}},
		{"outputSchema may be an array schema in 2026", v260728, "tools/list",
			`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","ttlMs":0,"cacheScope":"public","tools":[{"name":"t","inputSchema":{"type":"object"},"outputSchema":{"type":"array"}}]}}`, nil},
		{"inputSchema that is not JSON Schema", v251125, "tools/list",
			`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"t","inputSchema":{"type":"object","properties":{"a":{"type":5}}}}]}}`,
			[]string{RuleToolSchema}},
		{"ECMA-262 pattern Go's regexp lacks", v251125, "tools/list",
			`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"t","inputSchema":{"type":"object","properties":{"p":{"type":"string","pattern":"^(?!x)\\w+$"}}}}]}}`, nil},
		{"draft-07 inputSchema", v251125, "tools/list",
			`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"t","inputSchema":{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","definitions":{"a":{"type":"string"}}}}]}}`, nil},
		{"inputSchema $ref to a file is not followed", v251125, "tools/list",
			`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"t","inputSchema":{"type":"object","$ref":"file:///etc/passwd"}}]}}`, nil},
		{"audio content before 2025-03-26", v241105, "tools/call",
			`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"audio","data":"QUJD","mimeType":"audio/wav"}]}}`, []string{"contentBlock.type"}},
		{"audio content in 2025-03-26", v250326, "tools/call",
			`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"audio","data":"QUJD","mimeType":"audio/wav"}]}}`, nil},
		{"resource_link from 2025-06-18", v250618, "tools/call",
			`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"resource_link","uri":"file:///a","name":"a"}]}}`, nil},
		{"image data not base64", v250618, "tools/call",
			`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"image","data":"not base64!","mimeType":"image/png"}]}}`, []string{RuleBase64}},
		{"blob not base64", v250618, "resources/read",
			`{"jsonrpc":"2.0","id":1,"result":{"contents":[{"uri":"file:///a","blob":"%%%"}]}}`, []string{RuleBase64}},
		{"text and blob", v250618, "resources/read",
			`{"jsonrpc":"2.0","id":1,"result":{"contents":[{"uri":"file:///a","text":"x","blob":"QUJD"}]}}`, []string{RuleTextAndBlob}},
		{"neither text nor blob", v250618, "resources/read",
			`{"jsonrpc":"2.0","id":1,"result":{"contents":[{"uri":"file:///a"}]}}`, []string{"textResourceContents.text"}},
		{"relative resource uri", v250618, "resources/list",
			`{"jsonrpc":"2.0","id":1,"result":{"resources":[{"uri":"docs/a.md","name":"a"}]}}`, []string{"resource.uri"}},
		{"structuredContent must be an object in 2025-06-18", v250618, "tools/call",
			`{"jsonrpc":"2.0","id":1,"result":{"content":[],"structuredContent":[1,2]}}`, []string{"callToolResult.structuredContent"}},
		{"structuredContent may be any value in 2026", v260728, "tools/call",
			`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[],"structuredContent":[1,2]}}`, nil},
		{"task result for a task-augmented call", v251125, "tools/call",
			`{"jsonrpc":"2.0","id":1,"result":{"task":{"taskId":"t","status":"working","createdAt":"x","lastUpdatedAt":"x","ttl":null}}}`, nil},

		// prompts, completion, resources templates
		{"prompt message content is one block", v250618, "prompts/get",
			`{"jsonrpc":"2.0","id":1,"result":{"messages":[{"role":"user","content":[{"type":"text","text":"x"}]}]}}`, []string{"promptMessage.content"}},
		{"prompt message role", v250618, "prompts/get",
			`{"jsonrpc":"2.0","id":1,"result":{"messages":[{"role":"system","content":{"type":"text","text":"x"}}]}}`, []string{"promptMessage.role"}},
		{"prompt argument required flag", v250618, "prompts/list",
			`{"jsonrpc":"2.0","id":1,"result":{"prompts":[{"name":"p","arguments":[{"name":"a","required":"yes"}]}]}}`, []string{"promptArgument.required"}},
		{"too many completion values (legacy)", v250618, "completion/complete",
			`{"jsonrpc":"2.0","id":1,"result":{"completion":{"values":[` + strings.Repeat(`"v",`, 100) + `"v"]}}}`, []string{RuleCompletionValues}},
		{"too many completion values (2026)", v260728, "completion/complete",
			`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","completion":{"values":[` + strings.Repeat(`"v",`, 100) + `"v"]}}}`,
			[]string{"completeResult.completion.values"}},
		{"completion total not integer", v250618, "completion/complete",
			`{"jsonrpc":"2.0","id":1,"result":{"completion":{"values":[],"total":"3"}}}`, []string{"completeResult.completion.total"}},
		{"resource template uriTemplate", v250618, "resources/templates/list",
			`{"jsonrpc":"2.0","id":1,"result":{"resourceTemplates":[{"uriTemplate":"file:///{a{b}}","name":"t"}]}}`, []string{"resourceTemplate.uriTemplate"}},

		// lifecycle
		{"initialize result", v250618, "initialize",
			`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"s","version":"1"}}}`, nil},
		{"initialize result without serverInfo.version", v250618, "initialize",
			`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"s"}}}`, []string{"implementation.version"}},
		{"capability flag not boolean", v250618, "initialize",
			`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"resources":{"subscribe":"yes"}},"serverInfo":{"name":"s","version":"1"}}}`,
			[]string{"serverCapabilities.resources.subscribe"}},
		{"extension id without prefix", v260728, "server/discover",
			`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"extensions":{"tasks":{}}},"ttlMs":0,"cacheScope":"public"}}`,
			[]string{RuleExtensionKey}},

		// notifications
		{"log level", v250618, "", `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"verbose","data":"x"}}`, []string{"loggingMessageNotification.params.level"}},
		{"log without data", v251125, "", `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info"}}`, []string{"loggingMessageNotificationParams.data"}},
		{"progress not a number", v250618, "", `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":"half"}}`, []string{"progressNotification.params.progress"}},
		{"progress message before 2025-03-26 is an extra member", v241105, "", `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1,"message":"m"}}`, nil},
		{"list_changed", v260728, "", `{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"listen-1"}}}`, nil},
		{"subscriptionId type", v260728, "", `{"jsonrpc":"2.0","method":"notifications/prompts/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":true}}}`,
			[]string{"meta.io.modelcontextprotocol/subscriptionId"}},
		{"resources/updated uri", v250618, "", `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{}}`, []string{"resourceUpdatedNotification.params.uri"}},
		{"cancelled requestId", v250618, "", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":null}}`, []string{"cancelledNotification.params.requestId"}},
		{"cancelled without requestId in 2025-11-25", v251125, "", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{}}`, nil},
		{"_meta key grammar", v250618, "", `{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"bad key":1}}}`, []string{RuleMetaKey}},
		{"_meta key grammar before 2025-06-18", v250326, "", `{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"bad key":1}}}`, nil},

		// 2026 error shapes and codes
		{"unsupported version", v260728, "", `{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"m","data":{"supported":["2026-07-28"],"requested":"1999-01-01"}}}`, nil},
		{"unsupported version without data", v260728, "", `{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"m"}}`, []string{"jsonrpc.error.data"}},
		{"unsupported version data.supported", v260728, "", `{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"m","data":{"supported":"2026-07-28","requested":"x"}}}`,
			[]string{"jsonrpc.error.data.supported"}},
		{"missing capability data", v260728, "", `{"jsonrpc":"2.0","id":1,"error":{"code":-32021,"message":"m","data":{"requiredCapabilities":[]}}}`,
			[]string{"jsonrpc.error.data.requiredCapabilities"}},
		{"-32002 in 2026", v260728, "", `{"jsonrpc":"2.0","id":1,"error":{"code":-32002,"message":"not found"}}`, []string{RuleErrorCode}},
		{"-32002 in 2025-11-25", v251125, "", `{"jsonrpc":"2.0","id":1,"error":{"code":-32002,"message":"not found"}}`, nil},
		{"unallocated spec code", v260728, "", `{"jsonrpc":"2.0","id":1,"error":{"code":-32050,"message":"m"}}`, []string{RuleErrorCode}},
		{"implementation-defined code", v260728, "", `{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"m"}}`, nil},
		{"URL elicitation required", v251125, "", `{"jsonrpc":"2.0","id":1,"error":{"code":-32042,"message":"m","data":{"elicitations":[{"mode":"url","message":"m","elicitationId":"e","url":"https://x.example"}]}}}`, nil},
		{"URL elicitation required without elicitationId", v251125, "", `{"jsonrpc":"2.0","id":1,"error":{"code":-32042,"message":"m","data":{"elicitations":[{"mode":"url","message":"m","url":"https://x.example"}]}}}`,
			[]string{"elicitRequestURLParams.elicitationId"}},
	}
	for _, tc := range cases {
		t.Run(tc.rev+"/"+tc.name, func(t *testing.T) {
			got := ValidateServerMessage(tc.rev, []byte(tc.msg), tc.method)
			gotRules := rules(got)
			slices.Sort(gotRules)
			want := slices.Clone(tc.want)
			slices.Sort(want)
			if !slices.Equal(slices.Compact(gotRules), slices.Compact(want)) {
				t.Errorf("rules %v, want %v\nproblems: %v", gotRules, want, got)
			}
			for _, p := range got {
				if p.Message == "" || (p.Path != "" && !strings.HasPrefix(p.Path, "/")) {
					t.Errorf("malformed problem %#v", p)
				}
			}
		})
	}
}

func TestProblemPaths(t *testing.T) {
	got := ValidateServerMessage(v260728, []byte(`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","ttlMs":5,"cacheScope":"public",
		"tools":[{"name":"ok","inputSchema":{"type":"object"}},{"name":"a/b~c","inputSchema":{"type":"string"}}]}}`), "tools/list")
	want := []Problem{{Path: "/result/tools/1/inputSchema/type", Rule: "tool.inputSchema.type", Message: `must be "object", got "string"`}}
	if !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	got = ValidateAs(v260728, "InputRequests", []byte(`{"a/b":{"method":"roots/list","params":{"_meta":{"x y":1}}}}`))
	if len(got) != 1 || got[0].Path != "/a~1b/params/_meta/x y" || got[0].Rule != RuleMetaKey {
		t.Fatalf("got %v", got)
	}
}

func TestValidateAs(t *testing.T) {
	cases := []struct {
		rev, def, raw string
		want          []string
	}{
		{v260728, "CallToolResult", `{"resultType":"complete","content":[{"type":"text","text":"hi"}]}`, nil},
		{v260728, "CallToolResult", `{"resultType":"input_required","content":[]}`, []string{RuleResultType}},
		{v260728, "InputRequiredResult", `{"resultType":"input_required","requestState":"s"}`, nil},
		{v260728, "InputRequiredResult", `{"resultType":"complete","requestState":"s"}`, []string{RuleResultType}},
		{v260728, "InputRequiredResult", `{"resultType":"input_required","inputRequests":{}}`, []string{RuleInputRequiredEmpty}},
		{v260728, "CallToolResultResponse", `{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","requestState":"s"}}`, nil},
		{v260728, "CallToolResultResponse", `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete"}}`, []string{"callToolResult.content"}},
		{v260728, "Tool", `{"name":"t","inputSchema":{"type":"object","oneOf":[{"required":["a"]}]}}`, nil},
		{v241105, "Tool", `{"name":"t","inputSchema":{"type":"object","properties":{"a":5}}}`, []string{"tool.inputSchema.properties"}},
		{v250618, "ContentBlock", `{"type":"video"}`, []string{"contentBlock.type"}},
		{v250618, "PromptMessage", `{"role":"user","content":{"type":"resource","resource":{"uri":"file:///a","text":"x"}}}`, nil},
		{v260728, "ServerCapabilities", `{"logging":{"ratio":0.5,"x":null}}`, nil},
		{v260728, "RequestId", `null`, []string{"requestId"}},
		{v260728, "NoSuchThing", `{}`, []string{"definition"}},
		{"1999-01-01", "Tool", `{}`, []string{"revision"}},
		{v260728, "Tool", `{"name":`, []string{"json.syntax"}},
		{v260728, "Tool", `{} {}`, []string{"json.syntax"}},
	}
	for _, tc := range cases {
		got := ValidateAs(tc.rev, tc.def, []byte(tc.raw))
		if !slices.Equal(rules(got), tc.want) {
			t.Errorf("%s %s %s: rules %v, want %v (%v)", tc.rev, tc.def, tc.raw, rules(got), tc.want, got)
		}
	}
}

// TestDefinitionsCoverTheBrief pins down the definitions the suite relies on.
func TestDefinitionsCoverTheBrief(t *testing.T) {
	common := []string{
		"JSONRPCRequest", "JSONRPCNotification", "JSONRPCResponse", "JSONRPCMessage", "EmptyResult", "Result",
		"ListToolsResult", "Tool", "CallToolResult", "TextContent", "ImageContent", "EmbeddedResource",
		"TextResourceContents", "BlobResourceContents", "ListResourcesResult", "Resource",
		"ListResourceTemplatesResult", "ResourceTemplate", "ReadResourceResult", "ListPromptsResult", "Prompt",
		"PromptArgument", "GetPromptResult", "PromptMessage", "CompleteResult", "LoggingMessageNotification",
		"ProgressNotification", "ToolListChangedNotification", "ResourceListChangedNotification",
		"PromptListChangedNotification", "ResourceUpdatedNotification", "CancelledNotification", "ServerCapabilities",
	}
	per := map[string][]string{
		v241105: {"InitializeResult", "JSONRPCError"},
		v250326: {"InitializeResult", "JSONRPCError", "AudioContent", "ToolAnnotations", "JSONRPCBatchResponse"},
		v250618: {"InitializeResult", "JSONRPCError", "AudioContent", "ResourceLink", "ContentBlock", "ElicitRequest"},
		v251125: {"InitializeResult", "JSONRPCErrorResponse", "JSONRPCResultResponse", "Icon", "CreateTaskResult", "URLElicitationRequiredError"},
		v260728: {"DiscoverResult", "JSONRPCErrorResponse", "InputRequiredResult", "CacheableResult", "MetaObject",
			"UnsupportedProtocolVersionError", "MissingRequiredClientCapabilityError", "HeaderMismatchError",
			"SubscriptionsListenResult", "CallToolResultResponse"},
	}
	for _, rev := range Revisions() {
		have := Definitions(rev)
		for _, d := range append(slices.Clone(common), per[rev]...) {
			if !slices.Contains(have, d) {
				t.Errorf("%s: no definition %s", rev, d)
			}
		}
	}
	if Definitions("nope") != nil {
		t.Error("Definitions of an unknown revision")
	}
}

func TestMetaKeyGrammar(t *testing.T) {
	ok := []string{"", "a", "progressToken", "com.example/k", "com.example/", "io.modelcontextprotocol/serverInfo",
		"a-b.c_d", "x1.y-2/z", "traceparent", "9lives"}
	bad := []string{"-a", "a-", "a b", "com..example/k", "1com.example/k", "com.example-/k", "com.example/k!", "/k", "a/b/c"}
	for _, k := range ok {
		if why := metaKeyProblem(k, false); why != "" {
			t.Errorf("%q: %s", k, why)
		}
	}
	for _, k := range bad {
		if metaKeyProblem(k, false) == "" {
			t.Errorf("%q accepted", k)
		}
	}
	if metaKeyProblem("tasks", true) == "" {
		t.Error("extension id without prefix accepted")
	}
}

func TestBase64(t *testing.T) {
	for _, s := range []string{"", "QUJD", "QUI=", "QUI", "iVBORw0KGgo="} {
		if err := CheckBase64(s); err != nil {
			t.Errorf("%q: %v", s, err)
		}
	}
	for _, s := range []string{"***", "QUJD\n", "a-_b", "QUI==", "Q"} {
		if CheckBase64(s) == nil {
			t.Errorf("%q accepted", s)
		}
	}
}

func TestDuplicateKeys(t *testing.T) {
	got := duplicateKeys([]byte(`{"a":1,"b":{"c":[{"d":1,"d":2}],"c":3},"a":{"x":[1,{"y":1,"y":1,"y":1}]}}`))
	want := []string{"/b/c/0/d", "/b/c", "/a", "/a/x/1/y", "/a/x/1/y"}
	if !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if d := duplicateKeys([]byte(`[{"a":1},{"a":2}]`)); d != nil {
		t.Fatalf("false duplicate %v", d)
	}
}

func TestRuleNames(t *testing.T) {
	for def, want := range map[string]string{
		"CallToolResult": "callToolResult", "JSONRPCRequest": "jsonrpc", "URLElicitationRequiredError": "urlElicitationRequiredError",
		"Tool": "tool", "ElicitRequestURLParams": "elicitRequestURLParams", "ToolAnnotations": "toolAnnotations",
	} {
		if got := ruleName(def); got != want {
			t.Errorf("ruleName(%s) = %s, want %s", def, got, want)
		}
	}
}

// TestNoPanics feeds arbitrary JSON to every definition and to the message
// validator of every revision.
func TestNoPanics(t *testing.T) {
	rapidChecks(200)
	value := jsonValue(3)
	rapid.Check(t, func(rt *rapid.T) {
		rev := rapid.SampledFrom(Revisions()).Draw(rt, "rev")
		raw, _ := json.Marshal(value.Draw(rt, "value"))
		def := rapid.SampledFrom(Definitions(rev)).Draw(rt, "def")
		_ = ValidateAs(rev, def, raw)
		_ = ValidateServerMessage(rev, raw, rapid.SampledFrom([]string{"", "tools/call", "tools/list", "initialize"}).Draw(rt, "method"))
	})
}

func jsonValue(depth int) *rapid.Generator[any] {
	leaves := []*rapid.Generator[any]{
		rapid.Just[any](nil), rapid.Bool().AsAny(), rapid.Int().AsAny(), rapid.Float64().AsAny(),
		rapid.SampledFrom([]string{"", "2.0", "complete", "input_required", "text", "tools/call", "-32022"}).AsAny(),
	}
	if depth == 0 {
		return rapid.OneOf(leaves...)
	}
	keys := rapid.SampledFrom([]string{"jsonrpc", "id", "method", "result", "error", "code", "type", "content",
		"resultType", "params", "_meta", "inputRequests", "tools", "x"})
	return rapid.OneOf(append(leaves,
		rapid.SliceOfN(jsonValue(depth-1), 0, 3).AsAny(),
		rapid.MapOfN(keys, jsonValue(depth-1), 0, 5).AsAny(),
	)...)
}

func TestDuplicateKeysEscapes(t *testing.T) {
	got := duplicateKeys([]byte(`{"a":"}{\"a\":1","\u0061":[1,"]",{"b~/c":1,"b~/c":2}],"x\\y":{},"x\\y":1}`))
	want := []string{"/a", "/a/2/b~0~1c", "/x\\y"}
	if !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}
