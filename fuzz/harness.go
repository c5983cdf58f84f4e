package fuzz

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mcpconform/mcpconform/internal/catalog"
	"github.com/mcpconform/mcpconform/internal/jsonrpc"
	"github.com/mcpconform/mcpconform/internal/msgcheck"
	"github.com/mcpconform/mcpconform/internal/session"
	"github.com/mcpconform/mcpconform/internal/target"
	"github.com/mcpconform/mcpconform/internal/wire"
	"github.com/mcpconform/mcpconform/internal/wire/streamhttp"
	"pgregory.net/rapid"
)

// Raw is one message of a saved case: Text when the bytes are UTF-8,
// otherwise Base64.
type Raw struct {
	Text   *string `json:"text,omitempty"`
	Base64 string  `json:"base64,omitempty"`
}

// RawOf wraps bytes for a replay file.
func RawOf(b []byte) Raw {
	if utf8.Valid(b) {
		s := string(b)
		return Raw{Text: &s}
	}
	return Raw{Base64: base64.StdEncoding.EncodeToString(b)}
}

// Bytes returns the message's bytes.
func (r Raw) Bytes() ([]byte, error) {
	if r.Text != nil {
		return []byte(*r.Text), nil
	}
	if r.Base64 == "" {
		return nil, errors.New(`neither "text" nor "base64"`)
	}
	return base64.StdEncoding.DecodeString(r.Base64)
}

// problem is one broken property of one exchange.
type problem struct{ Layer, Code, Detail string }

func (p problem) String() string { return p.Layer + "/" + p.Code + ": " + p.Detail }

// Bounds.
const (
	maxTranscript = 40
	clipAt        = 240
	maxListPages  = 20
	maxTools      = 64
)

// harness holds the session to the target; it is reopened after a crash
// or a hang.
type harness struct {
	tg        *target.Target
	rev       catalog.Revision
	s         *session.Session
	timeout   time.Duration
	probe     string
	answer    []string // methods the server must answer (probe + declared lists)
	tools     []toolInfo
	exchanges atomic.Int64
}

func newHarness(ctx context.Context, tg *target.Target, rev catalog.Revision) (*harness, error) {
	h := &harness{tg: tg, timeout: tg.Timeout}
	if h.timeout <= 0 {
		h.timeout = 5 * time.Second
	}
	if rev == "" {
		d := tg.Detect(ctx)
		for r, s := range d.Sessions {
			if len(d.Revisions) == 0 || r != d.Revisions[0] {
				s.Close()
			}
		}
		if len(d.Revisions) == 0 {
			if d.Unreachable != nil {
				return nil, d.Unreachable
			}
			return nil, fmt.Errorf("no revision to fuzz: %s", strings.Join(d.Notes, "; "))
		}
		rev = d.Revisions[0]
		h.s = d.Sessions[rev]
	}
	h.rev = rev
	if h.s == nil {
		s, err := tg.Open(ctx, rev)
		if err != nil {
			return nil, fmt.Errorf("opening a %s session: %w", rev, err)
		}
		h.s = s
	}
	h.rev = h.s.Revision()
	h.probe = "ping"
	if h.s.Modern() {
		h.probe = "server/discover"
	}
	h.answer = []string{h.probe}
	caps := h.s.Capabilities()
	for _, l := range []struct{ capability, method string }{
		{"tools", "tools/list"}, {"resources", "resources/list"}, {"resources", "resources/templates/list"}, {"prompts", "prompts/list"},
	} {
		if _, ok := caps[l.capability]; ok {
			h.answer = append(h.answer, l.method)
		}
	}
	return h, nil
}

func (h *harness) close() {
	if h.s != nil {
		h.s.Close()
		h.s = nil
	}
}

func (h *harness) reopen(ctx context.Context) error {
	h.close()
	s, err := h.tg.Open(ctx, h.rev)
	if err != nil {
		return err
	}
	h.s = s
	return nil
}

// headers returns the HTTP headers a request for method with params needs.
func (h *harness) headers(method string, params json.RawMessage) http.Header {
	hdr := http.Header{}
	if h.s.Transport() != wire.HTTP {
		return hdr
	}
	if !h.s.Modern() {
		if sid := h.s.SessionID(); sid != "" {
			hdr.Set(session.HeaderSessionID, sid)
		}
		if h.rev >= catalog.R20250618 {
			hdr.Set(session.HeaderProtocolVersion, string(h.rev))
		}
		return hdr
	}
	hdr.Set(session.HeaderProtocolVersion, string(catalog.Modern))
	if method != "" {
		hdr.Set(session.HeaderMethod, streamhttp.EncodeHeaderValue(method))
	}
	if name, ok := session.NameFor(method, params); ok {
		hdr.Set(session.HeaderName, streamhttp.EncodeHeaderValue(name))
	}
	return hdr
}

