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
// second ping follows it. LargeNote is large-message's.
const (
	JunkNote  = "the scenario server sends the client a message that is not JSON and a response to an id it never sent, then pings it"
	LargeNote = "the scenario server sends the client a log message of 1088 KiB (notifications/message), then pings it"
)

// junkMessages precede the scenario server's next message in
// hostile-messages: a JSON-RPC message cut off, and a response to an id
// the client never sent.
func junkMessages() [][]byte {
	return [][]byte{
		[]byte(`{"jsonrpc":"2.0","id":`),
		[]byte(`{"jsonrpc":"2.0","id":"mcpconform-never-sent","result":{}}`),
	}
}

// LargeMessageBytes is the size of large-message's log message, 1 MiB and
// 64 KiB: past a cap of 1 MiB, as large as a tool result with a
// screenshot, and no MCP text sets a limit.
const LargeMessageBytes = 1<<20 + 64<<10

// largeMessage is large-message's: a notifications/message (the server
// declares logging) whose data is LargeMessageBytes long in all.
var largeMessage = sync.OnceValue(func() [][]byte {
	head := `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","logger":"mcpconform","data":"`
	tail := `"}}`
	b := make([]byte, 0, LargeMessageBytes)
	b = append(b, head...)
	for len(b) < LargeMessageBytes-len(tail) {
		b = append(b, "mcpconform large message "...)
	}
	b = append(b[:LargeMessageBytes-len(tail)], tail...)
	return [][]byte{b}
})

// sendThenPing: add_numbers pings the client (the calibration: a client
// that answers no ping is not judged), sends the scenario's junk (note
// says what), pings it again (the barrier its check judges: a client that
// went on answers it), and answers. With adapt, the second ping is
// awaited 100 times the first one's round trip, at least junkWaitFloor
// and at most serverRequestWait (junk the size of a ping costs a client
// that goes on no more time than a ping); without, serverRequestWait (a
// large message costs reading and decoding it, which a ping's round trip
// does not foretell). Either wait ends when the client's process does: a
// client that died on the junk costs the run no more; an answer that
// comes later still counts.
func sendThenPing(note string, adapt bool) func(*mcp.Server, *Run) {
	return func(srv *mcp.Server, r *Run) {
		addNumbersTool(srv, func(ctx context.Context, req *mcp.CallToolRequest) {
			if req.Session == nil {
				return
			}
			start := time.Now()
			pctx, cancel := r.awaitClient(ctx)
			err := req.Session.Ping(pctx, nil)
			cancel()
			if err != nil {
				r.note("the client did not answer the scenario server's first ping: nothing more sent")
				return
			}
			rtt := time.Since(start)
			wait := serverRequestWait
			if adapt {
				wait = min(max(junkWaitFloor, 100*rtt), serverRequestWait)
			}
			r.note(fmt.Sprintf("%s (its answer awaited %s: the first ping took %s)", note, wait.Round(time.Millisecond), rtt.Round(time.Microsecond)))
			r.junkDue.Store(true)
			pctx, cancel = r.awaitClient(ctx)
			defer cancel()
			pctx, cancel2 := context.WithTimeout(pctx, wait)
			defer cancel2()
			_ = req.Session.Ping(pctx, nil)
		})
	}
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
		for _, m := range j.run.Scenario.junk() {
			// three writes, not a formatted copy of a large message
			for _, b := range [][]byte{[]byte("event: message\ndata: "), m, []byte("\n\n")} {
				if _, err := j.ResponseWriter.Write(b); err != nil {
					return 0, err
				}
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
		for _, m := range j.run.Scenario.junk() {
			if _, err := j.out.Write(append(append([]byte{}, m...), '\n')); err != nil {
				return 0, err
			}
		}
	}
	return j.next.Write(p)
}

func (j *junkLines) Close() error { return j.next.Close() }
