package wire

import (
	"bytes"
	"compress/flate"
	"encoding/base64"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
)

// Redactor removes secrets from everything that is recorded or reported.
// It is safe for concurrent use.
type Redactor struct {
	mu      sync.RWMutex
	secrets [][]byte
	headers map[string]bool // canonical header names whose values are secret
}

// Redacted replaces every secret.
const Redacted = "[REDACTED]"

// NewRedactor returns a redactor that hides Authorization (and
// Proxy-Authorization, Cookie) header values and the given secret strings.
func NewRedactor(secrets ...string) *Redactor {
	r := &Redactor{headers: map[string]bool{
		"Authorization":       true,
		"Proxy-Authorization": true,
		"Cookie":              true,
		"Set-Cookie":          true,
	}}
	for _, s := range secrets {
		r.AddSecret(s)
	}
	return r
}

// AddSecret registers a value that must never appear in output. Values
// shorter than 4 bytes are ignored (they would redact ordinary text).
// The encoded forms a server may echo it in are registered too (see
// SecretForms): base64 (standard and URL alphabets, at any alignment
// inside a longer encoded text) and URL encoding.
func (r *Redactor) AddSecret(s string) {
	if r == nil || len(s) < 4 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, f := range SecretForms(s) {
		if !slices.ContainsFunc(r.secrets, func(b []byte) bool { return string(b) == f }) {
			r.secrets = append(r.secrets, []byte(f))
		}
	}
	// Longest first: a form that contains another is replaced whole.
	slices.SortStableFunc(r.secrets, func(a, b []byte) int { return len(b) - len(a) })
}

// SecretForms returns s and the encoded forms of s that are long enough
// to be recognised safely: its URL encodings, and for base64 (standard
// and URL alphabets) the characters that encode s alone at each of the
// three alignments s can have inside a longer encoded text ("Bearer " +
// s, say), whatever surrounds it.
func SecretForms(s string) []string {
	forms := []string{s}
	add := func(f string) {
		if len(f) >= 8 && !slices.Contains(forms, f) {
			forms = append(forms, f)
		}
	}
	add(url.QueryEscape(s))
	add(url.PathEscape(s))
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
		add(strings.TrimRight(enc.EncodeToString([]byte(s)), "="))
		for k := 0; k < 3; k++ {
			b := enc.EncodeToString(append(make([]byte, k), s...))
			// character i encodes bits [6i, 6i+6): keep those within s's bits
			lo, hi := (8*k+5)/6, (8*(k+len(s)))/6
			if hi > lo && hi <= len(b) {
				add(b[lo:hi])
			}
		}
	}
	return forms
}

// AddHeader marks a header name whose values are secret.
func (r *Redactor) AddHeader(name string) {
	if r == nil {
		return
	}
	r.mu.Lock()
	r.headers[http.CanonicalHeaderKey(name)] = true
	r.mu.Unlock()
}

