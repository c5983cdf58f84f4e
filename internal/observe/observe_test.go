package observe

import (
	"encoding/json"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/internal/result"
	"github.com/mcpconform/mcpconform/internal/wire"
)

const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

type feed struct {
	o   *Observer
	seq int64
}

func (f *feed) send(conn, raw string) {
	f.seq++
	f.o.Frame(wire.Frame{Seq: f.seq, Conn: conn, Dir: wire.Out, Kind: wire.KindMessage, Raw: []byte(raw)})
}

func (f *feed) recv(conn, raw string) {
	f.seq++
	f.o.Frame(wire.Frame{Seq: f.seq, Conn: conn, Dir: wire.In, Kind: wire.KindMessage, Raw: []byte(raw)})
}

// only requires exactly the violations want. The other rules' tests feed
// minimal messages that the message model rejects (a tools/list result
// without ttlMs): RPC-013 is left out unless want names it.
func only(t *testing.T, o *Observer, want ...string) []Violation {
	t.Helper()
	var vs []Violation
	var got []string
	for _, v := range o.Violations() {
		if v.Requirement == "RPC-013" && !slices.Contains(want, "RPC-013") {
			continue
		}
		vs = append(vs, v)
		got = append(got, v.Requirement)
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("violations %v, want %v: %+v", got, want, vs)
	}
	return vs
}

func TestInputRequiredOnAListIsJudgedWhicheverCheckProvokedIt(t *testing.T) {
	f := &feed{o: New()}
	f.o.SetCheck("PAG-001 [2026-07-28] (a pagination check)")
	f.send("stdio#1", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{`+modernMeta+`}}`)
	f.recv("stdio#1", `{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","requestState":"x"}}`)
	f.o.SetCheck("MRTR-001 [2026-07-28] (its own probe)")
	vs := only(t, f.o, "MRTR-001")
	if !strings.Contains(vs[0].Check, "PAG-001") || len(vs[0].Frames) != 2 || vs[0].Revision != "2026-07-28" {
		t.Errorf("violation %+v: want the provoking check PAG-001 and the request and answer quoted", vs[0])
	}
}

func TestAmbiguousRequestsAreNotJudgedAsModern(t *testing.T) {
	f := &feed{o: New()}
	// no _meta: a dual-era server may answer it as legacy traffic (no resultType)
	f.send("stdio#1", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	f.recv("stdio#1", `{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}`)
	only(t, f.o)
}

func TestModernRequestFromTheServer(t *testing.T) {
	f := &feed{o: New()}
	f.send("stdio#1", `{"jsonrpc":"2.0","id":"k","method":"server/discover","params":{`+modernMeta+`}}`)
	f.recv("stdio#1", `{"jsonrpc":"2.0","id":"m-1","method":"elicitation/create","params":{}}`)
	f.recv("stdio#1", `{"jsonrpc":"2.0","id":"k","result":{"resultType":"complete"}}`)
	f.recv("stdio#1", `{"jsonrpc":"2.0","id":7,"result":{}}`) // unsolicited, no request known: era of the connection
	only(t, f.o, "RPC-010")
}

func TestStdoutLinesOfEveryProcess(t *testing.T) {
	f := &feed{o: New()}
	f.recv("stdio#3", `server ready`)
	f.recv("stdio#4", ``)
	vs := only(t, f.o, "STD-001")
	if vs[0].Count != 2 || vs[0].Revision != "" {
		t.Errorf("violation %+v: want two offending lines, revision unknown", vs[0])
	}
}

func TestLegacyCapabilities(t *testing.T) {
	f := &feed{o: New()}
	f.send("stdio#1", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}`)
	f.recv("stdio#1", `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}}}}`)
	f.recv("stdio#1", `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`) // before initialized
	f.send("stdio#1", `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	f.recv("stdio#1", `{"jsonrpc":"2.0","id":"s","method":"roots/list"}`)
	only(t, f.o, "LIFE-004", "LIFE-005", "LEG-002")
}

