// Package msgcheck validates the messages an MCP server sends, per protocol
// revision (2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28).
//
// # The model
//
// Each revision's messages are modelled by hand in Go (model_*.go): small
// typed nodes for objects, members, strings, numbers, arrays, unions and named
// definitions, written from the specification with the revision differences
// spelled out as b.at(revision) conditions. Nothing is generated from the
// official schemas. Definition names follow the official schema.json files,
// and the model implements every definition each of them has (Definitions).
//
//	ValidateServerMessage(rev, raw, requestMethod) // a whole message, routed by kind and method
//	ValidateAs(rev, "CallToolResult", raw)          // one definition
//
// A Problem carries a JSON pointer, a rule id and a message. Rule ids name the
// definition and member ("tool.inputSchema.type", "cache.ttlMs",
// "jsonrpc.version", "result.resultType"); a problem with a value as a whole
// (wrong type, not in the enum) keeps the rule of the member holding it.
//
// # Rules the schemas cannot express
//
// The Rule* constants are checked by the model only: duplicate member names,
// exactly one of result/error, request ids that fall back to notifications,
// requests a server may not send, resultType values, the "at least one of
// inputRequests/requestState" rule, base64 of format:"byte" members, _meta and
// extension key grammar, exactly one of text/blob, at most 100 completion
// values before 2026-07-28, forbidden error codes in 2026-07-28, and tool
// schemas that must compile as JSON Schema. Callers grading severity can key
// on these ids.
//
// Two unions are routed by a member rather than tried branch by branch, as
// the specification intends: in 2026-07-28 resultType "input_required" makes
// a tools/call, prompts/get or resources/read result an InputRequiredResult
// and anything else the method's own result; in 2025-11-25 a tools/call
// result with a task and no content is a CreateTaskResult.
//
// # Checked against the official schemas
//
// differential_test.go compiles each revision's official schema.json (read
// from ../shared/mcp-schema at test time, never copied here) with
// santhosh-tekuri/jsonschema and requires the model and the schema to agree,
// valid or invalid, on the 129 official 2026-07-28 examples and on messages
// generated from the schemas themselves, before and after one mutation each.
// Only the model-only rules above are set aside. Where the model knowingly
// departs from schema.json it follows schema.ts, the specification's source
// of truth: JSONValue admits null and non-integer numbers.
//
// # Full schema validation at run time
//
// SchemaValidator (LoadSchema) runs a user-supplied official schema file,
// draft-07 or 2020-12, with formats asserted ("byte" as base64).
package msgcheck