// Bytes returns b with every secret replaced; b itself is not modified.
func (r *Redactor) Bytes(b []byte) []byte {
	if r == nil {
		return b
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := b
	for _, s := range r.secrets {
		if bytes.Contains(out, s) {
			out = bytes.ReplaceAll(out, s, []byte(Redacted))
		}
	}
	return out
}

// String is Bytes for strings.
func (r *Redactor) String(s string) string {
	if r == nil {
		return s
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	for _, sec := range r.secrets {
		s = strings.ReplaceAll(s, string(sec), Redacted)
	}
	return s
}

// Header returns a redacted copy of h.
func (r *Redactor) Header(h http.Header) http.Header {
	if h == nil {
		return nil
	}
	out := make(http.Header, len(h))
	for k, vs := range h {
		ck := http.CanonicalHeaderKey(k)
		secret := false
		if r != nil {
			r.mu.RLock()
			secret = r.headers[ck]
			r.mu.RUnlock()
		}
		cp := make([]string, len(vs))
		for i, v := range vs {
			switch {
			case secret:
				cp[i] = redactHeaderValue(v)
			default:
				cp[i] = r.String(v)
			}
		}
		out[k] = cp
	}
	return out
}

// redactHeaderValue keeps an auth scheme ("Bearer") visible and hides the rest.
func redactHeaderValue(v string) string {
	if i := strings.IndexByte(v, ' '); i > 0 && i < 16 {
		return v[:i+1] + Redacted
	}
	return Redacted
}

// Recorder keeps every frame of a run, in order, with secrets redacted.
// It bounds its memory: once MaxBytes of payload are retained, later frames
// keep only their first KeepOnOverflow bytes. A large payload (at least
// packMin bytes) that compresses to half or less is kept compressed and
// restored by Since, so a run's few multi-megabyte messages (the harness's
// oversized requests, large resources) cost little memory.
type Recorder struct {
	mu       sync.Mutex
	frames   []Frame
	packed   map[int64]packedRaw // by Seq: the payload of a frame stored with Raw nil
	seq      int64
	bytes    int64
	dropped  int64
	redactor *Redactor
	observer func(Frame) any

	// MaxBytes bounds the payload bytes kept; later frames keep only their
	// first KeepOnOverflow bytes. MaxFrames bounds the number of frames kept.
	MaxBytes       int64
	KeepOnOverflow int
	MaxFrames      int
}

// NewRecorder returns a recorder that redacts with r (which may be nil).
func NewRecorder(r *Redactor) *Recorder {
	return &Recorder{redactor: r, MaxBytes: 32 << 20, KeepOnOverflow: 512, MaxFrames: 100_000}
}

// SetObserver has every frame recorded from now on passed to fn, in
// sequence order (redacted, Seq set, payload uncut), before it is stored:
// the run-wide invariants (internal/observe) see every message of the run.
// fn must not call the recorder. What fn returns, when not nil, is the
// payload decoded (Frame.Decoded): Record hands it to the frame's reader
// with the frame, unless redaction changed the payload (fn saw other
// bytes than the reader gets).
func (rec *Recorder) SetObserver(fn func(Frame) any) {
	rec.mu.Lock()
	rec.observer = fn
	rec.mu.Unlock()
}

// Redactor returns the recorder's redactor.
func (rec *Recorder) Redactor() *Redactor { return rec.redactor }

// Record stores a redacted copy of f and returns f itself (unredacted, as it
// travelled) with Seq and Time set. A nil recorder records nothing.
func (rec *Recorder) Record(f Frame) Frame {
	if f.Time.IsZero() {
		f.Time = time.Now()
	}
	if rec == nil {
		return f
	}
	orig := f
	f.Decoded = nil // never stored
	raw := rec.redactor.Bytes(f.Raw)
	same := len(raw) == len(orig.Raw) && (len(raw) == 0 || &raw[0] == &orig.Raw[0])
	if !same {
		orig.Decoded = nil // decoded from bytes the redacted copy does not hold
	}
	if f.HTTP != nil {
		h := *f.HTTP
		h.Header = rec.redactor.Header(h.Header)
		h.URL = rec.redactor.String(h.URL)
		f.HTTP = &h
	}
	f.Note = rec.redactor.String(f.Note)
	var packed []byte
	rawLen := len(raw)
	if rawLen >= packMin {
		packed = pack(raw)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	rec.seq++
	f.Seq = rec.seq
	orig.Seq = rec.seq
	if rec.observer != nil {
		seen := f
		seen.Raw = raw
		seen.Decoded = orig.Decoded
		if d := rec.observer(seen); d != nil && same && orig.Decoded == nil {
			orig.Decoded = d
		}
	}
	if rec.MaxFrames > 0 && len(rec.frames) >= rec.MaxFrames {
		rec.dropped++
		return orig
	}
	stored := f
	size := len(raw)
	if packed != nil {
		size = len(packed)
	}
	if rec.MaxBytes > 0 && rec.bytes+int64(size) > rec.MaxBytes && len(raw) > rec.KeepOnOverflow {
		raw, packed, size = raw[:rec.KeepOnOverflow], nil, rec.KeepOnOverflow
		stored.Truncated = true
	}
	if packed != nil {
		if rec.packed == nil {
			rec.packed = map[int64]packedRaw{}
		}
		rec.packed[stored.Seq] = packedRaw{packed, rawLen}
		stored.Raw = nil
	} else {
		stored.Raw = append([]byte(nil), raw...)
	}
	rec.bytes += int64(size)
	rec.frames = append(rec.frames, stored)
	return orig
}

// packMin is the payload size from which the recorder tries compression.
const packMin = 64 << 10

// packedRaw is a deflated payload and its length.
type packedRaw struct {
	data []byte
	n    int
}

// packers keeps two deflate writers (each one's tables are most of a
// megabyte) and their output buffers for reuse. A free list, not a
// sync.Pool: a pool is emptied by every other collection, and a run
// collects a few dozen times, so each pack allocated its writer anew.
var packers = make(chan *packer, 2)

type packer struct {
	w   *flate.Writer
	buf bytes.Buffer
}

// pack deflates b; it returns nil unless that at least halves it.
func pack(b []byte) []byte {
	var p *packer
	select {
	case p = <-packers:
	default:
		p = &packer{}
		p.w, _ = flate.NewWriter(&p.buf, flate.BestSpeed)
	}
	defer func() {
		select {
		case packers <- p:
		default:
		}
	}()
	p.buf.Reset()
	p.w.Reset(&p.buf)
	if _, err := p.w.Write(b); err != nil || p.w.Close() != nil || p.buf.Len() > len(b)/2 {
		return nil
	}
	return bytes.Clone(p.buf.Bytes())
}

// unpack restores a payload pack compressed, or its first max bytes, in
// one allocation of the size it needs.
func unpack(p packedRaw, max int) []byte {
	n := p.n
	if max > 0 {
		n = min(n, max)
	}
	b := make([]byte, n)
	k, _ := io.ReadFull(flate.NewReader(bytes.NewReader(p.data)), b)
	return b[:k]
}

// Dropped returns how many frames were not kept because MaxFrames was reached.
func (rec *Recorder) Dropped() int64 {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return rec.dropped
}

// Note records a harness annotation on a connection.
func (rec *Recorder) Note(conn, text string) {
	rec.Record(Frame{Conn: conn, Dir: Out, Kind: KindNote, Note: text})
}

// Seq returns the sequence number of the last recorded frame.
func (rec *Recorder) Seq() int64 {
	if rec == nil {
		return 0
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return rec.seq
}

// Since returns copies of the frames with Seq > after (at most limit, the
// latest ones, when limit > 0).
func (rec *Recorder) Since(after int64, limit int) []Frame {
	return rec.Clipped(after, limit, 0)
}

// OnConn returns copies of the frames of connection conn with Seq > after:
// Since filtered by connection, without restoring the payloads of the
// other connections' frames.
func (rec *Recorder) OnConn(after int64, conn string) []Frame {
	return rec.collect(after, 0, 0, conn, nil)
}

// OnConnWhere is OnConn keeping only the frames keep accepts. keep sees each
// frame before its payload is restored (Raw may be nil) and the payload's
// size, so that frames a caller does not need (e.g. the harness's own
// multi-megabyte requests) are neither decompressed nor copied.
func (rec *Recorder) OnConnWhere(after int64, conn string, keep func(f *Frame, size int) bool) []Frame {
	return rec.collect(after, 0, 0, conn, keep)
}

// Clipped is Since with each payload cut to at most maxRaw bytes (0: no
// cut) without marking it Truncated: what a report keeps of a transcript,
// sharing the recorder's payloads instead of copying them.
func (rec *Recorder) Clipped(after int64, limit, maxRaw int) []Frame {
	return rec.collect(after, limit, maxRaw, "", nil)
}

// ClippedWhere is Clipped keeping only the frames keep accepts (see
// OnConnWhere); limit counts the frames kept.
func (rec *Recorder) ClippedWhere(after int64, limit, maxRaw int, keep func(f *Frame, size int) bool) []Frame {
	return rec.collect(after, limit, maxRaw, "", keep)
}

// collect is Since, Clipped and OnConn: the frames with Seq > after (on conn
// unless it is ""; those keep accepts, when it is not nil), the latest limit
// of them (of those kept), payloads cut at maxRaw.
func (rec *Recorder) collect(after int64, limit, maxRaw int, conn string, keep func(f *Frame, size int) bool) []Frame {
	if rec == nil {
		return nil
	}
	rec.mu.Lock()
	// frames are sorted by Seq; find the first with Seq > after.
	lo, hi := 0, len(rec.frames)
	for lo < hi {
		mid := (lo + hi) / 2
		if rec.frames[mid].Seq <= after {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	fs := rec.frames[lo:]
	var out []Frame
	switch {
	case conn == "" && keep == nil:
		if limit > 0 && len(fs) > limit {
			fs = fs[len(fs)-limit:]
		}
		out = append(out, fs...)
	default:
		for i := range fs {
			f := &fs[i]
			if conn != "" && f.Conn != conn {
				continue
			}
			if keep != nil {
				size := len(f.Raw)
				if p, ok := rec.packed[f.Seq]; ok && f.Raw == nil {
					size = p.n
				}
				if !keep(f, size) {
					continue
				}
			}
			out = append(out, *f)
		}
		if limit > 0 && len(out) > limit {
			out = out[len(out)-limit:]
		}
	}
	var packed map[int]packedRaw // index in out → compressed payload
	for i := range out {
		if maxRaw > 0 && len(out[i].Raw) > maxRaw {
			out[i].Raw = out[i].Raw[:maxRaw:maxRaw]
		}
		if p, ok := rec.packed[out[i].Seq]; ok && out[i].Raw == nil {
			if packed == nil {
				packed = map[int]packedRaw{}
			}
			packed[i] = p
		}
	}
	rec.mu.Unlock()
	for i, p := range packed { // stored payloads are never modified: no lock needed
		out[i].Raw = unpack(p, maxRaw)
	}
	return out
}
