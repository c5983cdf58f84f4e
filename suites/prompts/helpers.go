package prompts

import (
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"github.com/mcpconform/mcpconform/internal/catalog"
	c "github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/msgcheck"
	"github.com/mcpconform/mcpconform/internal/session"
)

// maxGets caps the prompts one check gets (a server may list thousands).
const maxGets = 16

// requirePrompts ends the check as NA when the server does not declare
// prompts, and returns the listed prompts otherwise. A listing that fails
// outright is not this check's verdict (PRM-001 judges it): NA with the
// reason.
func requirePrompts(t *c.T, s *session.Session) []c.Prompt {
	if !c.Declared(s, "prompts") {
		t.NA("the server does not declare the prompts capability")
	}
	w, ps := c.ListedPrompts(t, s)
	if len(ps) == 0 {
		if w.Problem != "" {
			t.NA("prompts/list did not give a usable prompt (%s); PRM-001 judges the listing", w.Problem)
		}
		t.NA("the server declares prompts but lists none")
	}
	return ps
}

// plausible returns a value for argument arg of prompt p: the first
// completion the server suggests when it declares completions, else a
// string plausible for the argument's name and description (a URI for a
// URI-like argument: one the server lists, else an https://example.com
// one). Values are strings, and getting a prompt has no side effects.
func plausible(t *c.T, s *session.Session, p c.Prompt, arg c.PromptArg, knownURI *string) string {
	if c.Declared(s, "completions") {
		resp, err := t.TryCall(s, "completion/complete", map[string]any{
			"ref":      map[string]any{"type": "ref/prompt", "name": p.Name},
			"argument": map[string]any{"name": arg.Name, "value": ""},
		}, nil)
		if err == nil && resp.IsResult() {
			var r struct {
				Completion struct {
					Values []string `json:"values"`
				} `json:"completion"`
			}
			if resp.Result(&r) == nil && len(r.Completion.Values) > 0 && r.Completion.Values[0] != "" {
				return r.Completion.Values[0]
			}
		}
	}
	if v := c.PlausibleString(arg.Name, arg.Description, "", ""); v != "mcpconform" {
		if v == c.FallbackURI {
			if *knownURI == "" {
				*knownURI = t.KnownURI(s)
				if *knownURI == "" {
					*knownURI = c.FallbackURI
				}
			}
			return *knownURI
		}
		return v
	}
	if idName.MatchString(arg.Name) {
		return "1" // an identifier: servers often number theirs
	}
	return "example"
}

// idName matches argument names that denote an identifier (orderId,
// resource_id, ID).
var idName = regexp.MustCompile(`(?i:(^|[_\-])id$)|[a-z0-9](Id|ID)$`)

// argsFor fills every required argument of p with a plausible value.
func argsFor(t *c.T, s *session.Session, p c.Prompt) map[string]string {
	args := map[string]string{}
	var known string
	for _, a := range p.Args {
		if a.Required {
			args[a.Name] = plausible(t, s, p, a, &known)
		}
	}
	return args
}

func getParams(name string, args map[string]string) map[string]any {
	params := map[string]any{"name": name}
	if len(args) > 0 {
		params["arguments"] = args
	}
	return params
}

// got is one prompts/get that returned a complete result.
type got struct {
	Name   string
	Args   map[string]string // the arguments the harness sent
	Result map[string]json.RawMessage
	Resp   *session.Response
}

// getAll gets up to maxGets listed prompts with plausible arguments. It
// returns the complete results and, for the others, why they could not be
// judged (an error for made-up values, an input_required round, no
// response).
func getAll(t *c.T, s *session.Session, ps []c.Prompt) (oks []got, skipped []string) {
	for i, p := range ps {
		if i == maxGets {
			skipped = append(skipped, fmt.Sprintf("%d more prompts were not got (cap %d)", len(ps)-maxGets, maxGets))
			break
		}
		args := argsFor(t, s, p)
		resp, err := t.TryCall(s, "prompts/get", getParams(p.Name, args), nil)
		switch {
		case err != nil:
			skipped = append(skipped, fmt.Sprintf("%s: %v", p.Name, err))
		case !resp.IsResult():
			skipped = append(skipped, fmt.Sprintf("%s with %s: %s", p.Name, argsString(args), resp.Describe()))
		default:
			res := resp.Msg.ResultObject()
			if res != nil && string(res["resultType"]) == `"input_required"` {
				skipped = append(skipped, fmt.Sprintf("%s: an input_required round (MRTR checks judge it)", p.Name))
				continue
			}
			oks = append(oks, got{Name: p.Name, Args: args, Result: res, Resp: resp})
		}
	}
	return oks, skipped
}

func argsString(args map[string]string) string {
	if len(args) == 0 {
		return "no arguments"
	}
	b, _ := json.Marshal(args)
	return "arguments " + string(b)
}

// messages decodes result.messages; ok is false when it is absent or not an
// array.
func messages(res map[string]json.RawMessage) ([]json.RawMessage, bool) {
	raw, present := res["messages"]
	if !present {
		return nil, false
	}
	var ms []json.RawMessage
	if json.Unmarshal(raw, &ms) != nil || ms == nil {
		return nil, false
	}
	return ms, true
}

// contentTypes are the ContentBlock types a revision defines.
func contentTypes(rev catalog.Revision) map[string]bool {
	types := map[string]bool{"text": true, "image": true, "resource": true}
	if rev >= catalog.R20250326 {
		types["audio"] = true
	}
	if rev >= catalog.R20250618 {
		types["resource_link"] = true
	}
	return types
}

