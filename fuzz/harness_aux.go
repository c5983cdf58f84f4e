package fuzz

// The harness's helpers: the saved form of a case's messages, the pace it
// learns from the target's answers, and what it does after a case's
// barrier (harness.go runs the cases).

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcpconform/mcpconform/internal/jsonrpc"
	"github.com/mcpconform/mcpconform/internal/judge"
	"github.com/mcpconform/mcpconform/internal/session"
	"github.com/mcpconform/mcpconform/internal/target"
	"github.com/mcpconform/mcpconform/internal/wire"
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

// knowLatency times the probe on the harness's session until the target
// has enough answer times for its adaptive patience (target.Patience):
// the cases wait on the server's observed pace, not the per-response
// timeout, which stays the bound for a hung server.
func (h *harness) knowLatency(ctx context.Context) {
	l := h.tg.Latency()
	for i := 0; i < 2*target.MinLatencySamples && l.Count() < target.MinLatencySamples && ctx.Err() == nil; i++ {
		if _, err := h.s.Call(ctx, h.probe, nil, &session.CallOptions{Timeout: h.timeout}); err != nil {
			return
		}
	}
}

// patience is how long a case waits for the answers it may still get
// before a barrier request decides (target.Patience).
func (h *harness) patience() time.Duration { return min(h.tg.Patience(), h.timeout) }

// paceKey names the kind of a request whose answer times are alike: the
// method, and the tool or prompt it names.
func paceKey(method string, params json.RawMessage) string {
	if method != "tools/call" && method != "prompts/get" {
		return method
	}
	var p struct {
		Name string `json:"name"`
	}
	_ = json.Unmarshal(params, &p)
	return method + " " + p.Name
}

// lateReq is a request left unanswered by its case: its kind and when its
// case began.
type lateReq struct {
	pace string
	at   time.Time
}

// observePace records that a request of kind key was answered after d.
func (h *harness) observePace(key string, d time.Duration) {
	h.paceMu.Lock()
	defer h.paceMu.Unlock()
	if h.pace == nil {
		h.pace = map[string]time.Duration{}
	}
	if d > h.pace[key] {
		h.pace[key] = d
	}
}

// waitFor is how long a request of kind key is waited for once the
// barrier after it was answered: target.PatienceFactor × the longest
// answer time observed for its kind (late answers included), at least the
// patience, at most the per-response timeout (the bound for a hung
// server).
func (h *harness) waitFor(key string) time.Duration {
	h.paceMu.Lock()
	d, ok := h.pace[key]
	h.paceMu.Unlock()
	if !ok {
		return h.patience()
	}
	return min(max(h.patience(), target.PatienceFactor*d), h.timeout)
}

// awaitAfterBarrier waits, once the probe after a case was answered (the
// barrier: a server that handles its input in order has answered the case
// by then), for what a server that answers concurrently may still send
// for the case: the answers to its requests and to its faults of a kind
// the server has answered before, up to the server's patience
// (target.Patience), a request of a kind the server was seen to take
// longer on a multiple of that (waitFor); the answers to its other faults
// (idless: those addressed to no request), the quiet window. Whatever has
// not come by then is judged missing.
//
// unknown counts the responses that came with an id no request had: each
// stands for a request whose answer will not come with its id.
func (h *harness) awaitAfterBarrier(ctx context.Context, s *session.Session, mark int64, reqs map[string]*sent, faultIDs map[string]judge.Fault, cancels []string, idless, unknown int) {
	strong, weak := map[string]bool{}, map[string]bool{}
	wait := h.patience() // the longest wait for a wanted answer
	for k, r := range reqs {
		if !r.mayDrop {
			strong[k] = true
			wait = max(wait, h.waitFor(r.pace))
		}
	}
	for k, kind := range faultIDs {
		if slices.Contains(cancels, k) {
			continue // a cancelled request may stay unanswered
		}
		_, before := h.answeredFaults.Load(kind)
		if before || kind == judge.FaultTooDeep {
			// input nested deep gets the patience to be answered, as the
			// suite's input at the limits does (a deep parse takes a while)
			strong[k] = true
		} else {
			weak[k] = true
		}
	}
	began := time.Now()
	window, patience := h.tg.QuietWindow(), wait
	wctx, cancel := context.WithTimeout(ctx, patience)
	defer cancel()
	after := mark
	for {
		for _, e := range s.Events(after) {
			after = max(after, e.Frame.Seq)
			if e.Msg == nil || e.Msg.Kind() != jsonrpc.KindResponse {
				continue
			}
			if e.Msg.HasID && !e.Msg.ID.IsNull() {
				delete(strong, e.Msg.ID.Key())
				delete(weak, e.Msg.ID.Key())
			} else {
				idless--
			}
		}
		if closed, _ := s.Closed(); closed {
			return
		}
		rest := patience - time.Since(began)
		if len(strong) <= unknown {
			if len(weak) == 0 && idless <= 0 {
				return
			}
			rest = window - time.Since(began)
		}
		if rest <= 0 {
			return
		}
		c, cancelWait := context.WithTimeout(wctx, rest)
		_, ok := s.WaitEvent(c, after, func(session.Event) bool { return true })
		cancelWait()
		if !ok && wctx.Err() != nil {
			return
		}
	}
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
