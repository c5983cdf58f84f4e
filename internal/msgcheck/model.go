package msgcheck

// model is one revision's set of definitions, plus the tables that route a
// server message to the definition that applies to it.
type model struct {
	rev  rev
	defs map[string]node

	// resultFor maps a request method to the node its result must match.
	resultFor map[string]node
	// serverRequests maps the methods a server may send as requests to their
	// definition (legacy revisions only).
	serverRequests map[string]node
	// notifications maps server notification methods to their definition.
	notifications map[string]node
}

// builder writes one revision's model; b.at(r) reads "from revision r on".
type builder struct {
	r rev
	m *model
}

func (b *builder) at(r rev) bool   { return b.r >= r }
func (b *builder) only(r rev) bool { return b.r == r }

func (b *builder) def(name string, n node) { b.m.defs[name] = n }

func build(r rev) *model {
	b := &builder{r: r, m: &model{
		rev:            r,
		defs:           map[string]node{},
		resultFor:      map[string]node{},
		serverRequests: map[string]node{},
		notifications:  map[string]node{},
	}}
	b.base()
	b.envelope()
	b.errors()
	b.content()
	b.lifecycle()
	b.tools()
	b.resources()
	b.prompts()
	b.completion()
	b.utilities()
	b.sampling()
	b.roots()
	b.elicitation()
	b.mrtr()
	b.subscriptions()
	b.tasks()
	b.unions()
	b.routes()
	return b.m
}

// ---- shared leaves ----

var (
	str         = strNode{}
	uriStr      = strNode{format: "uri"}
	uriTemplate = strNode{format: "uri-template"}
	b64         = strNode{format: "byte"}
	integer     = numNode{integer: true}
	number      = numNode{}
	unit        = numNode{min: ratOf(0), max: ratOf(1)}
	boolean     = boolNode{}
	anyV        = anyNode{}
	strs        = arrNode{items: strNode{}}

	// versionNode and idNode carry the envelope's rule ids wherever a
	// definition repeats the envelope.
	versionNode = ruleNode{"jsonrpc.version", konst("2.0")}
	idNode      = ruleNode{"jsonrpc.id", typesNode{"string", "integer"}}
)

func konst(s string) strNode                       { return strNode{constV: &s} }
func enum(xs ...string) strNode                    { return strNode{enum: xs} }
func constInt(x int64) numNode                     { return numNode{integer: true, constV: ratOf(x)} }
func arr(n node) arrNode                           { return arrNode{items: n} }
func ref(name string) refNode                      { return refNode(name) }
func anyOf(ns ...node) anyOfNode                   { return anyOfNode(ns) }
func also(n node, f func(*checker, any, loc)) node { return thenNode{n: n, f: f} }

// anyObj is an object with anything in it ({"type":"object"} with
// additionalProperties true).
func anyObj() *objNode { return obj() }

// jsonObject is the revision's type for free-form settings objects.
func (b *builder) jsonObject() node {
	if b.at(r20260728) {
		return ref("JSONObject")
	}
	return anyObj()
}

// meta is the plain _meta member of the revision.
func (b *builder) meta() node {
	if b.at(r20260728) {
		return ref("MetaObject")
	}
	return ruleNode{"meta", obj().also(metaKeys)}
}

// requestMeta is the _meta of legacy request params.
func (b *builder) requestMeta() node {
	if b.at(r20260728) {
		return ref("RequestMetaObject")
	}
	return ruleNode{"meta", obj(opt("progressToken", ref("ProgressToken"))).also(metaKeys)}
}

func (b *builder) notificationMeta() node {
	if b.at(r20260728) {
		return ref("NotificationMetaObject")
	}
	return ruleNode{"meta", obj().also(metaKeys)}
}

func (b *builder) resultMeta() node {
	if b.at(r20260728) {
		return ref("ResultMetaObject")
	}
	return ruleNode{"meta", obj().also(metaKeys)}
}

// metaProp is the optional _meta member that objects gained in 2025-06-18.
func (b *builder) metaProp() prop { return when(b.at(r20250618), opt("_meta", b.meta())) }

