package observe

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mcpconform/mcpconform/internal/catalog"
	"github.com/mcpconform/mcpconform/internal/jsonrpc"
	"github.com/mcpconform/mcpconform/internal/wire"
)

// rule judges one requirement on every server message of the run.
type rule struct {
	id string
	// truncated: the rule judges frames cut at a size cap too (the others
	// cannot judge a cut message).
	truncated bool
	judge     func(e *event)
}

// rules are the run-wide invariants, one per requirement id. Each judges
// only what the message itself shows in its context; the requirement's own
// check still probes for it (and judges what needs a stimulus).
var rules = []rule{
	{id: "STD-001", judge: std001},
	{id: "RPC-001", judge: rpc001},
	{id: "RPC-003", judge: rpc003},
	{id: "RPC-009", judge: rpc009},
	{id: "RPC-010", judge: rpc010},
	{id: "RPC-011", judge: rpc011},
	{id: "RPC-012", judge: rpc012},
	{id: "RPC-013", judge: rpc013},
	{id: "MRTR-001", judge: mrtr001},
	{id: "MRTR-002", judge: mrtr002},
	{id: "MRTR-003", judge: mrtr003},
	{id: "MRTR-004", judge: mrtr004},
	{id: "LIFE-004", judge: life004},
	{id: "LIFE-005", judge: life005},
	{id: "LEG-001", judge: leg001},
	{id: "LEG-002", judge: leg002},
	{id: "LOG-001", judge: log001},
	{id: "PROG-002", judge: prog002},
	{id: "CAN-003", judge: can003},
	{id: "HTTP-003", truncated: true, judge: http003},
	{id: "HTTP-004", truncated: true, judge: http004},
	{id: "HTTP-005", judge: http005},
	{id: "HTTP-007", truncated: true, judge: http007},
	{id: "HTTP-017", judge: http017},
	{id: "HTTP-018", judge: http018},
	{id: "HTTP-020", judge: http020},
	{id: "HTTP-009", judge: http009},
	{id: "HTTP-019", truncated: true, judge: http019},
	{id: "AUTH-003", truncated: true, judge: auth003},
	{id: "AUTH-004", truncated: true, judge: auth004},
	{id: "AUTH-009", truncated: true, judge: auth009},
}

// Requirements lists the requirement ids judged over the whole run.
func Requirements() []string {
	out := make([]string, len(rules))
	for i, r := range rules {
		out[i] = r.id
	}
	return out
}

func clip(b []byte) string {
	if len(b) == 0 {
		return "(empty)"
	}
	if len(b) > 300 {
		return string(b[:300]) + "…"
	}
	return string(b)
}

func modern(e *event) bool { return e.rev == catalog.Modern }

func (e *event) msg() bool { return e.m != nil && e.err == nil }

// STD-001: every stdout line of every process the run started is one
// complete UTF-8 JSON-RPC message (2025-03-26: or a batch of them).
func std001(e *event) {
	if e.c.transport != wire.Stdio || e.f.Kind != wire.KindMessage {
		return
	}
	raw := bytes.TrimSuffix(e.f.Raw, []byte{'\r'})
	switch {
	case len(bytes.TrimSpace(raw)) == 0:
		e.violate("STD-001", false, "the server wrote a blank line to stdout")
	case !utf8.Valid(raw) && !e.f.Truncated:
		e.violate("STD-001", false, "a stdout line is not valid UTF-8: %s", clip(raw))
	case e.f.Truncated:
		// a line cut at the size cap cannot be judged as a whole
	case bytes.HasPrefix(bytes.TrimSpace(raw), []byte("[")) && (e.rev == catalog.R20250326 || e.rev == "" || e.c.sentBatch):
		// a batch reply: allowed in 2025-03-26; in other revisions the
		// answer to a batch the harness itself sent, which RPC-008 judges
		var elems []json.RawMessage
		ok := json.Unmarshal(raw, &elems) == nil && len(elems) > 0
		for _, el := range elems {
			if m, err := jsonrpc.Decode(el); err != nil || !m.IsJSONRPC() || m.Kind() == jsonrpc.KindInvalid {
				ok = false
			}
		}
		if !ok {
			e.violate("STD-001", false, "a stdout line is a JSON array but not a batch of JSON-RPC messages: %s", clip(raw))
		}
	case e.err != nil:
		e.violate("STD-001", false, "the server wrote a line to stdout that is not a JSON-RPC message (%v): %s", e.err, clip(raw))
	case e.m.Kind() == jsonrpc.KindInvalid:
		e.violate("STD-001", false, "a stdout line is a JSON object but not a JSON-RPC message: %s", clip(raw))
	}
}

