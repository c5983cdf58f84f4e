package msgcheck

// Client features the server asks for (sampling, roots, elicitation), the
// 2026-07-28 MRTR and subscription shapes, and the 2025-11-25 tasks.

func (b *builder) sampling() {
	b.def("ModelHint", obj(opt("name", str)))
	b.def("ModelPreferences", obj(
		opt("hints", arr(ref("ModelHint"))),
		opt("costPriority", unit),
		opt("speedPriority", unit),
		opt("intelligencePriority", unit),
	))
	b.def("SamplingMessage", obj(
		req("role", ref("Role")),
		req("content", b.samplingContent()),
		when(b.at(r20251125), opt("_meta", b.meta())),
	))
	if b.at(r20251125) {
		b.def("ToolChoice", obj(opt("mode", enum("auto", "none", "required"))))
	}
	params := obj(
		req("messages", arr(ref("SamplingMessage"))),
		opt("modelPreferences", ref("ModelPreferences")),
		opt("systemPrompt", str),
		opt("includeContext", enum("allServers", "none", "thisServer")),
		opt("temperature", number),
		req("maxTokens", integer),
		opt("stopSequences", strs),
		opt("metadata", b.jsonObject()),
		when(b.at(r20251125), opt("tools", arr(ref("Tool")))),
		when(b.at(r20251125), opt("toolChoice", ref("ToolChoice"))),
		when(b.only(r20251125), opt("_meta", b.requestMeta())),
		when(b.only(r20251125), opt("task", ref("TaskMetadata"))),
	)
	result := []prop{
		req("role", ref("Role")),
		req("content", b.samplingContent()),
		req("model", str),
		opt("stopReason", str),
	}
	if b.at(r20260728) {
		b.def("CreateMessageRequestParams", params)
		b.def("CreateMessageRequest", inputRequest("sampling/createMessage", ref("CreateMessageRequestParams"), true))
		// An MRTR input response, not a JSON-RPC result: no resultType.
		b.def("CreateMessageResult", obj(append(result, opt("_meta", b.meta()))...))
		return
	}
	b.def("CreateMessageRequest", b.request("sampling/createMessage", b.params("CreateMessageRequestParams", params), true))
	b.def("CreateMessageResult", b.result(result...))
}

func (b *builder) roots() {
	b.def("Root", obj(req("uri", uriStr), opt("name", str), b.metaProp()))
	if b.at(r20260728) {
		b.def("ListRootsRequest", inputRequest("roots/list", obj(opt("_meta", b.meta())), false))
		b.def("ListRootsResult", obj(req("roots", arr(ref("Root")))))
		return
	}
	var params node = obj(opt("_meta", b.requestMeta()))
	if b.at(r20251125) {
		params = ref("RequestParams")
	}
	b.def("ListRootsRequest", b.request("roots/list", params, false))
	b.def("ListRootsResult", b.result(req("roots", arr(ref("Root")))))
	b.def("RootsListChangedNotification", b.notification("notifications/roots/list_changed", b.notificationParams(), false))
}

