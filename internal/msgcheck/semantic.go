package msgcheck

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Rules that only this model checks: the official JSON Schemas cannot express
// them (open objects, anyOf without a discriminator, formats the validators do
// not assert, byte-level properties of the JSON text). Every other rule id is
// derived from a definition and member name and mirrors a schema constraint.
const (
	// RuleDuplicateKey: an object repeats a member name. JSON parsers keep one
	// of the values silently; MCP requires unique inputRequests keys and
	// JSON-RPC peers cannot agree on which value counts.
	RuleDuplicateKey = "json.duplicateKey"
	// RuleResultAndError: a response carries both result and error.
	RuleResultAndError = "jsonrpc.resultAndError"
	// RuleRequestID: a request's id is not a string or integer. The schema
	// cannot see it: such a message still matches JSONRPCNotification.
	RuleRequestID = "jsonrpc.request.id"
	// RuleServerRequest: a server sent a request it may not send (any request
	// in 2026-07-28; in earlier revisions, one outside ServerRequest).
	RuleServerRequest = "jsonrpc.serverRequest"
	// RuleBatch: an empty batch, or a batch in a revision without batches.
	RuleBatch = "jsonrpc.batch"
	// RuleResultType: resultType is not a value the revision defines for the
	// request ("complete", or "input_required" where MRTR allows it).
	RuleResultType = "result.resultType.value"
	// RuleResultTypeExtension: resultType is an extension value ("task"),
	// valid only when that extension was negotiated.
	RuleResultTypeExtension = "result.resultType.extension"
	// RuleInputRequiredEmpty: an InputRequiredResult with neither
	// inputRequests nor requestState.
	RuleInputRequiredEmpty = "inputRequiredResult.empty"
	// RuleBase64: a format:"byte" member (image/audio data, blob) is not
	// base64; JSON Schema validators do not assert that format.
	RuleBase64 = "base64"
	// RuleMetaKey: a _meta key breaks the key grammar (2025-06-18+).
	RuleMetaKey = "meta.key"
	// RuleExtensionKey: a capabilities.extensions key is not a _meta-style
	// key with the mandatory prefix (2026-07-28).
	RuleExtensionKey = "capabilities.extensions.key"
	// RuleTextAndBlob: resource contents carry both text and blob (the spec
	// says exactly one; the schema's anyOf accepts both).
	RuleTextAndBlob = "resourceContents.textAndBlob"
	// RuleCompletionValues: more than 100 completion values in a revision
	// whose schema does not say maxItems (before 2026-07-28).
	RuleCompletionValues = "completion.values.max"
	// RuleErrorCode: an error code the revision forbids (2026-07-28: -32002,
	// -32042, and undefined codes in the spec's range -32020..-32099).
	RuleErrorCode = "error.code.reserved"
	// RuleToolSchema: a tool's inputSchema/outputSchema is not a valid JSON
	// Schema (2025-11-25+).
	RuleToolSchema = "tool.schema.valid"
)

// semanticRules lists every rule above; the differential test checks its own
// copy against this one.
var semanticRules = []string{
	RuleDuplicateKey, RuleResultAndError, RuleRequestID, RuleServerRequest, RuleBatch,
	RuleResultType, RuleResultTypeExtension, RuleInputRequiredEmpty, RuleBase64,
	RuleMetaKey, RuleExtensionKey, RuleTextAndBlob, RuleCompletionValues, RuleErrorCode,
	RuleToolSchema,
}

// checkURI is JSON Schema's format "uri": an absolute URI reference.
func checkURI(s string) error {
	u, err := parseURL(s)
	if err != nil {
		return err
	}
	if !u.IsAbs() {
		return errors.New("relative reference")
	}
	return nil
}

// checkURITemplate checks RFC 6570 template syntax (up to level 4):
// literals may not contain CTL, space, quotes, < > \ ^ ` { | } or a bare
// %; every expression is {[operator]varspec(,varspec)*} with varspec =
// varname[:maxlen|*]. Expressions may stand anywhere, host included
// ("order://{id}/summary"), which JSON Schema validators that parse the
// template as a URI wrongly reject (a model-only rule in the differential
// test).
func checkURITemplate(s string) error {
	for i := 0; i < len(s); {
		ch := s[i]
		switch {
		case ch == '{':
			end := strings.IndexByte(s[i:], '}')
			if end < 0 {
				return errors.New("unclosed brace")
			}
			if err := checkTemplateExpression(s[i+1 : i+end]); err != nil {
				return fmt.Errorf("expression %q: %v", s[i:i+end+1], err)
			}
			i += end + 1
		case ch == '}':
			return errors.New("unmatched closing brace")
		case ch == '%':
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return errors.New("bad percent-encoding")
			}
			i += 3
		case ch < 0x21 || ch == 0x7f || strings.IndexByte("\"'<>\\^`|", ch) >= 0:
			return fmt.Errorf("character %q not allowed in a template literal", ch)
		default:
			i++
		}
	}
	return nil
}

