// Package resources checks resources/list, templates, resources/read and
// legacy subscriptions (RES).
package resources

import (
	"encoding/json"
	"fmt"
	"strings"

	c "github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/jsonrpc"
	"github.com/mcpconform/mcpconform/internal/judge"
	"github.com/mcpconform/mcpconform/internal/session"
)

// maxReads bounds the listed resources RES-003 reads.
const maxReads = 10

var _ = c.Area("resources", func() {
	c.It("RES-001", "every listed resource has a string uri that parses as a URI and a string name", func(t *c.T) {
		s := t.Shared()
		requireResources(t, s)
		w := t.WalkList(s, "resources/list")
		judgeWalk(t, w)
		if len(w.Items) == 0 {
			t.NA("the server lists no resources")
		}
		judgeItems(t, w, "Resource", "resource", "/uri", "/name")
	})

	c.It("RES-002", "every resource template has a name and an RFC 6570 uriTemplate", func(t *c.T) {
		s := t.Shared()
		requireResources(t, s)
		w := t.WalkList(s, "resources/templates/list")
		judgeWalk(t, w)
		if len(w.Items) == 0 {
			t.NA("the server lists no resource templates")
		}
		judgeItems(t, w, "ResourceTemplate", "template", "/uriTemplate", "/name")
	})

	c.It("RES-003", "resources/read on listed URIs returns contents with uri and exactly one of text or base64 blob", func(t *c.T) {
		s := t.Shared()
		requireResources(t, s)
		inv := takeInventory(t, s)
		if len(inv.uris) == 0 {
			t.NA("the server lists no resources to read")
		}
		uris := inv.uris
		if len(uris) > maxReads {
			t.Note("read the first %d of %d listed resources", maxReads, len(uris))
			uris = uris[:maxReads]
		}
		judged := 0
		var errored *session.Response
		for _, uri := range uris {
			t.Step("resources/read " + uri)
			resp := read(t, s, uri)
			if m, ok := c.ErrorAnswer(resp); ok {
				// an error is an answer (the resource may be gone, its
				// backend down): RES-003 judges the contents of reads that
				// succeed
				if why, backend := judge.Backend(m); backend {
					t.EnvironmentNote("reading the listed resource %s: %s", uri, why)
				} else {
					t.Note("reading the listed resource %s was answered with %s; its contents were not judged", uri, judge.DescribeError(m))
				}
				errored = resp
				continue
			}
			if !resp.IsResult() {
				t.Violation("a result with a contents array", resp.Describe(), "reading the listed resource %s failed", uri)
			}
			if t.Modern() && inputRequired(resp) {
				t.Note("%s answered input_required (MRTR); its contents were not judged", uri)
				continue
			}
			items, ok := contents(resp)
			t.Check(ok, "result.contents: an array", c.Clip(resp.Msg.Result), "the read of the listed resource %s has no contents array", uri)
			if len(items) == 0 {
				t.Note("the listed resource %s was read with an empty contents array", uri)
			}
			for i, it := range items {
				if why := contentsProblem(string(t.Rev), it); why != "" {
					t.ModelClaim(resp)
					t.Violation(`each contents item: {"uri": string, and exactly one of "text": string or "blob": base64}`, c.Clip(it),
						"reading %s: contents[%d] %s", uri, i, why)
				}
			}
			judged++
		}
		if judged == 0 {
			if errored != nil {
				t.NoResult("every read of a listed resource (the last, "+uris[len(uris)-1]+")", errored)
			}
			t.NA("every listed resource read asked for input (MRTR); no contents to judge")
		}
	})

	c.It("RES-004", "resources/read on a URI that does not exist gets -32602", func(t *c.T) {
		s := t.Shared()
		requireResources(t, s)
		p := probeNotFound(t, s)
		if p.resp.IsResult() {
			t.RefusedWith(p.resp, []int64{jsonrpc.CodeInvalidParams}, "JSON-RPC error -32602", p.resp.Describe(), "a URI that does not exist (%s) was answered with a result", p.uri)
		}
		t.ExpectErrorCode("resources/read of the unknown URI "+p.uri, p.resp, jsonrpc.CodeInvalidParams)
	})

	c.It("RES-005", "resources/read on a URI that does not exist gets -32002", func(t *c.T) {
		s := t.Shared()
		requireResources(t, s)
		p := probeNotFound(t, s)
		if p.resp.IsResult() {
			t.RefusedWith(p.resp, []int64{codeResourceNotFound, jsonrpc.CodeInvalidParams}, "JSON-RPC error -32002 (resource not found)", p.resp.Describe(), "a URI that does not exist (%s) was answered with a result", p.uri)
		}
		code := t.ExpectErrorCode("resources/read of the unknown URI "+p.uri, p.resp, codeResourceNotFound, jsonrpc.CodeInvalidParams)
		if code == jsonrpc.CodeInvalidParams {
			t.Note("answered -32602 (the 2026-07-28 code, SEP-2164) rather than the -32002 of this revision; accepted")
		}
	})

	c.It("RES-006", "a URI that does not exist never yields an empty contents success", func(t *c.T) {
		s := t.Shared()
		requireResources(t, s)
		p := probeNotFound(t, s)
		if !p.resp.IsResult() {
			return // an error (its code is RES-004's verdict)
		}
		items, ok := contents(p.resp)
		t.CheckRefused(!ok || len(items) > 0, p.resp, "a JSON-RPC error (-32602), never a result with empty contents", p.resp.Describe(),
			"a URI that does not exist (%s) was answered with an empty contents array", p.uri)
		t.Note("the unknown URI was answered with a result that is not an empty contents array (RES-004 judges it)")
	})

	c.It("RES-007", "the not-found error carries data.uri equal to the requested URI", func(t *c.T) {
		s := t.Shared()
		requireResources(t, s)
		p := probeNotFound(t, s)
		code, isErr := p.resp.ErrorCode()
		if !isErr || (code != jsonrpc.CodeInvalidParams && code != codeResourceNotFound) {
			t.NA("the read of the unknown URI %s got no not-found error to inspect (%s); RES-004 and RES-006 judge the answer", p.uri, p.resp.Describe())
		}
		got, ok := errorDataURI(p.resp)
		actual := "no error.data.uri"
		if ok {
			actual = fmt.Sprintf("error.data.uri %q", got)
		}
		t.Check(ok && got == p.uri, fmt.Sprintf("error.data.uri %q", p.uri), actual+" in "+c.Clip(p.resp.Msg.Raw),
			"the not-found error does not name the requested URI in data.uri")
	})

	c.It("RES-008", "traversal and malformed URIs get an error, never content outside the resource set", func(t *c.T) {
		s := t.Shared()
		requireResources(t, s)
		judgeTraversal(t, s, takeInventory(t, s))
	})

	c.It("RES-009", "resource subscriptions behave as declared", func(t *c.T) {
		s := t.Open()
		requireResources(t, s)
		judgeSubscriptions(t, s, takeInventory(t, s))
	})
})