// result is a result object: _meta, and from 2026-07-28 resultType, which
// must say "complete" for every result but InputRequiredResult.
func (b *builder) result(ps ...prop) *objNode {
	base := []prop{opt("_meta", b.resultMeta())}
	if b.at(r20260728) {
		base = append(base, req("resultType", ruleNode{"result.resultType", str}))
	}
	o := obj(append(base, ps...)...)
	if b.at(r20260728) {
		o.also(resultTypeIs("complete"))
	}
	return o
}

// cacheable is a result that from 2026-07-28 carries ttlMs and cacheScope.
func (b *builder) cacheable(ps ...prop) *objNode {
	o := b.result(ps...)
	if b.at(r20260728) {
		o = o.with(
			req("ttlMs", ruleNode{"cache.ttlMs", numNode{integer: true, min: ratOf(0)}}),
			req("cacheScope", ruleNode{"cache.cacheScope", enum("private", "public")}),
		)
	}
	return o
}

func resultTypeIs(allowed ...string) objCheck {
	return func(c *checker, m map[string]any, at loc) {
		s, ok := m["resultType"].(string)
		if !ok {
			return // the structural rule reports a missing or non-string value
		}
		for _, a := range allowed {
			if s == a {
				return
			}
		}
		if s == "task" {
			c.semantic(at.field("resultType"), RuleResultTypeExtension,
				"resultType %q belongs to the tasks extension and is valid only when that extension was negotiated", s)
			return
		}
		c.semantic(at.field("resultType"), RuleResultType, "resultType must be %s here, got %q", quoteList(allowed), s)
	}
}

// request is a typed request: method and params; from 2025-11-25 the
// definitions also carry the JSON-RPC envelope.
func (b *builder) request(method string, params node, paramsRequired bool) *objNode {
	return obj(
		req("method", konst(method)),
		when(b.at(r20251125), req("jsonrpc", versionNode)),
		when(b.at(r20251125), req("id", idNode)),
		prop{name: "params", n: params, req: paramsRequired},
	)
}

// notification is a typed notification, with the envelope from 2025-11-25.
func (b *builder) notification(method string, params node, paramsRequired bool) *objNode {
	return obj(
		req("method", konst(method)),
		when(b.at(r20251125), req("jsonrpc", versionNode)),
		prop{name: "params", n: params, req: paramsRequired},
	)
}

// inputRequest is a 2026-07-28 MRTR request shape: method and params only.
func inputRequest(method string, params node, paramsRequired bool) *objNode {
	return obj(req("method", konst(method)), prop{name: "params", n: params, req: paramsRequired})
}

// resultResponse is a 2026-07-28 *ResultResponse definition.
func resultResponse(result node) *objNode {
	return obj(req("jsonrpc", versionNode), req("id", idNode), req("result", result))
}

// notificationParams is the params of a notification without payload.
func (b *builder) notificationParams() node {
	if b.at(r20251125) {
		return ref("NotificationParams")
	}
	return obj(opt("_meta", b.notificationMeta()))
}

// mrtrResult routes a result by resultType: "input_required" is an
// InputRequiredResult, anything else must be the method's own result.
type mrtrResult string

func (d mrtrResult) check(c *checker, v any, at loc) {
	if m, ok := v.(map[string]any); ok && m["resultType"] == "input_required" {
		ref("InputRequiredResult").check(c, v, at)
		return
	}
	ref(string(d)).check(c, v, at)
}

// taskOrResult routes a 2025-11-25 tools/call result: a task-augmented call
// answers with CreateTaskResult (a task and no content).
type taskOrResult string

func (d taskOrResult) check(c *checker, v any, at loc) {
	if m, ok := v.(map[string]any); ok {
		_, hasTask := m["task"]
		_, hasContent := m["content"]
		if hasTask && !hasContent {
			ref("CreateTaskResult").check(c, v, at)
			return
		}
	}
	ref(string(d)).check(c, v, at)
}
