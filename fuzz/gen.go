package fuzz

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/mcpconform/mcpconform/internal/jsonrpc"
	"github.com/mcpconform/mcpconform/internal/policy"
	"github.com/mcpconform/mcpconform/internal/session"
	"github.com/mcpconform/mcpconform/internal/toolschema"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"pgregory.net/rapid"
)

// Generator bounds.
const (
	maxRequests   = 6
	maxDeepValue  = 64       // nesting of generated JSON values
	maxDeepFault  = 12000    // nesting of the raw deep-nesting fault: past common parsers' limits (go: 10000); past judge.ParserDepthFloor an id-less parse error is a fair answer
	maxLongString = 64 << 10 // bytes of the raw long-string fault
	longIDMin     = 200
	longIDMax     = 400
)

// ---- ids ----

// unicodeRunes is made on first use, not at package init: its tables
// (Han alone is 98,000 runes) would be live in every command's heap,
// mcpconform run's included.
var unicodeRunes = sync.OnceValue(func() *rapid.Generator[rune] {
	return rapid.RuneFrom(nil, unicode.Greek, unicode.Han, unicode.Cyrillic, unicode.Arabic, unicode.So)
})

// genID draws an id: small, large or negative integer; short, unicode or
// long string.
func genID(t *rapid.T, label string) jsonrpc.ID {
	switch rapid.IntRange(0, 5).Draw(t, label+"-kind") {
	case 0:
		return jsonrpc.IntID(rapid.Int64Range(0, 1000).Draw(t, label))
	case 1:
		return jsonrpc.IntID(rapid.Int64Range(1<<31, 1<<53-1).Draw(t, label))
	case 2:
		return jsonrpc.IntID(rapid.Int64Range(-(1<<53-1), -1).Draw(t, label))
	case 3:
		return jsonrpc.StringID(rapid.StringN(0, 16, -1).Draw(t, label))
	case 4:
		return jsonrpc.StringID(rapid.StringOfN(unicodeRunes(), 1, 16, -1).Draw(t, label))
	default:
		n := rapid.IntRange(longIDMin, longIDMax).Draw(t, label+"-len")
		return jsonrpc.StringID("mcpconform-" + strings.Repeat("x", n-11))
	}
}

// ---- JSON values ----

func genLeaf(t *rapid.T, label string) any {
	switch rapid.IntRange(0, 5).Draw(t, label+"-leaf") {
	case 0:
		return rapid.String().Draw(t, label+"-string")
	case 1:
		return rapid.Int64().Draw(t, label+"-int")
	case 2:
		return rapid.Float64Range(-1e9, 1e9).Draw(t, label+"-float")
	case 3:
		return rapid.Bool().Draw(t, label+"-bool")
	case 4:
		return nil
	default:
		return rapid.StringOfN(unicodeRunes(), 0, 32, -1).Draw(t, label+"-unicode")
	}
}

// genValue draws a JSON value: a leaf, a small composite, or a nested one
// up to maxDeepValue levels.
func genValue(t *rapid.T, label string) any {
	switch rapid.IntRange(0, 2).Draw(t, label+"-shape") {
	case 0:
		return genLeaf(t, label)
	case 1:
		n := rapid.IntRange(0, 3).Draw(t, label+"-n")
		if rapid.Bool().Draw(t, label+"-array") {
			a := make([]any, 0, n)
			for i := range n {
				a = append(a, genLeaf(t, fmt.Sprintf("%s[%d]", label, i)))
			}
			return a
		}
		o := map[string]any{}
		for i := range n {
			o[fmt.Sprintf("k%d", i)] = genLeaf(t, fmt.Sprintf("%s.k%d", label, i))
		}
		return o
	default:
		return nest(rapid.IntRange(16, maxDeepValue).Draw(t, label+"-depth"), genLeaf(t, label))
	}
}

// nest wraps v in depth levels of arrays and objects (alternating); the
// result is depth levels deep when v is a leaf.
func nest(depth int, v any) any {
	for i := range depth {
		if i%2 == 0 {
			v = []any{v}
		} else {
			v = map[string]any{"n": v}
		}
	}
	return v
}

// ---- requests ----

