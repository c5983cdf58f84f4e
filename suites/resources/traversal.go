package resources

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/url"
	"regexp"
	"strings"

	c "github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/session"
)

// RES-008: URIs that try to leave the server's resource set.

type uriProbe struct{ uri, what string }

// maxSchemes bounds the listed schemes traversal probes are built on.
const maxSchemes = 3

// climb is how many dot-dot segments follow a listed URI: enough to reach
// the root from a deep path (dot segments stop at the root).
const climb = 12

// traversalProbes are the fixed probes plus, for each scheme the server
// lists (at most maxSchemes), dot-dot segments appended to a listed URI.
func traversalProbes(inv *inventory) []uriProbe {
	probes := []uriProbe{
		{"file:///" + strings.Repeat("../", 6) + "etc/passwd", "dot-dot segments in a file URI"},
		{"file:///" + strings.Repeat("%2e%2e/", 6) + "etc/passwd", "percent-encoded dot-dot segments in a file URI"},
		{"file://otherhost/etc/passwd", "a file URI naming another host"},
		{strings.Repeat("../", 6) + "etc/passwd", "a relative path, not a URI"},
		{"not a uri", "a string that is not a URI"},
	}
	seen := map[string]bool{}
	for _, u := range inv.uris {
		pu, err := url.Parse(u)
		if err != nil || pu.Scheme == "" || seen[pu.Scheme] {
			continue
		}
		if len(seen) == maxSchemes {
			break
		}
		seen[pu.Scheme] = true
		base := u
		if i := strings.IndexAny(base, "?#"); i >= 0 {
			base = base[:i]
		}
		if !strings.HasSuffix(base, "/") {
			base += "/"
		}
		probes = append(probes,
			uriProbe{base + strings.Repeat("../", climb) + "etc/passwd", "dot-dot segments after the listed " + u},
			uriProbe{base + strings.Repeat("%2e%2e/", climb) + "etc/passwd", "percent-encoded dot-dot segments after the listed " + u})
	}
	return probes
}

// passwdLine matches the first line of a Unix password file.
var passwdLine = regexp.MustCompile(`(?m)^root:[^:\r\n]*:0:0:`)

// itemPayload returns the text of a contents item, or its decoded blob.
func itemPayload(raw json.RawMessage) (uri string, payload []byte) {
	var o struct {
		URI  string  `json:"uri"`
		Text *string `json:"text"`
		Blob *string `json:"blob"`
	}
	_ = json.Unmarshal(raw, &o)
	switch {
	case o.Text != nil:
		return o.URI, []byte(*o.Text)
	case o.Blob != nil:
		b, err := base64.StdEncoding.DecodeString(*o.Blob)
		if err != nil {
			b, _ = base64.RawStdEncoding.DecodeString(*o.Blob)
		}
		return o.URI, b
	}
	return o.URI, nil
}

// judgeTraversal sends each probe once. An error (any code) is the expected
// answer. A result is judged by what it returns:
//   - content that looks like /etc/passwd is a violation;
//   - a probe URI the server lists or a template matches is its own business;
//   - otherwise every item must be a resource of the set (listed or
//     template-matched) whose own read returns the same content, as when a
//     server resolves dot segments to one of its resources; an item for a
//     URI outside the set, or content labelled with an in-set URI that its
//     own read does not return, is a violation;
//   - a result without content leaks nothing: noted (an empty success for
//     a URI that does not exist is judged by RES-005 and RES-006).
func judgeTraversal(t *c.T, s *session.Session, inv *inventory) {
	direct := map[string]*session.Response{}
	for _, p := range traversalProbes(inv) {
		t.Step(p.what + ": " + p.uri)
		resp := read(t, s, p.uri)
		if !resp.IsResult() {
			continue // an error: the expected answer
		}
		if t.Modern() && inputRequired(resp) {
			t.Note("%s (%s) was answered with input_required; no content was returned", p.uri, p.what)
			continue
		}
		items, _ := contents(resp)
		for _, it := range items {
			if _, payload := itemPayload(it); passwdLine.Match(payload) {
				t.Refused(resp, "a JSON-RPC error", c.Clip(resp.Msg.Raw),
					"%s (%s) was answered with what looks like the server host's /etc/passwd", p.uri, p.what)
			}
		}
		if len(items) == 0 {
			// Nothing leaked; an empty success for a URI that does not
			// exist is RES-005/RES-006's verdict, not this one's.
			t.Note("%s (%s) was answered with a result without content instead of an error", p.uri, p.what)
			continue
		}
		if how, in := inv.inSet(p.uri); in {
			t.Note("%s (%s) is %s; the server serves it as one of its resources", p.uri, p.what, how)
			continue
		}
		for i, it := range items {
			iu, payload := itemPayload(it)
			if _, in := inv.inSet(iu); !in {
				t.Refused(resp, "a JSON-RPC error: the URI is neither listed nor matched by a resource template", c.Clip(resp.Msg.Raw),
					"%s (%s) was answered with content for %q, a URI outside the server's resource set", p.uri, p.what, iu)
			}
			own := direct[iu]
			if own == nil {
				t.Step("compare: resources/read " + iu)
				own = read(t, s, iu)
				direct[iu] = own
			}
			if !sameContent(iu, payload, own) {
				t.Violation("a JSON-RPC error, or exactly the content of the resource the URI resolves to", c.Clip(resp.Msg.Raw),
					"%s (%s) was answered with contents[%d] labelled %s, which reading %s itself does not return", p.uri, p.what, i, iu, iu)
			}
			t.Note("%s (%s) was resolved to the server's own resource %s", p.uri, p.what, iu)
		}
	}
}

// sameContent reports whether the read own of uri returns an item for uri
// with the same payload.
func sameContent(uri string, payload []byte, own *session.Response) bool {
	items, _ := contents(own)
	for _, it := range items {
		if u, p := itemPayload(it); u == uri && bytes.Equal(p, payload) {
			return true
		}
	}
	return false
}