// RPC-010: under 2026-07-28 the server never sends a request.
func rpc010(e *event) {
	if modern(e) && e.msg() && e.m.HasMethod && e.m.HasID {
		e.violate("RPC-010", false, "the server sent a request (%s, id %s) under 2026-07-28", e.m.Method, e.m.ID)
	}
}

// RPC-011: every 2026-07-28 result carries a known resultType.
func rpc011(e *event) {
	if !modern(e) || !e.msg() || !e.resp || !e.m.HasResult {
		return
	}
	var rt string
	raw := e.result()["resultType"]
	ok := json.Unmarshal(raw, &rt) == nil && (rt == "complete" || rt == "input_required" || rt == "task" && e.o.tasks)
	if !ok {
		what := "no resultType"
		if raw != nil {
			what = "resultType " + string(raw)
		}
		e.violate("RPC-011", false, "the result of %s has %s", e.req.method, what)
	}
}

// RPC-012: no removed or spec-reserved error codes under 2026-07-28 (MUST
// NOT); the legacy implementation-defined range is a SHOULD NOT.
func rpc012(e *event) {
	if !modern(e) || !e.msg() {
		return
	}
	code, ok := e.m.ErrorCode()
	if !ok {
		return
	}
	switch {
	case code == jsonrpc.CodeResourceNotFound || code == jsonrpc.CodeURLElicitation:
		e.violate("RPC-012", false, "the server emitted the removed code %d", code)
	case code <= -32020 && code >= -32099 && code != jsonrpc.CodeHeaderMismatch && code != jsonrpc.CodeMissingCapability && code != jsonrpc.CodeUnsupportedProtocol:
		e.violate("RPC-012", false, "the server emitted the spec-reserved code %d", code)
	case code <= -32000 && code >= -32019:
		e.violate("RPC-012", true, "the server emitted %d from the legacy implementation-defined range -32000..-32019 (SHOULD NOT)", code)
	}
}

// inputRequired returns the result object of an input_required answer.
func inputRequired(e *event) map[string]json.RawMessage {
	if !modern(e) || !e.msg() || !e.resp || !e.m.HasResult {
		return nil
	}
	res := e.result()
	if string(res["resultType"]) != `"input_required"` {
		return nil
	}
	return res
}

var mrtrMethods = []string{"tools/call", "prompts/get", "resources/read"}

// MRTR-001: input_required only from tools/call, prompts/get, resources/read.
func mrtr001(e *event) {
	if inputRequired(e) != nil && !slices.Contains(mrtrMethods, e.req.method) {
		e.violate("MRTR-001", false, "%s answered input_required", e.req.method)
	}
}

// MRTR-002: every input_required result has inputRequests (an object),
// requestState (a string), or both.
func mrtr002(e *event) {
	res := inputRequired(e)
	if res == nil {
		return
	}
	ir, hasIR := res["inputRequests"]
	st, hasSt := res["requestState"]
	switch {
	case !hasIR && !hasSt:
		e.violate("MRTR-002", false, "an input_required result of %s has neither inputRequests nor requestState", e.req.method)
	case hasIR && !isObject(ir):
		e.violate("MRTR-002", false, "an input_required result of %s has inputRequests %s, not an object", e.req.method, clip(ir))
	case hasSt && !isString(st):
		e.violate("MRTR-002", false, "an input_required result of %s has requestState %s, not a string", e.req.method, clip(st))
	}
}

var inputMethods = []string{"elicitation/create", "sampling/createMessage", "roots/list"}

type inputRequest struct {
	key    string
	raw    json.RawMessage
	method string
	params map[string]json.RawMessage
}

