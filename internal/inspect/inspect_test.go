package inspect

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/fixtures"
	"github.com/mcpconform/mcpconform/internal/catalog"
	"github.com/mcpconform/mcpconform/internal/policy"
	"github.com/mcpconform/mcpconform/internal/target"
	"github.com/mcpconform/mcpconform/internal/wire"
)

const fixtureEnv = "INSPECT_TEST_FIXTURE"

// TestMain lets the test binary serve a fixture over stdio when
// INSPECT_TEST_FIXTURE names one.
func TestMain(m *testing.M) {
	if name := os.Getenv(fixtureEnv); name != "" {
		os.Exit(fixtures.Main([]string{name}, os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

func stdioTarget(name string) *target.Target {
	return &target.Target{
		Command:  []string{os.Args[0]},
		Env:      []string{fixtureEnv + "=" + name},
		Timeout:  5 * time.Second,
		Recorder: wire.NewRecorder(wire.NewRedactor()),
	}
}

func inspect(t *testing.T, tg *target.Target, rev catalog.Revision, p policy.CallPolicy) *Inspection {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	in, err := Inspect(ctx, Options{Target: tg, Revision: rev, Policy: p})
	if err != nil {
		t.Fatalf("Inspect: %v", err)
	}
	t.Cleanup(func() { in.Close() })
	return in
}

func call(t *testing.T, in *Inspection, name, args string) *CallRecord {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	rec, err := in.Call(ctx, name, json.RawMessage(args))
	if err != nil {
		t.Fatalf("Call(%s): %v", name, err)
	}
	return rec
}

func names(items []json.RawMessage, key string) []string {
	var out []string
	for _, it := range items {
		out = append(out, itemString(it, key))
	}
	return out
}

// aftersalesTools is the size of the aftersales catalog (fixtures/doc.go).
const aftersalesTools = 25

func checkAftersalesCatalog(t *testing.T, in *Inspection) {
	t.Helper()
	if len(in.Tools) != aftersalesTools {
		t.Errorf("tools: %d %v, want %d (5 per page)", len(in.Tools), names(in.Tools, "name"), aftersalesTools)
	}
	for _, n := range []string{"get_order", "create_refund_draft", "search_faq"} {
		if !slices.Contains(names(in.Tools, "name"), n) {
			t.Errorf("tool %s missing", n)
		}
	}
	if len(in.Resources) != 9 || len(in.ResourceTemplates) != 2 || len(in.Prompts) != 6 {
		t.Errorf("resources %d, templates %d, prompts %d; want 9, 2, 6", len(in.Resources), len(in.ResourceTemplates), len(in.Prompts))
	}
	if !strings.Contains(string(in.ServerInfo), "mcpconform-aftersales") {
		t.Errorf("serverInfo %s", in.ServerInfo)
	}
	if !strings.Contains(in.Instructions, "After-sales back office") {
		t.Errorf("instructions %q", in.Instructions)
	}
	for _, n := range in.Notes {
		if strings.Contains(n, "failed") || strings.Contains(n, "cap") {
			t.Errorf("unexpected note %q", n)
		}
	}
}

func TestAutoPicksModernOnDualEraFixture(t *testing.T) {
	in := inspect(t, stdioTarget("aftersales"), "", "")
	if in.Revision != catalog.Modern {
		t.Fatalf("revision %s, want %s", in.Revision, catalog.Modern)
	}
	if !slices.Equal(in.Eras, []catalog.Revision{catalog.Modern, catalog.R20251125}) {
		t.Errorf("eras %v", in.Eras)
	}
	if !slices.Contains(in.SupportedVersions, "2026-07-28") {
		t.Errorf("supportedVersions %v", in.SupportedVersions)
	}
	if in.Policy != policy.ReadOnly {
		t.Errorf("default policy %q", in.Policy)
	}
	checkAftersalesCatalog(t, in)

	var out bytes.Buffer
	in.Print(&out)
	s := out.String()
	t.Logf("Print:\n%s", s)
	for _, want := range []string{
		"mcpconform-aftersales 1.0.0", "2026-07-28 (server/discover", "also answers 2025-11-25",
		"tools (listChanged)", "Tools (25)", "get_order(order_id) [read-only] — Look up an order by id.",
		"create_refund_draft(order_id, reason) [not called under readonly]",
		"Resources (9)", "policy://refund  refund-policy, text/plain", "Resource templates (2)", "policy://refund/{version}",
		"Prompts (6)", "explain_refund(order_id)", "readonly: 23 of 25 tools callable",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("Print lacks %q", want)
		}
	}
}

func TestExplicitLegacyRevision(t *testing.T) {
	in := inspect(t, stdioTarget("aftersales"), catalog.R20251125, policy.ReadOnly)
	if in.Revision != catalog.R20251125 || !slices.Equal(in.Eras, []catalog.Revision{catalog.R20251125}) {
		t.Fatalf("revision %s eras %v", in.Revision, in.Eras)
	}
	checkAftersalesCatalog(t, in)
	rec := call(t, in, "get_order", `{"order_id":"A1001"}`)
	if rec.Layer != LayerResult || rec.Revision != "2025-11-25" {
		t.Errorf("legacy get_order: layer %s revision %s: %s", rec.Layer, rec.Revision, rec.Response)
	}
	if strings.Contains(string(rec.Request), "_meta") {
		t.Errorf("legacy request carries _meta: %s", rec.Request)
	}
}

func TestUnknownRevision(t *testing.T) {
	_, err := Inspect(context.Background(), Options{Target: stdioTarget("aftersales"), Revision: "2099-01-01"})
	if err == nil || !strings.Contains(err.Error(), "unknown revision") {
		t.Fatalf("err %v", err)
	}
}

func TestPageCap(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	in, err := Inspect(ctx, Options{Target: stdioTarget("aftersales"), Revision: catalog.Modern, MaxPages: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	if len(in.Tools) != 10 {
		t.Errorf("tools with a cap of 2 pages: %d, want 10", len(in.Tools))
	}
	if !slices.ContainsFunc(in.Notes, func(n string) bool { return strings.Contains(n, "tools/list: stopped after 2 pages") }) {
		t.Errorf("notes %q", in.Notes)
	}
}

func TestDeclarations(t *testing.T) {
	in := inspect(t, stdioTarget("aftersales"), "", "")
	raw, err := in.DeclarationsJSON()
	if err != nil {
		t.Fatal(err)
	}
	var decls []struct {
		Type     string `json:"type"`
		Function struct {
			Name        string `json:"name"`
			Description string `json:"description"`
			Parameters  struct {
				Type       string                     `json:"type"`
				Properties map[string]json.RawMessage `json:"properties"`
				Required   []string                   `json:"required"`
			} `json:"parameters"`
		} `json:"function"`
	}
	if err := json.Unmarshal(raw, &decls); err != nil {
		t.Fatalf("declarations JSON: %v\n%s", err, raw)
	}
	if len(decls) != aftersalesTools {
		t.Fatalf("%d declarations", len(decls))
	}
	var seen bool
	for _, d := range decls {
		if d.Type != "function" || d.Function.Name == "" || d.Function.Parameters.Type != "object" {
			t.Errorf("bad declaration %+v", d)
		}
		if d.Function.Name == "create_refund_draft" {
			seen = true
			if !slices.Equal(d.Function.Parameters.Required, []string{"order_id", "reason"}) || d.Function.Parameters.Properties["reason"] == nil {
				t.Errorf("create_refund_draft parameters %+v", d.Function.Parameters)
			}
			if !strings.HasPrefix(d.Function.Description, "Create a refund draft") {
				t.Errorf("description %q", d.Function.Description)
			}
		}
	}
	if !seen {
		t.Error("create_refund_draft not declared")
	}
	// The exact top-level shape.
	var generic []map[string]map[string]json.RawMessage
	if err := json.Unmarshal(raw, &generic); err == nil {
		t.Error("declarations must have a string type next to the function object")
	}
	var shape []map[string]json.RawMessage
	_ = json.Unmarshal(raw, &shape)
	for _, d := range shape {
		if len(d) != 2 || string(d["type"]) != `"function"` {
			t.Errorf("declaration keys %v", d)
		}
		var fn map[string]json.RawMessage
		_ = json.Unmarshal(d["function"], &fn)
		for k := range fn {
			if k != "name" && k != "description" && k != "parameters" {
				t.Errorf("unexpected function key %q", k)
			}
		}
	}
	// A tool without inputSchema still gets an object schema.
	in2 := &Inspection{Tools: []json.RawMessage{json.RawMessage(`{"name":"bare"}`)}}
	d := in2.Declarations()
	if len(d) != 1 || string(d[0].Function.Parameters) != `{"type":"object","properties":{}}` {
		t.Errorf("bare tool declaration %+v", d)
	}
}

func TestCallGetOrder(t *testing.T) {
	for _, rev := range []catalog.Revision{"", catalog.R20251125} {
		t.Run("rev="+string(rev), func(t *testing.T) {
			in := inspect(t, stdioTarget("aftersales"), rev, policy.ReadOnly)
			ok := call(t, in, "get_order", `{"order_id":"A1001"}`)
			if ok.Layer != LayerResult || ok.ErrorCode != nil || !ok.InCatalog || len(ok.Notes) != 0 {
				t.Errorf("valid order: %+v", ok)
			}
			if !strings.Contains(string(ok.Request), `"tools/call"`) || !strings.Contains(string(ok.Request), `"A1001"`) {
				t.Errorf("request %s", ok.Request)
			}
			if !json.Valid(ok.Request) || !json.Valid(ok.Response) || !strings.Contains(string(ok.Response), "Wireless headphones") {
				t.Errorf("response %s", ok.Response)
			}
			var req, resp struct {
				ID json.RawMessage `json:"id"`
			}
			_ = json.Unmarshal(ok.Request, &req)
			_ = json.Unmarshal(ok.Response, &resp)
			if string(req.ID) != string(resp.ID) || len(req.ID) == 0 {
				t.Errorf("request id %s, response id %s", req.ID, resp.ID)
			}
			if ok.Time.IsZero() || ok.DurationMs <= 0 {
				t.Errorf("timing %v %v", ok.Time, ok.DurationMs)
			}

			bad := call(t, in, "get_order", `{"order_id":"Z9999"}`)
			if bad.Layer != LayerTool || !strings.Contains(string(bad.Response), "order not found") {
				t.Errorf("unknown order: layer %s, response %s", bad.Layer, bad.Response)
			}

			var out bytes.Buffer
			in.PrintCall(&out, ok)
			in.PrintCall(&out, bad)
			s := out.String()
			t.Logf("PrintCall:\n%s", s)
			for _, want := range []string{"Call get_order → result", `arguments: {"order_id":"A1001"}`, "Wireless headphones",
				"structuredContent:", `"layer": "result"`, "Call get_order → tool-error", "isError: true", "order not found"} {
				if !strings.Contains(s, want) {
					t.Errorf("PrintCall lacks %q", want)
				}
			}
		})
	}
}

func TestUnknownTool(t *testing.T) {
	for _, p := range []policy.CallPolicy{policy.ReadOnly, policy.All} {
		in := inspect(t, stdioTarget("aftersales"), "", p)
		rec := call(t, in, "no_such_tool", `{}`)
		if rec.Layer != LayerJSONRPC || rec.ErrorCode == nil || *rec.ErrorCode != -32602 {
			t.Errorf("%s: unknown tool: layer %s code %v response %s", p, rec.Layer, rec.ErrorCode, rec.Response)
		}
		if rec.InCatalog || len(rec.Notes) == 0 || !strings.Contains(rec.Notes[0], "not in the discovered catalog") {
			t.Errorf("%s: notes %q", p, rec.Notes)
		}
		var out bytes.Buffer
		in.PrintCall(&out, rec)
		if !strings.Contains(out.String(), "JSON-RPC error -32602") || !strings.Contains(out.String(), "not in the discovered catalog") {
			t.Errorf("PrintCall:\n%s", out.String())
		}
	}
}

func TestPolicy(t *testing.T) {
	ctx := context.Background()
	in := inspect(t, stdioTarget("aftersales"), "", policy.ReadOnly)
	rec, err := in.Call(ctx, "create_refund_draft", json.RawMessage(`{"order_id":"A1001","reason":"broken"}`))
	if err == nil || rec != nil || !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "--call-tools all") || !strings.Contains(err.Error(), "readonly") {
		t.Fatalf("readonly create_refund_draft: rec %v err %v", rec, err)
	}
	for _, f := range in.rec.Since(0, 0) {
		if bytes.Contains(f.Raw, []byte("create_refund_draft")) && f.Dir == wire.Out {
			t.Fatalf("a refused call was sent: %s", f.Raw)
		}
	}

	// 2025-11-25: in 2026-07-28 create_refund_draft first asks for a pickup
	// slot (input_required), which inspect --call does not answer.
	all := inspect(t, stdioTarget("aftersales"), "2025-11-25", policy.All)
	rec = call(t, all, "create_refund_draft", `{"order_id":"A1001","reason":"broken"}`)
	if rec.Layer != LayerResult || !strings.Contains(string(rec.Response), "refund draft D0001 created") {
		t.Errorf("all: create_refund_draft: %s %s", rec.Layer, rec.Response)
	}

	none := inspect(t, stdioTarget("aftersales"), "", policy.None)
	for _, name := range []string{"get_order", "no_such_tool"} {
		if _, err := none.Call(ctx, name, nil); !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "none") {
			t.Errorf("none: %s: %v", name, err)
		}
	}

	if _, err := all.Call(ctx, "get_order", json.RawMessage(`[1]`)); err == nil || !strings.Contains(err.Error(), "JSON object") {
		t.Errorf("non-object args: %v", err)
	}
	if _, err := Inspect(ctx, Options{Target: stdioTarget("aftersales"), Policy: "some"}); err == nil {
		t.Error("bad policy accepted")
	}
}

func TestTutorHTTPBearerNeverPrinted(t *testing.T) {
	const token = "tutor-secret-token-4242"
	url, stop, err := fixtures.StartHTTP("tutor", fixtures.Options{Token: token})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()

	// Without the token nothing answers.
	_, err = Inspect(context.Background(), Options{Target: &target.Target{URL: url, Timeout: 5 * time.Second}})
	if err == nil || !strings.Contains(err.Error(), "401") {
		t.Errorf("without a token: %v", err)
	}

	tg := &target.Target{URL: url, Bearer: token, BearerSource: "test", Timeout: 5 * time.Second} // no recorder: Inspect adds one
	in := inspect(t, tg, "", "")
	if in.Transport != "http" || len(in.Tools) != 2 || in.Revision != catalog.Modern {
		t.Fatalf("tutor: transport %s tools %v revision %s", in.Transport, names(in.Tools, "name"), in.Revision)
	}
	rec := call(t, in, "formula_hint", `{"query":"去括号这一步我不会 `+token+`"}`)
	if rec.Layer != LayerResult || rec.HTTPStatus != 200 {
		t.Errorf("formula_hint: %s HTTP %d %s", rec.Layer, rec.HTTPStatus, rec.Response)
	}
	legacy := inspect(t, &target.Target{URL: url, Bearer: token, Timeout: 5 * time.Second}, catalog.R20251125, "")
	rec2 := call(t, legacy, "step_hint", `{"query":"solve the equation"}`)
	if rec2.Layer != LayerResult {
		t.Errorf("legacy step_hint: %s %s", rec2.Layer, rec2.Response)
	}

	var out bytes.Buffer
	in.Print(&out)
	in.PrintCall(&out, rec)
	legacy.Print(&out)
	legacy.PrintCall(&out, rec2)
	decl, _ := in.DeclarationsJSON()
	out.Write(decl)
	s := out.String()
	t.Logf("tutor output:\n%s", s)
	if strings.Contains(s, token) {
		t.Fatal("the bearer token appears in the output")
	}
	if !strings.Contains(s, "mcpconform-tutor") || !strings.Contains(s, "括号") || !strings.Contains(s, wire.Redacted) {
		t.Errorf("unexpected output:\n%s", s)
	}
	for _, f := range tg.Recorder.Since(0, 0) {
		if bytes.Contains(f.Raw, []byte(token)) || (f.HTTP != nil && strings.Contains(f.HTTP.Header.Get("Authorization"), token)) {
			t.Fatalf("the recorder kept the token: %+v", f)
		}
	}
	if bytes.Contains(rec.Request, []byte(token)) || bytes.Contains(rec.Arguments, []byte(token)) {
		t.Error("the record keeps the token")
	}
}

// evilServer is a 2026-07-28-only HTTP server whose texts carry terminal
// escapes, and whose "ask" tool answers input_required.
func evilServer(t *testing.T) string {
	si := map[string]any{"name": "evil\x1b[2J\x1b]0;pwned\x07server", "version": "6.6.6\u009b31m"}
	tools := []map[string]any{
		{"name": "paint\x1b[31m", "description": "Paints\x1b[5m the \u202eterminal\u202c red.\nSecond line \x1b[0m",
			"inputSchema": map[string]any{"type": "object", "properties": map[string]any{"color\x07": map[string]any{"type": "string"}}, "required": []string{"color\x07"}},
			"annotations": map[string]any{"readOnlyHint": true}},
		{"name": "ask", "inputSchema": map[string]any{"type": "object"}, "annotations": map[string]any{"readOnlyHint": true}},
		{"name": "dotted.name", "inputSchema": map[string]any{"type": "object"}, "annotations": map[string]any{"readOnlyHint": true}},
	}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name string `json:"name"`
			} `json:"params"`
		}
		if r.Method != http.MethodPost || json.NewDecoder(r.Body).Decode(&req) != nil {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		if len(req.ID) == 0 {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		var result any
		var rpcErr any
		switch req.Method {
		case "server/discover":
			result = map[string]any{"resultType": "complete", "supportedVersions": []string{"2026-07-28"}, "capabilities": map[string]any{"tools": map[string]any{}},
				"ttlMs": 0, "cacheScope": "public", "instructions": "Be\x1b[1m bold\nthen \x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\ done",
				"_meta": map[string]any{"io.modelcontextprotocol/serverInfo": si}}
		case "tools/list":
			result = map[string]any{"resultType": "complete", "tools": tools}
		case "tools/call":
			switch req.Params.Name {
			case "crash":
				w.Header().Set("Content-Type", "text/plain")
				w.WriteHeader(http.StatusInternalServerError)
				w.Write([]byte("internal \x1b[31mfailure\n"))
				return
			case "ask":
				result = map[string]any{"resultType": "input_required", "inputRequests": map[string]any{"q1": map[string]any{"method": "elicitation/create", "params": map[string]any{}}}, "requestState": "s1"}
			default:
				result = map[string]any{"resultType": "complete", "content": []any{
					map[string]any{"type": "text", "text": "done \x1b[31mred\x1b[0m\u009b2J \u202eevil"},
					map[string]any{"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgo="},
				}}
			}
		default:
			rpcErr = map[string]any{"code": -32601, "message": "Method not found"}
		}
		resp := map[string]any{"jsonrpc": "2.0", "id": req.ID}
		if rpcErr != nil {
			resp["error"] = rpcErr
		} else {
			resp["result"] = result
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(resp)
	})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp"
}

func assertClean(t *testing.T, what, s string) {
	t.Helper()
	for _, bad := range []string{"\x1b", "\x07", "\u009b", "\u202e", "\u202c", "pwned"} {
		if strings.Contains(s, bad) {
			t.Errorf("%s contains %q:\n%q", what, bad, s)
		}
	}
}

func TestControlCharactersStripped(t *testing.T) {
	in := inspect(t, &target.Target{URL: evilServer(t), Timeout: 5 * time.Second}, "", "")
	if in.Revision != catalog.Modern || !slices.Equal(in.Eras, []catalog.Revision{catalog.Modern}) {
		t.Fatalf("revision %s eras %v notes %q", in.Revision, in.Eras, in.Notes)
	}
	var out bytes.Buffer
	in.Print(&out)
	s := out.String()
	t.Logf("Print:\n%s", s)
	assertClean(t, "Print", s)
	for _, want := range []string{"evil", "paint(color) [read-only] — Paints the terminal red.", "Be bold", "link done", `tool name "dotted.name" does not match`} {
		if !strings.Contains(s, want) {
			t.Errorf("Print lacks %q", want)
		}
	}
	if strings.Contains(s, "Second line") {
		t.Error("Print shows more than the first line of a description")
	}

	rec := call(t, in, "paint\x1b[31m", `{"color\u0007":"red"}`)
	out.Reset()
	in.PrintCall(&out, rec)
	s = out.String()
	t.Logf("PrintCall:\n%s", s)
	assertClean(t, "PrintCall", s)
	if rec.Layer != LayerResult || !strings.Contains(s, "done red") || !strings.Contains(s, "[image image/png, 12 bytes of base64 data]") {
		t.Errorf("PrintCall:\n%s", s)
	}
	var back CallRecord
	if i := strings.Index(s, "\nRecord\n"); i < 0 || json.Unmarshal([]byte(s[i+8:]), &back) != nil || back.Tool != "paint\x1b[31m" {
		t.Errorf("the printed record is not the record as JSON: %+v", back)
	}

	crash := call(t, in, "crash", ``)
	out.Reset()
	in.PrintCall(&out, crash)
	assertClean(t, "PrintCall transport", out.String())
	if crash.Layer != LayerTransport || crash.HTTPStatus != 500 || !strings.Contains(crash.Body, "failure") || crash.Response != nil ||
		!strings.Contains(out.String(), "transport failure") || !strings.Contains(out.String(), "body: internal failure") {
		t.Errorf("crash: %+v\n%s", crash, out.String())
	}
	if string(crash.Arguments) != `{}` || crash.InCatalog {
		t.Errorf("crash arguments %s", crash.Arguments)
	}

	ask := call(t, in, "ask", `{}`)
	if ask.Layer != LayerInputRequired || len(ask.Notes) == 0 || !strings.Contains(ask.Notes[0], "does not answer input requests yet") {
		t.Errorf("ask: %+v", ask)
	}
	out.Reset()
	in.PrintCall(&out, ask)
	if !strings.Contains(out.String(), "input request q1: elicitation/create") {
		t.Errorf("PrintCall input_required:\n%s", out.String())
	}
}

func TestCleanText(t *testing.T) {
	cases := map[string]string{
		"plain":                         "plain",
		"a\x1b[31mb\x1b[0mc":            "abc",
		"x\x1b]0;title\x07y":            "xy",
		"x\x1b]8;;http://e\x1b\\y":      "xy",
		"x\x1bPq#0;1\x1b\\y":            "xy",
		"a\u009b31mb":                   "ab",
		"tab\tnl\ncr\r\nend":            "tab\tnl\ncr\nend",
		"del\x7fbell\x07nul\x00":        "delbellnul",
		"bidi\u202eevil\u202c\u2066x":   "bidievilx",
		"bad\xffutf8":                   "bad\uFFFDutf8",
		"\x1bc reset":                   " reset",
		"中文\x1b[1m粗体":                   "中文粗体",
		"ends with esc\x1b":             "ends with esc",
		"csi unterminated \x1b[12;31":   "csi unterminated ",
		"line\u2028separator":           "line\nseparator",
		"\x1b7saved\x1b8 cursor":        "saved cursor",
		"osc unterminated \x1b]0;title": "osc unterminated ",
	}
	for in, want := range cases {
		if got := cleanText(in); got != want {
			t.Errorf("cleanText(%q) = %q, want %q", in, got, want)
		}
	}
	if got := clean("a\nb\tc"); got != "a b c" {
		t.Errorf("clean = %q", got)
	}
	esc := escapeUnsafe([]byte("{\"a\":\"x\u009by\u202ez\x7f\xff\"}"))
	if !json.Valid(esc) || strings.ContainsAny(string(esc), "\u009b\u202e\x7f") {
		t.Errorf("escapeUnsafe = %q", esc)
	}
	var v map[string]string
	_ = json.Unmarshal(esc, &v)
	if v["a"] != "x\u009by\u202ez\x7f\uFFFD" {
		t.Errorf("escapeUnsafe changed the meaning: %q", v["a"])
	}
}
