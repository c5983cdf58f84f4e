package scenario

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/mcpconform/mcpconform/internal/wire"
)

// What a run records: every HTTP request of the client (Dir In: from the
// party under test, its method, path and headers, its body as one frame)
// and every reply of the scenario server (Dir Out: its status and headers,
// a JSON body as one frame, each SSE event's data as one frame); over
// stdio every line each way. Bodies and lines are capped at maxMessage.

// maxMessage caps a recorded body or line (a client's request is small;
// a huge one is cut and marked Truncated).
const maxMessage = 4 << 20

// recordHTTP records the exchange of every request next serves, on the
// run's connection.
func (r *Run) recordHTTP(next http.Handler) http.Handler { return r.recordOn(r.Conn, next) }

// recordOn records the exchange of every request next serves on conn.
func (r *Run) recordOn(conn string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		ex := r.exchange.Add(1)
		body, _ := io.ReadAll(io.LimitReader(req.Body, maxMessage+1))
		trunc := len(body) > maxMessage
		if trunc {
			body = body[:maxMessage]
		}
		req.Body = io.NopCloser(bytes.NewReader(body))
		kind := wire.KindMessage
		if len(bytes.TrimSpace(body)) == 0 {
			kind = wire.KindBody
		}
		r.rec.Record(wire.Frame{Conn: conn, Dir: wire.In, Kind: kind, Raw: body, Truncated: trunc, Exchange: ex,
			HTTP: &wire.HTTPInfo{Method: req.Method, URL: req.URL.RequestURI(), Header: req.Header.Clone()}})
		rw := &recWriter{w: w, run: r, conn: conn, ex: ex}
		next.ServeHTTP(rw, req)
		rw.finish()
	})
}

// recWriter records a reply as it is written.
type recWriter struct {
	w      http.ResponseWriter
	run    *Run
	conn   string
	ex     int64
	mu     sync.Mutex
	status int
	header http.Header
	sse    bool
	buf    bytes.Buffer // a JSON body, or the SSE text not yet parsed
	events int
}

func (rw *recWriter) Header() http.Header         { return rw.w.Header() }
func (rw *recWriter) Unwrap() http.ResponseWriter { return rw.w }

func (rw *recWriter) Flush() {
	if f, ok := rw.w.(http.Flusher); ok {
		f.Flush()
	}
}

func (rw *recWriter) WriteHeader(code int) {
	rw.mu.Lock()
	if rw.status == 0 {
		rw.status = code
		rw.header = rw.w.Header().Clone()
		rw.sse = strings.HasPrefix(strings.ToLower(rw.header.Get("Content-Type")), "text/event-stream")
	}
	rw.mu.Unlock()
	rw.w.WriteHeader(code)
}

func (rw *recWriter) Write(p []byte) (int, error) {
	rw.mu.Lock()
	if rw.status == 0 {
		rw.mu.Unlock()
		rw.WriteHeader(http.StatusOK)
		rw.mu.Lock()
	}
	if rw.buf.Len() < maxMessage {
		rw.buf.Write(p)
	}
	if rw.sse {
		rw.events += rw.run.sseEvents(rw.conn, &rw.buf, rw.ex, rw.status, rw.header, false)
	}
	rw.mu.Unlock()
	return rw.w.Write(p)
}

// finish records what the reply left: a JSON or empty body, the rest of
// an event stream.
func (rw *recWriter) finish() {
	rw.mu.Lock()
	defer rw.mu.Unlock()
	if rw.status == 0 {
		rw.status, rw.header = http.StatusOK, rw.w.Header().Clone()
	}
	info := &wire.HTTPInfo{Status: rw.status, Header: rw.header}
	if rw.sse {
		rw.events += rw.run.sseEvents(rw.conn, &rw.buf, rw.ex, rw.status, rw.header, true)
		if rw.events == 0 {
			rw.run.rec.Record(wire.Frame{Conn: rw.conn, Dir: wire.Out, Kind: wire.KindBody, Exchange: rw.ex, HTTP: info})
		}
		return
	}
	kind := wire.KindBody
	if json.Valid(bytes.TrimSpace(rw.buf.Bytes())) && rw.buf.Len() > 0 {
		kind = wire.KindMessage
	}
	rw.run.rec.Record(wire.Frame{Conn: rw.conn, Dir: wire.Out, Kind: kind, Raw: bytes.Clone(rw.buf.Bytes()), Exchange: rw.ex, HTTP: info})
}

// sseEvents records the complete events at the start of buf (all of it
// when final) and drops them from buf; it returns how many had data.
func (r *Run) sseEvents(conn string, buf *bytes.Buffer, ex int64, status int, h http.Header, final bool) int {
	n := 0
	for {
		b := buf.Bytes()
		end, skip := eventEnd(b)
		if end < 0 {
			if !final || len(bytes.TrimSpace(b)) == 0 {
				return n
			}
			end, skip = len(b), 0
		}
		var data [][]byte
		info := &wire.HTTPInfo{Status: status, Header: h, SSE: true}
		for _, line := range bytes.Split(bytes.ReplaceAll(b[:end], []byte("\r\n"), []byte("\n")), []byte("\n")) {
			field, value, _ := bytes.Cut(line, []byte(":"))
			value = bytes.TrimPrefix(value, []byte(" "))
			switch string(field) {
			case "data":
				data = append(data, value)
			case "id":
				info.EventID = string(value)
			case "event":
				info.Event = string(value)
			}
		}
		if data != nil {
			r.rec.Record(wire.Frame{Conn: conn, Dir: wire.Out, Kind: wire.KindMessage, Raw: bytes.Join(data, []byte("\n")), Exchange: ex, HTTP: info})
			n++
		}
		buf.Next(end + skip)
		if buf.Len() == 0 {
			return n
		}
	}
}

// eventEnd finds the blank line ending the first SSE event of b: its
// offset and the length of the separator.
func eventEnd(b []byte) (int, int) {
	best, skip := -1, 0
	for _, sep := range []string{"\n\n", "\r\n\r\n", "\r\r"} {
		if i := bytes.Index(b, []byte(sep)); i >= 0 && (best < 0 || i < best) {
			best, skip = i, len(sep)
		}
	}
	return best, skip
}

// lineRecorder records each line that passes through it (stdio).
type lineRecorder struct {
	run  *Run
	conn string
	dir  wire.Direction
	mu   sync.Mutex
	buf  []byte
}

// Write records the complete lines of p and keeps the rest.
func (l *lineRecorder) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(l.buf, p...)
	for {
		i := bytes.IndexByte(l.buf, '\n')
		if i < 0 {
			if len(l.buf) > maxMessage {
				l.record(l.buf[:maxMessage], true)
				l.buf = nil
			}
			return len(p), nil
		}
		l.record(bytes.TrimSuffix(l.buf[:i], []byte("\r")), false)
		l.buf = l.buf[i+1:]
	}
}

func (l *lineRecorder) record(line []byte, trunc bool) {
	kind := wire.KindMessage
	if len(bytes.TrimSpace(line)) == 0 {
		kind = wire.KindBody
	}
	l.run.rec.Record(wire.Frame{Conn: l.conn, Dir: l.dir, Kind: kind, Raw: bytes.Clone(line), Truncated: trunc})
}

// recordLines copies src to dst, recording each line: every complete line
// of a read is recorded before any of it reaches dst, so that lines the
// client sent together are recorded before anything the scenario server
// says after reading them.
func recordLines(dst io.Writer, src io.Reader, l *lineRecorder) error {
	_, err := io.Copy(io.MultiWriter(l, dst), src)
	return err
}