func inputRequests(res map[string]json.RawMessage) []inputRequest {
	var reqs map[string]json.RawMessage
	if json.Unmarshal(res["inputRequests"], &reqs) != nil {
		return nil
	}
	keys := make([]string, 0, len(reqs))
	for k := range reqs {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var out []inputRequest
	for _, k := range keys {
		var r struct {
			Method string                     `json:"method"`
			Params map[string]json.RawMessage `json:"params"`
		}
		_ = json.Unmarshal(reqs[k], &r)
		out = append(out, inputRequest{key: k, raw: reqs[k], method: r.Method, params: r.Params})
	}
	return out
}

// MRTR-003: input requests use the three methods, with object params and
// unique keys (SHOULD NOT carry jsonrpc or id).
func mrtr003(e *event) {
	res := inputRequired(e)
	if res == nil || !isObject(res["inputRequests"]) {
		return
	}
	if d := topLevelDuplicates(res["inputRequests"]); len(d) > 0 {
		e.violate("MRTR-003", false, "an input_required result of %s repeats inputRequests keys (%s)", e.req.method, strings.Join(d, ", "))
		return
	}
	for _, r := range inputRequests(res) {
		var obj map[string]json.RawMessage
		_ = json.Unmarshal(r.raw, &obj)
		switch {
		case !slices.Contains(inputMethods, r.method):
			e.violate("MRTR-003", false, "input request %q of %s has method %q, not one of %s", r.key, e.req.method, r.method, strings.Join(inputMethods, ", "))
		case obj["params"] != nil && !isObject(obj["params"]):
			e.violate("MRTR-003", false, "input request %q of %s has params %s, not an object", r.key, e.req.method, clip(obj["params"]))
		case obj["jsonrpc"] != nil || obj["id"] != nil:
			e.violate("MRTR-003", true, "input request %q of %s carries jsonrpc or id (it is not a JSON-RPC message)", r.key, e.req.method)
		}
	}
}

// MRTR-004: no input request for a capability the request did not declare.
func mrtr004(e *event) {
	res := inputRequired(e)
	if res == nil {
		return
	}
	caps := e.req.caps
	declared := func(k string) bool { _, ok := caps[k]; return ok }
	sub := func(k, s string) bool {
		var m map[string]json.RawMessage
		_ = json.Unmarshal(caps[k], &m)
		_, ok := m[s]
		return ok
	}
	for _, r := range inputRequests(res) {
		switch r.method {
		case "elicitation/create":
			var mode string
			_ = json.Unmarshal(r.params["mode"], &mode)
			if !declared("elicitation") {
				e.violate("MRTR-004", false, "%s asked for elicitation (%q) although the request declared no elicitation capability", e.req.method, r.key)
			} else if mode == "url" && !sub("elicitation", "url") {
				e.violate("MRTR-004", false, "%s asked for a URL-mode elicitation (%q) although the request did not declare elicitation.url", e.req.method, r.key)
			}
		case "sampling/createMessage":
			if !declared("sampling") {
				e.violate("MRTR-004", false, "%s asked for sampling (%q) although the request declared no sampling capability", e.req.method, r.key)
			} else if (r.params["tools"] != nil || r.params["toolChoice"] != nil) && !sub("sampling", "tools") {
				e.violate("MRTR-004", false, "%s asked for sampling with tools (%q) although the request did not declare sampling.tools", e.req.method, r.key)
			}
		case "roots/list":
			if !declared("roots") {
				e.violate("MRTR-004", false, "%s asked for roots (%q) although the request declared no roots capability", e.req.method, r.key)
			}
		}
	}
}

// LIFE-004: from the initialize request until notifications/initialized
// (HTTP: on the initialize reply's stream, before its response, too), only
// ping requests and log notifications (SHOULD NOT).
func life004(e *event) {
	c := e.c
	if !e.msg() || e.rev == "" || !e.rev.IsLegacy() || c.initID == "" || c.initFailed || c.initialized || !e.m.HasMethod {
		return
	}
	if e.m.HasID && e.m.Method != "ping" || !e.m.HasID && e.m.Method != "notifications/message" {
		e.violate("LIFE-004", false, "the server sent %s before the client's notifications/initialized", e.m.Method)
	}
}

func hasCap(caps map[string]json.RawMessage, k string) bool { _, ok := caps[k]; return ok }

func hasSub(caps map[string]json.RawMessage, k, s string) bool {
	var m map[string]json.RawMessage
	_ = json.Unmarshal(caps[k], &m)
	var b bool
	return json.Unmarshal(m[s], &b) == nil && b
}

// LIFE-005: legacy servers use only negotiated capabilities.
func life005(e *event) {
	c := e.c
	if !e.msg() || e.rev == "" || !e.rev.IsLegacy() || c.initID == "" || !e.m.HasMethod {
		return
	}
	m := e.m.Method
	if e.m.HasID {
		need := map[string]string{"sampling/createMessage": "sampling", "roots/list": "roots", "elicitation/create": "elicitation"}[m]
		if need != "" && !hasCap(c.clientCaps, need) && !(m == "roots/list" && c.rootsNudged) {
			e.violate("LIFE-005", false, "the server sent %s although the client did not declare %s", m, need)
		}
		return
	}
	if c.serverCaps == nil {
		return
	}
	for _, k := range []string{"tools", "prompts", "resources"} {
		if m == "notifications/"+k+"/list_changed" && !hasSub(c.serverCaps, k, "listChanged") {
			e.violate("LIFE-005", false, "the server sent %s without declaring capabilities.%s.listChanged", m, k)
		}
	}
	if m == "notifications/resources/updated" && !hasSub(c.serverCaps, "resources", "subscribe") {
		e.violate("LIFE-005", false, "the server sent %s without declaring capabilities.resources.subscribe", m)
	}
}

// RPC-009: the requests a legacy server sends have string or integer ids,
// never null, and never one it used before in the session (the
// connection).
func rpc009(e *event) {
	if !e.msg() || !e.rev.IsLegacy() || e.m.Kind() != jsonrpc.KindRequest {
		return
	}
	if !e.m.ID.Valid() {
		e.violate("RPC-009", false, "the server sent a %s request whose id is %s", e.m.Method, idKind(e.m.ID.Key()))
		return
	}
	k := e.m.ID.Key()
	if e.c.requestIDs[k] {
		e.violate("RPC-009", false, "the server sent a %s request with id %s, which it used for an earlier request of the session", e.m.Method, k)
		return
	}
	if e.c.requestIDs == nil {
		e.c.requestIDs = map[string]bool{}
	}
	if len(e.c.requestIDs) < maxPending {
		e.c.requestIDs[k] = true
	}
}

// idKind says what is wrong with a request id that is not a string or
// integer.
func idKind(raw string) string {
	raw = strings.TrimSpace(raw)
	switch {
	case raw == "null":
		return "null"
	case strings.HasPrefix(raw, "{"), strings.HasPrefix(raw, "["):
		return "not a string or integer (" + raw + ")"
	}
	var f float64
	if json.Unmarshal([]byte(raw), &f) == nil {
		return "a non-integer number (" + raw + ")"
	}
	return "not a string or integer (" + raw + ")"
}

// LEG-001: elicitation/create only to clients that declared it (and, in
// 2025-11-25, URL mode only with elicitation.url).
func leg001(e *event) {
	c := e.c
	if !e.msg() || !e.rev.IsLegacy() || c.initID == "" || !e.m.HasID || e.m.Method != "elicitation/create" {
		return
	}
	if !hasCap(c.clientCaps, "elicitation") {
		e.violate("LEG-001", false, "the server sent elicitation/create although the client did not declare elicitation")
		return
	}
	var p struct {
		Mode string `json:"mode"`
	}
	_ = json.Unmarshal(e.m.Params, &p)
	var el map[string]json.RawMessage
	_ = json.Unmarshal(c.clientCaps["elicitation"], &el)
	if e.rev == catalog.R20251125 && p.Mode == "url" && el["url"] == nil {
		e.violate("LEG-001", false, "the server sent a URL-mode elicitation/create although the client did not declare elicitation.url")
	}
}

// LEG-002: sampling/createMessage and roots/list only to clients that
// declared them (2025-11-25: tools/toolChoice only with sampling.tools).
func leg002(e *event) {
	c := e.c
	if !e.msg() || !e.rev.IsLegacy() || c.initID == "" || !e.m.HasID {
		return
	}
	switch e.m.Method {
	case "sampling/createMessage":
		if !hasCap(c.clientCaps, "sampling") {
			e.violate("LEG-002", false, "the server sent sampling/createMessage although the client did not declare sampling")
			return
		}
		var p map[string]json.RawMessage
		_ = json.Unmarshal(e.m.Params, &p)
		var s map[string]json.RawMessage
		_ = json.Unmarshal(c.clientCaps["sampling"], &s)
		if e.rev == catalog.R20251125 && (p["tools"] != nil || p["toolChoice"] != nil) && s["tools"] == nil {
			e.violate("LEG-002", false, "the server sent sampling/createMessage with tools although the client did not declare sampling.tools")
		}
	case "roots/list":
		// a roots/list answering the harness's own roots/list_changed is
		// provoked by the harness (it declared no roots, yet said they changed)
		if !hasCap(c.clientCaps, "roots") && !c.rootsNudged {
			e.violate("LEG-002", false, "the server sent roots/list although the client did not declare roots")
		}
	}
}

var logLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// LOG-001: log messages have an RFC 5424 level and data, and come from a
// server that declared logging (where the connection's capabilities are known).
func log001(e *event) {
	if !e.msg() || e.rev == "" || e.m.Method != "notifications/message" || e.m.HasID {
		return
	}
	var p map[string]json.RawMessage
	_ = json.Unmarshal(e.m.Params, &p)
	var level string
	switch {
	case p["level"] == nil:
		e.violate("LOG-001", false, "a log message has no level")
	case json.Unmarshal(p["level"], &level) != nil || !slices.Contains(logLevels, level):
		e.violate("LOG-001", false, "a log message has the level %s, which is not an RFC 5424 level", clip(p["level"]))
	case p["data"] == nil:
		e.violate("LOG-001", false, "a log message has no data")
	case e.c.serverCaps != nil && !hasCap(e.c.serverCaps, "logging"):
		e.violate("LOG-001", false, "the server sent a log message without declaring the logging capability")
	}
}

// PROG-002: progress strictly increases per token and stops at the
// request's response (task-augmented requests: the task's life).
func prog002(e *event) {
	if !e.msg() || e.rev == "" || e.m.Method != "notifications/progress" || e.m.HasID {
		return
	}
	var p map[string]json.RawMessage
	_ = json.Unmarshal(e.m.Params, &p)
	tok, ok := p["progressToken"]
	if !ok {
		return
	}
	st := e.c.progress[canonical(tok)]
	if st == nil {
		return // not a token of ours: PROG-001
	}
	e.req = st.req
	var v float64
	if json.Unmarshal(p["progress"], &v) != nil {
		return // not a number: the message model (RPC-013) and PROG-002's own check judge it
	}
	if st.answered {
		e.violate("PROG-002", false, "progress %v for %s arrived after its response", v, st.req.method)
	}
	if st.seen && !(v > st.last) {
		e.violate("PROG-002", false, "progress for %s did not increase: %v after %v", st.req.method, v, st.last)
	}
	st.last, st.seen = v, true
}

// HTTP-020: 2026-07-28 SSE responses carry X-Accel-Buffering: no (SHOULD).
func http020(e *event) {
	if !modern(e) || e.f.HTTP == nil || !e.f.HTTP.SSE || e.req == nil {
		return
	}
	if v := e.f.HTTP.Header.Get("X-Accel-Buffering"); !strings.EqualFold(strings.TrimSpace(v), "no") {
		e.violate("HTTP-020", false, "an SSE response to %s lacks X-Accel-Buffering: no (got %q)", e.req.method, v)
	}
}

func isObject(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) > 0 && t[0] == '{'
}

