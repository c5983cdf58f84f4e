package fuzz

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mcpconform/mcpconform/internal/session"
	"pgregory.net/rapid"
)

// Generators of prompts/get arguments and resources/read URIs (listed
// resources, template expansions, and URIs that are not quite either).

// uriUnicode lets generated resource URIs hold any character (off: they
// hold printable ASCII only, percent-encoded where a template expands).
// go-sdk v1.8.0 never answers a resources/read whose URI holds a control
// character, and stops answering anything on the connection after one
// whose URI holds some non-ASCII characters (U+F03B7 is enough): the first
// campaigns of this property found it, and the reference fixture now
// answers such URIs with -32602 (fixtures/doc.go, correction 26).
const uriUnicode = true

var asciiPrintable = rapid.RuneFrom(nil, &unicode.RangeTable{R16: []unicode.Range16{{Lo: 0x20, Hi: 0x7e, Stride: 1}}})

// genURIText draws text for a URI: like genArgValue, but printable ASCII
// unless uriUnicode.
func genURIText(t *rapid.T, label string) string {
	if uriUnicode {
		return genArgValue(t, label)
	}
	switch rapid.IntRange(0, 4).Draw(t, label+"-kind") {
	case 0:
		return rapid.SampledFrom([]string{"mcpconform", "A-1001", "1", "v2", "true"}).Draw(t, label)
	case 1, 2:
		return rapid.StringOf(asciiPrintable).Draw(t, label)
	case 3:
		return ""
	default:
		return strings.Repeat(rapid.SampledFrom([]string{"a", "/", "%", "{", "%41"}).Draw(t, label+"-unit"), rapid.IntRange(256, maxURIBytes).Draw(t, label+"-len"))
	}
}

// Bounds of the catalogs the generators draw from.
const (
	maxPrompts   = 64
	maxResources = 64
	maxTemplates = 32
	maxURIBytes  = 4 << 10
)

type promptInfo struct {
	name     string
	args     []string // declared argument names
	required []string
}

// walk reads a list method page by page (bounded) and hands each item of
// field to item; it stops when item returns false.
func (h *harness) walk(ctx context.Context, method, field string, item func(json.RawMessage) bool) error {
	cursor := ""
	for page := 0; page < maxListPages; page++ {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		resp, err := h.s.Call(ctx, method, params, &session.CallOptions{Timeout: h.timeout})
		if err != nil || !resp.IsResult() {
			return fmt.Errorf("%s failed: %v %s", method, err, resp.Describe())
		}
		var res map[string]json.RawMessage
		if resp.Result(&res) != nil {
			return fmt.Errorf("%s result is not readable", method)
		}
		var items []json.RawMessage
		_ = json.Unmarshal(res[field], &items)
		for _, it := range items {
			if !item(it) {
				return nil
			}
		}
		var next string
		if json.Unmarshal(res["nextCursor"], &next) != nil || next == "" {
			return nil
		}
		cursor = next
	}
	return nil
}

// preparePrompts lists the prompts and their declared arguments.
func (h *harness) preparePrompts(ctx context.Context) (bool, string) {
	if !contains(h.answer, "prompts/list") {
		return false, "the server declares no prompts capability"
	}
	err := h.walk(ctx, "prompts/list", "prompts", func(raw json.RawMessage) bool {
		var p struct {
			Name      string `json:"name"`
			Arguments []struct {
				Name     string `json:"name"`
				Required bool   `json:"required"`
			} `json:"arguments"`
		}
		if json.Unmarshal(raw, &p) != nil || p.Name == "" {
			return true
		}
		pi := promptInfo{name: p.Name}
		for _, a := range p.Arguments {
			pi.args = append(pi.args, a.Name)
			if a.Required {
				pi.required = append(pi.required, a.Name)
			}
		}
		h.prompts = append(h.prompts, pi)
		return len(h.prompts) < maxPrompts
	})
	if err != nil {
		return false, err.Error()
	}
	if len(h.prompts) == 0 {
		return false, "no prompt listed"
	}
	return true, ""
}

// prepareResources lists resource URIs and URI templates.
func (h *harness) prepareResources(ctx context.Context) (bool, string) {
	if !contains(h.answer, "resources/list") {
		return false, "the server declares no resources capability"
	}
	err := h.walk(ctx, "resources/list", "resources", func(raw json.RawMessage) bool {
		var r struct {
			URI string `json:"uri"`
		}
		if json.Unmarshal(raw, &r) == nil && r.URI != "" {
			h.uris = append(h.uris, r.URI)
		}
		return len(h.uris) < maxResources
	})
	if err != nil {
		return false, err.Error()
	}
	_ = h.walk(ctx, "resources/templates/list", "resourceTemplates", func(raw json.RawMessage) bool {
		var r struct {
			URITemplate string `json:"uriTemplate"`
		}
		if json.Unmarshal(raw, &r) == nil && r.URITemplate != "" {
			h.templates = append(h.templates, r.URITemplate)
		}
		return len(h.templates) < maxTemplates
	})
	if len(h.uris) == 0 && len(h.templates) == 0 {
		return false, "no resource or template listed"
	}
	return true, ""
}

