package scenario

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The hostile scenario servers: they send what a well-behaved server does
// not, and the client checks judge what the client makes of it.

// liftGuard lets a scenario server send a request the go-sdk would refuse
// for the capabilities the client declared (ServerSession.Elicit checks
// them): the session's stored client capabilities get what grant adds
// until the returned restore runs. The checks judge the client's own
// initialize on the wire, never these.
func liftGuard(ip *mcp.InitializeParams, grant func(*mcp.ClientCapabilities)) (restore func()) {
	declared := ip.Capabilities
	caps := mcp.ClientCapabilities{}
	if declared != nil {
		caps = *declared
	}
	grant(&caps)
	ip.Capabilities = &caps
	return func() { ip.Capabilities = declared }
}

// undeclaredRequests: add_numbers first sends the client roots/list,
// sampling/createMessage and elicitation/create for each of those
// capabilities its initialize did not declare (each answer awaited up to
// serverRequestWait), then answers. A client that does not support them
// answers with an error (CLI-029); whether it answers at all is CLI-022's.
func undeclaredRequests(srv *mcp.Server, r *Run) {
	addNumbersTool(srv, func(ctx context.Context, req *mcp.CallToolRequest) {
		ss := req.Session
		ip := ss.InitializeParams()
		if ss == nil || ip == nil {
			return
		}
		caps := ip.Capabilities
		if caps == nil {
			caps = &mcp.ClientCapabilities{}
		}
		ask := func(what string, send func(context.Context)) {
			r.note("the scenario server sends the client " + what + ", a capability it did not declare")
			ctx, cancel := context.WithTimeout(ctx, serverRequestWait)
			defer cancel()
			send(ctx)
		}
		if caps.RootsV2 == nil {
			ask("roots/list", func(ctx context.Context) { _, _ = ss.ListRoots(ctx, nil) })
		}
		if caps.Sampling == nil {
			ask("sampling/createMessage", func(ctx context.Context) {
				_, _ = ss.CreateMessage(ctx, &mcp.CreateMessageParams{MaxTokens: 16,
					Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "Say hello"}}}})
			})
		}
		if caps.Elicitation == nil {
			ask("elicitation/create", func(ctx context.Context) {
				defer liftGuard(ip, func(c *mcp.ClientCapabilities) { c.Elicitation = &mcp.ElicitationCapabilities{} })()
				_, _ = ss.Elicit(ctx, &mcp.ElicitParams{Message: "Your name?", RequestedSchema: map[string]any{
					"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}})
			})
		}
	})
}