// params builds params for a request: the modern _meta, maybe a vendor
// _meta entry, and extra for the method.
func (h *harness) params(t *rapid.T, extra map[string]any) map[string]any {
	p := map[string]any{}
	for k, v := range extra {
		p[k] = v
	}
	meta := map[string]any{}
	if h.s.Modern() {
		for k, v := range h.s.ModernMeta() {
			meta[k] = v
		}
	}
	if rapid.IntRange(0, 3).Draw(t, "vendor-meta") == 0 {
		meta["mcpconform/fuzz"] = genValue(t, "meta")
	}
	if len(meta) > 0 {
		p["_meta"] = meta
	}
	return p
}

func request(id jsonrpc.ID, method string, params map[string]any) []byte {
	if params == nil {
		return jsonrpc.Request(id, method, nil) // no params member
	}
	b, err := json.Marshal(params)
	if err != nil {
		panic(err) // generated values always marshal
	}
	return jsonrpc.Request(id, method, json.RawMessage(b))
}

func notification(method string, params map[string]any) []byte {
	if params == nil {
		return jsonrpc.Notification(method, nil) // no params member
	}
	b, _ := json.Marshal(params)
	return jsonrpc.Notification(method, json.RawMessage(b))
}

// genIDsCase: requests the server must answer (the probe and the declared
// list methods with generated cursors), with generated ids (sometimes the
// pair 1 and "1" in flight together), mixed with notifications, sent back
// to back. Requests are drawn as a slice, so that shrinking drops them.
func (h *harness) genIDsCase(t *rapid.T) [][]byte {
	req := func(id jsonrpc.ID, t *rapid.T) []byte {
		if rapid.IntRange(0, 5).Draw(t, "to-refuse") == 0 {
			return h.genInvalid(t, id) // an unknown method or invalid params
		}
		method := rapid.SampledFrom(h.answer).Draw(t, "method")
		extra := map[string]any{}
		if strings.HasSuffix(method, "/list") && rapid.IntRange(0, 3).Draw(t, "with-cursor") == 0 {
			extra["cursor"] = rapid.String().Draw(t, "cursor")
		}
		return request(id, method, h.params(t, extra))
	}
	msgs := rapid.SliceOfN(rapid.Custom(func(t *rapid.T) []byte { return req(genID(t, "id"), t) }), 1, maxRequests).Draw(t, "requests")
	if rapid.IntRange(0, 3).Draw(t, "int-and-string-twins") == 0 {
		k := rapid.Int64Range(0, 1<<20).Draw(t, "twin")
		msgs = append(msgs, req(jsonrpc.IntID(k), t), req(jsonrpc.StringID(strconv.FormatInt(k, 10)), t))
	}
	notes := []string{"notifications/cancelled", "notifications/x-mcpconform-fuzz"}
	for i := range rapid.IntRange(0, 2).Draw(t, "notifications") {
		method := rapid.SampledFrom(notes).Draw(t, fmt.Sprintf("note%d", i))
		extra := map[string]any{}
		if method == "notifications/cancelled" {
			// for an id never sent: cancelling one in flight would
			// legitimately suppress its response
			extra = map[string]any{"requestId": "mcpconform-fuzz-never-sent", "reason": "fuzz"}
		}
		note := notification(method, h.params(t, extra))
		at := rapid.IntRange(0, len(msgs)).Draw(t, fmt.Sprintf("note%d-at", i))
		msgs = append(msgs[:at], append([][]byte{note}, msgs[at:]...)...)
	}
	return dedupeIDs(msgs)
}

// genRawCase: one to three byte-level faults (errors or silence expected;
// a fault inside a well-formed request still needs its answer).
func (h *harness) genRawCase(t *rapid.T) [][]byte {
	return dedupeIDs(rapid.SliceOfN(rapid.Custom(h.genFault), 1, 3).Draw(t, "faults"))
}

