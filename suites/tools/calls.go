package tools

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/mcpconform/mcpconform/internal/catalog"
	c "github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/msgcheck"
)

// Caps on the real calls one check makes.
const (
	maxCalls           = 24
	maxStructuredCalls = 16
)

func callChecks() {
	c.It("TOOL-006", "tools/call results have a content array of blocks valid for the revision", func(t *c.T) {
		s := t.Shared()
		tools := listTools(t, s)
		var bad problems
		if t.Rev >= catalog.R20250326 {
			for _, tl := range tools {
				if ann, ok := tl.Obj["annotations"]; ok {
					for _, p := range msgcheck.ValidateAs(string(t.Rev), "ToolAnnotations", ann) {
						bad.add("tool %s: annotations%s: %s", tl.label(), p.Path, p.Message)
					}
				}
			}
		}
		bad.report(t, "ToolAnnotations with boolean hints", "%d tool annotations are malformed", len(bad))

		outs := callAll(t, s, selectCallable(t, tools, nil, false, maxCalls, "tool"))
		if len(outs) == 0 {
			t.NA("no tools/call returned a complete result to judge (see the notes)")
		}
		for _, o := range outs {
			if o.res == nil {
				bad.add("tools/call %s: the result is not an object: %s", o.cand.Name, c.Clip(o.resp.Msg.Result))
				continue
			}
			for _, p := range msgcheck.ValidateAs(string(t.Rev), "CallToolResult", o.resp.Msg.Result) {
				if p.Rule == msgcheck.RuleBase64 || !(p.Path == "/content" || strings.HasPrefix(p.Path, "/content/") || p.Path == "/isError") {
					continue // base64 is TOOL-007's, structuredContent TOOL-008's, resultType RPC-011's
				}
				bad.add("tools/call %s: %s: %s", o.cand.Name, p.Path, p.Message)
				t.ModelClaim(o.resp)
			}
		}
		bad.report(t, fmt.Sprintf("a content array of %s content blocks and a boolean isError", t.Rev),
			"%d problems in the results of %d tool calls", len(bad), len(outs))
	})

	c.It("TOOL-007", "image and audio data and embedded blobs are base64 with a mimeType", func(t *c.T) {
		s := t.Shared()
		outs := callAll(t, s, selectCallable(t, listTools(t, s), nil, false, maxCalls, "tool"))
		var bad problems
		binaries := 0
		for _, o := range outs {
			for i, b := range blocks(o.res) {
				at := fmt.Sprintf("tools/call %s: content[%d]", o.cand.Name, i)
				typ, _ := str(b["type"])
				switch typ {
				case "image", "audio":
					data, ok := str(b["data"])
					if !ok {
						continue // TOOL-006 judges the block's shape
					}
					binaries++
					if why := base64Problem(data); why != "" {
						bad.add("%s (%s): data is not standard base64: %s", at, typ, why)
						t.ModelClaim(o.resp)
					}
					if mt, ok := str(b["mimeType"]); !ok || strings.TrimSpace(mt) == "" {
						bad.add("%s (%s): mimeType is %s", at, typ, c.OrAbsent(b["mimeType"]))
					}
				case "resource":
					var r map[string]json.RawMessage
					if json.Unmarshal(b["resource"], &r) != nil {
						continue
					}
					blob, ok := str(r["blob"])
					if !ok {
						continue
					}
					binaries++
					if why := base64Problem(blob); why != "" {
						bad.add("%s (resource %s): blob is not standard base64: %s", at, c.OrAbsent(r["uri"]), why)
						t.ModelClaim(o.resp)
					}
				}
			}
		}
		if binaries == 0 && len(bad) == 0 {
			t.NA("none of the %d tool results carried image, audio or blob content", len(outs))
		}
		bad.report(t, "standard base64 (RFC 4648, padded, no line breaks) and a non-empty mimeType",
			"%d binary content blocks are malformed", len(bad))
	})

	c.It("TOOL-008", "a tool with an outputSchema returns matching structuredContent", func(t *c.T) {
		s := t.Shared()
		withOutput := func(tl tool) bool { return tl.schema("outputSchema") != nil }
		outs := callAll(t, s, selectCallable(t, listTools(t, s), withOutput, false, maxStructuredCalls, "tool with an outputSchema"))
		objectOnly := t.Rev == catalog.R20250618 || t.Rev == catalog.R20251125
		var bad problems
		judged, failed := 0, 0
		for _, o := range outs {
			if o.isError {
				failed++
				continue // the spec does not require structuredContent on error results
			}
			if o.res == nil {
				continue // TOOL-006
			}
			judged++
			sc, has := o.res["structuredContent"]
			if !has {
				bad.add("tools/call %s: a non-error result without structuredContent", o.cand.Name)
				continue
			}
			if objectOnly && !c.IsObject(sc) {
				bad.add("tools/call %s: structuredContent is %s, not a JSON object (%s)", o.cand.Name, c.Clip(sc), t.Rev)
				continue
			}
			sch, err := compileSchema(o.cand.schema("outputSchema"))
			if err != nil {
				t.Note("the outputSchema of %s does not compile (TOOL-004 judges it): structuredContent not validated", o.cand.label())
				continue
			}
			if err := validate(sch, sc); err != nil {
				bad.add("tools/call %s: structuredContent %s does not match the outputSchema: %s", o.cand.Name, c.Clip(sc), oneLine(err))
			}
		}
		if judged == 0 {
			t.NA("no call of a tool with an outputSchema succeeded (%d isError results); sample arguments (--config) can name things that exist", failed)
		}
		bad.report(t, "structuredContent that validates against the tool's outputSchema", "%d of %d successful results break their outputSchema", len(bad), judged)
	})

	c.It("TOOL-009", "structuredContent is mirrored by a text block holding its JSON", func(t *c.T) {
		s := t.Shared()
		outs := callAll(t, s, selectCallable(t, listTools(t, s), nil, false, maxCalls, "tool"))
		var bad problems
		structured := 0
		for _, o := range outs {
			sc, has := o.res["structuredContent"]
			if !has {
				continue
			}
			structured++
			if !hasMirror(o.res, sc) {
				bad.add("tools/call %s: no text block parses to the structuredContent %s", o.cand.Name, c.Clip(sc))
			}
		}
		if structured == 0 {
			t.NA("none of the %d tool results carried structuredContent", len(outs))
		}
		bad.report(t, "a text content block whose text is the JSON of structuredContent", "%d of %d structured results have no text mirror", len(bad), structured)
	})
}

// base64Problem says why s is not standard base64 ("" when it is), by the
// message model's rule (padding optional, no whitespace).
func base64Problem(s string) string {
	if i := strings.IndexAny(s, " \t\r\n"); i >= 0 {
		return fmt.Sprintf("whitespace at byte %d", i)
	}
	if err := msgcheck.CheckBase64(s); err != nil {
		return err.Error()
	}
	return ""
}

// hasMirror reports a text block whose text is JSON equal to sc.
func hasMirror(res map[string]json.RawMessage, sc json.RawMessage) bool {
	var want any
	if json.Unmarshal(sc, &want) != nil {
		return false
	}
	for _, b := range blocks(res) {
		if typ, _ := str(b["type"]); typ != "text" {
			continue
		}
		text, ok := str(b["text"])
		if !ok {
			continue
		}
		var got any
		if json.Unmarshal([]byte(text), &got) == nil && reflect.DeepEqual(got, want) {
			return true
		}
	}
	return false
}
