package msgcheck

// Common types, the JSON-RPC envelope, errors and the message unions.

func (b *builder) base() {
	b.def("RequestId", typesNode{"string", "integer"})
	b.def("ProgressToken", typesNode{"string", "integer"})
	b.def("Cursor", str)
	b.def("Role", enum("assistant", "user"))
	b.def("LoggingLevel", enum("alert", "critical", "debug", "emergency", "error", "info", "notice", "warning"))

	if b.at(r20260728) {
		// schema.ts: JSONValue = string | number | boolean | null | JSONObject
		// | JSONArray. The official schema.json renders it without non-integer
		// numbers and without null; the model follows schema.ts (see the
		// differential test's findings).
		b.def("JSONValue", anyV)
		b.def("JSONObject", mapOf(anyV))
		b.def("JSONArray", arr(anyV))
		b.def("ResultType", str)
		b.def("MetaObject", obj().also(metaKeys))
		b.def("RequestMetaObject", obj(
			opt("progressToken", ref("ProgressToken")),
			req("io.modelcontextprotocol/protocolVersion", str),
			opt("io.modelcontextprotocol/clientInfo", ref("Implementation")),
			req("io.modelcontextprotocol/clientCapabilities", ref("ClientCapabilities")),
			opt("io.modelcontextprotocol/logLevel", ref("LoggingLevel")),
		).also(metaKeys))
		b.def("ResultMetaObject", obj(opt("io.modelcontextprotocol/serverInfo", ref("Implementation"))).also(metaKeys))
		b.def("NotificationMetaObject", obj(opt("io.modelcontextprotocol/subscriptionId", ref("RequestId"))).also(metaKeys))
	}

	res := obj(opt("_meta", b.resultMeta()), when(b.at(r20260728), req("resultType", ruleNode{"result.resultType", str})))
	if b.at(r20260728) {
		res.also(resultTypeIs("complete", "input_required"))
	}
	b.def("Result", res)
	b.def("EmptyResult", ref("Result"))
	b.def("PaginatedResult", b.result(opt("nextCursor", ref("Cursor"))))
	if b.at(r20260728) {
		b.def("CacheableResult", b.cacheable())
	}

	// Request and notification bases.
	if b.at(r20251125) {
		b.def("Request", obj(req("method", str), opt("params", anyObj())))
		b.def("Notification", obj(req("method", str), opt("params", anyObj())))
		if b.at(r20260728) {
			b.def("RequestParams", obj(req("_meta", b.requestMeta())))
			b.def("PaginatedRequestParams", obj(req("_meta", b.requestMeta()), opt("cursor", ref("Cursor"))))
		} else {
			b.def("RequestParams", obj(opt("_meta", b.requestMeta())))
			b.def("PaginatedRequestParams", obj(opt("_meta", b.requestMeta()), opt("cursor", ref("Cursor"))))
		}
		b.def("NotificationParams", obj(opt("_meta", b.notificationMeta())))
		b.def("PaginatedRequest", obj(
			req("jsonrpc", versionNode), req("id", idNode), req("method", str),
			prop{name: "params", n: ref("PaginatedRequestParams"), req: b.at(r20260728)},
		))
	} else {
		b.def("Request", obj(req("method", str), opt("params", obj(opt("_meta", b.requestMeta())))))
		b.def("Notification", obj(req("method", str), opt("params", obj(opt("_meta", b.meta())))))
		b.def("PaginatedRequest", obj(req("method", str), opt("params", obj(opt("cursor", ref("Cursor"))))))
	}

	// Implementation and icons.
	b.def("Implementation", obj(
		req("name", str),
		req("version", str),
		when(b.at(r20250618), opt("title", str)),
		when(b.at(r20251125), opt("description", str)),
		when(b.at(r20251125), opt("icons", arr(ref("Icon")))),
		when(b.at(r20251125), opt("websiteUrl", uriStr)),
	))
	if b.at(r20250618) {
		b.def("BaseMetadata", obj(req("name", str), opt("title", str)))
	}
	if b.at(r20251125) {
		b.def("Icon", obj(
			req("src", uriStr),
			opt("mimeType", str),
			opt("sizes", strs),
			opt("theme", enum("dark", "light")),
		))
		b.def("Icons", obj(opt("icons", arr(ref("Icon")))))
	}

	b.capabilities()
}

