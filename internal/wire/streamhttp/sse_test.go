package streamhttp

import (
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

type parsed struct {
	events   []sseEvent
	pending  *sseEvent
	comments int64
	err      error
}

func parseSSE(r io.Reader, maxData int64) parsed {
	var out parsed
	p := newSSEParser(r, maxData, func(ev sseEvent) {
		if len(ev.Data) == 0 {
			ev.Data = nil
		}
		out.events = append(out.events, ev)
	})
	out.err = p.run()
	if ev, ok := p.pending(); ok {
		if len(ev.Data) == 0 {
			ev.Data = nil
		}
		out.pending = &ev
	}
	out.comments = p.comments
	return out
}

func ev(data, id string, hasID bool, event string, retry int64) sseEvent {
	e := sseEvent{ID: id, HasID: hasID, Event: event, Retry: retry}
	if data != "" {
		e.Data = []byte(data)
	}
	return e
}

func TestSSEParser(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		max      int64
		want     []sseEvent
		pending  *sseEvent
		comments int64
	}{
		{
			name: "single",
			in:   "data: {\"a\":1}\n\n",
			want: []sseEvent{ev(`{"a":1}`, "", false, "", -1)},
		},
		{
			name: "multi-line data joined by LF",
			in:   "data: line1\ndata:line2\ndata:  line3\n\n",
			want: []sseEvent{ev("line1\nline2\n line3", "", false, "", -1)},
		},
		{
			name: "CRLF endings",
			in:   "id: 7\r\nevent: message\r\ndata: x\r\ndata: y\r\n\r\n",
			want: []sseEvent{ev("x\ny", "7", true, "message", -1)},
		},
		{
			name: "CR endings",
			in:   "data: a\rdata: b\r\rdata: c\r\r",
			want: []sseEvent{ev("a\nb", "", false, "", -1), ev("c", "", false, "", -1)},
		},
		{
			name: "mixed endings",
			in:   "data: a\r\ndata: b\n\r\ndata: c\r\n\n",
			want: []sseEvent{ev("a\nb", "", false, "", -1), ev("c", "", false, "", -1)},
		},
		{
			name:     "comments ignored and counted",
			in:       ": keep-alive\n:\ndata: x\n: inside\n\n: trailing\n",
			want:     []sseEvent{ev("x", "", false, "", -1)},
			comments: 4,
		},
		{
			name: "comment-only block is not an event",
			in:   ": ping\n\n: ping\n\n",
			want: nil, comments: 2,
		},
		{
			name: "priming event then two messages; id persists",
			in:   "id: p1\nretry: 1500\ndata:\n\ndata: one\n\nid: 2\ndata: two\n\n",
			want: []sseEvent{
				ev("", "p1", true, "", 1500),
				ev("one", "p1", false, "", -1),
				ev("two", "2", true, "", -1),
			},
		},
		{
			name: "id with NUL ignored",
			in:   "id: ok\ndata: a\n\nid: b\x00ad\ndata: b\n\n",
			want: []sseEvent{ev("a", "ok", true, "", -1), ev("b", "ok", false, "", -1)},
		},
		{
			name: "empty id resets",
			in:   "id: 1\ndata: a\n\nid\ndata: b\n\n",
			want: []sseEvent{ev("a", "1", true, "", -1), ev("b", "", true, "", -1)},
		},
		{
			name: "retry digits only",
			in:   "retry: 12a\ndata: a\n\nretry: -1\ndata: b\n\nretry: 30\ndata: c\n\n",
			want: []sseEvent{ev("a", "", false, "", -1), ev("b", "", false, "", -1), ev("c", "", false, "", 30)},
		},
		{
			name: "unknown fields and no-colon lines",
			in:   "foo: bar\ndatax: no\nDATA: no\ndata\ndata: y\n\n",
			want: []sseEvent{ev("\ny", "", false, "", -1)},
		},
		{
			name: "only one space stripped; no space is fine",
			in:   "data:x\n\ndata:   y\n\n",
			want: []sseEvent{ev("x", "", false, "", -1), ev("  y", "", false, "", -1)},
		},
		{
			name: "event type reset between events",
			in:   "event: a\ndata: 1\n\ndata: 2\n\n",
			want: []sseEvent{ev("1", "", false, "a", -1), ev("2", "", false, "", -1)},
		},
		{
			name: "BOM skipped",
			in:   "\xEF\xBB\xBFdata: x\n\n",
			want: []sseEvent{ev("x", "", false, "", -1)},
		},
		{
			name:    "incomplete final event",
			in:      "data: a\n\ndata: b\n",
			want:    []sseEvent{ev("a", "", false, "", -1)},
			pending: &sseEvent{Data: []byte("b"), Retry: -1},
		},
		{
			name:    "incomplete final line",
			in:      "data: a\n\ndata: partial",
			want:    []sseEvent{ev("a", "", false, "", -1)},
			pending: &sseEvent{Data: []byte("partial"), Retry: -1},
		},
		{
			name:     "trailing comment without newline is not pending",
			in:       "data: a\n\n: bye",
			want:     []sseEvent{ev("a", "", false, "", -1)},
			comments: 1,
		},
		{
			name: "data cap truncates and discards the rest of the event",
			in:   "data: 0123456789\ndata: abc\n\ndata: ok\n\n",
			max:  8,
			want: []sseEvent{
				{Data: []byte("01234567"), Truncated: true, Retry: -1},
				ev("ok", "", false, "", -1),
			},
		},
		{
			name: "data cap counts the joining LF",
			in:   "data: 0123\ndata: 567\n\n",
			max:  8,
			want: []sseEvent{{Data: []byte("0123\n567"), Truncated: true, Retry: -1}},
		},
	}
	for _, tt := range tests {
		for _, mode := range []string{"whole", "bytewise"} {
			t.Run(tt.name+"/"+mode, func(t *testing.T) {
				max := tt.max
				if max == 0 {
					max = 1 << 20
				}
				var r io.Reader = strings.NewReader(tt.in)
				if mode == "bytewise" {
					r = iotest.OneByteReader(r)
				}
				got := parseSSE(r, max)
				if got.err != io.EOF {
					t.Fatalf("run() = %v, want io.EOF", got.err)
				}
				if !reflect.DeepEqual(got.events, tt.want) {
					t.Errorf("events:\n got %+v\nwant %+v", got.events, tt.want)
				}
				if !reflect.DeepEqual(got.pending, tt.pending) {
					t.Errorf("pending: got %+v, want %+v", got.pending, tt.pending)
				}
				if got.comments != tt.comments {
					t.Errorf("comments = %d, want %d", got.comments, tt.comments)
				}
			})
		}
	}
}

// A very long line must not be buffered beyond the caps.
func TestSSEParserLongLines(t *testing.T) {
	long := strings.Repeat("z", 1<<20)
	in := "id: " + long + "\n" + long + ": v\nevent: " + long + "\ndata: " + long + "\n\n"
	var got []sseEvent
	p := newSSEParser(strings.NewReader(in), 1024, func(e sseEvent) { got = append(got, e) })
	if err := p.run(); err != io.EOF {
		t.Fatal(err)
	}
	if len(got) != 1 {
		t.Fatalf("got %d events", len(got))
	}
	e := got[0]
	if len(e.Data) != 1024 || !e.Truncated || len(e.ID) != 1024 || len(e.Event) != 1024 {
		t.Fatalf("caps not applied: data=%d trunc=%v id=%d event=%d", len(e.Data), e.Truncated, len(e.ID), len(e.Event))
	}
	if cap(p.name) > 64 {
		t.Fatalf("field name buffer grew to %d", cap(p.name))
	}
}
