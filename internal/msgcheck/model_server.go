package msgcheck

// Server features: lifecycle and discovery, tools, resources, prompts,
// completion, logging, progress and cancellation.

func (b *builder) lifecycle() {
	if b.at(r20260728) {
		b.def("DiscoverRequest", b.request("server/discover", ref("RequestParams"), true))
		b.def("DiscoverResult", b.cacheable(
			req("supportedVersions", strs),
			req("capabilities", ref("ServerCapabilities")),
			opt("instructions", str),
		))
		b.def("DiscoverResultResponse", resultResponse(ref("DiscoverResult")))
		return
	}
	initParams := obj(
		req("protocolVersion", str),
		req("capabilities", ref("ClientCapabilities")),
		req("clientInfo", ref("Implementation")),
	)
	if b.at(r20251125) {
		b.def("InitializeRequestParams", initParams.with(opt("_meta", b.requestMeta())))
		b.def("InitializeRequest", b.request("initialize", ref("InitializeRequestParams"), true))
		b.def("PingRequest", b.request("ping", ref("RequestParams"), false))
	} else {
		b.def("InitializeRequest", b.request("initialize", initParams, true))
		b.def("PingRequest", b.request("ping", obj(opt("_meta", b.requestMeta())), false))
	}
	b.def("InitializeResult", b.result(
		req("protocolVersion", str),
		req("capabilities", ref("ServerCapabilities")),
		req("serverInfo", ref("Implementation")),
		opt("instructions", str),
	))
	b.def("InitializedNotification", b.notification("notifications/initialized", b.notificationParams(), false))
}

// params names the params definition from 2025-11-25 on, and inlines it
// before (the older schemas have no *Params definitions).
func (b *builder) params(name string, shape *objNode) node {
	if !b.at(r20251125) {
		return shape
	}
	b.def(name, shape)
	return ref(name)
}

// paramsMeta is the _meta member of typed request params.
func (b *builder) paramsMeta() prop {
	switch {
	case b.at(r20260728):
		return req("_meta", b.requestMeta())
	case b.at(r20251125):
		return opt("_meta", b.requestMeta())
	}
	return prop{}
}

// mrtrParams are the retry members of 2026-07-28 MRTR-capable requests.
func (b *builder) mrtrParams(shape *objNode) *objNode {
	if !b.at(r20260728) {
		return shape
	}
	return shape.with(opt("inputResponses", ref("InputResponses")), opt("requestState", str))
}

func (b *builder) paginated() node {
	if b.at(r20251125) {
		return ref("PaginatedRequestParams")
	}
	return obj(opt("cursor", ref("Cursor")))
}

func (b *builder) listRequest(name, method string) {
	b.def(name, b.request(method, b.paginated(), b.at(r20260728)))
}

