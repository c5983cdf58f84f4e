package observe

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/internal/catalog"
	"github.com/mcpconform/mcpconform/internal/msgcheck"
	"github.com/mcpconform/mcpconform/internal/wire"
)

// maxValidResults bounds the cache of results found valid.
const maxValidResults = 4096

// ownedBy names the run-wide requirement that judges what problem p
// states, on every message ("" when none does): RPC-013's run-wide finding
// leaves such a problem to it (one fault, one verdict). RPC-013's own probe
// still reports every problem of the handshake and of its battery.
func ownedBy(p msgcheck.Problem, rev catalog.Revision) string {
	modernOnly := func(id string) string {
		if rev == catalog.Modern {
			return id
		}
		return ""
	}
	switch p.Rule {
	case "jsonrpc.version", "jsonrpc.error.code", "jsonrpc.error.message":
		return "RPC-001"
	case msgcheck.RuleResultAndError:
		return "RPC-003"
	case msgcheck.RuleServerRequest:
		return modernOnly("RPC-010")
	case "result.resultType", msgcheck.RuleResultType, msgcheck.RuleResultTypeExtension:
		return modernOnly("RPC-011")
	case msgcheck.RuleErrorCode:
		return modernOnly("RPC-012")
	case msgcheck.RuleInputRequiredEmpty, "inputRequiredResult.requestState", "inputRequiredResult.inputRequests":
		return "MRTR-002"
	case "loggingMessageNotificationParams.level", "loggingMessageNotificationParams.data":
		return "LOG-001"
	}
	if rest, ok := strings.CutPrefix(p.Path, "/result/inputRequests/"); ok {
		if _, member, _ := strings.Cut(rest, "/"); member == "method" || member == "params" {
			return "MRTR-003" // input requests use the three methods with object params
		}
	}
	if p.Rule == msgcheck.RuleDuplicateKey && strings.HasPrefix(p.Path, "/result/inputRequests") {
		return "MRTR-003"
	}
	return ""
}

// RPC-013: every server message of the run is valid for the revision's
// message model (internal/msgcheck). Judged only where the harness's own
// input cannot be the cause: a response to a request the harness sent as
// valid (request.valid: not a robustness or fault probe), a request or
// notification of the server on a stdio connection of one known era or on
// the HTTP exchange of such a request, and on HTTP only what came with
// status 200 (an HTTP-layer rejection — 400, 401, 403, 404 — is the HTTP
// and AUTH checks' to judge). A problem whose value is the harness's own
// input reflected back (a string of the request) is not the server's fault
// (house rule 9) and is left out.
func rpc013(e *event) {
	if !e.msg() || e.f.Truncated || e.rev == "" || !e.rev.Known() {
		return
	}
	if e.f.HTTP != nil && e.f.HTTP.Status != 200 {
		return
	}
	rev, method := e.rev, ""
	switch {
	case e.resp:
		if !e.req.valid {
			return
		}
		method = e.req.method
		if method == "initialize" {
			// the result speaks the revision the server chose
			var pv string
			if json.Unmarshal(e.result()["protocolVersion"], &pv) == nil {
				if r := catalog.Revision(pv); r.IsLegacy() && r.Known() {
					rev = r
				} else if e.m.HasResult {
					return // LIFE-002 judges an unknown version
				}
			}
		}
	case e.m.HasMethod:
		if e.req != nil && !e.req.valid || e.req == nil && e.c.mixed {
			return
		}
		if e.m.Method == "notifications/progress" {
			var p map[string]json.RawMessage
			_ = json.Unmarshal(e.m.Params, &p)
			if st := e.c.progress[canonical(p["progressToken"])]; st != nil && !st.req.valid {
				return // progress for a probe echoes its token
			}
		}
	default:
		return // a response to no request the harness sent as valid (junk, a probe, id null)
	}
	if e.resp && rev == catalog.Modern {
		switch rt := string(e.result()["resultType"]); {
		case rt == `"task"`:
			return // the tasks extension's result is not in the core message model: the TASK checks judge it (RPC-011 whether it may appear)
		case rt == `"input_required"` && !slices.Contains(mrtrMethods, method):
			return // MRTR-001's: the rest of the result follows from it
		}
	}
	var key [sha256.Size]byte
	cacheable := e.resp && e.m.HasResult && !e.m.HasError
	if cacheable {
		// the result alone decides (the envelope's rules are RPC-001's,
		// RPC-002's and RPC-003's, judged on every message)
		h := sha256.New()
		h.Write([]byte(string(rev) + "\x00" + method + "\x00"))
		h.Write(e.m.Result)
		copy(key[:], h.Sum(nil))
		if e.o.validResults[key] {
			return
		}
	}
	var problems []msgcheck.Problem
	var doc any
	for _, p := range msgcheck.ValidateServerMessage(string(rev), e.f.Raw, method) {
		if ownedBy(p, rev) != "" {
			continue
		}
		if e.req != nil && e.req.raw != nil {
			if doc == nil {
				_ = json.Unmarshal(e.f.Raw, &doc)
			}
			if echoed(doc, p.Path, e.req.raw) {
				continue
			}
		}
		problems = append(problems, p)
	}
	if len(problems) == 0 {
		if cacheable {
			if e.o.validResults == nil || len(e.o.validResults) >= maxValidResults {
				e.o.validResults = map[[sha256.Size]byte]bool{}
			}
			e.o.validResults[key] = true
		}
		return
	}
	what := "a " + e.m.Method + " message"
	switch {
	case e.resp:
		what = "the answer to " + method
	case e.m.HasID:
		what = "the server's " + e.m.Method + " request"
	}
	more := ""
	if len(problems) > 1 {
		more = fmt.Sprintf(" (and %d more problems)", len(problems)-1)
	}
	saved := e.rev
	e.rev = rev
	e.violate("RPC-013", false, "%s is not valid for the %s message model: %s%s", what, rev, problems[0], more)
	e.rev = saved
}