func TestProgressAfterTheResponse(t *testing.T) {
	f := &feed{o: New()}
	f.send("stdio#1", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}`)
	f.recv("stdio#1", `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}}}}`)
	f.send("stdio#1", `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	f.send("stdio#1", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"x","_meta":{"progressToken":7}}}`)
	f.recv("stdio#1", `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":1}}`)
	f.recv("stdio#1", `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":2}}`)
	f.recv("stdio#1", `{"jsonrpc":"2.0","id":2,"result":{"content":[]}}`)
	only(t, f.o)
	f.recv("stdio#1", `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":3}}`)
	only(t, f.o, "PROG-002")
}

func TestSSEWithoutAccelBuffering(t *testing.T) {
	o := New()
	o.Frame(wire.Frame{Seq: 1, Conn: "http#1", Dir: wire.Out, Kind: wire.KindMessage, Exchange: 1, HTTP: &wire.HTTPInfo{Method: "POST"},
		Raw: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + modernMeta + `}}`)})
	o.Frame(wire.Frame{Seq: 2, Conn: "http#1", Dir: wire.In, Kind: wire.KindMessage, Exchange: 1,
		HTTP: &wire.HTTPInfo{Status: 200, SSE: true, Header: http.Header{"Content-Type": {"text/event-stream"}}},
		Raw:  []byte(`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[]}}`)})
	only(t, o, "HTTP-020")
}

