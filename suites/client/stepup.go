package client

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	c "github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/scenario"
)

// The step-up checks (CAUTH-009, CAUTH-010): auth/scope-step-up's tools/call
// needs a scope the first token lacks and gets 403 insufficient_scope until
// the client re-authorizes with it; auth/scope-retry-limit's never stops
// answering 403.

// stepUpLimit is how many re-authorizations after a 403 insufficient_scope
// a scenario run allows ("no more than a few times").
const stepUpLimit = 3

// stepUpRuns are the authorization runs whose tools/call needs a step-up
// scope (endless: those whose 403 never ends too), with the client's
// requests that got 403 insufficient_scope: a run without one is not
// judged (the client never called a tool with its first token).
func stepUpRuns(t *c.T, endless bool) (runs []*scenario.Run, forbidden [][]httpReq) {
	for _, r := range authRuns(t) {
		if a := r.Auth.Spec; a.StepUp == "" || a.StepUpEndless && !endless {
			continue
		}
		if f := forbiddens(t, r); len(f) > 0 {
			runs, forbidden = append(runs, r), append(forbidden, f)
		}
	}
	return runs, forbidden
}

// forbiddens are the client's requests of r that got 403 (on the MCP
// server's authorization connection: the step-up challenges).
func forbiddens(t *c.T, r *scenario.Run) []httpReq {
	return keepReqs(httpRequests(t, r, r.AuthConn), func(h httpReq) bool { return h.status == http.StatusForbidden })
}

// splitAt splits hs into the requests before the first of marks and
// those after it (all before when marks is empty).
func splitAt(hs, marks []httpReq) (before, after []httpReq) {
	if len(marks) == 0 {
		return hs, nil
	}
	for _, h := range hs {
		if h.in.Seq < marks[0].in.Seq {
			before = append(before, h)
		} else {
			after = append(after, h)
		}
	}
	return before, after
}

// calledAfter reports whether the client sent a tools/call to the MCP
// server (with a token that passed the gate) after seq.
func calledAfter(t *c.T, r *scenario.Run, seq int64) bool {
	for _, m := range requests(traffic(t, r)) {
		if m.F.Seq > seq && m.M.Method == "tools/call" {
			return true
		}
	}
	return false
}

var _ = c.ClientArea("client", func() {
	c.It("CAUTH-009", "step-up: a 403 insufficient_scope leads to re-authorizing with its scope", func(t *c.T) {
		var bad findings
		runs, forbidden := stepUpRuns(t, false)
		for i, r := range runs {
			t.Judged(r)
			first := forbidden[i][0]
			before, after := splitAt(authorizes(t, r), forbidden[i])
			challenged := r.Auth.StepUpChallenge
			if len(after) == 0 {
				bad.add(first.msg(), fmt.Sprintf("scenario %s: a tools/call got 403 insufficient_scope naming scope %q, and the client never re-authorized", r.Scenario.Name, challenged))
				continue
			}
			want, why := scopeSet(challenged), fmt.Sprintf("the challenge named %q", challenged)
			if !r.Revision.IsLegacy() && len(before) > 0 {
				prior := before[len(before)-1].u.Query().Get("scope")
				want = scopeSet(strings.Join(append(want, strings.Fields(prior)...), " "))
				why += fmt.Sprintf(", and 2026-07-28 asks for its union with the scopes asked for before (%q)", prior)
			}
			if got := after[0].u.Query().Get("scope"); !subset(want, scopeSet(got)) {
				bad.add(after[0].msg(), fmt.Sprintf("scenario %s: after a 403 insufficient_scope the client re-authorized asking for scope %q; %s", r.Scenario.Name, got, why))
				continue
			}
			if !calledAfter(t, r, after[0].in.Seq) {
				t.Note("scenario %s: the client re-authorized but did not retry the tools/call (the flow's last step)", r.Scenario.Name)
			}
		}
		if len(runs) == 0 {
			t.NA(notTried + "; or no tools/call of it got 403 insufficient_scope in auth/scope-step-up (it never called a tool)")
		}
		bad.report(t, "a re-authorization asking for the challenged scope (2026-07-28: with the scopes asked for before), then the request again")
	})

	c.It("CAUTH-010", "step-up retries are limited", func(t *c.T) {
		var bad findings
		runs, forbidden := stepUpRuns(t, true)
		for i, r := range runs {
			t.Judged(r)
			_, after := splitAt(authorizes(t, r), forbidden[i])
			if len(after) > stepUpLimit {
				bad.add(after[stepUpLimit].msg(), fmt.Sprintf("scenario %s: the client re-authorized %d times after 403 insufficient_scope (%d requests got it); a client stops after a few attempts (mcpconform allows %d) and treats it as a permanent failure",
					r.Scenario.Name, len(after), len(forbidden[i]), stepUpLimit))
			}
		}
		if len(runs) == 0 {
			t.NA(notTried + "; or no tools/call of it got 403 insufficient_scope (it never called a tool)")
		}
		bad.report(t, fmt.Sprintf("at most %d re-authorizations after 403 insufficient_scope", stepUpLimit))
	})
})

// subset reports whether every element of want is in got (both sorted
// sets).
func subset(want, got []string) bool {
	for _, w := range want {
		if _, ok := slices.BinarySearch(got, w); !ok {
			return false
		}
	}
	return true
}