func isString(raw json.RawMessage) bool {
	var s string
	return json.Unmarshal(raw, &s) == nil
}

// topLevelDuplicates returns the member names an object repeats.
func topLevelDuplicates(raw json.RawMessage) []string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	seen := map[string]bool{}
	var dups []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return dups
		}
		k, _ := tok.(string)
		if seen[k] && !slices.Contains(dups, k) {
			dups = append(dups, k)
		}
		seen[k] = true
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return dups
		}
	}
	return dups
}

// RPC-001: every server message declares JSON-RPC 2.0 and every error has
// an integer code and a string message (payloads that are not JSON objects,
// and JSON objects that are not JSON-RPC messages at all, are framing:
// STD-001 and the HTTP checks judge them; e.msg() is false for both).
func rpc001(e *event) {
	if !e.msg() {
		return
	}
	m := e.m
	switch {
	case !m.HasJSONRPC || m.JSONRPC != "2.0":
		e.violate("RPC-001", false, "a server message does not declare \"jsonrpc\": \"2.0\"")
	case m.HasError && (m.Error == nil || !m.Error.CodeIsInt):
		e.violate("RPC-001", false, "an error code is not an integer: %s", clip(m.ErrorRaw))
	case m.HasError && !m.Error.MessageIsString:
		e.violate("RPC-001", false, "an error message is absent or not a string: %s", clip(m.ErrorRaw))
	}
}

