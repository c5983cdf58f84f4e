// Package inspect is the host side of MCP, as a tool for people: it
// registers a server (connects), performs the handshake and discovery once,
// keeps the discovered catalog (tools, resources, resource templates,
// prompts), turns the tools into function-calling declarations for an LLM,
// and executes tool calls under a call policy, keeping a record of each.
//
// Everything the server sends is untrusted: Print and PrintCall strip
// control characters and terminal escape sequences, and every byte they
// write passes through the target's redactor.
package inspect

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/mcpconform/mcpconform/internal/catalog"
	"github.com/mcpconform/mcpconform/internal/policy"
	"github.com/mcpconform/mcpconform/internal/session"
	"github.com/mcpconform/mcpconform/internal/target"
	"github.com/mcpconform/mcpconform/internal/wire"
)

// DefaultMaxPages caps each list walk when Options.MaxPages is 0.
const DefaultMaxPages = 100

// Options configure Inspect.
type Options struct {
	// Target is the server. When its Recorder is nil, Inspect sets one (with
	// a redactor) before connecting; its Bearer is registered as a secret
	// with the recorder's redactor either way.
	Target *target.Target
	// Revision to speak; "" = auto: the newest era the server supports, found
	// by probing as Target.Detect does.
	Revision catalog.Revision
	// Policy decides which tools Call may call ("" = readonly).
	Policy policy.CallPolicy
	// MaxPages caps each list walk (default 100).
	MaxPages int
	// Session, when set, is a session of Target whose handshake is done:
	// Inspect discovers on it instead of opening one (Revision is then
	// ignored). The inspection owns it from then on.
	Session *session.Session
}

// Inspection is the outcome of connecting to a server, handshaking and
// discovering its catalog once. The session stays open for Call until
// Close.
type Inspection struct {
	// Target describes the server (secrets never included) and Transport is
	// "stdio" or "http".
	Target    string `json:"target"`
	Transport string `json:"transport"`
	// Revision is the revision in use (negotiated, for the legacy era).
	Revision catalog.Revision `json:"revision"`
	// Eras lists the eras the server answered when probed, modern first
	// (only Revision when a revision was given).
	Eras []catalog.Revision `json:"eras"`
	// SupportedVersions is what server/discover listed (2026-07-28 only).
	SupportedVersions []string `json:"supportedVersions,omitempty"`
	// ServerInfo and Capabilities are the raw objects from initialize or
	// server/discover; Instructions is the instructions text.
	ServerInfo   json.RawMessage `json:"serverInfo,omitempty"`
	Capabilities json.RawMessage `json:"capabilities,omitempty"`
	Instructions string          `json:"instructions,omitempty"`
	// The catalog, each list walked page by page (capped) and only for a
	// declared capability.
	Tools             []json.RawMessage `json:"tools"`
	Resources         []json.RawMessage `json:"resources"`
	ResourceTemplates []json.RawMessage `json:"resourceTemplates"`
	Prompts           []json.RawMessage `json:"prompts"`
	// CacheScopes is the cacheScope of each list's first page (and of
	// server/discover), by method (2026-07-28).
	CacheScopes map[string]string `json:"cacheScopes,omitempty"`
	// Notes explains anything unusual: pages capped, a list that failed, how
	// the revision was chosen.
	Notes []string `json:"notes,omitempty"`
	// Policy is the call policy Call applies.
	Policy policy.CallPolicy `json:"callPolicy"`

	mu       sync.Mutex
	session  *session.Session
	rec      *wire.Recorder
	maxPages int
}

// Inspect connects to the target, performs the handshake of the chosen
// revision and discovers the catalog. The returned inspection holds the
// session open; Close it.
func Inspect(ctx context.Context, o Options) (*Inspection, error) {
	tg := o.Target
	if tg == nil {
		return nil, errors.New("inspect: no target")
	}
	if err := tg.Validate(); err != nil {
		return nil, err
	}
	if tg.Recorder == nil {
		tg.Recorder = wire.NewRecorder(wire.NewRedactor())
	}
	red := tg.Recorder.Redactor()
	tg.RegisterSecrets()
	pol := o.Policy
	if pol == "" {
		pol = policy.Default
	}
	if _, err := policy.Parse(string(pol)); err != nil {
		return nil, err
	}
	in := &Inspection{
		Target:    tg.Describe(),
		Transport: tg.Transport(),
		Policy:    pol,
		rec:       tg.Recorder,
		maxPages:  o.MaxPages,
	}
	if in.maxPages <= 0 {
		in.maxPages = DefaultMaxPages
	}

	if o.Session != nil {
		in.session = o.Session
		in.Eras = []catalog.Revision{o.Session.Revision()}
	} else if o.Revision == "" {
		d := tg.Detect(ctx)
		if d.Unreachable != nil {
			closeAll(d.Sessions)
			return nil, fmt.Errorf("%s: %s", red.String(d.Unreachable.Error()), red.String(strings.Join(d.Notes, "; ")))
		}
		if len(d.Revisions) == 0 || d.Sessions[d.Revisions[0]] == nil {
			closeAll(d.Sessions)
			return nil, fmt.Errorf("the server answered no era mcpconform can inspect: %s", red.String(strings.Join(d.Notes, "; ")))
		}
		rev := d.Revisions[0]
		in.session = d.Sessions[rev]
		delete(d.Sessions, rev)
		closeAll(d.Sessions)
		in.Eras = d.Revisions
		for _, n := range d.Notes {
			in.note("era probe: %s", n)
		}
	} else {
		if !o.Revision.Known() {
			return nil, fmt.Errorf("unknown revision %q (known: %v)", o.Revision, catalog.AllRevisions)
		}
		s, err := tg.Open(ctx, o.Revision)
		if err != nil {
			return nil, fmt.Errorf("handshake for %s failed: %s", o.Revision, red.String(err.Error()))
		}
		in.session = s
		in.Eras = []catalog.Revision{s.Revision()}
	}
	in.Revision = in.session.Revision()
	in.identity()
	in.discover(ctx)
	return in, nil
}