func checkTemplateExpression(e string) error {
	if e == "" {
		return errors.New("empty expression")
	}
	if strings.IndexByte("+#./;?&=,!@|", e[0]) >= 0 {
		e = e[1:]
	}
	for _, spec := range strings.Split(e, ",") {
		name, mod := spec, ""
		if i := strings.IndexAny(spec, ":*"); i >= 0 {
			name, mod = spec[:i], spec[i:]
		}
		if err := checkVarname(name); err != nil {
			return err
		}
		switch {
		case mod == "" || mod == "*":
		case mod[0] == ':':
			n := mod[1:]
			if len(n) < 1 || len(n) > 4 || n[0] < '1' || n[0] > '9' || strings.Trim(n, "0123456789") != "" {
				return fmt.Errorf("bad prefix modifier %q", mod)
			}
		default:
			return fmt.Errorf("bad modifier %q", mod)
		}
	}
	return nil
}

func checkVarname(v string) error {
	if v == "" {
		return errors.New("empty variable name")
	}
	prevDot := true
	for i := 0; i < len(v); i++ {
		ch := v[i]
		switch {
		case ch == '.':
			if prevDot {
				return fmt.Errorf("bad variable name %q", v)
			}
			prevDot = true
			continue
		case ch == '%':
			if i+2 >= len(v) || !isHex(v[i+1]) || !isHex(v[i+2]) {
				return fmt.Errorf("bad percent-encoding in variable name %q", v)
			}
			i += 2
		case ch == '_' || ch >= '0' && ch <= '9' || ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z':
		default:
			return fmt.Errorf("character %q not allowed in variable name %q", ch, v)
		}
		prevDot = false
	}
	if prevDot {
		return fmt.Errorf("bad variable name %q", v)
	}
	return nil
}

func isHex(b byte) bool {
	return b >= '0' && b <= '9' || b >= 'a' && b <= 'f' || b >= 'A' && b <= 'F'
}

func parseURL(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			return nil, ue.Err
		}
		return nil, err
	}
	if host := u.Hostname(); strings.Contains(host, ":") {
		if !strings.Contains(u.Host, "[") || !strings.Contains(u.Host, "]") {
			return nil, errors.New("IPv6 address not in brackets")
		}
		addr, err := netip.ParseAddr(host)
		if err != nil {
			return nil, err
		}
		if addr.Zone() != "" {
			return nil, errors.New("zone id in IPv6 address")
		}
	}
	return u, nil
}

// CheckBase64 accepts standard base64 with or without padding; the URL-safe
// alphabet and embedded whitespace are errors.
func CheckBase64(s string) error {
	if strings.ContainsAny(s, "\r\n") {
		return errors.New("contains line breaks")
	}
	if _, err := base64.StdEncoding.Strict().DecodeString(s); err == nil {
		return nil
	}
	if !strings.HasSuffix(s, "=") {
		if _, err := base64.RawStdEncoding.Strict().DecodeString(s); err == nil {
			return nil
		}
	}
	_, err := base64.StdEncoding.Strict().DecodeString(s)
	return err
}

// metaKeyProblem explains why k breaks the _meta key grammar, or returns "".
//
//	key    = [prefix] name
//	prefix = label *("." label) "/"
//	label  = ALPHA [*(ALPHA / DIGIT / "-") (ALPHA / DIGIT)]
//	name   = "" / ALNUM [*(ALNUM / "-" / "_" / ".") ALNUM]
func metaKeyProblem(k string, prefixRequired bool) string {
	prefix, name, hasPrefix := "", k, false
	if i := strings.LastIndexByte(k, '/'); i >= 0 {
		prefix, name, hasPrefix = k[:i], k[i+1:], true
	}
	if prefixRequired && !hasPrefix {
		return "needs a prefix such as com.example/"
	}
	if hasPrefix {
		for _, l := range strings.Split(prefix, ".") {
			if !validLabel(l) {
				return fmt.Sprintf("prefix label %q must start with a letter, end with a letter or digit, and contain only letters, digits and hyphens", l)
			}
		}
	}
	if name == "" {
		return ""
	}
	if !isAlnum(name[0]) || !isAlnum(name[len(name)-1]) {
		return "name must start and end with a letter or digit"
	}
	for i := 0; i < len(name); i++ {
		ch := name[i]
		if !isAlnum(ch) && ch != '-' && ch != '_' && ch != '.' {
			return fmt.Sprintf("name contains %q; only letters, digits, '-', '_' and '.' are allowed", ch)
		}
	}
	return ""
}

