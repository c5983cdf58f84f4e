// Package pagination checks the paginated lists (PAG) and the caching
// hints of 2026-07-28 (CACHE).
package pagination

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	c "github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/jsonrpc"
	"github.com/mcpconform/mcpconform/internal/session"
	"github.com/mcpconform/mcpconform/internal/wire"
)

var _ = c.Area("pagination", func() {
	c.It("PAG-001", "every list page has its item array and a nextCursor that is absent or a string", func(t *c.T) {
		s := t.Shared()
		judged := 0
		for _, k := range needKinds(t, s) {
			t.Step("walk " + k.Method)
			w := t.WalkList(s, k.Method)
			for i, p := range w.Pages {
				what := fmt.Sprintf("%s page %d", k.Method, i+1)
				t.Check(p.Result != nil, "a result object", p.Resp.Describe(), "%s: the result is not an object", what)
				raw, ok := p.Result[k.Items]
				t.Check(ok && isArray(raw), fmt.Sprintf("%q: an array", k.Items), c.OrAbsent(raw), "%s: the %s array is missing or not an array", what, k.Items)
				t.Check(p.NextType == "", "nextCursor absent or a string", c.OrAbsent(p.Result["nextCursor"]),
					"%s: nextCursor is %s, not a string", what, p.NextType)
				judged++
			}
			if st := classify(w); st != stopEnd {
				t.Note("%s: the walk stopped early (%s); judged the pages that came", k.Method, w.Problem)
			}
		}
		if judged == 0 {
			t.NA("no declared list returned a page to judge")
		}
	})

	c.It("PAG-002", "made-up and non-string cursors get -32602, never a crash, silence or a 5xx", func(t *c.T) {
		s := t.Open() // garbage goes to a connection of its own
		var fs findings
		var firstPages []firstPage
		for _, k := range needKinds(t, s) {
			resp, err := t.TryCall(s, k.Method, map[string]any{}, nil)
			if err != nil || !resp.IsResult() || resp.Msg.ResultObject() == nil {
				t.Note("%s: the first page did not come as a result (%s), so the list is not probed", k.Method, c.Clip([]byte(c.Describe(resp, err))))
				continue
			}
			fp := firstPage{kind: k, res: resp.Msg.ResultObject()}
			fp.keys = pageKeys(resultItems(fp.res, k.Items), k.Key)
			firstPages = append(firstPages, fp)
			for _, bc := range badCursors() {
				what := fmt.Sprintf("%s with cursor %s", k.Method, bc.what)
				t.Step(what)
				resp, err := t.TryCall(s, k.Method, map[string]any{"cursor": bc.value}, nil)
				if fs.crashOr(t, s, what, resp, err) {
					continue
				}
				switch {
				case resp.IsError():
					if code, _ := resp.ErrorCode(); code != jsonrpc.CodeInvalidParams {
						fs.violation(what, resp, fmt.Sprintf("%s got error %d instead of -32602", what, code))
					}
				case resp.IsResult():
					res := resp.Msg.ResultObject()
					if res != nil && sameMultiset(pageKeys(resultItems(res, k.Items), k.Key), fp.keys) {
						fs.ignore(k.Method, bc.what)
					} else {
						fs.violation(what, resp, fmt.Sprintf("%s was accepted: a page came instead of -32602", what))
					}
				default:
					fs.violation(what, resp, fmt.Sprintf("%s got a response with neither result nor error", what))
				}
			}
		}
		crossListCursor(t, s, firstPages, &fs)
		t.ExpectAlive(s, "the invalid cursors")
		fs.report(t)
	})

	c.It("PAG-003", "the same cursor asked twice returns the same page", func(t *c.T) {
		s := t.Shared()
		compared := 0
		for _, k := range needKinds(t, s) {
			resp, err := t.TryCall(s, k.Method, map[string]any{}, nil)
			if err != nil || !resp.IsResult() {
				t.Note("%s: the first page did not come as a result", k.Method)
				continue
			}
			var next string
			res := resp.Msg.ResultObject()
			if raw, ok := res["nextCursor"]; !ok || jsonString(raw, &next) != nil {
				continue // a single page (or PAG-001's defect): no cursor to repeat
			}
			t.Step(k.Method + " with its page-2 cursor, twice")
			params := map[string]any{"cursor": next}
			a, err := t.TryCall(s, k.Method, params, nil)
			if err != nil || !a.IsResult() || a.Msg.ResultObject() == nil {
				t.Note("%s: the cursor of page 1 did not give a page (PAG-004 judges the walk): %s", k.Method, c.Describe(a, err))
				continue
			}
			b := t.Call(s, k.Method, params, nil)
			t.Check(b.IsResult() && b.Msg.ResultObject() != nil, "the same page again", b.Describe(),
				"%s: a cursor that worked a moment ago failed when asked again", k.Method)
			ka := pageKeys(resultItems(a.Msg.ResultObject(), k.Items), k.Key)
			kb := pageKeys(resultItems(b.Msg.ResultObject(), k.Items), k.Key)
			t.Check(sameMultiset(ka, kb), "the items "+quoteKeys(ka, 20), "the items "+quoteKeys(kb, 20),
				"%s: the same cursor gave two different pages while the list did not change", k.Method)
			if !slices.Equal(ka, kb) {
				t.Note("%s: the repeated page lists the same items in another order", k.Method)
			}
			compared++
		}
		if compared == 0 {
			t.NA("no declared list has a second page: there is no cursor to repeat")
		}
	})

	c.It("PAG-004", "following nextCursor ends within the page cap and repeats no item", func(t *c.T) {
		s := t.Shared()
		walked := 0
		for _, k := range needKinds(t, s) {
			t.Step("walk " + k.Method)
			w := t.WalkList(s, k.Method)
			switch classify(w) {
			case stopFirst:
				t.Note("%s: no first page to follow (%s)", k.Method, w.Problem)
				continue
			case stopNotObject, stopNonString:
				t.Note("%s: the walk stopped at a malformed page (PAG-001: %s); judged the pages that came", k.Method, w.Problem)
			case stopCap:
				t.Violation(fmt.Sprintf("a last page without nextCursor within %d pages", w.Cap),
					fmt.Sprintf("page %d still has nextCursor %s", len(w.Pages), c.Clip([]byte(*w.Pages[len(w.Pages)-1].Next))),
					"%s never ends: %s", k.Method, w.Problem)
			case stopLoop:
				t.Violation("a last page without nextCursor", w.Problem, "%s never ends: its nextCursor leads back to a page already visited", k.Method)
			case stopFailed:
				actual := w.Problem
				if w.Failed != nil {
					actual = w.Failed.Describe()
				}
				t.Violation("a page for every nextCursor the server handed out", actual,
					"%s: following the server's own nextCursor failed at page %d", k.Method, len(w.Pages)+1)
			}
			walked++
			if dups := duplicates(w.Keys()); len(dups) > 0 {
				t.Violation(fmt.Sprintf("each %s once across the pages", k.Key), "repeated: "+quoteKeys(dups, 10),
					"%s: the walk over %d pages lists some items more than once", k.Method, len(w.Pages))
			}
		}
		if walked == 0 {
			t.NA("no declared list returned a first page")
		}
	})

	c.It("PAG-005", "two consecutive tools/list walks give the tools in the same order", func(t *c.T) {
		s := t.Shared()
		if !c.Declared(s, "tools") {
			t.NA("the server does not declare tools")
		}
		w1 := t.WalkList(s, "tools/list")
		w2 := t.WalkList(s, "tools/list")
		if len(w1.Pages) == 0 || len(w2.Pages) == 0 {
			t.NA("tools/list returned no page to compare (%s%s)", w1.Problem, w2.Problem)
		}
		for _, w := range []*c.Walk{w1, w2} {
			if !w.Complete() {
				t.Note("a walk stopped early (%s); compared the tools that came", w.Problem)
			}
		}
		a, b := w1.Keys(), w2.Keys()
		if !sameMultiset(a, b) {
			t.Note("the two walks hold different tools (a change between them is LIFE-013's concern); compared the order of the tools in both")
		}
		ca, cb := common(a, b), common(b, a)
		t.Check(slices.Equal(ca, cb), "the order "+quoteKeys(ca, 20), "then "+quoteKeys(cb, 20),
			"two consecutive tools/list walks returned the tools in different orders")
	})

	c.It("PAG-006", "every page of one walk has the same cacheScope", func(t *c.T) {
		s := t.Shared()
		multi := 0
		for _, k := range needKinds(t, s) {
			t.Step("walk " + k.Method)
			w := t.WalkList(s, k.Method)
			if !w.Complete() {
				t.Note("%s: the walk stopped early (%s); judged the pages that came", k.Method, w.Problem)
			}
			if len(w.Pages) > 1 {
				multi++
			}
			first, firstPage := "", 0
			for i, p := range w.Pages {
				if p.Result == nil {
					continue
				}
				var scope string
				if jsonString(p.Result["cacheScope"], &scope) != nil {
					t.Note("%s page %d: cacheScope is %s (CACHE-001); not compared", k.Method, i+1, c.OrAbsent(p.Result["cacheScope"]))
					continue
				}
				if firstPage == 0 {
					first, firstPage = scope, i+1
					continue
				}
				t.Check(scope == first, fmt.Sprintf("cacheScope %q on every page (page %d has it)", first, firstPage),
					fmt.Sprintf("page %d: cacheScope %q", i+1, scope), "%s: the pages of one walk carry different cacheScope values", k.Method)
			}
		}
		if multi == 0 {
			t.NA("no declared list has more than one page")
		}
	})
})

