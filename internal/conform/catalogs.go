package conform

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpconform/mcpconform/internal/session"
)

// DefaultMaxPages caps every pagination walk unless the run sets
// Env.MaxPages (--max-pages): a server whose nextCursor never ends is
// reported, not followed forever.
const DefaultMaxPages = 1000

// ListKinds maps each paginated list method to its item array and the key
// that identifies an item, and the capability that gates it.
var ListKinds = []ListKind{
	{Method: "tools/list", Items: "tools", Key: "name", Capability: "tools"},
	{Method: "resources/list", Items: "resources", Key: "uri", Capability: "resources"},
	{Method: "resources/templates/list", Items: "resourceTemplates", Key: "uriTemplate", Capability: "resources"},
	{Method: "prompts/list", Items: "prompts", Key: "name", Capability: "prompts"},
}

// ListKind describes one paginated list method.
type ListKind struct {
	Method, Items, Key, Capability string
}

// ListKindOf returns the kind of a list method.
func ListKindOf(method string) ListKind {
	for _, k := range ListKinds {
		if k.Method == method {
			return k
		}
	}
	panic("conform: not a paginated list method: " + method)
}

// Page is one page of a list walk.
type Page struct {
	Cursor   *string // the cursor sent (nil for the first page)
	Resp     *session.Response
	Result   map[string]json.RawMessage
	Items    []json.RawMessage
	Next     *string // nextCursor (nil when absent)
	NextType string  // JSON type of nextCursor when it is not a string ("" otherwise)
}

// Walk is the outcome of following nextCursor to the end.
type Walk struct {
	Kind  ListKind
	Pages []Page
	Items []json.RawMessage
	// Problem says why the walk stopped early ("" when it reached a page
	// without nextCursor): an error response, a malformed page, a repeated
	// cursor, the page cap.
	Problem string
	// Failed is the response that ended the walk with an error, if any.
	Failed *session.Response
	// Capped is set when the walk stopped at the page cap Cap.
	Capped bool
	Cap    int
}

// PageOf returns the answer that listed item i (nil when none).
func (w *Walk) PageOf(i int) *session.Response {
	for _, p := range w.Pages {
		if i < len(p.Items) {
			return p.Resp
		}
		i -= len(p.Items)
	}
	return nil
}

// Complete reports a walk that reached the end.
func (w *Walk) Complete() bool { return w.Problem == "" }

// Keys returns the identifying key of every item, in order ("" when an
// item lacks it or it is not a string).
func (w *Walk) Keys() []string {
	out := make([]string, len(w.Items))
	for i, it := range w.Items {
		out[i] = ItemKey(it, w.Kind.Key)
	}
	return out
}

// ItemKey returns item[key] when it is a string.
func ItemKey(item json.RawMessage, key string) string {
	var o map[string]json.RawMessage
	if json.Unmarshal(item, &o) != nil {
		return ""
	}
	var s string
	if json.Unmarshal(o[key], &s) != nil {
		return ""
	}
	return s
}

// listingKey names a memoized walk (T.Listing): one per list method and
// catalog generation.
type listingKey struct {
	method string
	gen    int64
}

// Listing returns the walk of a list method on s for a check that only
// takes its inputs from the list (which tools to call, which prompt to
// complete) and judges none of it: on the check's shared session the walk
// is made once per revision and shared with the other checks that ask
// (on a slow server a walk of several pages costs a round trip per page),
// and made again after a check changed the catalog (FireTrigger). On
// another session (T.Open, with other capabilities) it is s's own walk.
// Checks that judge a list walk it themselves (WalkList): its frames are
// their evidence.
func (t *T) Listing(s *session.Session, method string) *Walk {
	if _, shared := t.Env.shareds.Load(s); !shared {
		return t.WalkList(s, method)
	}
	k := memoKey{memo: listingKey{method: method, gen: t.Env.catalogGen.Load()}, rev: t.Rev, transport: t.Transport}
	v, ok, waited := t.Env.memos.get(t.Ctx, k, func() any { return t.WalkList(s, method) }, t.lane)
	t.waited += waited
	if !ok {
		t.Error("the check's budget ran out while it waited for the walk of %s (made by another check)", method)
	}
	return v.(*Walk)
}

