package msgcheck

import (
	"path/filepath"
	"testing"
)

// TestURITemplateSyntax pins RFC 6570 syntax, including expressions in the
// host, which URI-parsing validators reject although the RFC allows them.
func TestURITemplateSyntax(t *testing.T) {
	for _, ok := range []string{
		"policy://refund/{version}", "order://{order_id}/summary", "file:///{+path}", "http://x/{?q,lang}",
		"db://{schema}/{table}{?limit:3}", "x://{var.sub}/{list*}", "plain://no-expressions", "a://%20/{x}",
	} {
		if err := checkURITemplate(ok); err != nil {
			t.Errorf("%q rejected: %v", ok, err)
		}
	}
	for _, bad := range []string{
		"file:///{a{b}}", "x://{unclosed", "x://}", "x://{}", "x://{a b}", "x://{a:0}", "x://{a:10000}",
		"x://{a**}", "x://{..a}", "x://{a..b}", "has space", "x://%zz", "x://<tag>",
	} {
		if err := checkURITemplate(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestSchemaRevision: a user's --schema file is matched to the revision it
// describes (it carries no version marker of its own).
func TestSchemaRevision(t *testing.T) {
	for _, rev := range []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"} {
		v, err := LoadSchema(filepath.Join(schemaDir(t), rev, "schema.json"))
		if err != nil {
			t.Fatal(err)
		}
		if got := v.Revision(); got != rev {
			t.Errorf("%s judged as %q", rev, got)
		}
	}
}
