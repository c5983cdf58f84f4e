package msgcheck

// Content blocks and resource contents.

func (b *builder) content() {
	if b.at(r20250618) {
		b.def("Annotations", obj(opt("audience", arr(ref("Role"))), opt("priority", unit), opt("lastModified", str)))
	} else {
		b.def("Annotations", obj(opt("audience", arr(ref("Role"))), opt("priority", unit)))
	}
	if b.only(r20241105) {
		b.def("Annotated", obj(opt("annotations", ref("Annotations"))))
	}
	ann := opt("annotations", ref("Annotations"))
	meta := b.metaProp()

	b.def("TextContent", obj(req("type", konst("text")), req("text", str), ann, meta))
	b.def("ImageContent", obj(req("type", konst("image")), req("data", b64), req("mimeType", str), ann, meta))
	if b.at(r20250326) {
		b.def("AudioContent", obj(req("type", konst("audio")), req("data", b64), req("mimeType", str), ann, meta))
	}

	contents := obj(req("uri", uriStr), opt("mimeType", str), meta)
	b.def("ResourceContents", contents)
	b.def("TextResourceContents", contents.with(req("text", str)))
	b.def("BlobResourceContents", contents.with(req("blob", b64)))
	b.def("EmbeddedResource", obj(
		req("type", konst("resource")),
		req("resource", b.resourceContents()),
		ann, meta,
	))
	if b.at(r20250618) {
		b.def("ResourceLink", b.resourceShape().with(req("type", konst("resource_link"))))
	}
	// ContentBlock is a definition from 2025-06-18; earlier revisions spell the
	// same union out where it is used, so the model keeps one for them too.
	b.def("ContentBlock", union("type",
		"text", ref("TextContent"),
		"image", ref("ImageContent"),
		"audio", b.ifDef("AudioContent"),
		"resource_link", b.ifDef("ResourceLink"),
		"resource", ref("EmbeddedResource"),
	))

	if b.at(r20251125) {
		b.def("ToolUseContent", obj(
			req("type", konst("tool_use")), req("id", str), req("name", str), req("input", anyObj()), meta,
		))
		b.def("ToolResultContent", obj(
			req("type", konst("tool_result")),
			req("toolUseId", str),
			req("content", arr(ref("ContentBlock"))),
			opt("structuredContent", b.structuredContent()),
			opt("isError", boolean),
			meta,
		))
		b.def("SamplingMessageContentBlock", union("type",
			"text", ref("TextContent"),
			"image", ref("ImageContent"),
			"audio", ref("AudioContent"),
			"tool_use", ref("ToolUseContent"),
			"tool_result", ref("ToolResultContent"),
		))
	}
}

// ifDef is ref(name) if the revision defines name, else nil (union skips it).
func (b *builder) ifDef(name string) node {
	if b.m.defs[name] == nil {
		return nil
	}
	return ref(name)
}

// resourceContents is TextResourceContents | BlobResourceContents. The
// member present picks the branch (same verdict as the schema's anyOf, with
// problems about the branch the server meant). An object with both text and
// blob matches both branches of the anyOf; the specification says exactly
// one, a model-only rule.
func (b *builder) resourceContents() node {
	return contentsNode{text: ref("TextResourceContents"), blob: ref("BlobResourceContents")}
}

type contentsNode struct{ text, blob node }

func (n contentsNode) check(c *checker, v any, at loc) {
	m, ok := v.(map[string]any)
	if !ok {
		c.fail(at, "must be an object, got %s", jsonType(v))
		return
	}
	_, t := m["text"]
	_, bl := m["blob"]
	switch {
	case t && bl:
		anyOf(n.text, n.blob).check(c, v, at)
		c.semantic(at, RuleTextAndBlob, "resource contents carry exactly one of text and blob, not both")
	case bl:
		n.blob.check(c, v, at)
	case t:
		n.text.check(c, v, at)
	default:
		anyOf(n.text, n.blob).check(c, v, at) // reports the missing text
	}
}

// structuredContent is a JSON object until 2026-07-28, any JSON value after.
func (b *builder) structuredContent() node {
	if b.at(r20260728) {
		return anyV
	}
	return anyObj()
}

// resourceShape is Resource's members (ResourceLink repeats them).
func (b *builder) resourceShape() *objNode {
	return obj(
		req("uri", uriStr),
		req("name", str),
		opt("description", str),
		opt("mimeType", str),
		opt("annotations", ref("Annotations")),
		opt("size", integer),
		when(b.at(r20250618), opt("title", str)),
		b.metaProp(),
		when(b.at(r20251125), opt("icons", arr(ref("Icon")))),
	)
}

// samplingContent is what SamplingMessage and CreateMessageResult carry.
func (b *builder) samplingContent() node {
	if b.at(r20251125) {
		single := ref("SamplingMessageContentBlock")
		return samplingContentNode{single: single, many: arr(single)}
	}
	return union("type",
		"text", ref("TextContent"),
		"image", ref("ImageContent"),
		"audio", b.ifDef("AudioContent"),
	)
}

// samplingContentNode is one content block or an array of them (2025-11-25+).
type samplingContentNode struct {
	single node
	many   node
}

func (n samplingContentNode) check(c *checker, v any, at loc) {
	if _, ok := v.([]any); ok {
		n.many.check(c, v, at)
		return
	}
	if _, ok := v.(map[string]any); !ok {
		c.fail(at, "must be a content block or an array of content blocks, got %s", jsonType(v))
		return
	}
	n.single.check(c, v, at)
}
