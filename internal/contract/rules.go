package contract

// Levels of a finding (oasdiff's): ERR breaks a conforming client or the
// contract, WARN may break it or changes what a model or a host decides,
// INFO is anything else.
const (
	ERR  = "ERR"
	WARN = "WARN"
	INFO = "INFO"
)

// Categories (buf's idea, independent of the level): wire (a call, a
// parse or a validation fails), model (text or names a model reads
// change), safety (annotations, scopes, text that injects or hides).
const (
	Wire   = "wire"
	Model  = "model"
	Safety = "safety"
)

// Rule is one entry of the catalog: `mcpconform list --contract-rules`.
type Rule struct {
	ID       string
	Level    string // the default level (a few rules name another for a case: Why says when)
	Category string
	Change   string // what changed
	Why      string // why it matters
}

// Rules is the catalog, in the order it is printed.
var Rules = []Rule{
	{"REVISION_NO_DROP", ERR, Wire, "a protocol revision of the contract is no longer supported", "clients pinned to it can no longer negotiate"},
	{"REVISION_ADDED", INFO, Wire, "a revision the contract does not have is supported", "snapshot it (contract snapshot --update)"},
	{"PROFILE_MISSING", ERR, Wire, "a credential profile of the contract could not be checked: the server refused it", "its callers lose the surface"},
	{"CAPABILITY_NO_DELETE", ERR, Wire, "a capability (tools, prompts, resources, completions, logging, an extension) is no longer declared", "its methods disappear for every client"},
	{"CAPABILITY_ADDED", INFO, Wire, "a capability is declared that was not", "new surface"},
	{"CAPABILITY_LIST_CHANGED_REVOKED", WARN, Wire, "a listChanged capability went from true to false", "clients lose invalidation and fall back to polling or TTLs"},
	{"CAPABILITY_SUBSCRIBE_REVOKED", ERR, Wire, "resources.subscribe went from true to false", "resources/subscribe now fails"},
	{"EXTENSION_SETTINGS_CHANGED", WARN, Wire, "the settings of a declared extension (or experimental capability) changed", "the extension defines what its settings mean"},
	{"SERVER_NAME_CHANGED", WARN, Model, "serverInfo.name changed", "hosts and configurations key on it"},
	{"SERVER_VERSION_CHANGED", INFO, Wire, "serverInfo.version changed", "expected on a release"},
	{"INSTRUCTIONS_CHANGED", WARN, Model, "the server's instructions changed (INFO when only whitespace changed)", "a model reads them like a tool description (review the new text)"},
	{"SERVER_TEXT_CHANGED", WARN, Model, "serverInfo.title or serverInfo.description changed (INFO when only whitespace changed)", "hosts show it to users choosing servers"},
	{"CACHE_SCOPE_WIDENED", WARN, Safety, "a result's cacheScope went from private to public", "shared caches may then serve one user's result to another"},
	{"LIST_INCOMPLETE", WARN, Wire, "a list of the live server could not be read whole (a page failed or the page cap was hit)", "removals from that list are not judged"},
	{"TOOL_NO_DELETE", ERR, Wire, "a tool was removed", "calls answer -32602 unknown tool; hosts' allow-lists and agents' tool lists break"},
	{"TOOL_RENAMED", ERR, Wire, "a tool was removed and one with the same schemas added (a rename; WARN when policy.renamed declares it)", "callers of the old name break: keep the old name as an alias"},
	{"TOOL_ADDED", INFO, Wire, "a tool was added", "safe for callers; new surface for review"},
	{"TOOL_DESCRIPTION_CHANGED", WARN, Model, "a tool's title, description or annotations.title, or a property's title or description, changed (INFO when only whitespace changed)", "models choose tools and fill arguments by this text"},
	{"TOOL_TASK_SUPPORT_REQUIRED", ERR, Wire, "execution.taskSupport became required", "clients that do not use tasks can no longer call the tool"},
	{"TOOL_META_CHANGED", WARN, Wire, "an extension key of a tool's _meta was removed or changed", "extensions (MCP Apps' io.modelcontextprotocol/ui) read it"},
	{"ICON_ORIGIN_CHANGED", WARN, Safety, "an icon of the server or a tool comes from a new scheme or origin", "clients check icons are same-origin; a new origin is a new party"},
	{"ANN_READONLY_REVOKED", ERR, Safety, "readOnlyHint went from true to false", "the tool now mutates: read-only allow-lists and auto-approval are wrong"},
	{"ANN_READONLY_GRANTED", WARN, Safety, "readOnlyHint went from false to true", "hosts may now auto-approve it: a claim that needs review"},
	{"ANN_DESTRUCTIVE_GRANTED", ERR, Safety, "destructiveHint went from false to true on a tool that is not read-only", "hosts that skipped confirmation must now ask"},
	{"ANN_DESTRUCTIVE_REVOKED", WARN, Safety, "destructiveHint went from true to false on a tool that is not read-only", "hosts may stop asking for confirmation"},
	{"ANN_IDEMPOTENT_REVOKED", ERR, Safety, "idempotentHint went from true to false on a tool that is not read-only", "callers that retry now apply twice"},
	{"ANN_OPEN_WORLD_GRANTED", WARN, Safety, "openWorldHint went from false to true", "the tool now reaches outside: new egress"},
	{"ANN_HINT_CHANGED", INFO, Safety, "another effective annotation changed (idempotent granted, open world revoked, a hint that does not apply to a read-only tool)", "a safer claim"},
	{"IN_REQUIRED_ADDED", ERR, Wire, "an input property became required (added as required, or optional to required)", "existing calls that omit it become invalid"},
	{"IN_PROPERTY_REMOVED", ERR, Wire, "an input property was removed: ERR when the object is closed, WARN when it is open", "callers still send it: refused (closed) or silently ignored (open)"},
	{"IN_TYPE_NARROWED", ERR, Wire, "an input's type set shrank or changed (or the schema accepts nothing)", "values callers send are refused"},
	{"IN_ENUM_NARROWED", ERR, Wire, "an input's enum or const lost a value, or was added or changed", "values callers send are refused"},
	{"IN_BOUND_TIGHTENED", ERR, Wire, "an input's bound was set or tightened (minimum, maximum, exclusive bounds, lengths, item counts; INFO for a bound at or beyond ±(2^53−1))", "values callers send are refused"},
	{"IN_PATTERN_TIGHTENED", ERR, Wire, "an input's pattern was added (ERR) or changed (WARN: containment of patterns is not decided)", "strings callers send may be refused"},
	{"IN_FORMAT_CHANGED", WARN, Wire, "an input's format was added or changed", "validators that assert formats refuse values"},
	{"IN_PROPERTY_ADDED_OPEN", WARN, Wire, "an input property was added, with constraints, to an object that accepted any property", "a caller that sent that name before with another value is refused (one that followed the old schema did not send it)"},
	{"IN_OBJECT_CLOSED", ERR, Wire, "an input object stopped accepting properties it accepted (additionalProperties narrowed or false)", "calls with those properties are refused"},
	{"IN_UNION_NARROWED", ERR, Wire, "an input's anyOf/oneOf lost an alternative, or an allOf part was added, and the old values are not all accepted", "values callers send are refused"},
	{"IN_DEFAULT_CHANGED", WARN, Wire, "an input's default changed or was removed", "behaviour changes for callers that omit it"},
	{"IN_HEADER_REMOVED", ERR, Wire, "an x-mcp-header was removed or renamed", "intermediaries route on the Mcp-Param-* header"},
	{"IN_HEADER_ADDED", WARN, Safety, "an x-mcp-header was added", "the value becomes visible to network intermediaries"},
	{"IN_UNDECIDED", WARN, Wire, "the input schema changed and whether it still accepts every old input could not be decided", "review it: the comparison names what it could not model"},
	{"IN_LOOSENED", INFO, Wire, "the input schema accepts more than it did (and everything it did)", "safe for callers"},
	{"SCHEMA_DIALECT_CHANGED", WARN, Wire, "a schema's $schema changed", "clients handle dialects they do not support by refusing the schema"},
	{"OUT_SCHEMA_REMOVED", ERR, Wire, "a tool's outputSchema was removed", "typed clients lose the contract of structuredContent"},
	{"OUT_SCHEMA_ADDED", INFO, Wire, "a tool gained an outputSchema", "results must now validate against it"},
	{"OUT_REQUIRED_REMOVED", ERR, Wire, "an output property is no longer required (removed, or required to optional)", "readers that rely on it fail"},
	{"OUT_PROPERTY_REMOVED", WARN, Wire, "an optional output property was removed", "readers that use it lose it"},
	{"OUT_PROPERTY_ADDED_CLOSED", ERR, Wire, "an output property was added (or more properties allowed) where the old schema was closed", "results the old schema's validators reject"},
	{"OUT_TYPE_WIDENED", ERR, Wire, "an output's type set grew (null included)", "readers meet values they were not promised"},
	{"OUT_ENUM_WIDENED", WARN, Wire, "an output's enum gained a value (or lost its enum)", "readers that switch on it meet an unknown value"},
	{"OUT_BOUND_LOOSENED", ERR, Wire, "an output's bound was relaxed or removed, or its pattern removed (a changed pattern is WARN: not decided; a bound at or beyond ±(2^53−1) is INFO)", "readers meet values they were not promised"},
	{"OUT_FORMAT_CHANGED", WARN, Wire, "an output's format was removed or changed", "readers that parse the format fail"},
	{"OUT_UNION_WIDENED", ERR, Wire, "an output's anyOf/oneOf gained an alternative (or lost an allOf part) the old schema does not allow", "readers meet values they were not promised"},
	{"OUT_UNDECIDED", WARN, Wire, "the output schema changed and whether the old schema still holds every new result could not be decided", "review it: the comparison names what it could not model"},
	{"OUT_TIGHTENED", INFO, Wire, "the output schema promises more than it did (and nothing it did not)", "safe for readers"},
	{"PROMPT_NO_DELETE", ERR, Wire, "a prompt was removed (WARN when policy.renamed declares its new name)", "prompts/get fails"},
	{"PROMPT_ADDED", INFO, Wire, "a prompt was added", "new surface"},
	{"PROMPT_ARG_REQUIRED_ADDED", ERR, Wire, "a prompt argument became required (added as required, or optional to required)", "prompts/get without it fails"},
	{"PROMPT_ARG_REMOVED", WARN, Wire, "a prompt argument was removed", "the server may refuse or ignore it"},
	{"PROMPT_DESCRIPTION_CHANGED", WARN, Model, "a prompt's or argument's title or description changed", "users and models choose prompts by this text"},
	{"TEMPLATE_NO_DELETE", ERR, Wire, "a resource template was removed", "clients build URIs from it"},
	{"TEMPLATE_ADDED", INFO, Wire, "a resource template was added", "new surface"},
	{"RESOURCE_NO_DELETE", WARN, Wire, "a listed resource was removed", "resource lists are often data, not contract"},
	{"RESOURCE_ADDED", INFO, Wire, "a resource was added", "new surface"},
	{"RESOURCE_MIME_CHANGED", WARN, Wire, "a resource's or template's mimeType changed", "readers choose their decoder by it"},
	{"RESOURCE_DESCRIPTION_CHANGED", INFO, Model, "a resource's or template's name, title or description changed", "hosts show it"},
	// lints: on the live surface, with or without a contract
	{"LINT_INVISIBLE_CHAR", ERR, Safety, "model-read text holds invisible characters (zero-width, bidi controls, the Unicode tag block, other format characters)", "a model reads what a reviewer cannot see"},
	{"LINT_HIDDEN_MARKUP", WARN, Safety, "model-read text holds an HTML comment or tags like <important>, <system>, <instructions>", "the shape of hidden instructions to the model"},
	{"LINT_MODEL_DIRECTIVE", WARN, Safety, "model-read text tells the model to ignore, hide or override (ignore previous instructions, do not tell the user …)", "the shape of prompt injection"},
	{"LINT_SENSITIVE_PATH", WARN, Safety, "model-read text names a credential path (~/.ssh, id_rsa, .env, mcp.json …)", "the shape of exfiltration"},
	{"LINT_ENCODED_BLOB", WARN, Safety, "model-read text holds a long base64 or hex run", "text a reviewer cannot read"},
	{"LINT_HEADER_SECRET", WARN, Safety, "a secret-looking property is mirrored into an x-mcp-header", "header values are visible to network intermediaries (SHOULD NOT)"},
	{"LINT_UNSTABLE_LIST", ERR, Safety, "two listings in one session differ in content (ERR) or, on 2026-07-28, in order (WARN); two connections of the same client get different surfaces (WARN)", "a surface that changes under review (a rug pull) or breaks caching"},
	{"LINT_CLIENT_ID_VARIANCE", ERR, Safety, "the surface differs when the client introduces itself under another name (while a second connection under the harness's name gets the same surface)", "what reviewers and tests see is not what other clients get"},
}

var ruleByID = func() map[string]Rule {
	m := map[string]Rule{}
	for _, r := range Rules {
		m[r.ID] = r
	}
	return m
}()

// RuleOf returns the rule with that id.
func RuleOf(id string) (Rule, bool) {
	r, ok := ruleByID[id]
	return r, ok
}
