package scenario

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

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
// capabilities its initialize did not declare (all at once, each answer
// awaited up to serverRequestWait), then answers. A client that does not support them
// answers with an error (CLI-029); whether it answers at all is CLI-022's.
func undeclaredRequests(srv *mcp.Server, r *Run) {
	addNumbersTool(srv, func(ctx context.Context, req *mcp.CallToolRequest) {
		ss := req.Session
		if ss == nil {
			return
		}
		ip := ss.InitializeParams()
		if ip == nil {
			return
		}
		caps := ip.Capabilities
		if caps == nil {
			caps = &mcp.ClientCapabilities{}
		}
		// the requests go out together: a client that answers none costs
		// the run one wait, not three
		var wg sync.WaitGroup
		defer wg.Wait()
		ask := func(what string, send func(context.Context)) {
			r.note("the scenario server sends the client " + what + ", a capability it did not declare")
			wg.Go(func() {
				ctx, cancel := r.awaitClient(ctx)
				defer cancel()
				send(ctx)
			})
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

// JunkNote starts the transcript note hostile-messages records when its
// junk goes out (after a first ping the client answered); the server's
// second ping follows it.
const JunkNote = "the scenario server sends the client a message that is not JSON and a response to an id it never sent, then pings it"

// junkMessages precede the scenario server's next message in
// hostile-messages: a JSON-RPC message cut off, and a response to an id
// the client never sent.
var junkMessages = [][]byte{
	[]byte(`{"jsonrpc":"2.0","id":`),
	[]byte(`{"jsonrpc":"2.0","id":"mcpconform-never-sent","result":{}}`),
}

// junkThenPing: add_numbers pings the client (the calibration: a client
// that answers no ping is not judged, and its answer time sets the next
// wait), sends the junk, pings it again (the barrier CLI-030 judges: a
// client that went on answers it), and answers. The second ping is awaited
// 100 times the first one's round trip, at least junkWaitFloor and at most
// serverRequestWait: a client that died on the junk costs the run that
// wait, not more; an answer that comes later still counts.
func junkThenPing(srv *mcp.Server, r *Run) {
	addNumbersTool(srv, func(ctx context.Context, req *mcp.CallToolRequest) {
		if req.Session == nil {
			return
		}
		start := time.Now()
		pctx, cancel := r.awaitClient(ctx)
		err := req.Session.Ping(pctx, nil)
		cancel()
		if err != nil {
			r.note("the client did not answer the scenario server's first ping: no junk sent")
			return
		}
		rtt := time.Since(start)
		wait := min(max(junkWaitFloor, 100*rtt), serverRequestWait)
		r.note(fmt.Sprintf("%s (its answer awaited %s: the first ping took %s)", JunkNote, wait.Round(time.Millisecond), rtt.Round(time.Microsecond)))
		r.junkDue.Store(true)
		pctx, cancel = r.awaitClient(ctx)
		defer cancel()
		pctx, cancel2 := context.WithTimeout(pctx, wait)
		defer cancel2()
		_ = req.Session.Ping(pctx, nil)
	})
}

// junkWaitFloor is the least wait for the answer to the ping after the
// junk.
const junkWaitFloor = 250 * time.Millisecond

// withJunk writes the junk, as events of their own, before the next event
// of an event stream once it is due (HTTP).
func (r *Run) withJunk(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		next.ServeHTTP(&junkWriter{ResponseWriter: w, run: r}, req)
	})
}

type junkWriter struct {
	http.ResponseWriter
	run *Run
}

func (j *junkWriter) Unwrap() http.ResponseWriter { return j.ResponseWriter }

func (j *junkWriter) Write(p []byte) (int, error) {
	if strings.HasPrefix(j.Header().Get("Content-Type"), "text/event-stream") && j.run.junkDue.CompareAndSwap(true, false) {
		for _, m := range junkMessages {
			if _, err := fmt.Fprintf(j.ResponseWriter, "event: message\ndata: %s\n\n", m); err != nil {
				return 0, err
			}
		}
	}
	return j.ResponseWriter.Write(p)
}

// junkLines writes the junk, a line each, before the scenario server's
// next line once it is due (stdio).
type junkLines struct {
	run  *Run
	next io.WriteCloser
	out  io.Writer
}

func (j *junkLines) Write(p []byte) (int, error) {
	if j.run.junkDue.CompareAndSwap(true, false) {
		for _, m := range junkMessages {
			if _, err := j.out.Write(append(append([]byte{}, m...), '\n')); err != nil {
				return 0, err
			}
		}
	}
	return j.next.Write(p)
}

func (j *junkLines) Close() error { return j.next.Close() }
