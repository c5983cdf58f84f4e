package resources

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestTemplateRegexp(t *testing.T) {
	cases := []struct {
		tpl   string
		match []string
		miss  []string
	}{
		{"policy://refund/{version}", []string{"policy://refund/v1", "policy://refund/", "policy://refund/%2e%2e"},
			[]string{"policy://refund/v1/x", "policy://refund/../../etc/passwd", "policy://refunds/v1", "xpolicy://refund/v1"}},
		{"order://{order_id}/summary", []string{"order://A1001/summary"}, []string{"order://A1001/x/summary", "order://A1001/summary/x"}},
		{"file:///{+path}", []string{"file:///a/b/c", "file:///../../etc/passwd"}, []string{"file://otherhost/etc/passwd"}},
		{"docs://{section}{/page*}{?q,lang}", []string{"docs://intro", "docs://intro/a/b", "docs://intro/a?q=x&lang=en"}, []string{"docs:/intro"}},
		{"a.b://x{.ext}", []string{"a.b://x", "a.b://x.json"}, []string{"aXb://x"}},
	}
	for _, tc := range cases {
		re, err := templateRegexp(tc.tpl)
		if err != nil {
			t.Fatalf("%s: %v", tc.tpl, err)
		}
		for _, u := range tc.match {
			if !re.MatchString(u) {
				t.Errorf("%s should match %s", tc.tpl, u)
			}
		}
		for _, u := range tc.miss {
			if re.MatchString(u) {
				t.Errorf("%s should not match %s", tc.tpl, u)
			}
		}
	}
	if _, err := templateRegexp("a://{x"); err == nil {
		t.Error("an unclosed expression must not compile")
	}
}

func inv(uris []string, templates ...string) *inventory {
	in := &inventory{listed: map[string]bool{}}
	for _, u := range uris {
		in.listed[u] = true
		in.uris = append(in.uris, u)
	}
	for _, tp := range templates {
		re, err := templateRegexp(tp)
		if err != nil {
			panic(err)
		}
		in.templates = append(in.templates, &template{text: tp, re: re})
	}
	return in
}

func TestMissingURI(t *testing.T) {
	cases := []struct {
		in     *inventory
		prefix string
	}{
		{inv([]string{"asset://brand/logo.png"}), "asset://brand/mcpconform-missing-"},
		// the sibling would match the template: another authority
		{inv([]string{"policy://refund"}, "policy://refund/{version}"), "policy://mcpconform-missing-"},
		{inv([]string{"file:///srv/docs/a.txt"}), "file:///srv/docs/mcpconform-missing-"},
		{inv([]string{"urn:isbn:0451450523"}), "urn:mcpconform-missing-"},
		{inv(nil), "mcpconform-missing://"},
		// everything of the scheme matches: fall back to an unknown scheme
		{inv([]string{"x://a/b"}, "x://{+rest}"), "mcpconform-missing://"},
	}
	for _, tc := range cases {
		got := tc.in.missingURI()
		if !strings.HasPrefix(got, tc.prefix) {
			t.Errorf("%v: missing URI %q, want prefix %q", tc.in.uris, got, tc.prefix)
		}
		if _, in := tc.in.inSet(got); in {
			t.Errorf("%q is in the set", got)
		}
	}
	if a, b := inv(nil).missingURI(), inv(nil).missingURI(); a == b {
		t.Errorf("two probes share the URI %q", a)
	}
}

func TestTraversalProbes(t *testing.T) {
	ps := traversalProbes(inv([]string{"a://x", "a://y", "b://z?q=1", "c://w/", "d://v", "e://u"}))
	var uris []string
	for _, p := range ps {
		uris = append(uris, p.uri)
	}
	all := strings.Join(uris, " ")
	for _, want := range []string{"a://x/../../", "b://z/%2e%2e/", "c://w/../"} {
		if !strings.Contains(all, want) {
			t.Errorf("no probe %s in %v", want, uris)
		}
	}
	for _, no := range []string{"a://y/", "d://v/"} {
		if strings.Contains(all, no) {
			t.Errorf("probe %s beyond the scheme cap in %v", no, uris)
		}
	}
}

func TestContentsProblem(t *testing.T) {
	for raw, want := range map[string]string{
		`{"uri":"a://b","text":"hi"}`:                "",
		`{"uri":"a://b","blob":"aGk="}`:              "",
		`{"uri":"a://b","blob":"aGk"}`:               "", // unpadded: accepted like the message model does
		`{"uri":"a://b","blob":"!!"}`:                "not base64",
		`{"uri":"a://b","text":"x","blob":"aGk="}`:   "both",
		`{"uri":"a://b"}`:                            "neither",
		`{"text":"x"}`:                               "no string uri",
		`{"uri":"a://b","text":5}`:                   "not a string",
		`[1]`:                                        "not an object",
		`{"uri":"a://b","blob":"aGk=","mimeType":1}`: "",
	} {
		got := contentsProblem("2025-11-25", json.RawMessage(raw))
		if (want == "") != (got == "") || !strings.Contains(got, want) {
			t.Errorf("%s: %q, want %q", raw, got, want)
		}
	}
}

func TestPasswdAndCovers(t *testing.T) {
	_, p := itemPayload(json.RawMessage(`{"uri":"x","blob":"cm9vdDp4OjA6MDpyb290Oi9yb290Oi9iaW4vYmFzaAo="}`))
	if !passwdLine.Match(p) {
		t.Errorf("blob passwd not recognised: %q", p)
	}
	if passwdLine.MatchString("the root: of the matter 0:0:") {
		t.Error("false positive")
	}
	if !covers("a://x", "a://x") || !covers("a://x", "a://x/y") || covers("a://x", "a://xy") {
		t.Error("covers")
	}
}