// genArgValue draws a string argument value: plain, generated (any
// unicode), unicode-heavy, empty or long.
func genArgValue(t *rapid.T, label string) string {
	switch rapid.IntRange(0, 5).Draw(t, label+"-kind") {
	case 0:
		return rapid.SampledFrom([]string{"mcpconform", "A-1001", "1", "en", "true"}).Draw(t, label)
	case 1, 2:
		return rapid.String().Draw(t, label)
	case 3:
		return rapid.StringOfN(unicodeRunes(), 1, 24, -1).Draw(t, label)
	case 4:
		return ""
	default:
		return strings.Repeat(rapid.SampledFrom([]string{"a", "é", "/", "%", "{"}).Draw(t, label+"-unit"), rapid.IntRange(256, maxURIBytes).Draw(t, label+"-len"))
	}
}

// genPromptsCase: one to three prompts/get requests with arguments
// conforming to the declared ones or not.
func (h *harness) genPromptsCase(t *rapid.T) [][]byte {
	return dedupeIDs(rapid.SliceOfN(rapid.Custom(h.genPromptGet), 1, 3).Draw(t, "gets"))
}

func (h *harness) genPromptGet(t *rapid.T) []byte {
	id := genID(t, "id")
	p := h.prompts[rapid.IntRange(0, len(h.prompts)-1).Draw(t, "prompt")]
	args := map[string]any{}
	for _, a := range p.args {
		if contains(p.required, a) || rapid.Bool().Draw(t, a+"-present") {
			args[a] = genArgValue(t, a)
		}
	}
	name := p.name
	var arguments any = args
	switch rapid.SampledFrom([]string{"conforming", "conforming", "drop-required", "extra-argument", "non-string-value", "not-an-object", "no-arguments", "unknown-prompt"}).Draw(t, "variant") {
	case "drop-required":
		if len(p.required) > 0 {
			delete(args, rapid.SampledFrom(p.required).Draw(t, "drop"))
		}
	case "extra-argument":
		args["mcpconform_fuzz"] = genArgValue(t, "extra")
	case "non-string-value":
		if len(p.args) > 0 {
			args[rapid.SampledFrom(p.args).Draw(t, "argument")] = genValue(t, "value")
		}
	case "not-an-object":
		arguments = genLeaf(t, "arguments")
	case "no-arguments":
		arguments = nil
	case "unknown-prompt":
		name = "mcpconform-fuzz-no-such-prompt-" + rapid.StringN(0, 8, -1).Draw(t, "suffix")
	}
	extra := map[string]any{"name": name}
	if arguments != nil {
		extra["arguments"] = arguments
	}
	return request(id, "prompts/get", h.params(t, extra))
}

// genResourcesCase: one to three resources/read requests for listed URIs,
// template expansions with generated values, and altered URIs.
func (h *harness) genResourcesCase(t *rapid.T) [][]byte {
	return dedupeIDs(rapid.SliceOfN(rapid.Custom(h.genResourceRead), 1, 3).Draw(t, "reads"))
}

func (h *harness) genResourceRead(t *rapid.T) []byte {
	id := genID(t, "id")
	var uri string
	kinds := []string{"altered", "not-a-string"}
	if len(h.uris) > 0 {
		kinds = append(kinds, "listed", "listed")
	}
	if len(h.templates) > 0 {
		kinds = append(kinds, "template", "template", "template")
	}
	if len(h.uris)+len(h.templates) > 0 {
		kinds = append(kinds, "control", "control")
	}
	var uriValue any
	switch rapid.SampledFrom(kinds).Draw(t, "uri-kind") {
	case "control":
		uri = h.genControlURI(t)
	case "listed":
		uri = rapid.SampledFrom(h.uris).Draw(t, "uri")
	case "template":
		uri = expandTemplate(t, rapid.SampledFrom(h.templates).Draw(t, "template"))
	case "altered":
		base := "mcpconform://fuzz"
		if len(h.uris) > 0 {
			base = rapid.SampledFrom(h.uris).Draw(t, "uri")
		}
		switch rapid.IntRange(0, 5).Draw(t, "alteration") {
		case 0:
			uri = base + genURIText(t, "suffix")
		case 1:
			uri = ""
		case 2:
			uri = "mcpconform-fuzz-unknown-scheme://" + url.PathEscape(genURIText(t, "path"))
		case 3:
			uri = strings.SplitN(base, "://", 2)[len(strings.SplitN(base, "://", 2))-1] // no scheme
		case 4:
			uri = base + "/../../../../etc/passwd"
		default:
			uri = genURIText(t, "raw")
		}
	case "not-a-string":
		uriValue = rapid.SampledFrom([]any{42, -1.5, true, json.RawMessage("null"), []any{}, map[string]any{}, []any{"mcpconform://fuzz"}}).Draw(t, "uri-value")
	}
	if uriValue == nil {
		uriValue = uri
	}
	return request(id, "resources/read", h.params(t, map[string]any{"uri": uriValue}))
}

