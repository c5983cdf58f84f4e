package reports

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcpconform/mcpconform/internal/jsonobj"
)

// Transcripts in report.html are not rendered into the page. They travel as
// one JSON data block (<script type="application/json">, escaped by
// html/template) that the page's script turns into DOM nodes — with
// textContent, never markup — when a transcript is opened:
//
//   - every frame is stored once, whatever number of checks show it (a
//     check's transcript is a range of the frame table, or a list of indices
//     when its frames are not contiguous there);
//   - every distinct body is stored once, its JSON-RPC id cut out (bodies
//     that differ only in their id are one body);
//   - connection names, HTTP summaries and header pairs are tables;
//   - bodies are clipped so that all of them together stay within
//     htmlBodyBudget: a clipped body shows its full size, and the full body
//     (up to MaxBodyInReport) is in report.json under the same seq.

// htmlBodyBudget bounds the body text embedded in report.html; the clip
// length is the largest (at least htmlMinClip) that keeps the distinct
// bodies within it.
const (
	htmlBodyBudget = 900 << 10
	htmlMinClip    = 1 << 10
)

// htmlTxData is the page's transcript data block. Names are short and
// repeated strings are tables: the block holds every frame of the run.
type htmlTxData struct {
	// T0 is the Unix time in ms that frame times count from.
	T0 int64 `json:"t0"`
	// Clip is the clip length of bodies in bytes (0: none clipped).
	Clip int `json:"clip"`
	// Bodies are the distinct bodies with their JSON-RPC id cut out (a
	// frame puts it back at its offset), clipped to Clip bytes.
	Bodies []string `json:"b"`
	// Strings holds connection names and HTTP summaries; Headers the
	// distinct header name/value pairs.
	Strings []string      `json:"s"`
	Headers [][2]string   `json:"h"`
	Frames  []htmlTxFrame `json:"f"`
}

// htmlTxFrame is one transcript entry in the page's data block.
type htmlTxFrame struct {
	Seq int64 `json:"s"`
	// T is µs after T0; nil when the entry has no time.
	T *int64 `json:"t,omitempty"`
	// Conn and HTTP index Strings plus one (0: none).
	Conn int    `json:"c,omitempty"`
	Dir  string `json:"d,omitempty"`
	Kind string `json:"k,omitempty"` // omitted for "message"
	// B is the body's index in Bodies plus one (0: no body); ID the id
	// text cut out of it at byte offset At; Z the body's full size in bytes
	// when it was clipped.
	B        int    `json:"b,omitempty"`
	ID       string `json:"i,omitempty"`
	At       int    `json:"o,omitempty"`
	Z        int    `json:"z,omitempty"`
	Enc      string `json:"e,omitempty"`
	Trunc    bool   `json:"tr,omitempty"`
	Exchange int64  `json:"x,omitempty"`
	HTTP     int    `json:"h,omitempty"`
	What     string `json:"w,omitempty"`
	Note     string `json:"n,omitempty"`
	// Headers index the Headers table.
	Headers []int `json:"hd,omitempty"`
}

// htmlTxRef is how a check names its transcript: N entries and the data-tx
// attribute ("lo-hi", a half-open range of the frame table, or "i,j,k").
type htmlTxRef struct {
	N   int
	Ref string
}

// htmlFrameKey identifies a frame across checks: the same seq may only be
// shared when it is the same entry (hand-built reports reuse seqs).
type htmlFrameKey struct {
	Seq                   int64
	Time                  time.Time
	Conn, Dir, Kind, Body string
	Note                  string
	Exchange              int64
}

// htmlSplitID cuts the first id value out of body: the template, the id
// text and its offset (ok false: no id). Bodies that differ only in it are
// stored once. The id is the value of the first "id" member (or "id"
// token) followed by a colon and an integer of up to 20 digits, a string of
// up to 64 characters without quotes or backslashes, or null: what the
// regular expression "id"\s*:\s*(-?[0-9]{1,20}|"[^"\\]{0,64}"|null) finds,
// scanned by hand (the regular expression was a sixth of the page's work).
func htmlSplitID(body string) (tpl, id string, at int, ok bool) {
	for from := 0; ; {
		k := strings.Index(body[from:], `"id"`)
		if k < 0 {
			return body, "", 0, false
		}
		i := htmlSkipSpace(body, from+k+4)
		if i < len(body) && body[i] == ':' {
			j := htmlSkipSpace(body, i+1)
			if n := htmlIDLen(body[j:]); n > 0 {
				return body[:j] + body[j+n:], body[j : j+n], j, true
			}
		}
		from += k + 1
	}
}

// htmlSkipSpace skips what \s matches in a regular expression.
func htmlSkipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r' || s[i] == '\f') {
		i++
	}
	return i
}