// firstPage is the first page of a list, kept for comparison.
type firstPage struct {
	kind c.ListKind
	res  map[string]json.RawMessage
	keys []string
}

// crossListCursor sends the page-2 cursor of one list to another list: a
// well-formed cursor the server made, but for another list. -32602 or a
// page are both acceptable; another error is not, a crash never.
func crossListCursor(t *c.T, s *session.Session, pages []firstPage, fs *findings) {
	var from *firstPage
	var cursor string
	for i := range pages {
		if jsonString(pages[i].res["nextCursor"], &cursor) == nil {
			from = &pages[i]
			break
		}
	}
	if from == nil || len(pages) < 2 {
		t.Note("no cursor of another list to try (it needs two declared lists, one of them with a second page)")
		return
	}
	for _, to := range pages {
		if to.kind.Method == from.kind.Method {
			continue
		}
		what := fmt.Sprintf("%s with the page-2 cursor of %s", to.kind.Method, from.kind.Method)
		t.Step(what)
		resp, err := t.TryCall(s, to.kind.Method, map[string]any{"cursor": cursor}, nil)
		if fs.crashOr(t, s, what, resp, err) {
			return
		}
		switch code, _ := resp.ErrorCode(); {
		case resp.IsResult():
			t.Note("%s: a page came (the server does not tie its cursors to one list)", what)
		case resp.IsError() && code != jsonrpc.CodeInvalidParams:
			fs.violation(what, resp, fmt.Sprintf("%s got error %d instead of -32602 or a page", what, code))
		}
		return
	}
}