// messageProblem says why one prompt message breaks PRM-002 ("" if it
// does not): role user or assistant, content one object with a type the
// revision defines (text blocks with a string text, resource links with a
// string uri and name). The data of image, audio and embedded resource
// blocks is PRM-005's.
func messageProblem(rev catalog.Revision, raw json.RawMessage) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil || m == nil {
		return "the message is not an object"
	}
	var role string
	if json.Unmarshal(m["role"], &role) != nil || (role != "user" && role != "assistant") {
		return fmt.Sprintf(`role is %s, not "user" or "assistant"`, c.OrAbsent(m["role"]))
	}
	content, present := m["content"]
	if !present {
		return "the message has no content"
	}
	trimmed := strings.TrimSpace(string(content))
	if strings.HasPrefix(trimmed, "[") {
		return "content is an array; a prompt message carries a single content block"
	}
	var block map[string]json.RawMessage
	if json.Unmarshal(content, &block) != nil || block == nil {
		return fmt.Sprintf("content is %s, not a content block object", c.OrAbsent(content))
	}
	var typ string
	if json.Unmarshal(block["type"], &typ) != nil {
		return fmt.Sprintf("content.type is %s, not a string", c.OrAbsent(block["type"]))
	}
	if !contentTypes(rev)[typ] {
		return fmt.Sprintf("content.type %q is not a content block type of %s", typ, rev)
	}
	switch typ {
	case "text":
		if !c.IsString(block["text"]) {
			return fmt.Sprintf("a text block's text is %s, not a string", c.OrAbsent(block["text"]))
		}
	case "resource_link":
		if !c.IsString(block["uri"]) || !c.IsString(block["name"]) {
			return "a resource_link block needs a string uri and name"
		}
	}
	return ""
}

// binaryProblem says why one content block breaks PRM-005 ("" if it does
// not, or if it is not an image, audio or embedded resource block), and
// whether it is such a block at all.
func binaryProblem(raw json.RawMessage) (judged bool, problem string) {
	var block map[string]json.RawMessage
	if json.Unmarshal(raw, &block) != nil || block == nil {
		return false, ""
	}
	var typ string
	_ = json.Unmarshal(block["type"], &typ)
	switch typ {
	case "image", "audio":
		var data string
		if json.Unmarshal(block["data"], &data) != nil {
			return true, fmt.Sprintf("%s data is %s, not a base64 string", typ, c.OrAbsent(block["data"]))
		}
		if err := msgcheck.CheckBase64(data); err != nil {
			return true, fmt.Sprintf("%s data is not base64 (%v): %s", typ, err, clipText(data))
		}
		var mime string
		if json.Unmarshal(block["mimeType"], &mime) != nil || strings.TrimSpace(mime) == "" {
			return true, fmt.Sprintf("%s mimeType is %s, not a non-empty string", typ, c.OrAbsent(block["mimeType"]))
		}
		return true, ""
	case "resource":
		var res map[string]json.RawMessage
		if json.Unmarshal(block["resource"], &res) != nil || res == nil {
			return true, fmt.Sprintf("an embedded resource's resource is %s, not an object", c.OrAbsent(block["resource"]))
		}
		var uri string
		if json.Unmarshal(res["uri"], &uri) != nil {
			return true, fmt.Sprintf("an embedded resource's uri is %s, not a string", c.OrAbsent(res["uri"]))
		}
		if u, err := url.Parse(uri); err != nil || u.Scheme == "" {
			return true, fmt.Sprintf("an embedded resource's uri %q is not a URI", clipText(uri))
		}
		text, hasText := res["text"]
		blob, hasBlob := res["blob"]
		switch {
		case hasText && hasBlob:
			return true, "an embedded resource carries both text and blob"
		case hasText:
			if !c.IsString(text) {
				return true, fmt.Sprintf("an embedded resource's text is %s, not a string", c.OrAbsent(text))
			}
		case hasBlob:
			var b string
			if json.Unmarshal(blob, &b) != nil {
				return true, fmt.Sprintf("an embedded resource's blob is %s, not a base64 string", c.OrAbsent(blob))
			}
			if err := msgcheck.CheckBase64(b); err != nil {
				return true, fmt.Sprintf("an embedded resource's blob is not base64 (%v): %s", err, clipText(b))
			}
		default:
			return true, "an embedded resource carries neither text nor blob"
		}
		return true, ""
	}
	return false, ""
}

// reflectsInput reports whether an embedded resource block's uri is one of
// the argument values the harness sent (a prompt that echoes its argument).
func reflectsInput(raw json.RawMessage, args map[string]string) bool {
	var block struct {
		Resource struct {
			URI string `json:"uri"`
		} `json:"resource"`
	}
	if json.Unmarshal(raw, &block) != nil || block.Resource.URI == "" {
		return false
	}
	for _, v := range args {
		if v == block.Resource.URI || strings.Contains(block.Resource.URI, v) && !strings.Contains(block.Resource.URI, ":") {
			return true
		}
	}
	return false
}

func clipText(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// firstN joins at most n problems.
func firstN(ps []string, n int) string {
	if len(ps) > n {
		return strings.Join(ps[:n], "\n") + fmt.Sprintf("\n… and %d more", len(ps)-n)
	}
	return strings.Join(ps, "\n")
}
