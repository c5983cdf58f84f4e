package observe

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/internal/wire"
)

const callReq = `{"jsonrpc":"2.0","id":%ID%,"method":"tools/call","params":{"name":"get_order","arguments":{"order_id":"A-1"},` + modernMeta + `}}`

func call(id string) string { return strings.ReplaceAll(callReq, "%ID%", id) }

// exactly is only without leaving RPC-013 out.
func exactly(t *testing.T, o *Observer, want ...string) []Violation {
	t.Helper()
	var got []string
	for _, v := range o.Violations() {
		got = append(got, v.Requirement)
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("violations %v, want %v: %+v", got, want, o.Violations())
	}
	return o.Violations()
}

// RPC-013 judges the answers to requests the harness sent as valid, and
// the server's own requests and notifications, whichever check provoked
// them; never an answer to a robustness or fault probe, to junk, or an
// HTTP-layer rejection, and never the harness's own input reflected back.
func TestMessageModelJudgedOnWhatTheHarnessSentAsValid(t *testing.T) {
	bad := `{"jsonrpc":"2.0","id":%ID%,"result":{"resultType":"complete","content":[{"type":"text"}]}}`
	good := `{"jsonrpc":"2.0","id":%ID%,"result":{"resultType":"complete","content":[{"type":"text","text":"ok"}]}}`
	answer := func(s, id string) string { return strings.ReplaceAll(s, "%ID%", id) }

	f := &feed{o: New()}
	f.o.SetCheck("TOOL-003 [2026-07-28] (a tools check)")
	f.send("stdio#1", call("1"))
	f.recv("stdio#1", answer(good, "1"))
	exactly(t, f.o) // nothing yet
	// probes: params an array, a fractional id, an unknown method, no _meta
	f.send("stdio#1", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":[1]}`)
	f.recv("stdio#1", answer(bad, "2"))
	f.send("stdio#1", `{"jsonrpc":"2.0","id":3.5,"method":"tools/call","params":{"name":"get_order",`+modernMeta+`}}`)
	f.recv("stdio#1", answer(bad, "3.5"))
	f.send("stdio#1", `{"jsonrpc":"2.0","id":4,"method":"tools/frobnicate","params":{`+modernMeta+`}}`)
	f.recv("stdio#1", answer(bad, "4"))
	f.send("stdio#1", `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"get_order"}}`)
	f.recv("stdio#1", answer(bad, "5"))
	// junk answered with id null (not valid before 2025-11-25: not judged either)
	f.send("stdio#1", `{"jsonrpc":"2.0","id":`)
	f.recv("stdio#1", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700}}`)
	exactly(t, f.o, "RPC-001") // the error without a message is RPC-001's, not RPC-013's
	f.send("stdio#1", call("6"))
	f.recv("stdio#1", answer(bad, "6"))
	vs := exactly(t, f.o, "RPC-001", "RPC-013")
	if v := vs[1]; !strings.Contains(v.Check, "TOOL-003") || !strings.Contains(v.Message, "tools/call") || len(v.Frames) != 2 {
		t.Errorf("RPC-013: %+v; want the provoking check, the method and the exchange", v)
	}

	// HTTP: a 400 rejection is the HTTP checks' to judge; a 200 answer is judged
	o := New()
	post := func(seq, x int64, id string, status int, body string) {
		o.Frame(wire.Frame{Seq: seq, Conn: "http#1", Dir: wire.Out, Kind: wire.KindMessage, Exchange: x, HTTP: &wire.HTTPInfo{Method: "POST"}, Raw: []byte(call(id))})
		o.Frame(wire.Frame{Seq: seq + 1, Conn: "http#1", Dir: wire.In, Kind: wire.KindMessage, Exchange: x,
			HTTP: &wire.HTTPInfo{Status: status, Header: http.Header{"Content-Type": {"application/json"}}}, Raw: []byte(body)})
	}
	post(1, 1, "1", 400, `{"jsonrpc":"2.0","id":null,"error":{"code":-32020,"message":"header mismatch"}}`)
	exactly(t, o)
	post(3, 2, "2", 200, answer(bad, "2"))
	exactly(t, o, "RPC-013")
}

func TestEchoedInputIsNotTheServersFault(t *testing.T) {
	for _, uri := range []string{"example", "not a uri"} {
		f := &feed{o: New()}
		f.send("stdio#1", `{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"p","arguments":{"resourceUri":"example"},`+modernMeta+`}}`)
		f.recv("stdio#1", `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","messages":[{"role":"user","content":{"type":"resource","resource":{"uri":"`+uri+`","text":"x"}}}]}}`)
		if uri == "example" {
			exactly(t, f.o) // the harness's own argument reflected back
		} else {
			exactly(t, f.o, "RPC-013")
		}
	}
}