func (b *builder) capabilities() {
	j := b.jsonObject
	server := obj(
		opt("experimental", mapOf(j())),
		opt("logging", j()),
		when(b.at(r20250326), opt("completions", j())),
		opt("prompts", obj(opt("listChanged", boolean))),
		opt("resources", obj(opt("listChanged", boolean), opt("subscribe", boolean))),
		opt("tools", obj(opt("listChanged", boolean))),
		when(b.only(r20251125), opt("tasks", obj(
			opt("cancel", anyObj()),
			opt("list", anyObj()),
			opt("requests", obj(opt("tools", obj(opt("call", anyObj()))))),
		))),
		when(b.at(r20260728), opt("extensions", mapOf(j()).also(extensionKeys))),
	)
	b.def("ServerCapabilities", server)

	client := obj(opt("experimental", mapOf(j())))
	switch {
	case b.at(r20260728):
		client = client.with(
			opt("roots", anyObj()),
			opt("sampling", obj(opt("context", j()), opt("tools", j()))),
			opt("elicitation", obj(opt("form", j()), opt("url", j()))),
			opt("extensions", mapOf(j()).also(extensionKeys)),
		)
	case b.at(r20251125):
		client = client.with(
			opt("roots", obj(opt("listChanged", boolean))),
			opt("sampling", obj(opt("context", anyObj()), opt("tools", anyObj()))),
			opt("elicitation", obj(opt("form", anyObj()), opt("url", anyObj()))),
			opt("tasks", obj(
				opt("cancel", anyObj()),
				opt("list", anyObj()),
				opt("requests", obj(
					opt("elicitation", obj(opt("create", anyObj()))),
					opt("sampling", obj(opt("createMessage", anyObj()))),
				)),
			)),
		)
	default:
		client = client.with(
			opt("roots", obj(opt("listChanged", boolean))),
			opt("sampling", anyObj()),
			when(b.at(r20250618), opt("elicitation", anyObj())),
		)
	}
	b.def("ClientCapabilities", client)
}

// errorShape is the JSON-RPC error object.
func errorShape() *objNode {
	return obj(req("code", integer), req("message", str), opt("data", anyV))
}

func (b *builder) envelope() {
	var reqParams, notifParams node = anyObj(), anyObj()
	if !b.at(r20251125) {
		reqParams = obj(opt("_meta", b.requestMeta()))
		notifParams = obj(opt("_meta", b.meta()))
	}
	method := ruleNode{"jsonrpc.method", str}
	b.def("JSONRPCRequest", obj(
		req("jsonrpc", versionNode), req("id", idNode), req("method", method),
		opt("params", ruleNode{"jsonrpc.params", reqParams}),
	))
	b.def("JSONRPCNotification", obj(
		req("jsonrpc", versionNode), req("method", method),
		opt("params", ruleNode{"jsonrpc.params", notifParams}),
	))
	errObj := ruleNode{"jsonrpc.error", errorShape()}
	result := req("result", ref("Result"))
	var msg anyOfNode
	if b.at(r20251125) {
		b.def("JSONRPCResultResponse", obj(req("jsonrpc", versionNode), req("id", idNode), result))
		b.def("JSONRPCErrorResponse", obj(req("jsonrpc", versionNode), opt("id", idNode), req("error", errObj)))
		b.def("JSONRPCResponse", also(anyOf(ref("JSONRPCResultResponse"), ref("JSONRPCErrorResponse")), resultAndError))
		msg = anyOf(ref("JSONRPCRequest"), ref("JSONRPCNotification"), ref("JSONRPCResultResponse"), ref("JSONRPCErrorResponse"))
	} else {
		b.def("JSONRPCResponse", obj(req("jsonrpc", versionNode), req("id", idNode), result))
		b.def("JSONRPCError", obj(req("jsonrpc", versionNode), req("id", idNode), req("error", errObj)))
		msg = anyOf(ref("JSONRPCRequest"), ref("JSONRPCNotification"), ref("JSONRPCResponse"), ref("JSONRPCError"))
	}
	if b.only(r20250326) {
		b.def("JSONRPCBatchRequest", also(arr(anyOf(ref("JSONRPCRequest"), ref("JSONRPCNotification"))), emptyBatch))
		b.def("JSONRPCBatchResponse", also(arr(anyOf(ref("JSONRPCResponse"), ref("JSONRPCError"))), emptyBatch))
		msg = append(msg, ref("JSONRPCBatchRequest"), ref("JSONRPCBatchResponse"))
	}
	b.def("JSONRPCMessage", also(msg, func(c *checker, v any, at loc) {
		resultAndError(c, v, at)
		requestID(c, v, at)
	}))
}

func resultAndError(c *checker, v any, at loc) {
	m, ok := v.(map[string]any)
	if !ok {
		return
	}
	_, r := m["result"]
	_, e := m["error"]
	if r && e {
		c.semantic(at, RuleResultAndError, "a response carries exactly one of result and error, not both")
	}
}

