package scenario

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The custom-header scenarios (2026-07-28 over HTTP, the official
// http-custom-headers and http-invalid-tool-headers): a tool whose
// inputSchema marks properties with x-mcp-header, which the client must
// mirror into Mcp-Param-{Name} headers on tools/call (CLI-020), and tools
// whose x-mcp-header marks break the constraints, which the client must
// drop from the list and never call (CLI-021).

// HeaderTool is the custom-header scenario's tool.
const HeaderTool = "test_custom_headers"

// headerToolSchema marks a string, an integer, a boolean, a string reached
// through properties of an object, and a string that is sent with values
// that need the Base64 sentinel.
const headerToolSchema = `{"type":"object","properties":{
 "region":{"type":"string","x-mcp-header":"Region"},
 "count":{"type":"integer","x-mcp-header":"Count"},
 "verbose":{"type":"boolean","x-mcp-header":"Verbose"},
 "note":{"type":"string","x-mcp-header":"Note"},
 "options":{"type":"object","properties":{"priority":{"type":"string","x-mcp-header":"Priority"}}},
 "plain":{"type":"string"}}}`

// headerCalls are the calls the client is asked to make (the official
// harness's MCP_CONFORMANCE_CONTEXT toolCalls): every kind of value, a
// value that needs the sentinel (non-ASCII, surrounding spaces, one that
// looks like a sentinel), a null and an absent one.
var headerCalls = []map[string]any{
	{"name": HeaderTool, "arguments": map[string]any{"region": "us-west1", "count": 42, "verbose": true, "note": "plain note", "options": map[string]any{"priority": "high"}, "plain": "x"}},
	{"name": HeaderTool, "arguments": map[string]any{"region": "Zürich", "count": -7, "verbose": false, "note": " padded ", "options": map[string]any{}}},
	{"name": HeaderTool, "arguments": map[string]any{"region": "=?base64?abc?=", "note": nil}},
}

func headerContext(name string) string {
	b, _ := json.Marshal(map[string]any{"name": name, "toolCalls": headerCalls})
	return string(b)
}

// InvalidHeaderTools are the tools whose x-mcp-header marks break a
// constraint; ValidHeaderTool is listed beside them.
var InvalidHeaderTools = map[string]string{
	"test_header_on_number":   `{"type":"object","properties":{"region":{"type":"number","x-mcp-header":"Region"}}}`,
	"test_header_duplicate":   `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"Region"},"b":{"type":"string","x-mcp-header":"region"}}}`,
	"test_header_empty":       `{"type":"object","properties":{"region":{"type":"string","x-mcp-header":""}}}`,
	"test_header_bad_token":   `{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Re gion"}}}`,
	"test_header_under_items": `{"type":"object","properties":{"list":{"type":"array","items":{"type":"string","x-mcp-header":"Region"}}}}`,
}

// ValidHeaderTool is the valid tool of the invalid-header scenario.
const ValidHeaderTool = "test_header_valid"

func textTool(srv *mcp.Server, name, schema string) {
	srv.AddTool(&mcp.Tool{Name: name, Description: "echoes nothing", InputSchema: json.RawMessage(schema)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
		})
}

func customHeaderTools(srv *mcp.Server, _ *Run) { textTool(srv, HeaderTool, headerToolSchema) }

// invalidHeaderTools adds the valid tool; the invalid ones, which the
// go-sdk refuses to serve, are added to its tools/list answers by
// withInvalidTools.
func invalidHeaderTools(srv *mcp.Server, _ *Run) {
	textTool(srv, ValidHeaderTool, `{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}`)
}

// withInvalidTools adds the invalid tools to every tools/list result next
// writes (a JSON body or the data of an SSE event), and answers a call of
// one of them itself (with a result: the check judges that it was made).
func (r *Run) withInvalidTools(next http.Handler) http.Handler {
	var extra []map[string]any
	for _, name := range slices.Sorted(maps.Keys(InvalidHeaderTools)) {
		extra = append(extra, map[string]any{"name": name, "description": "its x-mcp-header mark is invalid", "inputSchema": json.RawMessage(InvalidHeaderTools[name])})
	}
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method != http.MethodPost {
			next.ServeHTTP(w, req)
			return
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name string `json:"name"`
			} `json:"params"`
		}
		_ = json.Unmarshal(peekBody(req), &m)
		switch {
		case m.Method == "tools/call" && InvalidHeaderTools[m.Params.Name] != "":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"resultType":"complete","content":[{"type":"text","text":"called"}]}}`, m.ID)
			return
		case m.Method != "tools/list":
			next.ServeHTTP(w, req)
			return
		}
		rec := httptest.NewRecorder()
		next.ServeHTTP(rec, req)
		body := rec.Body.Bytes()
		if strings.HasPrefix(rec.Header().Get("Content-Type"), "text/event-stream") {
			var out bytes.Buffer
			for _, line := range bytes.SplitAfter(body, []byte("\n")) {
				if data, ok := bytes.CutPrefix(line, []byte("data: ")); ok && bytes.Contains(data, []byte(`"tools"`)) {
					line = append(append([]byte("data: "), addTools(bytes.TrimRight(data, "\r\n"), extra)...), '\n')
				}
				out.Write(line)
			}
			body = out.Bytes()
		} else {
			body = addTools(body, extra)
		}
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.Header().Del("Content-Length")
		w.WriteHeader(rec.Code)
		_, _ = w.Write(body)
	})
}

// addTools appends extra to the tools of a tools/list response.
func addTools(resp []byte, extra []map[string]any) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(resp, &m) != nil {
		return resp
	}
	var res map[string]json.RawMessage
	if json.Unmarshal(m["result"], &res) != nil {
		return resp
	}
	var tools []json.RawMessage
	_ = json.Unmarshal(res["tools"], &tools)
	for _, t := range extra {
		b, _ := json.Marshal(t)
		tools = append(tools, b)
	}
	res["tools"], _ = json.Marshal(tools)
	m["result"], _ = json.Marshal(res)
	out, err := json.Marshal(m)
	if err != nil {
		return resp
	}
	return out
}