func TestServerMessagesOfAKnownEra(t *testing.T) {
	f := &feed{o: New()}
	f.send("stdio#1", call("1"))
	f.recv("stdio#1", `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":"half"}}`)
	exactly(t, f.o, "RPC-013")
	// a connection that spoke two eras: a notification's era is unknown
	g := &feed{o: New()}
	g.send("stdio#1", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	g.send("stdio#1", call("1"))
	g.recv("stdio#1", `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":"half"}}`)
	exactly(t, g.o)
}

// CAN-003: after a cancellation, once the server has answered a later
// request and the race window has passed, nothing more for the cancelled
// request; before that, a message for it is the race the spec allows.
func TestCancelledRequestGoesQuiet(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	run := func(settle bool, late time.Duration, late2 string) []Violation {
		o := New()
		seq := int64(0)
		fr := func(dir wire.Direction, at time.Duration, raw string) {
			seq++
			o.Frame(wire.Frame{Seq: seq, Time: t0.Add(at), Conn: "stdio#1", Dir: dir, Kind: wire.KindMessage, Raw: []byte(raw)})
		}
		fr(wire.Out, 0, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"slow","_meta":{"progressToken":"p5","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
		fr(wire.Out, 100*time.Millisecond, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}`)
		if settle {
			fr(wire.Out, 110*time.Millisecond, call("6"))
			fr(wire.In, 120*time.Millisecond, `{"jsonrpc":"2.0","id":6,"result":{"resultType":"complete","content":[]}}`)
		}
		fr(wire.In, late, late2)
		var out []Violation
		for _, v := range o.Violations() {
			if v.Requirement == "CAN-003" {
				out = append(out, v)
			}
		}
		return out
	}
	resp := `{"jsonrpc":"2.0","id":5,"result":{"resultType":"complete","content":[]}}`
	progress := `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p5","progress":3}}`
	if vs := run(true, time.Second, resp); len(vs) != 1 || len(vs[0].Frames) != 2 || !strings.Contains(vs[0].Message, "its response") {
		t.Errorf("a response after the settled cancellation: %+v", vs)
	}
	if vs := run(true, time.Second, progress); len(vs) != 1 || !strings.Contains(vs[0].Message, "progress") {
		t.Errorf("progress after the settled cancellation: %+v", vs)
	}
	if vs := run(false, time.Second, resp); len(vs) != 0 {
		t.Errorf("no later request answered: the server may not have read the cancellation: %+v", vs)
	}
	if vs := run(true, 150*time.Millisecond, resp); len(vs) != 0 {
		t.Errorf("within the race window: %+v", vs)
	}
}

// A problem another run-wide requirement judges is left to it: one fault,
// one verdict.
func TestModelProblemsOwnedByAnotherInvariant(t *testing.T) {
	f := &feed{o: New()}
	f.send("stdio#1", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	f.recv("stdio#1", `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"logging":{}},"serverInfo":{"name":"s","version":"1"}}}`)
	f.send("stdio#1", `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	f.recv("stdio#1", `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"verbose","data":"x"}}`)
	f.send("stdio#1", `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"file:///etc/../passwd"}}`)
	f.recv("stdio#1", `{"jsonrpc":"2.0","id":1,"error":{"code":-32602}}`)
	exactly(t, f.o, "LOG-001", "RPC-001")
	g := &feed{o: New()}
	g.send("stdio#1", call("1"))
	g.recv("stdio#1", `{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`)
	g.send("stdio#1", `{"jsonrpc":"2.0","id":2,"method":"server/discover","params":{`+modernMeta+`}}`)
	g.recv("stdio#1", `{"jsonrpc":"2.0","id":2,"result":{"resultType":"input_required","requestState":"s"}}`)
	exactly(t, g.o, "RPC-011", "MRTR-001")
}

func TestIssuedSessionIDs(t *testing.T) {
	o := New()
	init := func(seq, x int64, sid string) {
		o.Frame(wire.Frame{Seq: seq, Conn: "http#1", Dir: wire.Out, Kind: wire.KindMessage, Exchange: x, HTTP: &wire.HTTPInfo{Method: "POST"},
			Raw: []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{}},"clientInfo":{"name":"c","version":"1"}}}`)})
		o.Frame(wire.Frame{Seq: seq + 1, Conn: "http#1", Dir: wire.In, Kind: wire.KindMessage, Exchange: x,
			HTTP: &wire.HTTPInfo{Status: 200, Header: http.Header{"Content-Type": {"application/json"}, "Mcp-Session-Id": {sid}}},
			Raw:  []byte(`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}`)})
	}
	init(1, 1, "abcd1234")
	exactly(t, o)
	init(3, 2, "abcd 1234")
	vs := exactly(t, o, "HTTP-007")
	if !strings.Contains(vs[0].Message, "0x20") || vs[0].Revision != "2025-11-25" {
		t.Errorf("HTTP-007: %+v", vs[0])
	}
}

// BenchmarkFrameDistinctResults is BenchmarkFrame with a result that
// differs every time (the message-model cache never hits): the cost of
// RPC-013's validation of a 20-tool list.
func BenchmarkFrameDistinctResults(b *testing.B) {
	var tools []string
	for i := 0; i < 20; i++ {
		tools = append(tools, `{"name":"tool_`+strings.Repeat("x", i)+`","inputSchema":{"type":"object","properties":{"order_id":{"type":"string"}}}}`)
	}
	req := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + modernMeta + `}}`)
	o := New()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		resp := []byte(`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","ttlMs":` + strconv.Itoa(i) + `,"cacheScope":"public","tools":[` + strings.Join(tools, ",") + `]}}`)
		o.Frame(wire.Frame{Seq: int64(2 * i), Conn: "stdio#1", Dir: wire.Out, Kind: wire.KindMessage, Raw: req})
		o.Frame(wire.Frame{Seq: int64(2*i + 1), Conn: "stdio#1", Dir: wire.In, Kind: wire.KindMessage, Raw: resp})
	}
}
