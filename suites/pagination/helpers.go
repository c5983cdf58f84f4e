package pagination

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	c "github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/session"
)

// declaredKinds returns the paginated lists whose capability the server
// declared on s, in catalog order.
func declaredKinds(s *session.Session) []c.ListKind {
	var out []c.ListKind
	for _, k := range c.ListKinds {
		if c.Declared(s, k.Capability) {
			out = append(out, k)
		}
	}
	return out
}

// needKinds is declaredKinds, ending the check as NA when there is none.
func needKinds(t *c.T, s *session.Session) []c.ListKind {
	kinds := declaredKinds(s)
	if len(kinds) == 0 {
		t.NA("the server declares none of tools, resources, prompts: it has no paginated list")
	}
	return kinds
}

// stop says why a walk ended.
type stop int

const (
	stopEnd       stop = iota // a page without nextCursor
	stopFirst                 // the first page never came as a result
	stopFailed                // a later page was an error or never came
	stopNotObject             // a page's result is not an object
	stopNonString             // a nextCursor that is not a string
	stopLoop                  // a nextCursor that was already followed
	stopCap                   // still a nextCursor at the page cap
)

func classify(w *c.Walk) stop {
	if w.Complete() {
		return stopEnd
	}
	if len(w.Pages) == 0 {
		return stopFirst
	}
	last := w.Pages[len(w.Pages)-1]
	switch {
	case last.Result == nil:
		return stopNotObject
	case last.NextType != "":
		return stopNonString
	case last.Next == nil:
		return stopFailed // cannot happen: a page without nextCursor ends the walk
	case w.Capped:
		return stopCap
	}
	for _, p := range w.Pages[1:] {
		if p.Cursor != nil && *p.Cursor == *last.Next {
			return stopLoop
		}
	}
	return stopFailed
}

// pageKeys returns the identifying key of every item of a page ("" for an
// item without a string key).
func pageKeys(items []json.RawMessage, key string) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = c.ItemKey(it, key)
	}
	return out
}

// resultItems returns the item array of a list result (nil when absent or
// not an array).
func resultItems(res map[string]json.RawMessage, items string) []json.RawMessage {
	var out []json.RawMessage
	if json.Unmarshal(res[items], &out) != nil {
		return nil
	}
	return out
}

func isArray(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '['
}

// sameMultiset reports whether a and b hold the same keys, counting repeats.
func sameMultiset(a, b []string) bool {
	return slices.Equal(slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b)))
}

// duplicates returns the keys that occur more than once (items without a
// key are another requirement's concern and are skipped).
func duplicates(keys []string) []string {
	seen := map[string]int{}
	var out []string
	for _, k := range keys {
		if k == "" {
			continue
		}
		seen[k]++
		if seen[k] == 2 {
			out = append(out, k)
		}
	}
	return out
}

// quoteKeys renders keys for a message, at most n of them.
func quoteKeys(keys []string, n int) string {
	q := make([]string, 0, n+1)
	for i, k := range keys {
		if i == n {
			q = append(q, fmt.Sprintf("… (%d in all)", len(keys)))
			break
		}
		q = append(q, strconv.Quote(k))
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// randomCursor is about 4 KB of random bytes in URL-safe base64: a string
// that decodes as base64, so a server must reject it past its first
// decoding step. The seed is fixed so that runs are reproducible.
func randomCursor() string {
	r := rand.New(rand.NewPCG(0x6d6370, 0x636f6e666f726d))
	b := make([]byte, 3072)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return base64.URLEncoding.EncodeToString(b)
}

// badCursor is one made-up cursor of PAG-002.
type badCursor struct {
	what  string
	value any
}

func badCursors() []badCursor {
	return []badCursor{
		{`the string "!!invalid!!"`, "!!invalid!!"},
		{"4 KB of random base64", randomCursor()},
		{`base64 of {"page":-1}`, base64.StdEncoding.EncodeToString([]byte(`{"page":-1}`))},
		{"the number 123", 123},
		{"null", nil},
		{"an empty object", map[string]any{}},
	}
}