// requestID reports a request whose id is not a string or integer. The
// schema accepts such a message as a notification with an extra member.
func requestID(c *checker, v any, at loc) {
	m, ok := v.(map[string]any)
	if !ok {
		return
	}
	if _, isReq := m["method"]; !isReq {
		return
	}
	id, hasID := m["id"]
	if !hasID {
		return
	}
	if t := jsonType(id); t != "string" && t != "integer" {
		c.semantic(at.field("id"), RuleRequestID, "a request id must be a string or integer, got %s", t)
	}
}

func emptyBatch(c *checker, v any, at loc) {
	if a, ok := v.([]any); ok && len(a) == 0 {
		c.semantic(at, RuleBatch, "an empty batch is not a valid JSON-RPC message")
	}
}

func (b *builder) errors() {
	if b.at(r20251125) {
		b.def("Error", errorShape())
	}
	errorResponse := func(code int64, data prop) *objNode {
		return obj(
			req("jsonrpc", versionNode),
			opt("id", idNode),
			req("error", ruleNode{"jsonrpc.error", errorShape().with(req("code", constInt(code)), data)}),
		)
	}
	if b.only(r20251125) {
		b.def("URLElicitationRequiredError", errorResponse(-32042,
			req("data", obj(req("elicitations", arr(ref("ElicitRequestURLParams")))))))
	}
	if !b.at(r20260728) {
		return
	}
	for name, code := range map[string]int64{
		"ParseError":          -32700,
		"InvalidRequestError": -32600,
		"MethodNotFoundError": -32601,
		"InvalidParamsError":  -32602,
		"InternalError":       -32603,
	} {
		b.def(name, errorShape().with(req("code", constInt(code))))
	}
	b.def("HeaderMismatchError", errorResponse(-32020, prop{}))
	b.def("UnsupportedProtocolVersionError", errorResponse(-32022,
		req("data", obj(req("supported", strs), req("requested", str)))))
	b.def("MissingRequiredClientCapabilityError", errorResponse(-32021,
		req("data", obj(req("requiredCapabilities", ref("ClientCapabilities"))))))
}

// unions are the schema's ClientRequest, ServerResult... definitions.
func (b *builder) unions() {
	refs := func(names ...string) anyOfNode {
		var n anyOfNode
		for _, name := range names {
			if b.m.defs[name] != nil {
				n = append(n, ref(name))
			}
		}
		return n
	}
	if b.at(r20260728) {
		b.def("ClientRequest", refs("DiscoverRequest", "ListResourcesRequest", "ListResourceTemplatesRequest",
			"ReadResourceRequest", "SubscriptionsListenRequest", "ListPromptsRequest", "GetPromptRequest",
			"ListToolsRequest", "CallToolRequest", "CompleteRequest"))
		b.def("ClientNotification", ref("CancelledNotification"))
		b.def("ClientResult", ref("Result"))
		b.def("ServerNotification", refs("CancelledNotification", "ProgressNotification",
			"ResourceListChangedNotification", "SubscriptionsAcknowledgedNotification",
			"ResourceUpdatedNotification", "PromptListChangedNotification", "ToolListChangedNotification",
			"LoggingMessageNotification"))
		b.def("ServerResult", refs("Result", "InputRequiredResult", "DiscoverResult", "ListResourcesResult",
			"ListResourceTemplatesResult", "ReadResourceResult", "SubscriptionsListenResult", "ListPromptsResult",
			"GetPromptResult", "ListToolsResult", "CallToolResult", "CompleteResult"))
		return
	}
	b.def("ClientRequest", refs("InitializeRequest", "PingRequest", "ListResourcesRequest",
		"ListResourceTemplatesRequest", "ReadResourceRequest", "SubscribeRequest", "UnsubscribeRequest",
		"ListPromptsRequest", "GetPromptRequest", "ListToolsRequest", "CallToolRequest", "GetTaskRequest",
		"GetTaskPayloadRequest", "CancelTaskRequest", "ListTasksRequest", "SetLevelRequest", "CompleteRequest"))
	b.def("ClientNotification", refs("CancelledNotification", "InitializedNotification", "ProgressNotification",
		"TaskStatusNotification", "RootsListChangedNotification"))
	b.def("ClientResult", refs("Result", "GetTaskResult", "GetTaskPayloadResult", "CancelTaskResult",
		"ListTasksResult", "CreateMessageResult", "ListRootsResult", "ElicitResult"))
	b.def("ServerRequest", refs("PingRequest", "GetTaskRequest", "GetTaskPayloadRequest", "CancelTaskRequest",
		"ListTasksRequest", "CreateMessageRequest", "ListRootsRequest", "ElicitRequest"))
	b.def("ServerNotification", refs("CancelledNotification", "ProgressNotification",
		"ResourceListChangedNotification", "ResourceUpdatedNotification", "PromptListChangedNotification",
		"ToolListChangedNotification", "TaskStatusNotification", "LoggingMessageNotification",
		"ElicitationCompleteNotification"))
	b.def("ServerResult", refs("Result", "InitializeResult", "ListResourcesResult", "ListResourceTemplatesResult",
		"ReadResourceResult", "ListPromptsResult", "GetPromptResult", "ListToolsResult", "CallToolResult",
		"GetTaskResult", "GetTaskPayloadResult", "CancelTaskResult", "ListTasksResult", "CompleteResult"))
}