// findings collects PAG-002's outcomes: the first wrong answer and the
// tolerated ones, reported once every cursor was tried. A crash, silence or
// 5xx ends the check at once (FAIL whatever the level: robustness is never
// optional, and a silent server would only make every later probe wait).
type findings struct {
	wrong   *finding
	methods []string            // lists that ignored a cursor, in order
	ignored map[string][]string // by list: the cursors served as the first page
}

type finding struct{ expected, actual, message string }

// crashOr ends the check on a crash, silence or 5xx for what; it reports
// whether resp is not to be judged further.
func (fs *findings) crashOr(t *c.T, s *session.Session, what string, resp *session.Response, err error) bool {
	const answer = "an answer (-32602) and no 5xx status"
	switch {
	case err == nil && resp.Status() >= 500:
		t.Violation(answer, resp.Describe(), "%s got a server error status", what)
	case errors.Is(err, wire.ErrTimeout):
		t.NoAnswer(s, answer, "%s got no answer", what)
	case errors.Is(err, wire.ErrClosed):
		t.Crashed(answer, "the connection ended: "+err.Error(), "the server went away on %s", what)
	case errors.Is(err, session.ErrNoResponse):
		if resp.Status() >= 500 {
			t.Violation(answer, resp.Describe(), "%s got a server error status", what)
		}
		fs.violation(what, resp, fmt.Sprintf("%s got no JSON-RPC response", what))
		return true
	case err != nil:
		if closed, cerr := s.Closed(); closed {
			t.Crashed(answer, fmt.Sprintf("the connection ended (%v)", cerr), "the server went away on %s", what)
		}
		t.Error("%s: %v", what, err)
	}
	return false
}

func (fs *findings) violation(what string, resp *session.Response, message string) {
	if fs.wrong == nil {
		fs.wrong = &finding{"-32602 (Invalid params)", resp.Describe(), message}
	}
}

// ignore records a cursor that was served as if absent.
func (fs *findings) ignore(method, what string) {
	if fs.ignored == nil {
		fs.ignored = map[string][]string{}
	}
	if _, ok := fs.ignored[method]; !ok {
		fs.methods = append(fs.methods, method)
	}
	fs.ignored[method] = append(fs.ignored[method], what)
}

// report turns the findings into the verdict: a wrong answer violates the
// requirement, a tolerated one warns.
func (fs *findings) report(t *c.T) {
	if f := fs.wrong; f != nil {
		t.Violation(f.expected, f.actual, "%s", f.message)
	}
	for _, m := range fs.methods {
		t.Warn("%s ignored the cursor (%s) and served the first page instead of -32602 (tolerated: TOL-13)", m, strings.Join(fs.ignored[m], "; "))
	}
}

// common returns the keys of a that are also in b, in a's order.
func common(a, b []string) []string {
	in := map[string]bool{}
	for _, k := range b {
		in[k] = true
	}
	var out []string
	for _, k := range a {
		if in[k] {
			out = append(out, k)
		}
	}
	return out
}

// jsonString decodes raw as a JSON string (an error for anything else,
// null included).
func jsonString(raw json.RawMessage, s *string) error {
	if raw == nil || !strings.HasPrefix(strings.TrimSpace(string(raw)), `"`) {
		return errors.New("not a string")
	}
	return json.Unmarshal(raw, s)
}
