package scenario

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The multi round-trip scenario (2026-07-28, the official
// sep-2322-client-request-state): tools that answer their first call with
// input_required (an elicitation to fulfil) and the second with a
// result, so that the client's retry can be judged: a new id, the
// requestState echoed byte for byte (omitted when none came), the
// inputResponses keyed by the inputRequests' keys, nothing of it leaking
// into another call (CLI-015).

// MRTRState is the requestState test_mrtr_echo_state hands out: opaque,
// with characters a client that re-encodes it would change.
const MRTRState = `mcpconform-state:v1/é∆ "quoted" \u00e9 +/=`

// mrtrTools adds the scenario's tools. Each answers a call without
// inputResponses with input_required, and a retry with a result.
func mrtrTools(srv *mcp.Server, _ *Run) {
	confirm := mcp.InputRequestMap{"confirm": &mcp.ElicitParams{
		Mode:    "form",
		Message: "Confirm the operation?",
		RequestedSchema: map[string]any{"type": "object",
			"properties": map[string]any{"confirmed": map[string]any{"type": "boolean"}}, "required": []string{"confirmed"}},
	}}
	schema := json.RawMessage(`{"type":"object"}`)
	for _, t := range []struct{ name, state string }{{"test_mrtr_echo_state", MRTRState}, {"test_mrtr_no_state", ""}} {
		srv.AddTool(&mcp.Tool{Name: t.name, Description: "asks the client to confirm first (input_required)", InputSchema: schema},
			func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				if len(req.Params.InputResponses) == 0 {
					return &mcp.CallToolResult{InputRequests: confirm, RequestState: t.state}, nil
				}
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "confirmed"}}}, nil
			})
	}
	for _, name := range []string{"test_mrtr_unrelated", "test_mrtr_no_result_type"} {
		srv.AddTool(&mcp.Tool{Name: name, Description: "answers at once", InputSchema: schema},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
			})
	}
}

// The endless multi round-trip (mrtr-endless, and the black-box server):
// test_mrtr_endless answers every call with input_required, a
// confirmation to fulfil and a requestState naming the round, whatever
// the client sends, until the round EndlessRounds: then (the harness's
// own cap) a result that is an error. A client that bounds the request
// (a maximum timeout whatever the server does, or a cap on the rounds)
// gives up before (CLI-036).

const (
	// EndlessTool is the tool; EndlessRounds the round at which the
	// scenario server stops; EndlessCapNote starts the note of a chain
	// that reached it.
	EndlessTool    = "test_mrtr_endless"
	EndlessRounds  = 25
	EndlessCapNote = "the client retried test_mrtr_endless until the scenario server's cap"
	// endlessStatePrefix prefixes the round in the requestState.
	endlessStatePrefix = "mcpconform-endless-round-"
)

// endlessTool adds test_mrtr_endless.
func endlessTool(srv *mcp.Server, r *Run) {
	confirm := mcp.InputRequestMap{"confirm": &mcp.ElicitParams{
		Mode:    "form",
		Message: "Confirm again?",
		RequestedSchema: map[string]any{"type": "object",
			"properties": map[string]any{"confirmed": map[string]any{"type": "boolean"}}},
	}}
	srv.AddTool(&mcp.Tool{Name: EndlessTool, Description: "asks the client to confirm, again and again (input_required every time)", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			round := 1
			if n, err := strconv.Atoi(strings.TrimPrefix(req.Params.RequestState, endlessStatePrefix)); err == nil && strings.HasPrefix(req.Params.RequestState, endlessStatePrefix) {
				round = n + 1
			}
			if round >= EndlessRounds {
				r.note(fmt.Sprintf("%s (%d rounds): it answers with an error result", EndlessCapNote, round))
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("mcpconform: %d rounds of input_required; the scenario server stops here", round)}}}, nil
			}
			return &mcp.CallToolResult{InputRequests: confirm, RequestState: endlessStatePrefix + strconv.Itoa(round)}, nil
		})
}

// endlessMRTR: the endless tool beside the scenario's others.
func endlessMRTR(srv *mcp.Server, r *Run) {
	mrtrTools(srv, r)
	endlessTool(srv, r)
}
