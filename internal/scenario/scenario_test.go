package scenario

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/internal/catalog"
	"github.com/mcpconform/mcpconform/internal/wire"
)

// {url} and {server}: an argument equal to the placeholder becomes the
// words, one holding it gets them shell-quoted (a `sh -c` line), and a
// command without {url} gets the URL as its last argument, as the
// official harness gives it.
func TestExpand(t *testing.T) {
	for _, c := range []struct {
		argv, words []string
		placeholder string
		appendIf    bool
		want        []string
	}{
		{[]string{"client"}, []string{"http://x/mcp"}, URLPlaceholder, true, []string{"client", "http://x/mcp"}},
		{[]string{"client", "--url", "{url}", "-v"}, []string{"http://x/mcp"}, URLPlaceholder, true, []string{"client", "--url", "http://x/mcp", "-v"}},
		{[]string{"lf", "{server}"}, []string{"/bin/mc", "scenario-relay", "--token", "a b"}, ServerPlaceholder, false, []string{"lf", "/bin/mc", "scenario-relay", "--token", "a b"}},
		{[]string{"sh", "-c", "lf {server}"}, []string{"/bin/mc", "it's"}, ServerPlaceholder, false, []string{"sh", "-c", `lf '/bin/mc' 'it'\''s'`}},
		{[]string{"lf"}, []string{"x"}, ServerPlaceholder, false, []string{"lf"}},
	} {
		if got := expand(c.argv, c.placeholder, c.words, c.appendIf); !slices.Equal(got, c.want) {
			t.Errorf("expand(%q, %s) = %q, want %q", c.argv, c.placeholder, got, c.want)
		}
	}
}

// The recorder keeps each SSE event's data as one frame with its id,
// whatever the chunks it was written in and its line endings, and a
// JSON body as one frame with the reply's status.
func TestRecordHTTPReplies(t *testing.T) {
	rec := wire.NewRecorder(nil)
	r := &Run{rec: rec, Conn: "c"}
	h := r.recordHTTP(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.URL.Path == "/json" {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for _, chunk := range []string{"id: e1\r\nda", "ta: {\"a\":\r\ndata: 1}\r\n\r\n: comment\n\n", "event: message\ndata: {\"b\":2}", "\n\n", "data: tail"} {
			_, _ = io.WriteString(w, chunk)
		}
	}))
	for _, path := range []string{"/json", "/sse"} {
		req, _ := http.NewRequest(http.MethodPost, path, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		h.ServeHTTP(httptest.NewRecorder(), req)
	}
	var got []string
	for _, f := range rec.Since(0, 0) {
		got = append(got, f.Dir.String()+" "+string(f.Raw)+" "+eventID(f))
	}
	want := []string{
		`recv {"jsonrpc":"2.0","id":1,"method":"ping"} `,
		`send {"jsonrpc":"2.0","id":1,"result":{}} `,
		`recv {"jsonrpc":"2.0","id":1,"method":"ping"} `,
		"send {\"a\":\n1} e1",
		`send {"b":2} `,
		`send tail `,
	}
	if !slices.Equal(got, want) {
		t.Errorf("frames:\n%q\nwant\n%q", got, want)
	}
}

func eventID(f wire.Frame) string {
	if f.HTTP == nil {
		return ""
	}
	return f.HTTP.EventID
}

// The relay a stdio client starts carries its stdin to the judging
// process and the scenario server's lines back, after the run's token;
// the lines each way are recorded.
func TestRelayCarriesLines(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	got := make(chan string, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		b := make([]byte, 64)
		n, _ := io.ReadAtLeast(c, b, len("tok\nhello\n"))
		got <- string(b[:n])
		_, _ = io.WriteString(c, "world\n")
	}()
	var out bytes.Buffer
	code := RelayMain([]string{"--connect", ln.Addr().String(), "--token", "tok"}, strings.NewReader("hello\n"), &out, io.Discard)
	if code != 0 || <-got != "tok\nhello\n" || out.String() != "world\n" {
		t.Errorf("relay: exit %d, output %q", code, out.String())
	}
	if RelayMain([]string{"--connect", "10.0.0.1:1", "--token", "t"}, nil, io.Discard, io.Discard) != 2 {
		t.Error("the relay connects to loopback only")
	}
}

// Which scenarios a revision and a transport get.
func TestScenarioSelection(t *testing.T) {
	names := func(rev catalog.Revision, tr string) (out []string) {
		for _, s := range For(rev, tr, false) {
			out = append(out, s.Name)
		}
		return out
	}
	if got := names(catalog.R20250618, wire.HTTP); slices.Contains(got, "sse-retry") || !slices.Contains(got, "session-expiry") {
		t.Errorf("2025-06-18 over HTTP: %v (sse-retry is 2025-11-25's, session-expiry every legacy revision's)", got)
	}
	if got := names(catalog.Modern, wire.Stdio); slices.Contains(got, "http-standard-headers") || !slices.Contains(got, "tools_call") {
		t.Errorf("2026-07-28 over stdio: %v", got)
	}
	if got := For(catalog.Modern, wire.HTTP, true); len(got) != 1 || got[0].Name != "everything" {
		t.Errorf("black-box mode: %v, want the one scenario everything", got)
	}
}