func TestApplyNeverLeavesAViolatedRequirementPassing(t *testing.T) {
	f := &feed{o: New()}
	f.o.SetCheck("TOOL-001 [2026-07-28] (tools)")
	f.send("stdio#1", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{`+modernMeta+`}}`)
	f.recv("stdio#1", `{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","requestState":"x"}}`)
	results := []result.Result{
		{Requirement: "MRTR-001", Level: "MUST", Verdict: "PASS", Transport: "stdio", Revision: "2026-07-28"},
		{Requirement: "MRTR-001", Level: "MUST", Verdict: "NA", Transport: "http", Revision: "2026-07-28"},
		{Requirement: "RPC-010", Level: "MUST", Verdict: "PASS", Transport: "stdio", Revision: "2026-07-28"},
	}
	Apply(results, f.o.Violations(), []string{"2025-11-25", "2026-07-28"})
	legacyOnly := []result.Result{{Requirement: "MRTR-001", Level: "MUST", Verdict: "NA", Transport: "stdio", Revision: "2026-07-28"}}
	if Apply(legacyOnly, f.o.Violations(), []string{"2025-11-25"}); legacyOnly[0].Verdict != "NA" {
		t.Errorf("a requirement of a revision the run does not cover: %+v", legacyOnly[0])
	}
	r := results[0]
	if r.Verdict != "FAIL" || !strings.Contains(r.Message, "TOOL-001") || len(r.Transcript) != 2 || !strings.Contains(r.Actual, "input_required") {
		t.Errorf("MRTR-001: %+v; want FAIL naming TOOL-001 with the exchange quoted", r)
	}
	if results[1].Verdict != "NA" || results[2].Verdict != "PASS" {
		t.Errorf("other transport / requirement changed: %+v", results[1:])
	}
}

func TestHTTPTrafficThatIsNotMCPIsNotJudged(t *testing.T) {
	o := New()
	// a protected-resource metadata document fetched on the same connection
	o.Frame(wire.Frame{Seq: 1, Conn: "http#1", Dir: wire.Out, Kind: wire.KindBody, Exchange: 1, HTTP: &wire.HTTPInfo{Method: "GET", Header: http.Header{"Accept": {"application/json"}}}})
	o.Frame(wire.Frame{Seq: 2, Conn: "http#1", Dir: wire.In, Kind: wire.KindMessage, Exchange: 1,
		HTTP: &wire.HTTPInfo{Status: 200, Header: http.Header{"Content-Type": {"application/json"}}}, Raw: []byte(`{"resource":"x"}`)})
	only(t, o)
	// the same body on a POSTed MCP exchange is no JSON-RPC message either
	// (the check that sent the request sees no response to it)
	o.Frame(wire.Frame{Seq: 3, Conn: "http#1", Dir: wire.Out, Kind: wire.KindMessage, Exchange: 2, HTTP: &wire.HTTPInfo{Method: "POST"},
		Raw: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + modernMeta + `}}`)})
	o.Frame(wire.Frame{Seq: 4, Conn: "http#1", Dir: wire.In, Kind: wire.KindMessage, Exchange: 2,
		HTTP: &wire.HTTPInfo{Status: 200, Header: http.Header{"Content-Type": {"application/json"}}}, Raw: []byte(`{"resource":"x"}`)})
	only(t, o)
	// a response that lacks "jsonrpc" is a JSON-RPC message with a fault
	o.Frame(wire.Frame{Seq: 5, Conn: "http#1", Dir: wire.Out, Kind: wire.KindMessage, Exchange: 3, HTTP: &wire.HTTPInfo{Method: "POST"},
		Raw: []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{` + modernMeta + `}}`)})
	o.Frame(wire.Frame{Seq: 6, Conn: "http#1", Dir: wire.In, Kind: wire.KindMessage, Exchange: 3,
		HTTP: &wire.HTTPInfo{Status: 200, Header: http.Header{"Content-Type": {"application/json"}}}, Raw: []byte(`{"id":2,"result":{"resultType":"complete","tools":[]}}`)})
	only(t, o, "RPC-001")
}

// BenchmarkFrame measures what the observers add to the recording of one
// request and its answer (a modern tools/list of 20 tools).
func BenchmarkFrame(b *testing.B) {
	var tools []string
	for i := 0; i < 20; i++ {
		tools = append(tools, `{"name":"tool_`+strings.Repeat("x", i)+`","inputSchema":{"type":"object","properties":{"order_id":{"type":"string"}}}}`)
	}
	req := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + modernMeta + `}}`)
	resp := []byte(`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","ttlMs":0,"cacheScope":"public","tools":[` + strings.Join(tools, ",") + `]}}`)
	o := New()
	b.ReportAllocs()
	b.SetBytes(int64(len(req) + len(resp)))
	for i := 0; i < b.N; i++ {
		o.Frame(wire.Frame{Seq: int64(2 * i), Conn: "stdio#1", Dir: wire.Out, Kind: wire.KindMessage, Raw: req})
		o.Frame(wire.Frame{Seq: int64(2*i + 1), Conn: "stdio#1", Dir: wire.In, Kind: wire.KindMessage, Raw: resp})
	}
}