// genFault draws one byte-level fault.
func (h *harness) genFault(t *rapid.T) []byte {
	var msgs [][]byte
	{
		l := "fault"
		id := genID(t, l+"-id")
		switch rapid.SampledFrom([]string{"truncated", "invalid-utf8", "array", "not-object", "deep", "long-string", "newline", "wrong-version"}).Draw(t, l) {
		case "wrong-version":
			full := request(id, h.probe, h.params(t, nil))
			v := rapid.SampledFrom([]string{`"jsonrpc":"1.0",`, `"jsonrpc":2.0,`, `"jsonrpc":"2",`, ``}).Draw(t, l+"-version")
			msgs = append(msgs, bytes.Replace(full, []byte(`"jsonrpc":"2.0",`), []byte(v), 1))
		case "truncated":
			full := request(id, h.probe, h.params(t, nil))
			msgs = append(msgs, full[:rapid.IntRange(1, len(full)-1).Draw(t, l+"-cut")])
		case "invalid-utf8":
			p := h.params(t, nil)
			meta, _ := p["_meta"].(map[string]any)
			if meta == nil {
				meta = map[string]any{}
			}
			meta["mcpconform/text"] = "@@BAD@@"
			p["_meta"] = meta
			bad := rapid.SampledFrom([]string{"\xff", "\xc3\x28", "\xed\xa0\x80", "\xf8\x88\x80\x80\x80", "caf\xc3"}).Draw(t, l+"-bytes")
			msgs = append(msgs, bytes.Replace(request(id, h.probe, p), []byte("@@BAD@@"), []byte(bad), 1))
		case "array":
			msgs = append(msgs, []byte(rapid.SampledFrom([]string{`[]`, `[1,2]`, `[{"foo":1}]`, `[{"jsonrpc":"2.0"}]`, `[[]]`}).Draw(t, l+"-array")))
		case "not-object":
			msgs = append(msgs, []byte(rapid.SampledFrom([]string{`42`, `"x"`, `null`, `true`, `{}`, `{"jsonrpc":"2.0"}`}).Draw(t, l+"-value")))
		case "deep":
			// around the limits of common parsers: serde_json's 128,
			// go-sdk's 10000
			bounds := rapid.SampledFrom([][2]int{{1, 200}, {200, 2000}, {10001, maxDeepFault}}).Draw(t, l+"-depth-range")
			depth := rapid.IntRange(bounds[0], bounds[1]).Draw(t, l+"-depth")
			p := h.params(t, nil)
			meta, _ := p["_meta"].(map[string]any)
			if meta == nil {
				meta = map[string]any{}
			}
			meta["mcpconform/deep"] = "@@DEEP@@"
			p["_meta"] = meta
			msgs = append(msgs, bytes.Replace(request(id, h.probe, p), []byte(`"@@DEEP@@"`),
				[]byte(strings.Repeat("[", depth)+strings.Repeat("]", depth)), 1))
		case "long-string":
			n := rapid.IntRange(0, maxLongString).Draw(t, l+"-len")
			p := h.params(t, nil)
			meta, _ := p["_meta"].(map[string]any)
			if meta == nil {
				meta = map[string]any{}
			}
			meta["mcpconform/long"] = strings.Repeat("a", n)
			p["_meta"] = meta
			msgs = append(msgs, request(id, h.probe, p))
		case "newline":
			full := request(id, h.probe, h.params(t, nil))
			at := rapid.IntRange(1, len(full)-1).Draw(t, l+"-at")
			msgs = append(msgs, append(append(append([]byte(nil), full[:at]...), '\n'), full[at:]...))
		}
	}
	return msgs[0]
}

// dedupeIDs drops a later well-formed request whose id an earlier one in
// the case already has (a client never reuses an id in flight).
func dedupeIDs(msgs [][]byte) [][]byte {
	seen := map[string]bool{}
	out := msgs[:0]
	for _, m := range msgs {
		if d, err := jsonrpc.Decode(m); err == nil && d.Kind() == jsonrpc.KindRequest && !bytes.ContainsAny(m, "\r\n") {
			if seen[d.ID.Key()] {
				continue
			}
			seen[d.ID.Key()] = true
		}
		out = append(out, m)
	}
	return out
}

// ---- tools ----

type toolInfo struct {
	name     string
	base     map[string]any // derived conforming arguments
	props    []string       // declared property names, sorted
	types    map[string]string
	required []string
	// schema is the compiled inputSchema (nil when it does not compile):
	// the oracle of the error layer for arguments that break it.
	schema *jsonschema.Schema
}