// Routing tables shared by the model and SchemaValidator: the definition a
// server message is checked against, by method. A revision uses the entries
// whose definitions it has.
var (
	resultDefs = map[string]string{
		"initialize":               "InitializeResult",
		"ping":                     "EmptyResult",
		"resources/subscribe":      "EmptyResult",
		"resources/unsubscribe":    "EmptyResult",
		"logging/setLevel":         "EmptyResult",
		"server/discover":          "DiscoverResult",
		"subscriptions/listen":     "SubscriptionsListenResult",
		"tools/list":               "ListToolsResult",
		"tools/call":               "CallToolResult",
		"resources/list":           "ListResourcesResult",
		"resources/templates/list": "ListResourceTemplatesResult",
		"resources/read":           "ReadResourceResult",
		"prompts/list":             "ListPromptsResult",
		"prompts/get":              "GetPromptResult",
		"completion/complete":      "CompleteResult",
		"tasks/get":                "GetTaskResult",
		"tasks/result":             "GetTaskPayloadResult",
		"tasks/cancel":             "CancelTaskResult",
		"tasks/list":               "ListTasksResult",
	}
	// mrtrMethods may answer with an InputRequiredResult (2026-07-28).
	mrtrMethods = map[string]bool{"tools/call": true, "prompts/get": true, "resources/read": true}

	serverRequestDefs = map[string]string{
		"ping":                   "PingRequest",
		"sampling/createMessage": "CreateMessageRequest",
		"roots/list":             "ListRootsRequest",
		"elicitation/create":     "ElicitRequest",
		"tasks/get":              "GetTaskRequest",
		"tasks/result":           "GetTaskPayloadRequest",
		"tasks/cancel":           "CancelTaskRequest",
		"tasks/list":             "ListTasksRequest",
	}
	notificationDefs = map[string]string{
		"notifications/cancelled":                  "CancelledNotification",
		"notifications/progress":                   "ProgressNotification",
		"notifications/message":                    "LoggingMessageNotification",
		"notifications/resources/list_changed":     "ResourceListChangedNotification",
		"notifications/resources/updated":          "ResourceUpdatedNotification",
		"notifications/prompts/list_changed":       "PromptListChangedNotification",
		"notifications/tools/list_changed":         "ToolListChangedNotification",
		"notifications/tasks/status":               "TaskStatusNotification",
		"notifications/elicitation/complete":       "ElicitationCompleteNotification",
		"notifications/subscriptions/acknowledged": "SubscriptionsAcknowledgedNotification",
	}
	// errorDefs are the error responses with a fixed code and data shape.
	errorDefs = map[int64]string{
		-32042: "URLElicitationRequiredError",
		-32020: "HeaderMismatchError",
		-32021: "MissingRequiredClientCapabilityError",
		-32022: "UnsupportedProtocolVersionError",
	}
)

// routes fills the tables ValidateServerMessage dispatches on.
func (b *builder) routes() {
	m := b.m
	for method, def := range resultDefs {
		if m.defs[def] == nil {
			continue
		}
		switch {
		case b.at(r20260728) && mrtrMethods[method]:
			m.resultFor[method] = mrtrResult(def)
		case b.only(r20251125) && method == "tools/call":
			m.resultFor[method] = taskOrResult(def)
		default:
			m.resultFor[method] = ref(def)
		}
	}
	// The legacy lifecycle methods are gone in 2026-07-28.
	if b.at(r20260728) {
		for _, method := range []string{"ping", "resources/subscribe", "resources/unsubscribe", "logging/setLevel"} {
			delete(m.resultFor, method)
		}
	}
	if !b.at(r20260728) {
		for method, def := range serverRequestDefs {
			if m.defs[def] != nil {
				m.serverRequests[method] = ref(def)
			}
		}
	}
	for method, def := range notificationDefs {
		if m.defs[def] != nil {
			m.notifications[method] = ref(def)
		}
	}
}
