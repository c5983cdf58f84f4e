package resources

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/url"
	"regexp"
	"strings"

	c "github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/msgcheck"
	"github.com/mcpconform/mcpconform/internal/session"
)

// requireResources ends the check as NA when the server did not declare
// the resources capability.
func requireResources(t *c.T, s *session.Session) {
	if !c.Declared(s, "resources") {
		t.NA("the server does not declare the resources capability")
	}
}

// inventory is what the server says its resource set is: the listed URIs
// and the templates that parse.
type inventory struct {
	uris      []string // every listed uri that is a string, in list order
	listed    map[string]bool
	templates []*template
}

type template struct {
	text string
	re   *regexp.Regexp
}

// takeInventory walks resources/list and resources/templates/list for the
// checks that need the resource set but do not judge the lists (RES-001
// and RES-002 do). A resources/list that fails ends the check as NA; a
// templates list that fails counts as no templates, with a note.
func takeInventory(t *c.T, s *session.Session) *inventory {
	inv := &inventory{listed: map[string]bool{}}
	w := t.WalkList(s, "resources/list")
	if !w.Complete() {
		if len(w.Items) == 0 {
			if why, backend := c.BackendAnswer(w.Failed); backend {
				t.Environment("resources/list gave no items to work with: %s", why)
			}
			t.NA("resources/list gave no items to work with (%s); RES-001 judges the list", w.Problem)
		}
		t.Note("resources/list stopped early (%s); working with the %d resources received", w.Problem, len(w.Items))
	}
	for _, k := range w.Keys() {
		if k != "" && !inv.listed[k] {
			inv.listed[k] = true
			inv.uris = append(inv.uris, k)
		}
	}
	tw := t.WalkList(s, "resources/templates/list")
	if !tw.Complete() {
		t.Note("resources/templates/list stopped early (%s); working with the %d templates received", tw.Problem, len(tw.Items))
	}
	for _, k := range tw.Keys() {
		if re, err := templateRegexp(k); err == nil {
			inv.templates = append(inv.templates, &template{text: k, re: re})
		}
	}
	return inv
}

// inSet reports whether uri is a listed resource or matches a template,
// and which.
func (inv *inventory) inSet(uri string) (string, bool) {
	if inv.listed[uri] {
		return "listed", true
	}
	for _, tp := range inv.templates {
		if tp.re.MatchString(uri) {
			return "matched by the template " + tp.text, true
		}
	}
	return "", false
}

// missingURI returns a URI that cannot be one of the server's resources:
// built on the scheme (and authority) of a listed resource, with a random
// final segment, and neither listed nor matched by any template; the
// fallback is an unknown scheme.
func (inv *inventory) missingURI() string {
	name := "mcpconform-missing-" + randomHex()
	var candidates []string
	if len(inv.uris) > 0 {
		if u, err := url.Parse(inv.uris[0]); err == nil && u.Scheme != "" {
			switch {
			case u.Opaque != "":
				candidates = append(candidates, u.Scheme+":"+name)
			case u.Host != "":
				dir := u.Path[:strings.LastIndexByte(u.Path, '/')+1]
				if dir == "" {
					dir = "/"
				}
				candidates = append(candidates,
					u.Scheme+"://"+u.Host+dir+name,
					u.Scheme+"://"+name+"/"+name)
			default:
				dir := u.Path[:strings.LastIndexByte(u.Path, '/')+1]
				if dir == "" {
					dir = "/"
				}
				candidates = append(candidates, u.Scheme+"://"+dir+name)
			}
		}
	}
	for _, cand := range candidates {
		if _, in := inv.inSet(cand); !in {
			return cand
		}
	}
	return "mcpconform-missing://" + name + "/" + name
}

func randomHex() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// templateRegexp turns an RFC 6570 template into a regular expression that
// matches every URI an expansion could produce. It errs on the side of
// matching: simple expansions match anything but the URI delimiters / ? #,
// reserved ones ({+x}, {#x}) anything at all.
func templateRegexp(tpl string) (*regexp.Regexp, error) {
	var b strings.Builder
	b.WriteString("^")
	for i := 0; i < len(tpl); {
		if tpl[i] != '{' {
			j := strings.IndexByte(tpl[i:], '{')
			if j < 0 {
				j = len(tpl) - i
			}
			b.WriteString(regexp.QuoteMeta(tpl[i : i+j]))
			i += j
			continue
		}
		end := strings.IndexByte(tpl[i:], '}')
		if end < 0 {
			return nil, errors.New("unclosed expression")
		}
		expr := tpl[i+1 : i+end]
		i += end + 1
		op := byte(0)
		if expr != "" {
			op = expr[0]
		}
		switch op {
		case '+', '#':
			b.WriteString(`.*`)
		case '.':
			b.WriteString(`(?:\.[^/?#]*)*`)
		case '/':
			b.WriteString(`(?:/[^?#]*)?`)
		case ';':
			b.WriteString(`(?:;[^/?#]*)*`)
		case '?', '&':
			b.WriteString(`(?:[?&][^#]*)?`)
		default:
			b.WriteString(`[^/?#]*`)
		}
	}
	b.WriteString("$")
	return regexp.Compile(b.String())
}

// modelProblems validates raw as definition of the revision's message model
// (internal/msgcheck, the same rules RPC-013 applies) and splits the
// problems into those at the given member paths and the others.
func modelProblems(rev, definition string, raw json.RawMessage, paths ...string) (mine, others []msgcheck.Problem) {
	for _, p := range msgcheck.ValidateAs(rev, definition, raw) {
		hit := p.Path == ""
		for _, path := range paths {
			if p.Path == path || strings.HasPrefix(p.Path, path+"/") {
				hit = true
			}
		}
		if hit {
			mine = append(mine, p)
		} else {
			others = append(others, p)
		}
	}
	return mine, others
}

// read sends resources/read for uri.
func read(t *c.T, s *session.Session, uri string) *session.Response {
	return t.Call(s, "resources/read", map[string]any{"uri": uri}, nil)
}

// inputRequired reports a 2026-07-28 result that asks for input instead of
// carrying the resource (MRTR).
func inputRequired(resp *session.Response) bool {
	if !resp.IsResult() {
		return false
	}
	var rt string
	_ = json.Unmarshal(resp.Msg.ResultObject()["resultType"], &rt)
	return rt == "input_required"
}

// contents returns the contents array of a read result (ok false when it is
// missing or not an array).
func contents(resp *session.Response) ([]json.RawMessage, bool) {
	if !resp.IsResult() {
		return nil, false
	}
	raw, ok := resp.Msg.ResultObject()["contents"]
	if !ok {
		return nil, false
	}
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil || items == nil {
		return nil, false
	}
	return items, true
}

// errorData returns error.data.uri of an error response ("" and false when
// absent or not a string).
func errorDataURI(resp *session.Response) (string, bool) {
	if !resp.IsError() || resp.Msg.Error == nil {
		return "", false
	}
	var data struct {
		URI *string `json:"uri"`
	}
	if json.Unmarshal(resp.Msg.Error.Data, &data) != nil || data.URI == nil {
		return "", false
	}
	return *data.URI, true
}

// codeResourceNotFound is the not-found code of revisions before 2026-07-28.
const codeResourceNotFound = -32002