func (b *builder) elicitation() {
	if !b.at(r20250618) {
		return
	}
	text := func(ps ...prop) []prop {
		return append([]prop{opt("title", str), opt("description", str)}, ps...)
	}
	b.def("StringSchema", obj(text(
		req("type", konst("string")),
		opt("minLength", integer),
		opt("maxLength", integer),
		opt("format", enum("date", "date-time", "email", "uri")),
		when(b.at(r20251125), opt("default", str)),
	)...))
	b.def("NumberSchema", obj(text(
		req("type", enum("integer", "number")),
		opt("minimum", number),
		opt("maximum", number),
		when(b.at(r20251125), opt("default", number)),
	)...))
	b.def("BooleanSchema", obj(text(req("type", konst("boolean")), opt("default", boolean))...))

	if b.at(r20251125) {
		titled := arr(obj(req("const", str), req("title", str)))
		b.def("UntitledSingleSelectEnumSchema", obj(text(
			req("type", konst("string")), req("enum", strs), opt("default", str))...))
		b.def("TitledSingleSelectEnumSchema", obj(text(
			req("type", konst("string")), req("oneOf", titled), opt("default", str))...))
		b.def("UntitledMultiSelectEnumSchema", obj(text(
			req("type", konst("array")),
			req("items", obj(req("type", konst("string")), req("enum", strs))),
			opt("minItems", integer), opt("maxItems", integer), opt("default", strs))...))
		b.def("TitledMultiSelectEnumSchema", obj(text(
			req("type", konst("array")),
			req("items", obj(req("anyOf", titled))),
			opt("minItems", integer), opt("maxItems", integer), opt("default", strs))...))
		b.def("LegacyTitledEnumSchema", obj(text(
			req("type", konst("string")), req("enum", strs), opt("enumNames", strs), opt("default", str))...))
		b.def("SingleSelectEnumSchema", anyOf(ref("UntitledSingleSelectEnumSchema"), ref("TitledSingleSelectEnumSchema")))
		b.def("MultiSelectEnumSchema", anyOf(ref("UntitledMultiSelectEnumSchema"), ref("TitledMultiSelectEnumSchema")))
		b.def("EnumSchema", anyOf(ref("UntitledSingleSelectEnumSchema"), ref("TitledSingleSelectEnumSchema"),
			ref("UntitledMultiSelectEnumSchema"), ref("TitledMultiSelectEnumSchema"), ref("LegacyTitledEnumSchema")))
		b.def("PrimitiveSchemaDefinition", anyOf(ref("StringSchema"), ref("NumberSchema"), ref("BooleanSchema"),
			ref("UntitledSingleSelectEnumSchema"), ref("TitledSingleSelectEnumSchema"),
			ref("UntitledMultiSelectEnumSchema"), ref("TitledMultiSelectEnumSchema"), ref("LegacyTitledEnumSchema")))
	} else {
		b.def("EnumSchema", obj(text(req("type", konst("string")), req("enum", strs), opt("enumNames", strs))...))
		b.def("PrimitiveSchemaDefinition", anyOf(ref("StringSchema"), ref("NumberSchema"), ref("BooleanSchema"), ref("EnumSchema")))
	}

	requested := obj(
		req("type", konst("object")),
		req("properties", mapOf(ref("PrimitiveSchemaDefinition"))),
		opt("required", strs),
		when(b.at(r20251125), opt("$schema", str)),
	)
	switch {
	case b.only(r20250618):
		b.def("ElicitRequest", b.request("elicitation/create", obj(req("message", str), req("requestedSchema", requested)), true))
	case b.only(r20251125):
		b.def("ElicitRequestFormParams", obj(
			opt("_meta", b.requestMeta()), opt("task", ref("TaskMetadata")),
			opt("mode", konst("form")), req("message", str), req("requestedSchema", requested)))
		b.def("ElicitRequestURLParams", obj(
			opt("_meta", b.requestMeta()), opt("task", ref("TaskMetadata")),
			req("mode", konst("url")), req("message", str), req("elicitationId", str), req("url", uriStr)))
		b.def("ElicitRequestParams", b.elicitParams())
		b.def("ElicitRequest", b.request("elicitation/create", ref("ElicitRequestParams"), true))
		b.def("ElicitationCompleteNotification", b.notification("notifications/elicitation/complete",
			obj(req("elicitationId", str)), true))
	default:
		b.def("ElicitRequestFormParams", obj(opt("mode", konst("form")), req("message", str), req("requestedSchema", requested)))
		b.def("ElicitRequestURLParams", obj(req("mode", konst("url")), req("message", str), req("url", uriStr)))
		b.def("ElicitRequestParams", b.elicitParams())
		b.def("ElicitRequest", inputRequest("elicitation/create", ref("ElicitRequestParams"), true))
	}

	var value node = typesNode{"string", "integer", "boolean"}
	if b.at(r20251125) {
		value = anyOf(strs, value)
	}
	b.def("ElicitResult", obj(
		req("action", enum("accept", "cancel", "decline")),
		opt("content", mapOf(value)),
		when(!b.at(r20260728), opt("_meta", b.meta())),
	))
}

// elicitParams: form mode when mode is absent or "form", URL mode for "url".
func (b *builder) elicitParams() node {
	u := union("mode", "form", ref("ElicitRequestFormParams"), "url", ref("ElicitRequestURLParams"))
	u.dflt = ref("ElicitRequestFormParams")
	return u
}