// controlRunes are characters a URI should not hold raw and a JSON
// encoder must escape: C0 controls, DEL, C1 controls, and non-printable
// characters past the BMP (private use, tags, noncharacters). A server
// that echoes the URI in an error (go-sdk's ResourceNotFoundError quotes
// it with Go's %q into json.RawMessage: \x18 and \U000f03b7 are not JSON
// escapes, so the SDK cannot marshal its own not-found error and stops
// answering) must still answer.
var controlRunes = rapid.OneOf(
	rapid.RuneFrom(nil, &unicode.RangeTable{R16: []unicode.Range16{{Lo: 0x00, Hi: 0x1f, Stride: 1}, {Lo: 0x7f, Hi: 0x9f, Stride: 1}}}),
	rapid.SampledFrom([]rune{0xF03B7, 0xE0001, 0x10FFFD, 0xFFFF, 0x1FFFE}),
)

// genControlURI draws a plausible URI of a scheme the server lists (a
// listed URI or a template expansion) with one to three control
// characters inserted after its scheme.
func (h *harness) genControlURI(t *rapid.T) string {
	var base string
	if len(h.templates) == 0 || len(h.uris) > 0 && rapid.Bool().Draw(t, "control-listed") {
		base = rapid.SampledFrom(h.uris).Draw(t, "control-uri")
	} else {
		base = expandTemplate(t, rapid.SampledFrom(h.templates).Draw(t, "control-template"))
	}
	from := strings.IndexByte(base, ':') + 1 // after the scheme (0: none)
	for i := range rapid.IntRange(1, 3).Draw(t, "controls") {
		at := rapid.IntRange(from, len(base)).Draw(t, fmt.Sprintf("control%d-at", i))
		for at > from && at < len(base) && !utf8.RuneStart(base[at]) {
			at--
		}
		base = base[:at] + string(controlRunes.Draw(t, fmt.Sprintf("control%d", i))) + base[at:]
	}
	return base
}

// expandTemplate expands an RFC 6570 URI template with generated values
// (simple, reserved and fragment expansion; label, path, path-parameter
// and query operators), leaving the text outside expressions as is.
func expandTemplate(t *rapid.T, tmpl string) string {
	var b strings.Builder
	for i := 0; i < len(tmpl); {
		open := strings.IndexByte(tmpl[i:], '{')
		if open < 0 {
			b.WriteString(tmpl[i:])
			break
		}
		b.WriteString(tmpl[i : i+open])
		end := strings.IndexByte(tmpl[i+open:], '}')
		if end < 0 {
			b.WriteString(tmpl[i+open:])
			break
		}
		expr := tmpl[i+open+1 : i+open+end]
		i += open + end + 1
		op := ""
		if expr != "" && strings.ContainsRune("+#./;?&", rune(expr[0])) {
			op, expr = expr[:1], expr[1:]
		}
		var parts []string
		for _, v := range strings.Split(expr, ",") {
			v = strings.TrimSuffix(v, "*")
			if k := strings.IndexByte(v, ':'); k >= 0 {
				v = v[:k]
			}
			val := genURIText(t, "var-"+v)
			enc := url.QueryEscape(val)
			if op == "+" || op == "#" {
				enc = (&url.URL{Path: val}).EscapedPath()
			}
			switch op {
			case ";", "?", "&":
				parts = append(parts, v+"="+enc)
			default:
				parts = append(parts, enc)
			}
		}
		sep := map[string]string{"": ",", "+": ",", "#": ",", ".": ".", "/": "/", ";": ";", "?": "&", "&": "&"}[op]
		prefix := map[string]string{"#": "#", ".": ".", "/": "/", ";": ";", "?": "?", "&": "&"}[op]
		b.WriteString(prefix + strings.Join(parts, sep))
	}
	return b.String()
}
