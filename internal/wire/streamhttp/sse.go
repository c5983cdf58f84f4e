package streamhttp

import (
	"bufio"
	"bytes"
	"io"
	"strconv"
	"sync"
)

// sseEvent is what the parser hands to its sink when a block ends with an
// empty line.
type sseEvent struct {
	// Data is the data buffer without its final LF; cut at the cap when
	// Truncated is set.
	Data      []byte
	Truncated bool
	// ID is the last event ID (it persists across events, as in WHATWG).
	ID string
	// HasID says the block itself carried a valid id field.
	HasID bool
	// Event is the event field as received ("" when absent; WHATWG would
	// read that as "message").
	Event string
	// Retry is the last valid retry field of the block, -1 when none.
	Retry int64
}

// sseParser is a streaming WHATWG event-stream parser. It never buffers more
// than maxData bytes of one event's data, nor more than maxField bytes of an
// id or event field, however long the lines are.
type sseParser struct {
	r        *bufio.Reader
	maxData  int64
	maxField int

	// Sink for complete blocks. A block with no field lines (only comments)
	// is not reported.
	dispatch func(ev sseEvent)

	comments int64
	lastID   string

	// Line state.
	atLineStart bool
	skipLF      bool // the previous line ended in CR: swallow one LF
	mode        int
	name        []byte
	nameLong    bool
	field       int
	value       []byte
	valueLong   bool
	valueNUL    bool

	// Block state.
	block     bool // a field line was seen in the current block
	data      []byte
	dataLen   int64
	dataTrunc bool
	event     string
	hasID     bool
	retry     int64
}

const (
	modeName = iota
	modeValueStart
	modeValue
	modeComment
)

const (
	fieldUnknown = iota
	fieldData
	fieldEvent
	fieldID
	fieldRetry
)

const maxFieldName = 8 // longer than any known field name

// readers keeps the parsers' 32 KiB read buffers between streams: most
// streams carry one small event, and a fresh zeroed buffer per exchange was
// a measurable share of an HTTP exchange's CPU. The parser copies what it
// keeps (name, value, data), so nothing refers to a buffer once released.
var readers = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 32<<10) }}

func newSSEParser(r io.Reader, maxData int64, dispatch func(sseEvent)) *sseParser {
	maxField := 64 << 10
	if int64(maxField) > maxData {
		maxField = int(maxData)
	}
	br := readers.Get().(*bufio.Reader)
	br.Reset(r)
	return &sseParser{
		r:           br,
		maxData:     maxData,
		maxField:    maxField,
		dispatch:    dispatch,
		atLineStart: true,
		retry:       -1,
	}
}

// release returns the parser's read buffer for reuse; the parser must not
// read again.
func (p *sseParser) release() {
	if p.r != nil {
		p.r.Reset(nil)
		readers.Put(p.r)
		p.r = nil
	}
}

// run parses until the reader fails. It returns io.EOF at a clean end of
// stream and the reader's error otherwise.
func (p *sseParser) run() error {
	// A leading UTF-8 BOM is skipped.
	if b, err := p.r.Peek(3); err == nil && bytes.Equal(b, []byte{0xEF, 0xBB, 0xBF}) {
		_, _ = p.r.Discard(3)
	}
	for {
		if _, err := p.r.Peek(1); err != nil {
			return err
		}
		buf, _ := p.r.Peek(p.r.Buffered())
		if p.skipLF {
			p.skipLF = false
			if buf[0] == '\n' {
				_, _ = p.r.Discard(1)
				continue
			}
		}
		i := bytes.IndexAny(buf, "\r\n")
		if i < 0 {
			p.feed(buf)
			_, _ = p.r.Discard(len(buf))
			continue
		}
		p.feed(buf[:i])
		if buf[i] == '\r' {
			p.skipLF = true
		}
		_, _ = p.r.Discard(i + 1)
		p.endLine()
	}
}

