// Package wire moves bytes between mcpconform and a target server. It knows
// framing (stdio lines, Streamable HTTP POST bodies and SSE events) but
// nothing of MCP: sessions, ids and eras live in internal/session.
package wire

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"
	"unicode/utf8"
)

// Transport names, as used in labels, reports and the catalog.
const (
	Stdio = "stdio"
	HTTP  = "http"
)

// Direction of a frame relative to the harness.
type Direction int

const (
	// Out is harness → server.
	Out Direction = iota
	// In is server → harness.
	In
)

func (d Direction) String() string {
	if d == Out {
		return "send"
	}
	return "recv"
}

// Kind says what a frame holds.
type Kind int

const (
	// KindMessage is a JSON payload: a stdio line or an HTTP JSON body or an SSE
	// data payload. It may still be invalid JSON-RPC; decoding is the caller's job.
	KindMessage Kind = iota
	// KindBody is an HTTP response body that is not JSON (or is empty): the frame
	// exists so checks can see status, headers and body of every HTTP reply.
	KindBody
	// KindClosed marks the end of the peer: process exit or EOF on stdout.
	KindClosed
	// KindNote is a harness annotation recorded in the transcript (e.g. "SIGTERM sent").
	KindNote
)

func (k Kind) String() string {
	switch k {
	case KindMessage:
		return "message"
	case KindBody:
		return "body"
	case KindClosed:
		return "closed"
	default:
		return "note"
	}
}

// HTTPInfo is the HTTP side of a frame. For Out frames it describes the
// request (Method, URL, Header); for In frames the response (Status, Header).
type HTTPInfo struct {
	Method string      `json:"method,omitempty"`
	URL    string      `json:"url,omitempty"`
	Status int         `json:"status,omitempty"`
	Header http.Header `json:"header,omitempty"`
	// SSE is true when the frame came from a text/event-stream body.
	SSE bool `json:"sse,omitempty"`
	// EventID and Event are the SSE fields of the event that carried the frame.
	EventID string `json:"eventId,omitempty"`
	Event   string `json:"event,omitempty"`
}

// Frame is one unit of traffic in either direction.
type Frame struct {
	// Seq is assigned by the Recorder, unique and increasing within a run.
	Seq  int64     `json:"seq"`
	Time time.Time `json:"time"`
	// Conn names the connection ("stdio#2", "http#5").
	Conn string    `json:"conn"`
	Dir  Direction `json:"-"`
	Kind Kind      `json:"-"`
	// Raw holds the bytes as they travelled (without the stdio newline),
	// cut at the transport's per-message cap when Truncated is set.
	Raw       []byte `json:"-"`
	Truncated bool   `json:"truncated,omitempty"`
	// Exchange numbers the HTTP request/response pair this frame belongs to
	// (0 on stdio). All frames of one POST share it.
	Exchange int64     `json:"exchange,omitempty"`
	HTTP     *HTTPInfo `json:"http,omitempty"`
	// Note is free text for KindNote and KindClosed frames.
	Note string `json:"note,omitempty"`
	// Decoded is the payload as whoever built or first read it decoded it
	// (a *jsonrpc.Message), handed along so that the session and the
	// run-wide observer decode each message once. Nil when nobody has; the
	// recorder never stores it. Read-only.
	Decoded any `json:"-"`
}

// SendOptions tunes one Send. The zero value sends the standard way.
type SendOptions struct {
	// Header is added to (and overrides) the transport's default headers (HTTP only).
	Header http.Header
	// Remove lists header names to delete after defaults and Header were applied (HTTP only).
	Remove []string
	// Raw sends the payload exactly as given: on stdio no newline is appended.
	Raw bool
	// Decoded is the payload decoded (a *jsonrpc.Message), when the sender
	// built it: the recorded frame carries it (Frame.Decoded).
	Decoded any
}

// Reply is what Send returns on HTTP: the response head and a channel closed
// when the whole body has been consumed and its frames delivered to Recv.
// On stdio Send returns a nil Reply.
type Reply struct {
	Exchange int64
	Status   int
	Header   http.Header
	// Done is closed after the last frame of this exchange was delivered.
	Done <-chan struct{}
}

// Conn is one connection to a target: one stdio process, or one HTTP client
// bound to an endpoint URL. Send may be called concurrently; Recv must be
// consumed by a single reader.
type Conn interface {
	// Name identifies the connection in transcripts ("stdio#1").
	Name() string
	// Transport is Stdio or HTTP.
	Transport() string
	// Send writes one outgoing payload. On stdio it is written as one line. On
	// HTTP it is POSTed and the reply frames are delivered through Recv.
	Send(ctx context.Context, payload []byte, opts *SendOptions) (*Reply, error)
	// Recv returns the next incoming frame. A KindClosed frame is delivered once
	// when the peer ends; after it Recv returns ErrClosed.
	Recv(ctx context.Context) (Frame, error)
	// Close ends the connection (stdio: the shutdown sequence of the spec).
	Close() error
}

// HTTPDoer is implemented by HTTP connections for transport-specific checks
// that need another method (GET, DELETE) or full control of a request.
type HTTPDoer interface {
	Do(ctx context.Context, method string, body []byte, opts *SendOptions) (*Reply, error)
}

// Idler is implemented by connections that can tell when nothing more can
// arrive until the next request (Streamable HTTP: every exchange ended and
// its frames handed out). A stdio peer may write at any time: no Idler.
type Idler interface {
	// Idle reports it; when not idle, ending says that the only exchanges
	// still open were abandoned or read to their end (they end within
	// moments and bring nothing new), and changed is closed once the
	// connection may have become idle.
	Idle() (idle, ending bool, changed <-chan struct{})
}

// NoteExchangeEnd is the Note of the KindNote frame an HTTP connection
// delivers through Recv after the last frame of an exchange, so a reader
// knows that no more frames of that exchange will come.
const NoteExchangeEnd = "exchange end"

// CausePrefix starts the Note of a KindNote frame that records a transport
// problem on the server's side: a per-message cap exceeded, invalid UTF-8,
// a message cut off by the end of the stream, an exit nobody asked for.
// The runner quotes such notes in the verdict of a check that did not pass
// while they were recorded, so the verdict names the cause.
const CausePrefix = "transport problem: "

// ExitCause starts the cause of a server process that ended on its own
// (the other causes are about what the server wrote).
const ExitCause = "the server process ended on its own"

// Errors.
var (
	ErrClosed  = errors.New("connection closed")
	ErrTimeout = errors.New("timed out")
)

// Size renders a byte count for messages: "16 MiB", "300.5 MiB", "12 KiB",
// "17 bytes".
func Size(n int64) string {
	switch {
	case n >= 1<<20:
		if n%(1<<20) == 0 {
			return fmt.Sprintf("%d MiB", n>>20)
		}
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%d KiB", n>>10)
	default:
		return fmt.Sprintf("%d bytes", n)
	}
}

// InvalidUTF8 returns the offset of the first invalid UTF-8 byte in b, or
// -1 when b is valid. When cut is set, b was cut at a size cap and a
// character left incomplete at its very end does not count.
func InvalidUTF8(b []byte, cut bool) int {
	if cut {
		for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
			if utf8.RuneStart(b[i]) {
				if !utf8.FullRune(b[i:]) {
					b = b[:i]
				}
				break
			}
		}
	}
	if utf8.Valid(b) {
		return -1
	}
	at := 0
	for at < len(b) {
		r, n := utf8.DecodeRune(b[at:])
		if r == utf8.RuneError && n <= 1 {
			return at
		}
		at += n
	}
	return -1
}
