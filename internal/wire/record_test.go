package wire

import (
	"bytes"
	"encoding/base64"
	"net/url"
	"reflect"
	"strings"
	"testing"
)

// TestRedactorEncodedForms: a secret echoed base64-encoded (alone or
// inside a longer text, at any alignment) or URL-encoded is redacted too.
func TestRedactorEncodedForms(t *testing.T) {
	const secret = "SECRET-canary-7f3a/9+b=c&d e"
	r := NewRedactor(secret)
	for _, text := range []string{
		secret,
		"Bearer " + secret,
		base64.StdEncoding.EncodeToString([]byte(secret)),
		base64.StdEncoding.EncodeToString([]byte("Bearer " + secret)),
		base64.StdEncoding.EncodeToString([]byte("x" + secret + "y")),
		base64.URLEncoding.EncodeToString([]byte("xy" + secret)),
		base64.RawURLEncoding.EncodeToString([]byte(secret + "!")),
		url.QueryEscape(secret),
		url.PathEscape("Bearer " + secret),
	} {
		out := r.String("echo: " + text + " end")
		if !strings.Contains(out, Redacted) {
			t.Errorf("%q was not redacted: %q", text, out)
		}
		for _, f := range SecretForms(secret) {
			if strings.Contains(out, f) {
				t.Errorf("%q: form %q survives in %q", text, f, out)
			}
		}
	}
	if got := r.String("an ordinary sentence"); got != "an ordinary sentence" {
		t.Errorf("ordinary text changed: %q", got)
	}
}

