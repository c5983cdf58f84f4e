package streamhttp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcpconform/mcpconform/internal/wire"
)

// maxMinorNotes bounds the per-exchange notes about SSE details (empty-data
// events, retry fields) so that a stream of tiny events cannot flood the
// transcript with notes.
const maxMinorNotes = 64

var errBodyCap = errors.New("response body exceeded MaxBodyBytes")

// exchange is the reading side of one request/response pair.
type exchange struct {
	c      *Conn
	id     int64
	ctx    context.Context // the caller's
	reqCtx context.Context // ctx + Close
	resp   *http.Response
	header http.Header
	done   chan struct{}

	release   func() // ends reqCtx
	stopClose func() // stops (or waits for) the close-body-on-cancel hook

	sse        bool
	minorNotes int
	// capCauses and utf8Causes count the cause notes of SSE events (at most 3 each).
	capCauses, utf8Causes int
	suppressed            int
	messages              int
}

// capReader reads at most left bytes; one byte more means errBodyCap.
type capReader struct {
	r    io.Reader
	left int64
}

func (r *capReader) Read(p []byte) (int, error) {
	if r.left <= 0 {
		var one [1]byte
		n, err := r.r.Read(one[:])
		if n > 0 {
			return 0, errBodyCap
		}
		return 0, err
	}
	if int64(len(p)) > r.left {
		p = p[:r.left]
	}
	n, err := r.r.Read(p)
	r.left -= int64(n)
	return n, err
}

func mediaType(ct string) string {
	if ct == "" {
		return ""
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		mt, _, _ = strings.Cut(ct, ";")
		mt = strings.ToLower(strings.TrimSpace(mt))
	}
	return mt
}

func isJSONType(mt string) bool {
	return mt == "application/json" || strings.HasSuffix(mt, "+json")
}

func (x *exchange) read() {
	defer x.c.wg.Done()
	defer close(x.done)
	defer func() { // tell the reader that no more frames of this exchange will come
		f := x.frame(wire.KindNote)
		f.Note = wire.NoteExchangeEnd
		x.c.deliver(f)
	}()
	defer func() {
		x.stopClose()
		_ = x.resp.Body.Close()
		x.release()
	}()

	body := &capReader{r: x.resp.Body, left: x.c.maxBody}
	switch mt := mediaType(x.header.Get("Content-Type")); {
	case mt == "text/event-stream":
		x.sse = true
		x.readSSE(body)
	case isJSONType(mt):
		x.readWhole(body, true)
	default:
		x.readWhole(body, false)
	}
}

// frame returns an In frame of this exchange.
func (x *exchange) frame(kind wire.Kind) wire.Frame {
	return wire.Frame{
		Time:     time.Now(),
		Dir:      wire.In,
		Kind:     kind,
		Exchange: x.id,
		HTTP:     &wire.HTTPInfo{Status: x.resp.StatusCode, Header: x.header, SSE: x.sse},
	}
}

func (x *exchange) note(text string) {
	f := x.frame(wire.KindNote)
	f.Note = text
	x.c.emit(f)
}

// readWhole turns a non-SSE body into exactly one frame: KindMessage for a
// non-blank JSON body, KindBody otherwise.
func (x *exchange) readWhole(body io.Reader, jsonBody bool) {
	var buf bytes.Buffer
	if n := x.resp.ContentLength; n > 0 && n <= x.c.maxMsg {
		buf.Grow(int(n) + 1)
	}
	_, err := buf.ReadFrom(io.LimitReader(body, x.c.maxMsg+1))
	raw := buf.Bytes()
	truncated := false
	if int64(len(raw)) > x.c.maxMsg {
		raw = raw[:x.c.maxMsg]
		truncated = true
	}
	if err != nil {
		truncated = true // cut short by the stop below
	}
	f := x.frame(wire.KindBody)
	if jsonBody {
		trimmed := raw
		if !truncated {
			trimmed = bytes.TrimRight(raw, " \t\r\n")
		}
		if len(trimmed) > 0 {
			f.Kind = wire.KindMessage
			raw = trimmed
		}
	}
	f.Raw = raw
	f.Truncated = truncated
	overCap := err == nil && int64(buf.Len()) > x.c.maxMsg
	// Causes are recorded before the frame is delivered: a check that
	// reacts to the frame finds them in its transcript.
	if overCap {
		x.cause(fmt.Sprintf("a response body exceeds the %s message cap: cut at the cap, the rest discarded", wire.Size(x.c.maxMsg)))
	}
	if jsonBody {
		x.utf8Cause(raw, truncated, "response body")
	}
	x.c.emit(f)
	if overCap {
		// Discard the rest without buffering it.
		_, err = io.Copy(io.Discard, body)
	}
	if err != nil {
		x.note(x.stopText(err))
	}
}