// judgeWalk judges a list walk of RES-001/RES-002: the list must be
// answered (the server declared resources); a walk that stops after some
// pages is noted (pagination checks judge it) and its items are judged.
func judgeWalk(t *c.T, w *c.Walk) {
	if w.Complete() {
		return
	}
	if len(w.Pages) == 0 {
		// a well-formed error is an answer: the requirement judges the
		// items of a successful list, and none came (NA with the error;
		// the environment when it names the server's backend)
		t.NoResult(w.Kind.Method+" (the server declares resources)", w.Failed)
		t.Violation("a "+w.Kind.Method+" result", w.Failed.Describe(), "%s failed although the server declares resources: %s", w.Kind.Method, w.Problem)
	}
	t.Note("%s stopped early (%s); judging the %d items received", w.Kind.Method, w.Problem, len(w.Items))
}

// judgeItems validates each list item against the message model's
// definition and fails on problems at the given members; other problems
// are noted (the message-model check RPC-013 owns them).
func judgeItems(t *c.T, w *c.Walk, definition, noun string, paths ...string) {
	var bad []string
	notes := 0
	items := w.Items
	for i, it := range items {
		mine, others := modelProblems(string(t.Rev), definition, it, paths...)
		for _, p := range mine {
			bad = append(bad, fmt.Sprintf("%s %d: %s in %s", noun, i+1, p.String(), c.Clip(it)))
			if r := w.PageOf(i); r != nil {
				t.ModelClaim(r)
			}
		}
		for _, p := range others {
			if notes < 3 {
				t.Note("%s %d: %s (not part of this requirement)", noun, i+1, p.String())
			}
			notes++
		}
	}
	if len(bad) == 0 {
		return
	}
	expected := `{"uri": an absolute URI (RFC 3986), "name": string}`
	if definition == "ResourceTemplate" {
		expected = `{"uriTemplate": an RFC 6570 URI template, "name": string}`
	}
	shown := bad
	if len(shown) > 5 {
		shown = shown[:5]
	}
	t.Violation(expected, strings.Join(shown, "\n"), "%d of %d listed %ss break the requirement", len(bad), len(items), noun)
}

// contentsProblem says what is wrong with one resource contents item (""
// when nothing).
func contentsProblem(rev string, raw json.RawMessage) string {
	var o map[string]json.RawMessage
	if json.Unmarshal(raw, &o) != nil || o == nil {
		return "is not an object"
	}
	var uri string
	if json.Unmarshal(o["uri"], &uri) != nil || uri == "" {
		return "has no string uri"
	}
	_, hasText := o["text"]
	_, hasBlob := o["blob"]
	switch {
	case hasText && hasBlob:
		return "has both text and blob"
	case !hasText && !hasBlob:
		return "has neither text nor blob"
	case hasText:
		var s string
		if json.Unmarshal(o["text"], &s) != nil {
			return "has a text that is not a string"
		}
	default:
		var s string
		if json.Unmarshal(o["blob"], &s) != nil {
			return "has a blob that is not a string"
		}
		if mine, _ := modelProblems(rev, "BlobResourceContents", raw, "/blob"); len(mine) > 0 {
			return "has a blob that is not base64: " + mine[0].Message
		}
	}
	return ""
}

// notFoundProbe is the answer to a read of a URI that does not exist.
type notFoundProbe struct {
	uri  string
	resp *session.Response
}

// probeNotFound reads a URI the server cannot have (RES-004 … RES-007).
// One fault at a time: a listed resource read first the same way must
// succeed, so that an error for the unknown URI is about the URI (not about
// _meta, headers or the method).
func probeNotFound(t *c.T, s *session.Session) *notFoundProbe {
	inv := takeInventory(t, s)
	uri := inv.missingURI()
	if len(inv.uris) > 0 {
		ctl := inv.uris[0]
		t.Step("control: resources/read " + ctl)
		resp := read(t, s, ctl)
		if why, backend := c.BackendAnswer(resp); backend {
			t.Environment("the control read of the listed resource %s: %s, so an error for an unknown URI could not be attributed to the URI", ctl, why)
		}
		if !resp.IsResult() {
			t.NA("reading the listed resource %s fails too (%s), so an error for an unknown URI could not be attributed to the URI; RES-003 judges the listed read",
				ctl, resp.Describe())
		}
	} else {
		t.Note("the server lists no resource, so no control read shows that reads work")
	}
	t.Step("resources/read " + uri)
	return &notFoundProbe{uri: uri, resp: read(t, s, uri)}
}