// TestRecorderPacksLargePayloads: a large compressible payload is kept
// compressed and comes back from Since byte for byte; a large random one
// and small ones are kept as they are.
func TestRecorderPacksLargePayloads(t *testing.T) {
	rec := NewRecorder(NewRedactor("sekrit-value"))
	big := []byte(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"` + strings.Repeat("x", 3<<20) + ` sekrit-value"}}`)
	noisy := make([]byte, 200<<10)
	for i := range noisy {
		noisy[i] = byte(i*7919 ^ i>>3*104729)
	}
	rec.Record(Frame{Conn: "c", Dir: Out, Kind: KindMessage, Raw: []byte(`{"small":1}`)})
	rec.Record(Frame{Conn: "c", Dir: Out, Kind: KindMessage, Raw: big})
	rec.Record(Frame{Conn: "c", Dir: In, Kind: KindBody, Raw: noisy})
	if rec.bytes > 1<<20 {
		t.Errorf("the recorder keeps %d bytes for a compressible 3 MiB payload", rec.bytes)
	}
	want := bytes.ReplaceAll(big, []byte("sekrit-value"), []byte(Redacted))
	for round := 0; round < 2; round++ {
		fs := rec.Since(0, 0)
		if len(fs) != 3 || string(fs[0].Raw) != `{"small":1}` || !bytes.Equal(fs[1].Raw, want) || !bytes.Equal(fs[2].Raw, noisy) || fs[1].Truncated {
			t.Fatalf("round %d: frames not restored exactly", round)
		}
		fs[1].Raw[0] = 'X' // a caller's copy: the stored payload stays intact
	}
	if fs := rec.Since(1, 1); len(fs) != 1 || fs[0].Seq != 3 {
		t.Errorf("Since(1, 1) = %d frames", len(fs))
	}
}

func TestRecorderClipped(t *testing.T) {
	rec := NewRecorder(nil)
	big := []byte(strings.Repeat("y", 1<<20))
	rec.Record(Frame{Conn: "c", Dir: Out, Kind: KindMessage, Raw: big})
	rec.Record(Frame{Conn: "c", Dir: Out, Kind: KindMessage, Raw: []byte("0123456789")})
	fs := rec.Clipped(0, 0, 5)
	if len(fs) != 2 || string(fs[0].Raw) != "yyyyy" || string(fs[1].Raw) != "01234" || fs[0].Truncated || fs[1].Truncated {
		t.Fatalf("Clipped: %d frames %q %q", len(fs), fs[0].Raw, fs[1].Raw)
	}
	if full := rec.Since(0, 0); len(full[0].Raw) != 1<<20 || string(full[1].Raw) != "0123456789" {
		t.Errorf("clipping changed the stored payloads")
	}
}

func TestRecorderOnConn(t *testing.T) {
	rec := NewRecorder(nil)
	big := []byte(strings.Repeat("z", 1<<20))
	rec.Record(Frame{Conn: "a", Dir: Out, Kind: KindMessage, Raw: big})
	rec.Record(Frame{Conn: "b", Dir: In, Kind: KindMessage, Raw: []byte("b1")})
	rec.Record(Frame{Conn: "a", Dir: In, Kind: KindMessage, Raw: []byte("a2")})
	if fs := rec.OnConn(0, "b"); len(fs) != 1 || string(fs[0].Raw) != "b1" {
		t.Errorf("OnConn b: %d frames", len(fs))
	}
	if fs := rec.OnConn(0, "a"); len(fs) != 2 || !bytes.Equal(fs[0].Raw, big) || string(fs[1].Raw) != "a2" {
		t.Errorf("OnConn a: %d frames", len(fs))
	}
	if fs := rec.OnConn(1, "a"); len(fs) != 1 || fs[0].Seq != 3 {
		t.Errorf("OnConn after 1: %d frames", len(fs))
	}
}

// TestRecorderOnConnWhere: keep sees each frame of the connection with its
// payload's size before the payload is restored, and only the frames it
// accepts come back (restored byte for byte).
func TestRecorderOnConnWhere(t *testing.T) {
	rec := NewRecorder(nil)
	big := []byte(`{"x":"` + strings.Repeat("x", 1<<20) + `"}`)
	rec.Record(Frame{Conn: "c", Dir: Out, Kind: KindMessage, Raw: big})
	rec.Record(Frame{Conn: "d", Dir: In, Kind: KindMessage, Raw: []byte(`{"other":1}`)})
	rec.Record(Frame{Conn: "c", Dir: In, Kind: KindMessage, Raw: big})
	rec.Record(Frame{Conn: "c", Dir: Out, Kind: KindMessage, Raw: []byte(`{"small":1}`)})
	var sizes []int
	fs := rec.OnConnWhere(0, "c", func(f *Frame, size int) bool {
		sizes = append(sizes, size)
		return f.Dir == In || size < 1024
	})
	if !reflect.DeepEqual(sizes, []int{len(big), len(big), 11}) {
		t.Errorf("keep saw sizes %v", sizes)
	}
	if len(fs) != 2 || fs[0].Seq != 3 || !bytes.Equal(fs[0].Raw, big) || string(fs[1].Raw) != `{"small":1}` {
		t.Fatalf("OnConnWhere: %d frames", len(fs))
	}
}

// What the observer decoded of a frame reaches the frame's reader
// (Frame.Decoded), unless redaction changed the bytes it saw; a sender's
// decoded message reaches the observer; the recorder stores neither.
func TestRecordHandsDecoded(t *testing.T) {
	rec := NewRecorder(NewRedactor("s3cret"))
	var seen []any
	rec.SetObserver(func(f Frame) any {
		seen = append(seen, f.Decoded)
		if f.Dir == In {
			return "decoded:" + string(f.Raw)
		}
		return nil
	})
	in := rec.Record(Frame{Conn: "c", Dir: In, Kind: KindMessage, Raw: []byte(`{"a":1}`)})
	if in.Decoded != `decoded:{"a":1}` {
		t.Errorf("reader got %v", in.Decoded)
	}
	red := rec.Record(Frame{Conn: "c", Dir: In, Kind: KindMessage, Raw: []byte(`{"a":"s3cret"}`)})
	if red.Decoded != nil {
		t.Errorf("reader got the observer's decoding of redacted bytes: %v", red.Decoded)
	}
	out := rec.Record(Frame{Conn: "c", Dir: Out, Kind: KindMessage, Raw: []byte(`{"b":2}`), Decoded: "built"})
	if len(seen) != 3 || seen[2] != "built" || out.Decoded != "built" {
		t.Errorf("observer saw %v, sender's frame %v", seen, out.Decoded)
	}
	for _, f := range rec.Since(0, 0) {
		if f.Decoded != nil {
			t.Errorf("stored frame %d keeps %v", f.Seq, f.Decoded)
		}
	}
}