type sent struct {
	id     jsonrpc.ID
	method string
	count  int
}

// exchange sends msgs back to back and judges the exchange: every request
// (a well-formed message with a string or integer id) gets exactly one
// response with the same id and JSON type; notifications and faults get
// no result; every server message is valid for the revision; the server
// answers a liveness probe afterwards; no crash, no hang past the
// per-response deadline. The session is reopened when it crashed or hung.
func (h *harness) exchange(ctx context.Context, msgs [][]byte) ([]problem, []string) {
	if h.s == nil {
		if err := h.reopen(ctx); err != nil {
			return []problem{{"transport", "reopen-failed", err.Error()}}, nil
		}
	}
	s := h.s
	stdio := s.Transport() == wire.Stdio
	reqs := map[string]*sent{}
	loose := map[string]*sent{}
	var order []*sent
	faults := 0
	for _, raw := range msgs {
		if stdio && bytes.ContainsAny(raw, "\r\n") {
			faults++ // several lines on stdio: none of them a whole message
			continue
		}
		m, err := jsonrpc.Decode(raw)
		switch {
		case err != nil || !utf8.Valid(raw): // MCP messages are UTF-8
			faults++
		case m.Kind() == jsonrpc.KindRequest && m.JSONRPC == "2.0" && m.MethodIsString && m.ID.Valid() && reqs[m.ID.Key()] == nil:
			r := &sent{id: m.ID, method: m.Method}
			reqs[m.ID.Key()] = r
			order = append(order, r)
			if _, taken := loose[m.ID.LooseKey()]; !taken {
				loose[m.ID.LooseKey()] = r
			}
		case m.Kind() == jsonrpc.KindNotification && m.JSONRPC == "2.0" && m.MethodIsString:
		default:
			faults++
		}
	}

	mark := h.tg.Recorder.Seq()
	var probs []problem
	var wg sync.WaitGroup
	var rejMu sync.Mutex
	rejected := map[int64]bool{} // HTTP exchanges answered with a 4xx
	for _, raw := range msgs {
		method, params := methodOf(raw)
		so := &wire.SendOptions{Header: h.headers(method, params)}
		h.exchanges.Add(1)
		if stdio {
			if _, err := s.SendRaw(ctx, raw, so); err != nil {
				break // judged below (closed or not reading)
			}
			continue
		}
		wg.Add(1)
		go func(raw []byte) { // HTTP: all in flight together
			defer wg.Done()
			// The reply body is read under this context: keep it until
			// the whole body was delivered.
			cctx, cancel := context.WithTimeout(ctx, h.timeout)
			defer cancel()
			if reply, err := s.Conn().Send(cctx, raw, so); err == nil && reply != nil {
				if reply.Status >= 400 && reply.Status < 500 {
					rejMu.Lock()
					rejected[reply.Exchange] = true
					rejMu.Unlock()
				}
				select {
				case <-reply.Done:
				case <-cctx.Done():
				}
			}
		}(raw)
	}

	// Wait until every request is answered (or accounted for by a response
	// with an unknown id), the connection ends, or the deadline passes.
	wctx, cancel := context.WithTimeout(ctx, h.timeout)
	after := mark
	for {
		evs := s.Events(mark)
		answered, unknown := 0, 0
		seen := map[string]bool{}
		for _, e := range evs {
			after = max(after, e.Frame.Seq)
			if e.Msg == nil || e.Msg.Kind() != jsonrpc.KindResponse {
				continue
			}
			if r := reqs[e.Msg.ID.Key()]; r != nil && e.Msg.HasID {
				if !seen[e.Msg.ID.Key()] {
					answered++
				}
				seen[e.Msg.ID.Key()] = true
			} else if e.Msg.HasID && !e.Msg.ID.IsNull() {
				unknown++
			}
		}
		// A response with an id no request had stands for one that will
		// not come with the right id: once every request is accounted
		// for, nothing more is awaited.
		if closed, _ := s.Closed(); closed || answered+unknown >= len(reqs) {
			break
		}
		if _, ok := s.WaitEvent(wctx, after, func(session.Event) bool { return true }); !ok {
			break
		}
	}
	cancel()
	wg.Wait()

	// The liveness probe doubles as the barrier after which the exchange
	// is judged.
	h.exchanges.Add(1)
	resp, perr := s.Call(ctx, h.probe, nil, &session.CallOptions{Timeout: h.timeout})
	closed, cerr := s.Closed()
	broken := false
	switch {
	case closed:
		detail := "the connection ended"
		if cerr != nil {
			detail += ": " + cerr.Error()
		}
		probs = append(probs, problem{"transport", "crash", detail})
		broken = true
	case perr != nil:
		probs = append(probs, problem{"liveness", "no-answer", fmt.Sprintf("the liveness probe %s got no answer: %v", h.probe, perr)})
		broken = true
	case !resp.IsResult():
		probs = append(probs, problem{"liveness", "error", fmt.Sprintf("the liveness probe %s was answered %s", h.probe, resp.Describe())})
	}

	for _, e := range s.Events(mark) {
		if e.DecodeErr != nil {
			probs = append(probs, problem{"framing", "not-json", "the server wrote a message that is not JSON-RPC: " + clip(e.Frame.Raw)})
			continue
		}
		if e.Msg == nil || e.Frame.Truncated {
			continue
		}
		method := ""
		if e.Msg.Kind() == jsonrpc.KindResponse {
			switch r := reqs[e.Msg.ID.Key()]; {
			case r != nil && e.Msg.HasID:
				r.count++
				method = r.method
			case !e.Msg.HasID || e.Msg.ID.IsNull():
				if e.Msg.HasResult {
					probs = append(probs, problem{"correlation", "result-without-id", "a result addressed to no request: " + clip(e.Msg.Raw)})
				} else if faults == 0 && !rejected[e.Frame.Exchange] { // the error body of a 4xx rejection may be addressed to no request
					probs = append(probs, problem{"correlation", "error-without-id", "an error addressed to no request although every message was well-formed: " + clip(e.Msg.Raw)})
				}
			case loose[e.Msg.ID.LooseKey()] != nil:
				r := loose[e.Msg.ID.LooseKey()]
				probs = append(probs, problem{"correlation", "id-type-changed", fmt.Sprintf("the request with id %s (%s) was answered with id %s (%s): %s", r.id, r.id.TypeName(), e.Msg.ID, e.Msg.ID.TypeName(), clip(e.Msg.Raw))})
			default:
				probs = append(probs, problem{"correlation", "unknown-id", fmt.Sprintf("a response with id %s, which no request in flight had: %s", clip([]byte(e.Msg.ID.String())), clip(e.Msg.Raw))})
			}
		}
		ps := msgcheck.ValidateServerMessage(string(h.rev), e.Msg.Raw, method)
		if e.Msg.Kind() == jsonrpc.KindResponse && (!e.Msg.HasID || e.Msg.ID.IsNull()) {
			// An error for input whose id could not be read: the id is
			// omitted or null, which older schemas reject (an ambiguity,
			// SPEC-DIGEST §17.14, graded by RPC-005/006 and not here).
			ps = slices.DeleteFunc(ps, func(p msgcheck.Problem) bool { return p.Path == "/id" })
		}
		if len(ps) > 0 {
			what := method
			if what == "" {
				what = e.Msg.Kind().String()
			}
			probs = append(probs, problem{"message", "invalid-" + what, fmt.Sprintf("%s (%d problems) in %s", ps[0].String(), len(ps), clip(e.Msg.Raw))})
		}
	}
	crossed := false // a response came with an id no request had: the missing response is that defect, not a hang
	for _, p := range probs {
		crossed = crossed || p.Code == "unknown-id" || p.Code == "id-type-changed"
	}
	if !closed {
		for _, r := range order {
			switch {
			case r.count == 0 && crossed:
			case r.count == 0:
				probs = append(probs, problem{"response", "no-response", fmt.Sprintf("no response to %s (id %s) within %s", r.method, clip([]byte(r.id.String())), h.timeout)})
				broken = true
			case r.count > 1:
				probs = append(probs, problem{"correlation", "duplicate-response", fmt.Sprintf("%d responses to %s (id %s)", r.count, r.method, clip([]byte(r.id.String())))})
			}
		}
	}
	transcript := h.transcript(s, mark)
	if broken {
		_ = h.reopen(ctx) // a failed reopen is reported by the next exchange
	}
	return probs, transcript
}