func closeAll(m map[catalog.Revision]*session.Session) {
	for _, s := range m {
		s.Close()
	}
}

func (in *Inspection) note(format string, args ...any) {
	in.Notes = append(in.Notes, fmt.Sprintf(format, args...))
}

// identity fills ServerInfo, Capabilities, Instructions and
// SupportedVersions from the handshake result.
func (in *Inspection) identity() {
	s := in.session
	raw := s.InitResult()
	if s.Modern() {
		raw = s.DiscoverResult()
	}
	var res struct {
		Capabilities      json.RawMessage `json:"capabilities"`
		Instructions      *string         `json:"instructions"`
		SupportedVersions []string        `json:"supportedVersions"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		in.note("the handshake result could not be read: %v", err)
	}
	in.ServerInfo = s.ServerInfo()
	in.Capabilities = res.Capabilities
	if res.Instructions != nil {
		in.Instructions = *res.Instructions
	}
	in.SupportedVersions = res.SupportedVersions
	in.scope("server/discover", raw)
	if len(in.ServerInfo) == 0 {
		in.note("the server sent no serverInfo")
	}
}

// declared reports whether the capability is present (and not null).
func (in *Inspection) declared(name string) bool {
	var caps map[string]json.RawMessage
	if json.Unmarshal(in.Capabilities, &caps) != nil {
		return false
	}
	v, ok := caps[name]
	return ok && string(v) != "null"
}

// discover walks the lists of the declared capabilities.
func (in *Inspection) discover(ctx context.Context) {
	if in.declared("tools") {
		in.Tools = in.walk(ctx, "tools/list", "tools")
	} else {
		in.note("tools: capability not declared; tools/list not called")
	}
	if in.declared("resources") {
		in.Resources = in.walk(ctx, "resources/list", "resources")
		in.ResourceTemplates = in.walk(ctx, "resources/templates/list", "resourceTemplates")
	}
	if in.declared("prompts") {
		in.Prompts = in.walk(ctx, "prompts/list", "prompts")
	}
	for _, t := range in.Tools {
		name := itemString(t, "name")
		if !functionName.MatchString(name) {
			in.note("tool name %q does not match %s, which many function-calling APIs require of declaration names", name, functionName)
		}
	}
}

var functionName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// walk follows nextCursor up to the page cap and returns the items of key.
func (in *Inspection) walk(ctx context.Context, method, key string) []json.RawMessage {
	items := []json.RawMessage{}
	seen := map[string]bool{}
	cursor := ""
	for page := 1; ; page++ {
		if page > in.maxPages {
			in.note("%s: stopped after %d pages (the cap); the catalog shown is incomplete", method, in.maxPages)
			return items
		}
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		resp, err := in.session.Call(ctx, method, params, nil)
		if err != nil || !resp.IsResult() {
			why := resp.Describe()
			if err != nil {
				why = err.Error()
				if resp != nil && (resp.Msg != nil || resp.Reply != nil) {
					why += ": " + resp.Describe()
				}
			}
			in.note("%s: page %d failed: %s", method, page, in.redact(clipString(why, 400)))
			return items
		}
		var res map[string]json.RawMessage
		if err := json.Unmarshal(resp.Msg.Result, &res); err != nil {
			in.note("%s: page %d: the result is not an object", method, page)
			return items
		}
		var got []json.RawMessage
		if err := json.Unmarshal(res[key], &got); err != nil || res[key] == nil {
			in.note("%s: page %d: the result has no %q array", method, page, key)
			return items
		}
		items = append(items, got...)
		if page == 1 {
			in.scope(method, resp.Msg.Result)
		}
		next, ok := res["nextCursor"]
		if !ok || string(next) == "null" {
			return items
		}
		var c string
		if json.Unmarshal(next, &c) != nil {
			in.note("%s: page %d: nextCursor is not a string; stopped", method, page)
			return items
		}
		if c == "" {
			return items
		}
		if seen[c] {
			in.note("%s: page %d: nextCursor repeats an earlier cursor; stopped", method, page)
			return items
		}
		seen[c] = true
		cursor = c
	}
}

// scope records the cacheScope of a result, when it has one.
func (in *Inspection) scope(method string, result json.RawMessage) {
	var r struct {
		CacheScope *string `json:"cacheScope"`
	}
	if json.Unmarshal(result, &r) != nil || r.CacheScope == nil {
		return
	}
	if in.CacheScopes == nil {
		in.CacheScopes = map[string]string{}
	}
	in.CacheScopes[method] = *r.CacheScope
}

// Relist walks a list again on the inspection's session and returns its
// items (the contract gate compares two listings of one session).
func (in *Inspection) Relist(ctx context.Context, method, key string) []json.RawMessage {
	return in.walk(ctx, method, key)
}

// Close ends the session (stdio: the server process is shut down).
func (in *Inspection) Close() error {
	in.mu.Lock()
	s := in.session
	in.session = nil
	in.mu.Unlock()
	if s == nil {
		return nil
	}
	return s.Close()
}

// Session returns the open session (nil after Close).
func (in *Inspection) Session() *session.Session {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.session
}

// Tool returns the discovered definition of the tool called name.
func (in *Inspection) Tool(name string) (json.RawMessage, bool) {
	in.mu.Lock()
	defer in.mu.Unlock()
	for _, t := range in.Tools {
		if itemString(t, "name") == name {
			return t, true
		}
	}
	return nil, false
}

// Callable lists the names of the discovered tools the policy allows.
func (in *Inspection) Callable() []string {
	in.mu.Lock()
	tools := in.Tools
	in.mu.Unlock()
	var out []string
	for _, t := range tools {
		if ok, _ := in.Policy.Allows(t); ok {
			out = append(out, itemString(t, "name"))
		}
	}
	return out
}

// Declaration is one tool in the function-calling format that OpenAI-style
// chat APIs (and many others) accept.
type Declaration struct {
	Type     string   `json:"type"`
	Function Function `json:"function"`
}

// Function is the function of a Declaration.
type Function struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// Parameters is the tool's inputSchema as the server sent it (an empty
	// object schema when it sent none).
	Parameters json.RawMessage `json:"parameters"`
}

// emptySchema stands in for a missing inputSchema.
var emptySchema = json.RawMessage(`{"type":"object","properties":{}}`)

// Declarations converts the discovered tools to function declarations,
// in catalog order: [{"type":"function","function":{"name","description",
// "parameters"}}]. Descriptions are the server's text, untrusted.
func (in *Inspection) Declarations() []Declaration {
	out := []Declaration{}
	for _, t := range in.Tools {
		var tool struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			InputSchema json.RawMessage `json:"inputSchema"`
		}
		if json.Unmarshal(t, &tool) != nil || tool.Name == "" {
			continue
		}
		params := tool.InputSchema
		if len(bytes.TrimSpace(params)) == 0 || string(params) == "null" {
			params = emptySchema
		}
		out = append(out, Declaration{Type: "function", Function: Function{Name: tool.Name, Description: tool.Description, Parameters: params}})
	}
	return out
}

// DeclarationsJSON renders Declarations as indented JSON, redacted.
func (in *Inspection) DeclarationsJSON() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(in.Declarations()); err != nil {
		return nil, err
	}
	return in.redactBytes(escapeUnsafe(buf.Bytes())), nil
}

func (in *Inspection) redact(s string) string {
	if in.rec == nil {
		return s
	}
	return in.rec.Redactor().String(s)
}

func (in *Inspection) redactBytes(b []byte) []byte {
	if in.rec == nil {
		return b
	}
	return in.rec.Redactor().Bytes(b)
}

// itemString returns the string member key of a JSON object ("" if absent).
func itemString(raw json.RawMessage, key string) string {
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return ""
	}
	var s string
	_ = json.Unmarshal(obj[key], &s)
	return s
}

// requiredArgs returns the required and optional property names of a tool's
// inputSchema, required in schema order, optional sorted.
func requiredArgs(tool json.RawMessage) (required, optional []string) {
	var t struct {
		InputSchema struct {
			Properties map[string]json.RawMessage `json:"properties"`
			Required   []string                   `json:"required"`
		} `json:"inputSchema"`
	}
	_ = json.Unmarshal(tool, &t)
	req := map[string]bool{}
	for _, r := range t.InputSchema.Required {
		req[r] = true
		required = append(required, r)
	}
	for p := range t.InputSchema.Properties {
		if !req[p] {
			optional = append(optional, p)
		}
	}
	sort.Strings(optional)
	return required, optional
}

func clipString(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