// WalkList follows a paginated list on s from its first page until a page
// has no nextCursor, with at most Env.MaxPages pages. It never judges: a check
// decides what a Problem means for its requirement. A response that never
// came ends the walk with a Problem too.
func (t *T) WalkList(s *session.Session, method string) *Walk {
	w := &Walk{Kind: ListKindOf(method), Cap: t.Env.MaxPages}
	if w.Cap <= 0 {
		w.Cap = DefaultMaxPages
	}
	seen := map[string]bool{}
	var cursor *string
	for page := 0; ; page++ {
		if page == w.Cap {
			w.Capped = true
			w.Problem = fmt.Sprintf("still a nextCursor after %d pages (the walk was stopped: an endless list, or one longer than --max-pages allows)", w.Cap)
			return w
		}
		params := map[string]any{}
		if cursor != nil {
			params["cursor"] = *cursor
		}
		resp, err := t.TryCall(s, method, params, nil)
		if err != nil {
			w.Problem = fmt.Sprintf("page %d: %v", page+1, err)
			w.Failed = resp
			return w
		}
		if !resp.IsResult() {
			w.Problem = fmt.Sprintf("page %d: %s", page+1, resp.Describe())
			w.Failed = resp
			return w
		}
		p := Page{Cursor: cursor, Resp: resp, Result: resp.Msg.ResultObject()}
		if p.Result == nil {
			w.Pages = append(w.Pages, p)
			w.Problem = fmt.Sprintf("page %d: the result is not an object", page+1)
			return w
		}
		if raw, ok := p.Result[w.Kind.Items]; ok {
			if json.Unmarshal(raw, &p.Items) != nil {
				p.Items = nil
			}
		}
		if raw, ok := p.Result["nextCursor"]; ok {
			var next string
			if json.Unmarshal(raw, &next) == nil {
				p.Next = &next
			} else {
				p.NextType = jsonType(raw)
			}
		}
		w.Pages = append(w.Pages, p)
		w.Items = append(w.Items, p.Items...)
		if p.NextType != "" {
			w.Problem = fmt.Sprintf("page %d: nextCursor is %s, not a string", page+1, p.NextType)
			return w
		}
		if p.Next == nil {
			return w
		}
		if seen[*p.Next] {
			w.Problem = fmt.Sprintf("page %d: nextCursor %q was already followed (the list loops)", page+1, clipString(*p.Next))
			return w
		}
		seen[*p.Next] = true
		cursor = p.Next
	}
}

func jsonType(raw json.RawMessage) string {
	s := strings.TrimSpace(string(raw))
	switch {
	case s == "null":
		return "null"
	case strings.HasPrefix(s, "{"):
		return "an object"
	case strings.HasPrefix(s, "["):
		return "an array"
	case strings.HasPrefix(s, `"`):
		return "a string"
	case s == "true" || s == "false":
		return "a boolean"
	}
	return "a number"
}

func clipString(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// PolicyPrefix starts the message of every NA verdict caused by the call
// policy (--call-tools), so that reports can count them.
const PolicyPrefix = "call policy: "

// MayCall reports whether the run's call policy allows calling tool (its
// raw object from tools/list) with inputs that could execute, and why not.
func (t *T) MayCall(tool json.RawMessage) (bool, string) {
	return t.Env.Policy.Allows(tool)
}

// PolicyNA ends the check as NA because the call policy forbids the calls
// it needs.
func (t *T) PolicyNA(format string, args ...any) {
	t.NA("%s%s", PolicyPrefix, fmt.Sprintf(format, args...))
}

// SampleArgs returns the user-configured sample arguments for a tool
// (--config), and whether there are any.
func (t *T) SampleArgs(tool string) (map[string]any, bool) {
	a, ok := t.Env.SampleArgs[tool]
	return a, ok
}