func (b *builder) tools() {
	var input, output *objNode
	if b.at(r20260728) {
		// Any 2020-12 keyword may sit next to type:"object".
		input = obj(req("type", konst("object")), opt("$schema", str))
		output = obj(opt("$schema", str))
	} else {
		input = obj(
			req("type", konst("object")),
			opt("properties", mapOf(anyObj())),
			opt("required", strs),
			when(b.at(r20251125), opt("$schema", str)),
		)
		output = input
	}
	var inputN, outputN node = input, output
	if b.at(r20251125) {
		inputN = also(input, checkJSONSchema)
		outputN = also(output, checkJSONSchema)
	}
	b.def("Tool", obj(
		req("name", str),
		opt("description", str),
		req("inputSchema", inputN),
		when(b.at(r20250326), opt("annotations", ref("ToolAnnotations"))),
		when(b.at(r20250618), opt("title", str)),
		when(b.at(r20250618), opt("outputSchema", outputN)),
		b.metaProp(),
		when(b.at(r20251125), opt("icons", arr(ref("Icon")))),
		when(b.only(r20251125), opt("execution", ref("ToolExecution"))),
	))
	if b.at(r20250326) {
		b.def("ToolAnnotations", obj(
			opt("title", str),
			opt("readOnlyHint", boolean),
			opt("destructiveHint", boolean),
			opt("idempotentHint", boolean),
			opt("openWorldHint", boolean),
		))
	}
	if b.only(r20251125) {
		b.def("ToolExecution", obj(opt("taskSupport", enum("forbidden", "optional", "required"))))
	}

	b.listRequest("ListToolsRequest", "tools/list")
	b.def("ListToolsResult", b.cacheable(opt("nextCursor", ref("Cursor")), req("tools", arr(ref("Tool")))))

	callParams := obj(b.paramsMeta(), req("name", str), opt("arguments", anyObj()),
		when(b.only(r20251125), opt("task", ref("TaskMetadata"))))
	b.def("CallToolRequest", b.request("tools/call", b.params("CallToolRequestParams", b.mrtrParams(callParams)), true))
	b.def("CallToolResult", b.result(
		req("content", arr(ref("ContentBlock"))),
		opt("isError", boolean),
		when(b.at(r20250618), opt("structuredContent", b.structuredContent())),
	))
	b.def("ToolListChangedNotification", b.notification("notifications/tools/list_changed", b.notificationParams(), false))

	if b.at(r20260728) {
		b.def("ListToolsResultResponse", resultResponse(ref("ListToolsResult")))
		b.def("CallToolResultResponse", resultResponse(mrtrResult("CallToolResult")))
	}
}

func (b *builder) resources() {
	b.def("Resource", b.resourceShape())
	b.def("ResourceTemplate", obj(
		req("uriTemplate", uriTemplate),
		req("name", str),
		opt("description", str),
		opt("mimeType", str),
		opt("annotations", ref("Annotations")),
		when(b.at(r20250618), opt("title", str)),
		b.metaProp(),
		when(b.at(r20251125), opt("icons", arr(ref("Icon")))),
	))

	b.listRequest("ListResourcesRequest", "resources/list")
	b.def("ListResourcesResult", b.cacheable(opt("nextCursor", ref("Cursor")), req("resources", arr(ref("Resource")))))
	b.listRequest("ListResourceTemplatesRequest", "resources/templates/list")
	b.def("ListResourceTemplatesResult", b.cacheable(opt("nextCursor", ref("Cursor")),
		req("resourceTemplates", arr(ref("ResourceTemplate")))))

	uriParams := obj(b.paramsMeta(), req("uri", uriStr))
	if b.at(r20251125) {
		b.def("ResourceRequestParams", uriParams)
	}
	b.def("ReadResourceRequest", b.request("resources/read", b.params("ReadResourceRequestParams", b.mrtrParams(uriParams)), true))
	b.def("ReadResourceResult", b.cacheable(req("contents", arr(b.resourceContents()))))

	if !b.at(r20260728) {
		b.def("SubscribeRequest", b.request("resources/subscribe", b.params("SubscribeRequestParams", uriParams), true))
		b.def("UnsubscribeRequest", b.request("resources/unsubscribe", b.params("UnsubscribeRequestParams", uriParams), true))
	}

	b.def("ResourceListChangedNotification", b.notification("notifications/resources/list_changed", b.notificationParams(), false))
	updated := obj(req("uri", uriStr), when(b.at(r20251125), opt("_meta", b.notificationMeta())))
	b.def("ResourceUpdatedNotification", b.notification("notifications/resources/updated",
		b.params("ResourceUpdatedNotificationParams", updated), true))

	if b.at(r20260728) {
		b.def("ListResourcesResultResponse", resultResponse(ref("ListResourcesResult")))
		b.def("ListResourceTemplatesResultResponse", resultResponse(ref("ListResourceTemplatesResult")))
		b.def("ReadResourceResultResponse", resultResponse(mrtrResult("ReadResourceResult")))
	}
}