func validLabel(l string) bool {
	if l == "" || !isAlpha(l[0]) || !isAlnum(l[len(l)-1]) {
		return false
	}
	for i := 0; i < len(l); i++ {
		if !isAlnum(l[i]) && l[i] != '-' {
			return false
		}
	}
	return true
}

func isAlpha(ch byte) bool { return ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' }
func isAlnum(ch byte) bool { return isAlpha(ch) || ch >= '0' && ch <= '9' }

// metaKeys checks the key grammar of a _meta object (2025-06-18+).
func metaKeys(c *checker, m map[string]any, at loc) {
	if c.m.rev < r20250618 {
		return
	}
	for _, k := range sortedKeys(m) {
		if why := metaKeyProblem(k, false); why != "" {
			c.semantic(at.entry(k), RuleMetaKey, "_meta key %q: %s", k, why)
		}
	}
}

// extensionKeys checks capabilities.extensions keys (2026-07-28).
func extensionKeys(c *checker, m map[string]any, at loc) {
	for _, k := range sortedKeys(m) {
		if why := metaKeyProblem(k, true); why != "" {
			c.semantic(at.entry(k), RuleExtensionKey, "extension id %q: %s", k, why)
		}
	}
}

// refusingLoader keeps schema compilation from reading files or the network
// on behalf of a schema a server sent.
type refusingLoader struct{}

func (refusingLoader) Load(u string) (any, error) {
	return nil, fmt.Errorf("msgcheck does not load %s", u)
}

// checkJSONSchema reports whether a tool's schema compiles as JSON Schema
// (dialect from $schema, 2020-12 when absent). References the validator would
// have to fetch are not counted against the server. Verdicts are cached by
// the schema's canonical JSON: a server lists the same tools again and again.
func checkJSONSchema(c *checker, v any, at loc) {
	if _, ok := v.(map[string]any); !ok {
		return // the structural rule already reported it
	}
	canon, err := json.Marshal(v)
	if err != nil {
		return
	}
	why, ok := schemaVerdicts.get(string(canon))
	if !ok {
		why = compileSchema(v)
		schemaVerdicts.put(string(canon), why)
	}
	if why != "" {
		c.semantic(at, RuleToolSchema, "not a valid JSON Schema: %s", why)
	}
}

func compileSchema(v any) string {
	comp := jsonschema.NewCompiler()
	comp.DefaultDraft(jsonschema.Draft2020)
	comp.UseLoader(refusingLoader{})
	// JSON Schema patterns are ECMA-262 regular expressions; Go's regexp
	// rejects valid ones (lookahead, backreferences). Compiling only, the
	// model does not judge patterns.
	comp.UseRegexpEngine(func(s string) (jsonschema.Regexp, error) { return anyRegexp(s), nil })
	const u = "urn:mcpconform:tool-schema"
	if err := comp.AddResource(u, v); err != nil {
		return oneLine(err.Error())
	}
	_, err := comp.Compile(u)
	if err == nil {
		return ""
	}
	var le *jsonschema.LoadURLError
	var se *jsonschema.UnsupportedURLSchemeError
	if errors.As(err, &le) || errors.As(err, &se) {
		return ""
	}
	return oneLine(err.Error())
}

type anyRegexp string

func (r anyRegexp) String() string        { return string(r) }
func (anyRegexp) MatchString(string) bool { return true }

// verdictCache is a small bounded cache; it starts over when full.
type verdictCache struct {
	mu sync.Mutex
	m  map[string]string
}

const verdictCacheSize = 512

var schemaVerdicts = &verdictCache{m: map[string]string{}}

func (vc *verdictCache) get(k string) (string, bool) {
	vc.mu.Lock()
	defer vc.mu.Unlock()
	v, ok := vc.m[k]
	return v, ok
}

func (vc *verdictCache) put(k, v string) {
	vc.mu.Lock()
	defer vc.mu.Unlock()
	if len(vc.m) >= verdictCacheSize {
		vc.m = map[string]string{}
	}
	vc.m[k] = v
}

func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\n", "; ")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}