// htmlIDLen is the length of the id value s starts with, 0 for none.
func htmlIDLen(s string) int {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	d := 0
	for i+d < len(s) && d < 20 && s[i+d] >= '0' && s[i+d] <= '9' {
		d++
	}
	if d > 0 {
		return i + d
	}
	if strings.HasPrefix(s, "null") {
		return 4
	}
	if len(s) == 0 || s[0] != '"' {
		return 0
	}
	for n, runes := 1, 0; n < len(s) && runes <= 64; runes++ {
		switch s[n] {
		case '"':
			return n + 1
		case '\\':
			return 0
		}
		_, w := utf8.DecodeRuneInString(s[n:])
		n += w
	}
	return 0
}

// htmlInterner numbers distinct values from 1 (0 stays "none").
type htmlInterner[K comparable] struct {
	idx  map[K]int
	vals []K
}

func (in *htmlInterner[K]) add(v K) int {
	if i, ok := in.idx[v]; ok {
		return i
	}
	if in.idx == nil {
		in.idx = map[K]int{}
	}
	in.vals = append(in.vals, v)
	in.idx[v] = len(in.vals)
	return len(in.vals)
}

// buildHTMLTx builds the data block and each result's reference into it.
func buildHTMLTx(rs []Result) (*htmlTxData, []htmlTxRef) {
	type slot struct {
		e   *Exchange
		idx int
	}
	index := map[htmlFrameKey]*slot{}
	var all []*slot
	perResult := make([][]*slot, len(rs))
	for i := range rs {
		for j := range rs[i].Transcript {
			e := &rs[i].Transcript[j]
			k := htmlFrameKey{e.Seq, e.Time, e.Conn, e.Direction, e.Kind, e.Body, e.Note, e.Exchange}
			s := index[k]
			if s == nil {
				s = &slot{e: e}
				index[k] = s
				all = append(all, s)
			}
			perResult[i] = append(perResult[i], s)
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].e.Seq < all[j].e.Seq })
	d := &htmlTxData{Bodies: []string{}, Strings: []string{}, Headers: [][2]string{}, Frames: make([]htmlTxFrame, len(all))}
	var t0 time.Time
	for i, s := range all {
		s.idx = i
		if t := s.e.Time; !t.IsZero() && (t0.IsZero() || t.Before(t0)) {
			t0 = t
		}
	}
	if !t0.IsZero() {
		d.T0 = t0.UnixMilli()
		t0 = time.UnixMilli(d.T0)
	}
	var bodies, strs htmlInterner[string]
	var pairs htmlInterner[[2]string]
	for i, s := range all {
		e := s.e
		f := htmlTxFrame{Seq: e.Seq, Dir: e.Direction, Enc: e.Encoding, Trunc: e.Truncated, Exchange: e.Exchange, Note: e.Note}
		if e.Conn != "" {
			f.Conn = strs.add(e.Conn)
		}
		if e.Kind != "message" {
			f.Kind = e.Kind
		}
		if !e.Time.IsZero() {
			us := e.Time.Sub(t0).Microseconds()
			f.T = &us
		}
		if e.Body != "" {
			tpl, id, at, ok := htmlSplitID(e.Body)
			if ok {
				f.ID, f.At = id, at
			}
			f.B = bodies.add(tpl)
			if t := strings.TrimSpace(e.Body); t != "" && (t[0] == '{' || t[0] == '[') {
				f.What = htmlMessageGist(e.Body)
			}
		}
		summary, headers := htmlHTTPSummary(e)
		if summary != "" {
			f.HTTP = strs.add(summary)
		}
		for _, h := range headers {
			f.Headers = append(f.Headers, pairs.add(h)-1)
		}
		d.Frames[i] = f
	}
	d.Strings = append(d.Strings, strs.vals...)
	d.Headers = append(d.Headers, pairs.vals...)
	// the clip length that fits the budget, then the clipped bodies
	d.Clip = htmlClipLength(bodies.vals, htmlBodyBudget)
	for _, b := range bodies.vals {
		d.Bodies = append(d.Bodies, htmlClipBytes(b, d.Clip))
	}
	for i := range d.Frames {
		f := &d.Frames[i]
		if f.B > 0 && len(d.Bodies[f.B-1]) < len(bodies.vals[f.B-1]) {
			f.Z = len(bodies.vals[f.B-1]) + len(f.ID)
		}
	}
	refs := make([]htmlTxRef, len(rs))
	for i, ss := range perResult {
		if len(ss) == 0 {
			continue
		}
		refs[i].N = len(ss)
		contiguous := true
		for j := 1; j < len(ss); j++ {
			if ss[j].idx != ss[j-1].idx+1 {
				contiguous = false
				break
			}
		}
		if contiguous {
			refs[i].Ref = fmt.Sprintf("%d-%d", ss[0].idx, ss[len(ss)-1].idx+1)
			continue
		}
		var b strings.Builder
		for j, s := range ss {
			if j > 0 {
				b.WriteByte(',')
			}
			fmt.Fprint(&b, s.idx)
		}
		refs[i].Ref = b.String()
	}
	return d, refs
}

