package scenario

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The SSE retry scenario (2025-11-25, the official sse-retry): the
// scenario server answers the client's call of test_reconnection with an
// event stream that carries only a priming event (an id, "retry: 250",
// no data) and then closes it without the response. The client must wait
// the retry time before it reconnects (CLI-016) and should resume with a
// GET carrying Last-Event-ID (CLI-017); the response comes on that GET.

// RetryMillis is the retry the priming event sets: 250 ms, half the
// official harness's 500, as discriminating (clients that ignore the
// field reconnect at once or after their own default, a second in the
// go-sdk and the TypeScript SDK) and the longest wait of a client run.
const RetryMillis = 250

// StreamClosedNote starts the transcript note the scenario server records
// when it closed the POST stream (the moment the client's wait starts).
const StreamClosedNote = "the scenario server closed the POST stream after its priming event"

// reconnectTool is the tool whose call gets the closed stream.
const reconnectTool = "test_reconnection"

func reconnectTools(srv *mcp.Server, r *Run) {
	addNumbers(srv, r)
	srv.AddTool(&mcp.Tool{Name: reconnectTool, Description: "answers on a resumed stream", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "reconnected"}}}, nil
		})
}

// pendingCall is a call whose stream the scenario server closed.
type pendingCall struct {
	id      json.RawMessage
	eventID string
}

// reconnect closes the stream of the first test_reconnection call of each
// session after the priming event, and answers it on the GET that resumes
// after that event.
func (r *Run) reconnect(next http.Handler) http.Handler {
	var mu sync.Mutex
	pending := map[string]*pendingCall{} // by session id
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		sid := req.Header.Get("Mcp-Session-Id")
		switch {
		case sid != "" && req.Method == http.MethodPost:
			body := peekBody(req)
			var m struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Params struct {
					Name string `json:"name"`
				} `json:"params"`
			}
			_ = json.Unmarshal(body, &m)
			mu.Lock()
			_, done := pending[sid]
			if m.Method != "tools/call" || m.Params.Name != reconnectTool || done || len(m.ID) == 0 {
				mu.Unlock()
				break
			}
			p := &pendingCall{id: m.ID, eventID: sid + "-primed"}
			pending[sid] = p
			mu.Unlock()
			w.Header().Set("Content-Type", "text/event-stream")
			w.Header().Set("Cache-Control", "no-cache")
			w.WriteHeader(http.StatusOK)
			fmt.Fprintf(w, "id: %s\nretry: %d\ndata: \n\n", p.eventID, RetryMillis)
			if f, ok := w.(http.Flusher); ok {
				f.Flush()
			}
			r.note(fmt.Sprintf("%s (id %s, retry: %d ms), without the response", StreamClosedNote, p.eventID, RetryMillis))
			return
		case sid != "" && req.Method == http.MethodGet && req.Header.Get("Last-Event-ID") != "":
			mu.Lock()
			p := pending[sid]
			mu.Unlock()
			if p == nil || req.Header.Get("Last-Event-ID") != p.eventID {
				break
			}
			w.Header().Set("Content-Type", "text/event-stream")
			w.Header().Set("Cache-Control", "no-cache")
			w.WriteHeader(http.StatusOK)
			fmt.Fprintf(w, "id: %s-answer\ndata: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"reconnected\"}]}}\n\n", sid, p.id)
			if f, ok := w.(http.Flusher); ok {
				f.Flush()
			}
			r.note("the scenario server answered the call on the resumed stream and ends it")
			return
		}
		next.ServeHTTP(w, req)
	})
}