// transcript renders the frames of s after mark, one line each.
func (h *harness) transcript(s *session.Session, mark int64) []string {
	var out []string
	frames := h.tg.Recorder.Since(mark, 0)
	for _, f := range frames {
		if f.Conn != s.Conn().Name() {
			continue
		}
		arrow := "<-"
		if f.Dir == wire.Out {
			arrow = "->"
		}
		switch f.Kind {
		case wire.KindMessage:
			out = append(out, arrow+" "+clip(f.Raw))
		default:
			if f.Note != "" {
				out = append(out, "   ("+f.Note+")")
			}
		}
		if len(out) >= maxTranscript {
			out = append(out, fmt.Sprintf("… %d more frames", len(frames)-maxTranscript))
			break
		}
	}
	return out
}

func methodOf(raw []byte) (string, json.RawMessage) {
	var m struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if json.Unmarshal(raw, &m) != nil {
		return "", nil
	}
	return m.Method, m.Params
}

func clip(b []byte) string {
	s := strings.NewReplacer("\n", `\n`, "\r", `\r`).Replace(strings.ToValidUTF8(string(b), "\uFFFD"))
	if len(s) > clipAt {
		n := clipAt
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		return s[:n] + fmt.Sprintf("… (%d bytes)", len(b))
	}
	return s
}