func (b *builder) prompts() {
	b.def("Prompt", obj(
		req("name", str),
		opt("description", str),
		opt("arguments", arr(ref("PromptArgument"))),
		when(b.at(r20250618), opt("title", str)),
		b.metaProp(),
		when(b.at(r20251125), opt("icons", arr(ref("Icon")))),
	))
	b.def("PromptArgument", obj(
		req("name", str),
		opt("description", str),
		opt("required", boolean),
		when(b.at(r20250618), opt("title", str)),
	))
	// The content of a prompt message is one block, not an array.
	b.def("PromptMessage", obj(req("role", ref("Role")), req("content", ref("ContentBlock"))))

	b.listRequest("ListPromptsRequest", "prompts/list")
	b.def("ListPromptsResult", b.cacheable(opt("nextCursor", ref("Cursor")), req("prompts", arr(ref("Prompt")))))

	getParams := obj(b.paramsMeta(), req("name", str), opt("arguments", mapOf(str)))
	b.def("GetPromptRequest", b.request("prompts/get", b.params("GetPromptRequestParams", b.mrtrParams(getParams)), true))
	b.def("GetPromptResult", b.result(opt("description", str), req("messages", arr(ref("PromptMessage")))))
	b.def("PromptListChangedNotification", b.notification("notifications/prompts/list_changed", b.notificationParams(), false))

	if b.at(r20260728) {
		b.def("ListPromptsResultResponse", resultResponse(ref("ListPromptsResult")))
		b.def("GetPromptResultResponse", resultResponse(mrtrResult("GetPromptResult")))
	}
}

func (b *builder) completion() {
	b.def("PromptReference", obj(
		req("type", konst("ref/prompt")),
		req("name", str),
		when(b.at(r20250618), opt("title", str)),
	))
	resRef := "ResourceReference"
	if b.at(r20250618) {
		resRef = "ResourceTemplateReference"
	}
	b.def(resRef, obj(req("type", konst("ref/resource")), req("uri", uriTemplate)))

	params := obj(
		b.paramsMeta(),
		req("ref", union("type", "ref/prompt", ref("PromptReference"), "ref/resource", ref(resRef))),
		req("argument", obj(req("name", str), req("value", str))),
		when(b.at(r20250618), opt("context", obj(opt("arguments", mapOf(str))))),
	)
	b.def("CompleteRequest", b.request("completion/complete", b.params("CompleteRequestParams", params), true))

	values := arrNode{items: str}
	if b.at(r20260728) {
		values.maxItems = 100
	}
	completion := obj(req("values", values), opt("total", integer), opt("hasMore", boolean))
	if !b.at(r20260728) {
		completion.also(func(c *checker, m map[string]any, at loc) {
			if vs, ok := m["values"].([]any); ok && len(vs) > 100 {
				c.semantic(at.field("values"), RuleCompletionValues, "must have at most 100 values, got %d", len(vs))
			}
		})
	}
	b.def("CompleteResult", b.result(req("completion", completion)))
	if b.at(r20260728) {
		b.def("CompleteResultResponse", resultResponse(ref("CompleteResult")))
	}
}

func (b *builder) utilities() {
	nmeta := when(b.at(r20251125), opt("_meta", b.notificationMeta()))

	logParams := obj(req("level", ref("LoggingLevel")), opt("logger", str), req("data", anyV), nmeta)
	b.def("LoggingMessageNotification", b.notification("notifications/message",
		b.params("LoggingMessageNotificationParams", logParams), true))
	if !b.at(r20260728) {
		setLevel := obj(b.paramsMeta(), req("level", ref("LoggingLevel")))
		b.def("SetLevelRequest", b.request("logging/setLevel", b.params("SetLevelRequestParams", setLevel), true))
	}

	progress := obj(
		req("progressToken", ref("ProgressToken")),
		req("progress", number),
		opt("total", number),
		when(b.at(r20250326), opt("message", str)),
		nmeta,
	)
	b.def("ProgressNotification", b.notification("notifications/progress",
		b.params("ProgressNotificationParams", progress), true))

	// requestId is optional only in 2025-11-25, where tasks/cancel exists.
	cancelled := obj(prop{name: "requestId", n: ref("RequestId"), req: !b.only(r20251125)}, opt("reason", str), nmeta)
	b.def("CancelledNotification", b.notification("notifications/cancelled",
		b.params("CancelledNotificationParams", cancelled), true))
}