// htmlClipLength returns the largest clip length (at least htmlMinClip)
// that keeps the clipped bodies within budget bytes, or 0 when they all fit
// unclipped.
func htmlClipLength(bodies []string, budget int) int {
	total, longest := 0, 0
	for _, b := range bodies {
		total += len(b)
		longest = max(longest, len(b))
	}
	if total <= budget {
		return 0
	}
	sum := func(l int) int {
		n := 0
		for _, b := range bodies {
			n += min(len(b), l)
		}
		return n
	}
	lo, hi := htmlMinClip, longest // sum(lo) may exceed the budget: lo is the floor
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if sum(mid) <= budget {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// htmlClipBytes cuts s to at most n bytes (0: no cut) at a rune boundary.
func htmlClipBytes(s string, n int) string {
	if n <= 0 || len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// htmlHTTPSummary is the HTTP line of an entry (method, status, SSE event)
// and its headers, secret ones hidden.
func htmlHTTPSummary(e *Exchange) (string, [][2]string) {
	h := e.HTTP
	if h == nil {
		return "", nil
	}
	var parts []string
	if h.Method != "" {
		parts = append(parts, h.Method)
	}
	if h.Status != 0 {
		parts = append(parts, fmt.Sprintf("HTTP %d %s", h.Status, http.StatusText(h.Status)))
	}
	if h.SSE {
		sse := "SSE"
		if h.Event != "" {
			sse += " event " + h.Event
		}
		if h.EventID != "" {
			sse += " id " + h.EventID
		}
		parts = append(parts, sse)
	}
	var hs [][2]string
	if h.URL != "" {
		hs = append(hs, [2]string{"(url)", h.URL})
	}
	names := make([]string, 0, len(h.Header))
	for k := range h.Header {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		val := strings.Join(h.Header[k], ", ")
		if htmlSecretHeader(k) {
			val = "[REDACTED]"
		}
		hs = append(hs, [2]string{k, val})
	}
	return strings.Join(parts, " · "), hs
}

// messageGist names a JSON-RPC message in a few words: its method, or
// whether it is a result or an error (with the code), and its id as sent.
func htmlMessageGist(body string) string {
	b := []byte(body)
	// One validation pass, then only the members' boundaries: a
	// transcript's bodies are most of the report's bytes.
	if !jsonobj.Valid(b) {
		return ""
	}
	switch t := bytes.TrimLeft(b, " \t\r\n"); {
	case len(t) > 0 && t[0] == '[':
		var batch []json.RawMessage
		if json.Unmarshal(b, &batch) == nil {
			return fmt.Sprintf("batch of %d", len(batch))
		}
		return ""
	case len(t) == 0 || t[0] != '{':
		return ""
	}
	ms, ok := jsonobj.Members(b)
	if !ok {
		return ""
	}
	// keys match case-insensitively and the last of duplicates wins, as
	// with json.Unmarshal into a struct
	var method, id, result, errv json.RawMessage
	for _, mb := range ms {
		switch {
		case strings.EqualFold(mb.Key, "method"):
			method = mb.Value
		case strings.EqualFold(mb.Key, "id"):
			id = mb.Value
		case strings.EqualFold(mb.Key, "result"):
			result = mb.Value
		case strings.EqualFold(mb.Key, "error"):
			errv = mb.Value
		}
	}
	var what string
	var name string
	switch {
	case method != nil && string(method) != "null" && json.Unmarshal(method, &name) != nil:
		return "" // a method that is not a string: Unmarshal failed here before
	case method != nil && string(method) != "null":
		what = htmlClip(name, 80)
		if id == nil {
			what += " (notification)"
		}
	case errv != nil && string(errv) != "null":
		var e struct {
			Code json.RawMessage `json:"code"`
		}
		_ = json.Unmarshal(errv, &e)
		what = "error " + htmlClip(string(e.Code), 20)
	case result != nil:
		what = "result"
	default:
		return ""
	}
	if id != nil {
		what += " · id " + htmlClip(string(id), 40)
	}
	return what
}

// secretHeader reports header names whose values are never rendered, even
// though the model redacts them already.
func htmlSecretHeader(name string) bool {
	n := strings.ToLower(name)
	switch n {
	case "authorization", "proxy-authorization", "cookie", "set-cookie":
		return true
	}
	for _, s := range []string{"token", "secret", "password", "api-key", "apikey"} {
		if strings.Contains(n, s) {
			return true
		}
	}
	return false
}