// ---- running rapid from a main binary (STYLE.md §7(b)) ----

var rapidInit sync.Once

func setupRapid(checks int, seed uint64, shrink time.Duration) {
	rapidInit.Do(func() {
		testing.Init()
		if !flag.Parsed() {
			_ = flag.CommandLine.Parse(nil)
		}
	})
	_ = flag.Set("rapid.checks", strconv.Itoa(checks))
	_ = flag.Set("rapid.seed", strconv.FormatUint(seed, 10))
	_ = flag.Set("rapid.nofailfile", "true")
	_ = flag.Set("rapid.shrinktime", shrink.String())
}

// mainTB is the rapid.TB of a campaign: it records failures; FailNow and
// SkipNow end the goroutine running rapid.Check.
type mainTB struct {
	name   string
	mu     sync.Mutex
	failed bool
	logs   []string
}

func (t *mainTB) Helper()      {}
func (t *mainTB) Name() string { return t.name }
func (t *mainTB) Logf(format string, args ...any) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.logs) < 100 {
		t.logs = append(t.logs, fmt.Sprintf(format, args...))
	}
}
func (t *mainTB) Log(args ...any)                  { t.Logf("%s", fmt.Sprint(args...)) }
func (t *mainTB) Skipf(format string, args ...any) { t.Logf(format, args...); t.SkipNow() }
func (t *mainTB) Skip(args ...any)                 { t.Log(args...); t.SkipNow() }
func (t *mainTB) SkipNow()                         { runtime.Goexit() }
func (t *mainTB) Errorf(format string, args ...any) {
	t.Logf(format, args...)
	t.Fail()
}
func (t *mainTB) Error(args ...any)                 { t.Log(args...); t.Fail() }
func (t *mainTB) Fatalf(format string, args ...any) { t.Errorf(format, args...); t.FailNow() }
func (t *mainTB) Fatal(args ...any)                 { t.Error(args...); t.FailNow() }
func (t *mainTB) FailNow()                          { t.Fail(); runtime.Goexit() }
func (t *mainTB) Fail() {
	t.mu.Lock()
	t.failed = true
	t.mu.Unlock()
}
func (t *mainTB) Failed() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.failed
}

// check runs one property with rapid until it fails with a signature not
// in known, the checks are done, or the deadline passes. It returns the
// shrunk finding (nil: none) and the number of cases run.
func (h *harness) check(ctx context.Context, prop string, gen func(*rapid.T) [][]byte, seed uint64, checks int, deadline time.Time, known map[string]bool) (*Finding, int) {
	shrink := max(time.Second, min(20*time.Second, time.Until(deadline)/2))
	setupRapid(checks, seed, shrink)
	var last *Finding
	cases := 0
	tb := &mainTB{name: "mcpconform-fuzz-" + prop}
	done := make(chan struct{})
	go func() {
		defer close(done)
		rapid.Check(tb, func(rt *rapid.T) {
			if ctx.Err() != nil || (last == nil && time.Now().After(deadline)) {
				return // out of budget: the remaining checks pass at once
			}
			msgs := gen(rt)
			cases++
			ps, transcript := h.exchange(ctx, msgs)
			for _, p := range ps {
				// Server text quoted in a finding goes through the run's
				// redactor like every report (the frames already did).
				red := h.tg.Recorder.Redactor()
				f := Finding{Property: prop, Layer: p.Layer, Code: p.Code, Detail: red.String(p.Detail),
					Revision: string(h.rev), Transport: h.tg.Transport(), Transcript: transcript}
				if known[f.Signature()] {
					continue
				}
				for _, m := range msgs {
					f.Messages = append(f.Messages, RawOf(m))
				}
				last = &f
				rt.Fatalf("%s", p)
			}
		})
	}()
	<-done
	return last, cases
}

func writeFile(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

func readFile(path string) ([]byte, error) { return os.ReadFile(path) }