func TestRequestsWithoutClientCapabilitiesAreAmbiguous(t *testing.T) {
	f := &feed{o: New()}
	// LIFE-008's probe: a dual-era server may serve it as legacy traffic
	f.send("stdio#1", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`)
	f.recv("stdio#1", `{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}`)
	only(t, f.o)
}

// What the harness provoked is not held against the server (house rule 9):
// a roots/list answering the harness's own roots/list_changed (it declared
// no roots), and a batch reply to the harness's own batch (RPC-008's to
// judge). The same messages unprovoked are violations.
func TestHarnessProvokedIsNotJudged(t *testing.T) {
	for _, provoked := range []bool{true, false} {
		f := &feed{o: New()}
		f.send("stdio#1", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}`)
		f.recv("stdio#1", `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}}}}`)
		f.send("stdio#1", `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		if provoked {
			f.send("stdio#1", `{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`)
			f.send("stdio#1", `[{"jsonrpc":"2.0","id":"b1","method":"ping"},{"jsonrpc":"2.0","id":"b2","method":"ping"}]`)
		}
		f.recv("stdio#1", `{"jsonrpc":"2.0","id":"s","method":"roots/list"}`)
		f.recv("stdio#1", `[{"jsonrpc":"2.0","id":"b1","result":{}},{"jsonrpc":"2.0","id":"b2","result":{}}]`)
		if provoked {
			only(t, f.o)
		} else {
			only(t, f.o, "LIFE-005", "LEG-002", "STD-001")
		}
	}
}

// The observer's cut-down decoding of megabyte params keeps what
// json.Unmarshal keeps: the members it knows (matched as encoding/json
// matches them), _meta members (large ones present and empty), duplicates
// merged, the last one winning.
func TestSentParamsDecodeLargeAgrees(t *testing.T) {
	big := `"` + strings.Repeat(`x\"`, 100<<10) + `"`
	for _, raw := range []string{
		`{"_meta":{"big":` + big + `,"progressToken":7,"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"protocolVersion":"2025-11-25","capabilities":{"roots":{}},"task":{"ttl":1},"other":` + big + `}`,
		`{"_META":{"a":1},"_meta":{"a":` + big + `,"b":2},"_meta":{"b":` + big + `},"Task":null,"arguments":{"s":` + big + `}}`,
		`{"_meta":{"a":` + big + `},"_meta":{"a":"small"}}`,
		`{"_meta":` + big + `}`,
		`{"_meta":{"a":` + big + `},"_meta":null,"_meta":{"b":1}}`,
	} {
		var want, got sentParams
		_ = json.Unmarshal([]byte(raw), &want)
		got.decode(json.RawMessage(raw))
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%.80s…:\n got %+v\nwant %+v", raw, got, want)
		}
	}
}

// TestLanesNameTheirOwnCheck: with lanes (checks of two revisions running
// at once), a violation names the check running in the lane of the
// connection that carried it, not the other lane's.
func TestLanesNameTheirOwnCheck(t *testing.T) {
	f := &feed{o: New()}
	f.o.SetLanes(func(conn string) string {
		if conn == "stdio#1" {
			return "2026-07-28"
		}
		return "2025-11-25"
	})
	f.o.SetCheckIn("2026-07-28", "PAG-001 [2026-07-28] (a pagination check)")
	f.o.SetCheckIn("2025-11-25", "TOOL-001 [2025-11-25] (tools)")
	f.send("stdio#1", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{`+modernMeta+`}}`)
	f.o.SetCheckIn("2025-11-25", "RPC-001 [2025-11-25] (ids)")
	f.recv("stdio#1", `{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","requestState":"x"}}`)
	vs := only(t, f.o, "MRTR-001")
	if !strings.Contains(vs[0].Check, "PAG-001") {
		t.Errorf("violation %+v: want its lane's check PAG-001", vs[0])
	}
}

// RPC-009: a server request whose id is null, or one the server already
// used in the session, is a violation; the same id on another connection,
// and ids the harness used for its own requests, are not.
func TestServerRequestIDs(t *testing.T) {
	f := &feed{o: New()}
	for _, c := range []string{"stdio#1", "stdio#2"} {
		f.send(c, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}`)
		f.recv(c, `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{}}}`)
		f.send(c, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		f.recv(c, `{"jsonrpc":"2.0","id":0,"method":"ping"}`) // the harness's initialize had id 0
		f.recv(c, `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	}
	only(t, f.o)
	f.recv("stdio#2", `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	vs := only(t, f.o, "RPC-009")
	if !strings.Contains(vs[0].Message, "id 1, which it used") {
		t.Fatalf("message %q", vs[0].Message)
	}
	f = &feed{o: New()}
	f.send("stdio#1", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}`)
	f.recv("stdio#1", `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{}}}`)
	f.recv("stdio#1", `{"jsonrpc":"2.0","id":null,"method":"ping"}`)
	only(t, f.o, "RPC-009")
}
