package repro

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/internal/result"
)

// The test binary is also a tiny stdio server (REPRO_FAKE_SERVER): a
// 2026-07-28 server/discover naming 1900-01-01 gets -32022, except, with
// REPRO_FAKE_SERVER=stateful, once the connection has sent a request for
// an unknown method (the fault of a production server: it needs an
// earlier message); REPRO_FAKE_SERVER=fixed never has the fault.
func TestMain(m *testing.M) {
	if mode := os.Getenv("REPRO_FAKE_SERVER"); mode != "" {
		fakeServer(mode)
		return
	}
	os.Exit(m.Run())
}

func fakeServer(mode string) {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	unknownSeen := false
	for in.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Meta map[string]any `json:"_meta"`
			} `json:"params"`
		}
		if json.Unmarshal(in.Bytes(), &m) != nil || len(m.ID) == 0 {
			continue
		}
		switch m.Method {
		case "server/discover":
			if m.Params.Meta["io.modelcontextprotocol/protocolVersion"] != "2026-07-28" && !(mode == "stateful" && unknownSeen) {
				fmt.Printf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32022,"message":"unsupported","data":{"supported":["2026-07-28"]}}}`+"\n", m.ID)
				continue
			}
			fmt.Printf(`{"jsonrpc":"2.0","id":%s,"result":{"resultType":"complete","supportedVersions":["2026-07-28"]}}`+"\n", m.ID)
		case "tools/list":
			fmt.Printf(`{"jsonrpc":"2.0","id":%s,"result":{"resultType":"complete","tools":[]}}`+"\n", m.ID)
		default:
			unknownSeen = true
			fmt.Printf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"Method not found"}}`+"\n", m.ID)
		}
	}
}

const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// fakeReport: a run that saw LIFE-010 fail on a connection that had sent
// tools/list and an unknown method before (another check's traffic).
func fakeReport() (*result.Report, result.Result) {
	ex := func(seq int64, dir, body string) result.Exchange {
		return result.Exchange{Seq: seq, Conn: "stdio#1", Direction: dir, Kind: "message", Body: body}
	}
	other := []result.Exchange{
		ex(1, "send", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{`+meta+`}}`),
		ex(2, "recv", `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[]}}`),
		ex(3, "send", `{"jsonrpc":"2.0","id":2,"method":"mcpconform/no-such-method","params":{`+meta+`}}`),
		ex(4, "recv", `{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"Method not found"}}`),
		ex(5, "send", `{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{`+meta+`}}`),
		ex(6, "recv", `{"jsonrpc":"2.0","id":3,"result":{"resultType":"complete","tools":[]}}`),
	}
	bad := strings.Replace(meta, `"2026-07-28"`, `"1900-01-01"`, 1)
	own := []result.Exchange{
		ex(7, "send", `{"jsonrpc":"2.0","id":4,"method":"server/discover","params":{`+bad+`}}`),
		ex(8, "recv", `{"jsonrpc":"2.0","id":4,"result":{"resultType":"complete","supportedVersions":["2026-07-28"]}}`),
	}
	self, _ := os.Executable()
	rep := &result.Report{Target: result.Target{Transport: "stdio", Command: []string{self}}, Results: []result.Result{
		{Requirement: "RPC-007", Verdict: result.PASS, Transport: "stdio", Revision: "2026-07-28", Transcript: other},
	}}
	res := result.Result{Requirement: "LIFE-010", Verdict: result.FAIL, Transport: "stdio", Revision: "2026-07-28",
		Title: "Unsupported protocol version gets -32022", Message: "server/discover with protocolVersion 1900-01-01: expected a JSON-RPC error",
		Transcript: own, Evidence: []int64{8}, Claim: &result.Claim{Answer: 8, Kind: result.ClaimError, Codes: []int64{-32022}}}
	rep.Results = append(rep.Results, res)
	return rep, res
}

// A fault that needs an earlier message of the connection: Verify finds
// that message (and only it), and the script exits 1 against the faulty
// server, 0 against a fixed one.
func TestVerifyFindsTheEarlierMessage(t *testing.T) {
	rep, res := fakeReport()
	script, v, err := Verify(context.Background(), rep, res, VerifyOptions{Env: []string{"REPRO_FAKE_SERVER=stateful"}, Budget: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if v.Status != Reproduced || !slices.Equal(v.Prefix, []int64{3}) {
		t.Fatalf("status %s prefix %v (want reproduced after [3]): %s\n%s", v.Status, v.Prefix, v.Why, v.Output)
	}
	if !strings.Contains(script, "mcpconform/no-such-method") || !strings.Contains(script, "# Verified:") {
		t.Errorf("the script lacks the earlier message or its verification:\n%s", script)
	}
	path := filepath.Join(t.TempDir(), "s.sh")
	if err := os.WriteFile(path, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	for mode, want := range map[string]int{"stateful": ExitViolation, "fixed": ExitOK} {
		if code, out := RunScript(context.Background(), path, 10*time.Second, []string{"REPRO_FAKE_SERVER=" + mode}); code != want {
			t.Errorf("against the %s server: exit %d, want %d\n%s", mode, code, want, out)
		}
	}
}

// A violation no replay shows again: the script says so and exits 2 where
// it would have said OK.
func TestVerifyUnreproducedNeverSaysOK(t *testing.T) {
	rep, res := fakeReport()
	script, v, err := Verify(context.Background(), rep, res, VerifyOptions{Env: []string{"REPRO_FAKE_SERVER=fixed"}, Budget: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if v.Status != Unreproduced || v.Exit == ExitOK {
		t.Fatalf("status %s exit %d: %s", v.Status, v.Exit, v.Why)
	}
	if !strings.Contains(script, "NOT REPRODUCED") {
		t.Errorf("the script does not say it was not reproduced:\n%s", script)
	}
	path := filepath.Join(t.TempDir(), "s.sh")
	if err := os.WriteFile(path, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	if code, out := RunScript(context.Background(), path, 10*time.Second, []string{"REPRO_FAKE_SERVER=fixed"}); code != ExitUnknown || !strings.Contains(out, "CANNOT TELL") {
		t.Errorf("exit %d, want 2 (never OK for a FAIL the run saw):\n%s", code, out)
	}
}