// feed consumes part of a line (no terminator inside).
func (p *sseParser) feed(part []byte) {
	for len(part) > 0 {
		if p.atLineStart {
			p.atLineStart = false
			if part[0] == ':' {
				p.mode = modeComment
				p.comments++
				return
			}
			p.mode = modeName
			p.name = p.name[:0]
			p.nameLong = false
		}
		switch p.mode {
		case modeComment:
			return
		case modeName:
			i := bytes.IndexByte(part, ':')
			if i < 0 {
				p.appendName(part)
				return
			}
			p.appendName(part[:i])
			p.startValue()
			p.mode = modeValueStart
			part = part[i+1:]
		case modeValueStart:
			if part[0] == ' ' {
				part = part[1:]
			}
			p.mode = modeValue
		case modeValue:
			p.appendValue(part)
			return
		}
	}
}

func (p *sseParser) appendName(b []byte) {
	if p.nameLong {
		return
	}
	if len(p.name)+len(b) > maxFieldName {
		p.nameLong = true
		return
	}
	p.name = append(p.name, b...)
}

func (p *sseParser) startValue() {
	p.field = fieldUnknown
	if !p.nameLong {
		switch string(p.name) {
		case "data":
			p.field = fieldData
		case "event":
			p.field = fieldEvent
		case "id":
			p.field = fieldID
		case "retry":
			p.field = fieldRetry
		}
	}
	p.value = p.value[:0]
	p.valueLong = false
	p.valueNUL = false
}

func (p *sseParser) appendValue(b []byte) {
	switch p.field {
	case fieldUnknown:
	case fieldData:
		p.appendData(b)
	default:
		if p.field == fieldID && bytes.IndexByte(b, 0) >= 0 {
			p.valueNUL = true
		}
		room := p.maxField - len(p.value)
		if len(b) > room {
			b = b[:room]
			p.valueLong = true
		}
		p.value = append(p.value, b...)
	}
}

func (p *sseParser) appendData(b []byte) {
	if p.dataTrunc {
		return
	}
	room := p.maxData - p.dataLen
	if int64(len(b)) > room {
		b = b[:room]
		p.dataTrunc = true
	}
	p.data = append(p.data, b...)
	p.dataLen += int64(len(b))
}

// endLine handles a line terminator.
func (p *sseParser) endLine() {
	if p.atLineStart {
		p.dispatchBlock()
		return
	}
	switch p.mode {
	case modeComment:
	case modeName:
		// A line without a colon: the whole line is the field name and the
		// value is empty.
		p.startValue()
		p.finishField()
	default:
		p.finishField()
	}
	p.atLineStart = true
}

func (p *sseParser) finishField() {
	p.block = true
	switch p.field {
	case fieldData:
		p.appendData([]byte{'\n'})
	case fieldEvent:
		p.event = string(p.value)
	case fieldID:
		if !p.valueNUL {
			p.lastID = string(p.value)
			p.hasID = true
		}
	case fieldRetry:
		if len(p.value) > 0 && !p.valueLong && allDigits(p.value) {
			if n, err := strconv.ParseInt(string(p.value), 10, 64); err == nil {
				p.retry = n
			}
		}
	}
}

func allDigits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func (p *sseParser) dispatchBlock() {
	if !p.block {
		return
	}
	ev := p.takeBlock()
	p.dispatch(ev)
}

// takeBlock returns the current block as an event and resets the block
// state (the last event ID persists).
func (p *sseParser) takeBlock() sseEvent {
	data := p.data
	if !p.dataTrunc && len(data) > 0 && data[len(data)-1] == '\n' {
		data = data[:len(data)-1]
	}
	ev := sseEvent{
		Data:      data,
		Truncated: p.dataTrunc,
		ID:        p.lastID,
		HasID:     p.hasID,
		Event:     p.event,
		Retry:     p.retry,
	}
	p.block = false
	p.data = nil // handed to the sink; never reused
	p.dataLen = 0
	p.dataTrunc = false
	p.event = ""
	p.hasID = false
	p.retry = -1
	return ev
}

// pending reports whether an incomplete event is in progress at the end of
// the stream (comment lines do not count), and returns it. Data of a line
// still in progress is included.
func (p *sseParser) pending() (sseEvent, bool) {
	inLine := !p.atLineStart && p.mode != modeComment
	if !p.block && !inLine {
		return sseEvent{}, false
	}
	return p.takeBlock(), true
}