// echoed reports whether the value at JSON pointer ptr of doc is a string
// (or number) that occurs as such in the request the harness sent: the
// server reflecting the harness's own input back.
func echoed(doc any, ptr string, req []byte) bool {
	v, ok := valueAt(doc, ptr)
	if !ok {
		return false
	}
	switch v.(type) {
	case string, float64:
	default:
		return false
	}
	enc, err := json.Marshal(v)
	return err == nil && bytes.Contains(req, enc)
}

// valueAt resolves an RFC 6901 JSON pointer in a decoded JSON document.
func valueAt(doc any, ptr string) (any, bool) {
	if ptr == "" || ptr == "/" {
		return doc, true
	}
	if !strings.HasPrefix(ptr, "/") {
		return nil, false
	}
	cur := doc
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch x := cur.(type) {
		case map[string]any:
			v, ok := x[tok]
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			cur = x[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// CAN-003: on a 2026-07-28 stdio connection, after the harness cancelled a
// request, no message for it (its response, progress with its token)
// arrives once the cancellation is settled: the server has answered a
// request sent after it (so it has read the cancellation; stdio is read in
// order) and the race window (CancelGrace) has passed. Log messages name
// no request: CAN-003's own probe judges them while the cancelled request
// is the only one in progress.
func can003(e *event) {
	if !e.msg() || e.c.transport != wire.Stdio {
		return
	}
	var r *request
	what := ""
	switch {
	case e.resp && e.req.cancelled != nil:
		r, what = e.req, "its response"
	case e.m.Method == "notifications/progress" && !e.m.HasID:
		var p map[string]json.RawMessage
		_ = json.Unmarshal(e.m.Params, &p)
		if st := e.c.progress[canonical(p["progressToken"])]; st != nil && st.req.cancelled != nil {
			r, what = st.req, "progress"
		}
	}
	if r == nil || !r.cancelled.settled {
		return
	}
	after := e.f.Time.Sub(r.cancelled.at)
	if after < CancelGrace {
		return
	}
	savedRev, savedReq := e.rev, e.req
	e.rev, e.req = catalog.Modern, r
	e.violate("CAN-003", false, "%s for the cancelled %s arrived %s after notifications/cancelled, after the server had answered a later request (no race)",
		what, r.method, after.Round(time.Millisecond))
	e.rev, e.req = savedRev, savedReq
}

// HTTP-007: every Mcp-Session-Id the server issues, in any response of the
// run, uses only visible ASCII (0x21-0x7E). Each distinct id is judged
// once per connection. (High entropy, a SHOULD, and the 400 for a
// sessionless request need HTTP-007's own probe.)
func http007(e *event) {
	h := e.f.HTTP
	if h == nil || e.f.Dir != wire.In {
		return
	}
	sid := h.Header.Get("Mcp-Session-Id")
	if sid == "" || e.c.sids[sid] {
		return
	}
	if e.c.sids == nil || len(e.c.sids) >= maxPending {
		e.c.sids = map[string]bool{}
	}
	e.c.sids[sid] = true
	for i := 0; i < len(sid); i++ {
		if sid[i] < 0x21 || sid[i] > 0x7E {
			what := "a response"
			if e.req != nil {
				what = "the reply to " + e.req.method
			}
			e.violate("HTTP-007", false, "%s issued the Mcp-Session-Id %q, with the byte 0x%02X (not visible ASCII) at %d", what, sid, sid[i], i)
			return
		}
	}
}
