package msgcheck

import "encoding/json"

// serverMessage classifies a message the way a JSON-RPC peer reads it (a
// method makes it a request or notification, result or error a response)
// and checks it against the definition for its kind and method.
func (m *model) serverMessage(c *checker, v any, requestMethod string) {
	at := loc{rule: "jsonrpc"}
	switch x := v.(type) {
	case map[string]any:
		m.oneMessage(c, x, requestMethod, at)
	case []any:
		if m.rev != r20250326 {
			c.failRule(at, "jsonrpc.batch", "a JSON array (batch) is not a message in %s", m.rev)
			return
		}
		if len(x) == 0 {
			c.semantic(at, RuleBatch, "an empty batch is not a valid JSON-RPC message")
			return
		}
		var requests, responses int
		for _, el := range x {
			if o, ok := el.(map[string]any); ok {
				if _, isCall := o["method"]; isCall {
					requests++
				} else {
					responses++
				}
			}
		}
		if requests > 0 && responses > 0 {
			c.failRule(at, "jsonrpc.batch", "a batch holds either requests and notifications or responses, not both")
		}
		for i, el := range x {
			o, ok := el.(map[string]any)
			if !ok {
				c.fail(at.index(i), "a batch element must be an object, got %s", jsonType(el))
				continue
			}
			m.oneMessage(c, o, "", at.index(i))
		}
	default:
		c.fail(at, "a message must be a JSON object, got %s", jsonType(v))
	}
}

func (m *model) oneMessage(c *checker, msg map[string]any, requestMethod string, at loc) {
	version, ok := msg["jsonrpc"]
	if !ok {
		c.failRule(at.field("jsonrpc"), "jsonrpc.version", "missing required member \"jsonrpc\"")
	} else {
		versionNode.check(c, version, at.field("jsonrpc"))
	}

	method, isCall := msg["method"]
	_, hasResult := msg["result"]
	_, hasError := msg["error"]
	switch {
	case isCall:
		methodName, _ := method.(string)
		ruleNode{"jsonrpc.method", str}.check(c, method, at.field("method"))
		if p, ok := msg["params"]; ok {
			if _, isObj := p.(map[string]any); !isObj {
				c.failRule(at.field("params"), "jsonrpc.params", "params must be an object, got %s", jsonType(p))
			}
		}
		if _, hasID := msg["id"]; hasID {
			m.request(c, msg, methodName, at)
		} else {
			m.notification(c, msg, methodName, at)
		}
	case hasResult && hasError:
		c.semantic(at, RuleResultAndError, "a response carries exactly one of result and error, not both")
		m.responseID(c, msg, !m.atLeast(r20251125), at)
	case hasResult:
		m.responseID(c, msg, true, at)
		route := m.resultFor[requestMethod]
		if route == nil {
			route = ref("Result")
		}
		route.check(c, msg["result"], at.field("result"))
	case hasError:
		m.responseID(c, msg, !m.atLeast(r20251125), at)
		m.errorResponse(c, msg, at)
	default:
		c.failRule(at, "jsonrpc.kind", "not a request, notification or response: no method, result or error member")
	}
}

func (m *model) atLeast(r rev) bool { return m.rev >= r }

func (m *model) responseID(c *checker, msg map[string]any, required bool, at loc) {
	id, ok := msg["id"]
	if !ok {
		if required {
			c.failRule(at.field("id"), "jsonrpc.id", "missing required member \"id\"")
		}
		return
	}
	if id == nil {
		hint := "this revision requires a string or integer id"
		if !required {
			hint = "omit id when the request id could not be read"
		}
		c.failRule(at.field("id"), "jsonrpc.id", "id must be a string or integer, not null (%s)", hint)
		return
	}
	idNode.check(c, id, at.field("id"))
}

func (m *model) request(c *checker, msg map[string]any, method string, at loc) {
	requestID(c, msg, at)
	if m.atLeast(r20260728) {
		c.semantic(at, RuleServerRequest, "servers do not send requests in %s (MRTR replaces them)", m.rev)
		return
	}
	d := m.serverRequests[method]
	if d == nil {
		c.semantic(at.field("method"), RuleServerRequest, "%q is not a request a server may send in %s", method, m.rev)
		return
	}
	d.check(c, msg, at)
}

func (m *model) notification(c *checker, msg map[string]any, method string, at loc) {
	if !m.atLeast(r20251125) {
		// Until 2025-06-18 the envelope types params._meta.
		if p, ok := msg["params"].(map[string]any); ok {
			if meta, ok := p["_meta"]; ok {
				ruleNode{"meta", obj().also(metaKeys)}.check(c, meta, at.field("params").field("_meta"))
			}
		}
	}
	if d := m.notifications[method]; d != nil {
		d.check(c, msg, at)
	}
}

func (m *model) errorResponse(c *checker, msg map[string]any, at loc) {
	e := msg["error"]
	errorNode := ruleNode{"jsonrpc.error", errorShape()}
	errorNode.check(c, e, at.field("error"))
	eo, ok := e.(map[string]any)
	if !ok {
		return
	}
	codeNum, ok := eo["code"].(json.Number)
	if !ok {
		return
	}
	code, ok := rat(codeNum)
	if !ok || !code.IsInt() || !code.Num().IsInt64() {
		return
	}
	n := code.Num().Int64()
	def := errorDefs[n]
	if m.defs[def] == nil {
		def = ""
	}
	if def != "" {
		ref(def).check(c, msg, at)
		return
	}
	if m.atLeast(r20260728) {
		switch {
		case n == -32002:
			c.semantic(at.field("error").field("code"), RuleErrorCode,
				"-32002 (resource not found) must not be sent in %s; use -32602", m.rev)
		case n == -32042:
			c.semantic(at.field("error").field("code"), RuleErrorCode,
				"-32042 (URL elicitation required) was removed in %s", m.rev)
		case n <= -32020 && n >= -32099:
			c.semantic(at.field("error").field("code"), RuleErrorCode,
				"%d is in -32020..-32099, which only the specification allocates, and it defines no such code", n)
		}
	}
}
