package scenario

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The $ref scenario (2026-07-28, the official json-schema-ref-no-deref):
// a tool whose inputSchema names a property's schema by a network URI, a
// canary on the scenario server's own address (over stdio, on a loopback
// HTTP listener of the run). A client must not fetch it (CLI-018): a
// fetch is recorded as a note the check finds.

// CanaryPath is the canary's path on the scenario server; CanaryNote
// starts the note a fetch of it records.
const (
	CanaryPath = "/canary/schema.json"
	CanaryNote = "the client fetched the $ref canary"
)

// schemaRefTools adds the tool whose inputSchema refers to the canary.
func schemaRefTools(srv *mcp.Server, r *Run) {
	schema := fmt.Sprintf(`{"type":"object","properties":{"target":{"$ref":%q}}}`, r.base+CanaryPath)
	srv.AddTool(&mcp.Tool{Name: "test_json_schema_ref", Description: "its argument's schema is at a network URI", InputSchema: json.RawMessage(schema)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
		})
}

// canary records every fetch of the canary schema.
func (r *Run) canary() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.note(fmt.Sprintf("%s: %s %s", CanaryNote, req.Method, req.URL.RequestURI()))
		w.Header().Set("Content-Type", "application/schema+json")
		_, _ = w.Write([]byte(`{"type":"string"}`))
	})
}