// RPC-003: every response has exactly one of result and error.
func rpc003(e *event) {
	if !e.msg() || e.m.HasMethod || !(e.m.HasID || e.m.HasResult || e.m.HasError) {
		return
	}
	if e.m.HasResult == e.m.HasError {
		what := "neither result nor error"
		if e.m.HasResult {
			what = "both result and error"
		}
		e.violate("RPC-003", false, "a response carries %s", what)
	}
}

// HTTP-003: a POSTed request answered 200 gets application/json or
// text/event-stream (judged once per exchange, on its first frame).
func http003(e *event) {
	f := e.f
	if f.HTTP == nil || e.req == nil || e.rev == "" || f.Exchange == 0 || e.c.judged[f.Exchange] {
		return
	}
	e.c.judged[f.Exchange] = true
	if f.HTTP.Status != 200 {
		return
	}
	ct := strings.ToLower(strings.TrimSpace(f.HTTP.Header.Get("Content-Type")))
	if !strings.HasPrefix(ct, "application/json") && !strings.HasPrefix(ct, "text/event-stream") {
		e.violate("HTTP-003", false, "the 200 reply to a POSTed %s has Content-Type %q", e.req.method, ct)
	}
}

// protocolError judges the HTTP head of a 2026-07-28 error response: the
// status the spec gives its code, and the request id carried. The request
// must be a 2026-07-28 one (modernShaped: any request whose _meta names a
// protocolVersion).
func protocolError(e *event, id string, status int, modernShaped bool, codes ...int64) {
	if e.f.HTTP == nil || e.req == nil || !e.msg() || modernShaped && !e.req.modernShaped || !modernShaped && e.req.rev != catalog.Modern {
		return
	}
	code, ok := e.m.ErrorCode()
	if !ok || !slices.Contains(codes, code) {
		return
	}
	saved := e.rev
	e.rev = catalog.Modern
	defer func() { e.rev = saved }()
	switch {
	case e.f.HTTP.Status != status:
		e.violate(id, false, "the %d error answering %s came with HTTP %d, not %d", code, e.req.method, e.f.HTTP.Status, status)
	case !e.m.HasID || e.m.ID.IsNull():
		e.violate(id, false, "the %d error answering %s does not carry the request id", code, e.req.method)
	}
}

// HTTP-017: -32601 comes with 404 and the request id (2026-07-28).
func http017(e *event) { protocolError(e, "HTTP-017", 404, false, jsonrpc.CodeMethodNotFound) }

// HTTP-018: -32021 and -32022 come with 400 and the request id (2026-07-28).
func http018(e *event) {
	// -32022 answers a version the server does not support: any request
	// whose _meta names a protocolVersion is 2026-07-28-shaped here
	protocolError(e, "HTTP-018", 400, true, jsonrpc.CodeMissingCapability, jsonrpc.CodeUnsupportedProtocol)
}