// cause records a transport problem in the transcript only (it is not
// delivered to Recv: the frames a reader sees stay as they were).
func (x *exchange) cause(text string) {
	f := x.frame(wire.KindNote)
	f.Conn = x.c.name
	f.Note = wire.CausePrefix + text
	x.c.rec.Record(f)
}

// utf8Cause records invalid UTF-8 in a JSON payload as a transport problem.
func (x *exchange) utf8Cause(raw []byte, truncated bool, what string) {
	if at := wire.InvalidUTF8(raw, truncated); at >= 0 {
		x.cause(fmt.Sprintf("invalid UTF-8 in server output (a %s of %d bytes, first invalid byte 0x%02x at offset %d)", what, len(raw), raw[at], at))
	}
}

// stopText says why reading a body ended early.
func (x *exchange) stopText(err error) string {
	switch {
	case errors.Is(err, errBodyCap):
		return wire.CausePrefix + fmt.Sprintf("response body exceeded %d bytes (%s, MaxBodyBytes); body closed", x.c.maxBody, wire.Size(x.c.maxBody))
	case x.c.isClosed():
		return "connection closed while reading the response body; body closed"
	case x.ctx.Err() != nil:
		return fmt.Sprintf("request context done while reading the response body (%v); body closed (client-side cancellation)", x.ctx.Err())
	case errors.Is(err, io.ErrUnexpectedEOF):
		return wire.CausePrefix + "the server closed the connection in the middle of a response body (" + err.Error() + ")"
	default:
		return wire.CausePrefix + fmt.Sprintf("response body read error: %v", err)
	}
}

// stoppedByUs reports whether reading ended because of the harness (ctx,
// Close, or the body cap) rather than the server.
func (x *exchange) stoppedByUs(err error) bool {
	return errors.Is(err, errBodyCap) || x.reqCtx.Err() != nil
}

func (x *exchange) readSSE(body io.Reader) {
	p := newSSEParser(body, x.c.maxMsg, x.onEvent)
	err := p.run()
	p.release()
	if err != io.EOF {
		x.note(x.stopText(err))
	}
	if err == io.EOF || !x.stoppedByUs(err) {
		if ev, ok := p.pending(); ok {
			f := x.frame(wire.KindNote)
			f.Raw = ev.Data
			f.Truncated = ev.Truncated
			f.HTTP.EventID = ev.ID
			f.HTTP.Event = ev.Event
			f.Note = fmt.Sprintf("sse stream ended inside an event (no blank line after it): incomplete event discarded, %d data bytes", len(ev.Data))
			x.c.emit(f)
		}
	}
	if x.suppressed > 0 {
		x.note(fmt.Sprintf("%d further sse notes suppressed", x.suppressed))
	}
	if p.comments > 0 {
		x.note(fmt.Sprintf("sse stream: %d messages, %d comment lines ignored", x.messages, p.comments))
	}
}

func (x *exchange) onEvent(ev sseEvent) {
	if len(ev.Data) == 0 && !ev.Truncated {
		x.minorNote(ev, "sse event"+describe(ev)+" with empty data")
		return
	}
	if ev.Retry >= 0 {
		x.minorNote(ev, fmt.Sprintf("sse retry=%d", ev.Retry))
	}
	f := x.frame(wire.KindMessage)
	f.Raw = ev.Data
	f.Truncated = ev.Truncated
	f.HTTP.EventID = ev.ID
	f.HTTP.Event = ev.Event
	x.messages++
	if ev.Truncated && x.capCauses < 3 {
		x.capCauses++
		x.cause(fmt.Sprintf("an SSE event's data exceeds the %s message cap: cut at the cap, the rest discarded", wire.Size(x.c.maxMsg)))
	}
	if x.utf8Causes < 3 && !utf8.Valid(ev.Data) {
		x.utf8Causes++
		x.utf8Cause(ev.Data, ev.Truncated, "SSE event's data")
	}
	x.c.emit(f)
}

func describe(ev sseEvent) string {
	var b strings.Builder
	if ev.HasID {
		fmt.Fprintf(&b, " id=%q", ev.ID)
	}
	if ev.Event != "" {
		fmt.Fprintf(&b, " event=%q", ev.Event)
	}
	if ev.Retry >= 0 {
		fmt.Fprintf(&b, " retry=%d", ev.Retry)
	}
	return b.String()
}

func (x *exchange) minorNote(ev sseEvent, text string) {
	if x.minorNotes >= maxMinorNotes {
		x.suppressed++
		return
	}
	x.minorNotes++
	f := x.frame(wire.KindNote)
	f.Note = text
	f.HTTP.EventID = ev.ID
	f.HTTP.Event = ev.Event
	x.c.emit(f)
}