// prepareTools walks tools/list (bounded) and keeps the tools the call
// policy allows, with arguments derived from each inputSchema.
func (h *harness) prepareTools(ctx context.Context, pol policy.CallPolicy) (bool, string) {
	if !contains(h.answer, "tools/list") {
		return false, "the server declares no tools capability"
	}
	cursor := ""
	var refused []string
	for page := 0; page < maxListPages && len(h.tools) < maxTools; page++ {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		resp, err := h.s.Call(ctx, "tools/list", params, &session.CallOptions{Timeout: h.timeout})
		if err != nil || !resp.IsResult() {
			return false, fmt.Sprintf("tools/list failed: %v %s", err, resp.Describe())
		}
		var res struct {
			Tools      []json.RawMessage `json:"tools"`
			NextCursor string            `json:"nextCursor"`
		}
		if resp.Result(&res) != nil {
			return false, "tools/list result is not readable"
		}
		for _, raw := range res.Tools {
			var tool struct {
				Name        string          `json:"name"`
				InputSchema json.RawMessage `json:"inputSchema"`
			}
			if json.Unmarshal(raw, &tool) != nil || tool.Name == "" {
				continue
			}
			if ok, why := pol.Allows(raw); !ok {
				refused = append(refused, why)
				continue
			}
			ti := toolInfo{name: tool.Name, types: map[string]string{}}
			ti.schema, _ = toolschema.Compile(tool.InputSchema)
			ti.base, _ = toolschema.DeriveArgs(tool.InputSchema)
			if ti.base == nil {
				ti.base = map[string]any{}
			}
			var schema struct {
				Properties map[string]struct {
					Type any `json:"type"`
				} `json:"properties"`
				Required []string `json:"required"`
			}
			_ = json.Unmarshal(tool.InputSchema, &schema)
			for name, p := range schema.Properties {
				ti.props = append(ti.props, name)
				if s, ok := p.Type.(string); ok {
					ti.types[name] = s
				}
			}
			sort.Strings(ti.props)
			ti.required = schema.Required
			h.tools = append(h.tools, ti)
		}
		if res.NextCursor == "" {
			break
		}
		cursor = res.NextCursor
	}
	if len(h.tools) == 0 {
		why := "no tool listed"
		if len(refused) > 0 {
			why = fmt.Sprintf("the call policy allows none of the %d tools (%s)", len(refused), refused[0])
		}
		return false, why
	}
	return true, ""
}

// genToolsCase: one to three tools/call requests with arguments derived
// from the tool's inputSchema, conforming or violating it.
func (h *harness) genToolsCase(t *rapid.T) [][]byte {
	return dedupeIDs(rapid.SliceOfN(rapid.Custom(h.genToolCall), 1, 3).Draw(t, "calls"))
}

func (h *harness) genToolCall(t *rapid.T) []byte {
	id := genID(t, "id")
	tool := h.tools[rapid.IntRange(0, len(h.tools)-1).Draw(t, "tool")]
	args := map[string]any{}
	for k, v := range tool.base {
		args[k] = v
	}
	var arguments any = args
	switch rapid.SampledFrom([]string{"conforming", "generated-strings", "drop-required", "wrong-type", "extra-property", "not-an-object"}).Draw(t, "variant") {
	case "generated-strings":
		for _, p := range tool.props {
			if tool.types[p] == "string" && rapid.Bool().Draw(t, p+"-generated") {
				args[p] = rapid.String().Draw(t, p)
			}
		}
	case "drop-required":
		if len(tool.required) > 0 {
			delete(args, rapid.SampledFrom(tool.required).Draw(t, "drop"))
		}
	case "wrong-type":
		if len(tool.props) > 0 {
			args[rapid.SampledFrom(tool.props).Draw(t, "property")] = genValue(t, "value")
		}
	case "extra-property":
		args["mcpconform_fuzz"] = genValue(t, "extra")
	case "not-an-object":
		arguments = genLeaf(t, "arguments")
	}
	return request(id, "tools/call", h.params(t, map[string]any{"name": tool.name, "arguments": arguments}))
}