func (b *builder) mrtr() {
	if !b.at(r20260728) {
		return
	}
	b.def("InputRequest", union("method",
		"sampling/createMessage", ref("CreateMessageRequest"),
		"roots/list", ref("ListRootsRequest"),
		"elicitation/create", ref("ElicitRequest"),
	))
	b.def("InputRequests", mapOf(ref("InputRequest")))
	b.def("InputResponse", anyOf(ref("CreateMessageResult"), ref("ListRootsResult"), ref("ElicitResult")))
	b.def("InputResponses", mapOf(ref("InputResponse")))
	b.def("InputRequiredResult", obj(
		opt("_meta", b.resultMeta()),
		req("resultType", ruleNode{"result.resultType", str}),
		opt("inputRequests", ref("InputRequests")),
		opt("requestState", str),
	).also(resultTypeIs("input_required")).also(func(c *checker, m map[string]any, at loc) {
		reqs, hasReqs := m["inputRequests"]
		_, hasState := m["requestState"]
		if !hasReqs && !hasState {
			c.semantic(at, RuleInputRequiredEmpty, "an InputRequiredResult must carry inputRequests, requestState, or both")
			return
		}
		if r, ok := reqs.(map[string]any); ok && len(r) == 0 && !hasState {
			c.semantic(at.field("inputRequests"), RuleInputRequiredEmpty, "inputRequests is empty and there is no requestState: the client has nothing to answer")
		}
	}))
	b.def("InputResponseRequestParams", obj(
		req("_meta", b.requestMeta()),
		opt("inputResponses", ref("InputResponses")),
		opt("requestState", str),
	))
}

func (b *builder) subscriptions() {
	if !b.at(r20260728) {
		return
	}
	b.def("SubscriptionFilter", obj(
		opt("toolsListChanged", boolean),
		opt("promptsListChanged", boolean),
		opt("resourcesListChanged", boolean),
		opt("resourceSubscriptions", strs),
	))
	b.def("SubscriptionsListenRequestParams", obj(req("_meta", b.requestMeta()), req("notifications", ref("SubscriptionFilter"))))
	b.def("SubscriptionsListenRequest", b.request("subscriptions/listen", ref("SubscriptionsListenRequestParams"), true))
	b.def("SubscriptionsListenResultMetaObject", obj(
		opt("io.modelcontextprotocol/serverInfo", ref("Implementation")),
		req("io.modelcontextprotocol/subscriptionId", ref("RequestId")),
	).also(metaKeys))
	b.def("SubscriptionsListenResult", obj(
		req("_meta", ref("SubscriptionsListenResultMetaObject")),
		req("resultType", ruleNode{"result.resultType", str}),
	).also(resultTypeIs("complete")))
	b.def("SubscriptionsListenResultResponse", resultResponse(ref("SubscriptionsListenResult")))
	b.def("SubscriptionsAcknowledgedNotificationParams", obj(
		opt("_meta", b.notificationMeta()),
		req("notifications", ref("SubscriptionFilter")),
	))
	b.def("SubscriptionsAcknowledgedNotification", b.notification("notifications/subscriptions/acknowledged",
		ref("SubscriptionsAcknowledgedNotificationParams"), true))
}

// tasks are core in 2025-11-25 only; 2026-07-28 moved them to an extension.
func (b *builder) tasks() {
	if !b.only(r20251125) {
		return
	}
	task := []prop{
		req("taskId", str),
		req("status", ref("TaskStatus")),
		opt("statusMessage", str),
		req("createdAt", str),
		req("lastUpdatedAt", str),
		req("ttl", typesNode{"integer", "null"}),
		opt("pollInterval", integer),
	}
	b.def("TaskStatus", enum("cancelled", "completed", "failed", "input_required", "working"))
	b.def("Task", obj(task...))
	b.def("TaskMetadata", obj(opt("ttl", integer)))
	b.def("RelatedTaskMetadata", obj(req("taskId", str)))
	b.def("TaskAugmentedRequestParams", obj(opt("_meta", b.requestMeta()), opt("task", ref("TaskMetadata"))))
	b.def("CreateTaskResult", b.result(req("task", ref("Task"))))
	b.def("GetTaskResult", b.result(task...))
	b.def("CancelTaskResult", b.result(task...))
	b.def("GetTaskPayloadResult", b.result())
	b.def("ListTasksResult", b.result(opt("nextCursor", ref("Cursor")), req("tasks", arr(ref("Task")))))
	byID := obj(req("taskId", str))
	b.def("GetTaskRequest", b.request("tasks/get", byID, true))
	b.def("GetTaskPayloadRequest", b.request("tasks/result", byID, true))
	b.def("CancelTaskRequest", b.request("tasks/cancel", byID, true))
	b.def("ListTasksRequest", b.request("tasks/list", ref("PaginatedRequestParams"), false))
	b.def("TaskStatusNotificationParams", obj(append([]prop{opt("_meta", b.meta())}, task...)...))
	b.def("TaskStatusNotification", b.notification("notifications/tasks/status", ref("TaskStatusNotificationParams"), true))
}
