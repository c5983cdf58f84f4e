package client

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	c "github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/scenario"
	"github.com/mcpconform/mcpconform/internal/wire"
)

// The authorization checks (CAUTH): each reads what the client did in the
// authorization scenarios (internal/scenario/auth.go) — the requests that
// got 401 and the resource metadata it fetched (the run's AuthConn), its
// exchanges with the mock authorization server (ASConn), its MCP requests
// once it held a token (Conn) — against the URLs and parameters the run
// served. Authorization is OPTIONAL: a client that did not try to
// authorize in any run is not applicable, with that reason.

// httpReq is one HTTP request of the client and the reply it got.
type httpReq struct {
	in     wire.Frame
	status int // the reply's status (0: none recorded)
	header http.Header
	u      *url.URL // the request URI (path and query)
}

func (h httpReq) msg() msg { return msg{F: h.in} }

// form decodes a request body of application/x-www-form-urlencoded.
func (h httpReq) form() url.Values {
	v, _ := url.ParseQuery(string(h.in.Raw))
	return v
}

// httpRequests lists the client's requests on conn during r, with their
// replies.
func httpRequests(t *c.T, r *scenario.Run, conn string) []httpReq {
	var out []httpReq
	replies := map[int64]wire.Frame{}
	frames := t.Env.Recorder().OnConn(r.From, conn)
	for _, f := range frames {
		if f.Seq <= r.To && f.Dir == wire.Out && f.HTTP != nil && f.HTTP.Status != 0 {
			if _, ok := replies[f.Exchange]; !ok {
				replies[f.Exchange] = f
			}
		}
	}
	for _, f := range frames {
		if f.Seq > r.To || f.Dir != wire.In || f.HTTP == nil || f.HTTP.Method == "" {
			continue
		}
		u, err := url.ParseRequestURI(f.HTTP.URL)
		if err != nil {
			continue
		}
		h := httpReq{in: f, u: u}
		if rep, ok := replies[f.Exchange]; ok {
			h.status, h.header = rep.HTTP.Status, rep.HTTP.Header
		}
		out = append(out, h)
	}
	return out
}

// authRuns are the runs of the authorization scenarios.
func authRuns(t *c.T) []*scenario.Run {
	var out []*scenario.Run
	for _, r := range t.Runs(func(s *scenario.Scenario) bool { return s.IsAuth() }) {
		if r.Auth != nil {
			out = append(out, r)
		}
	}
	return out
}

// authorizes are the client's authorization requests of r; tokens its
// token requests for an authorization code.
func authorizes(t *c.T, r *scenario.Run) []httpReq {
	return keepReqs(httpRequests(t, r, r.ASConn), func(h httpReq) bool {
		return h.in.HTTP.Method == http.MethodGet && scenario.IsAuthorize(h.u.Path)
	})
}

func tokenRequests(t *c.T, r *scenario.Run) []httpReq {
	return keepReqs(httpRequests(t, r, r.ASConn), func(h httpReq) bool {
		return h.in.HTTP.Method == http.MethodPost && scenario.IsToken(h.u.Path) && h.form().Get("grant_type") == "authorization_code"
	})
}

func keepReqs(hs []httpReq, keep func(httpReq) bool) []httpReq {
	var out []httpReq
	for _, h := range hs {
		if keep(h) {
			out = append(out, h)
		}
	}
	return out
}

// discovery judges the first discovery of a run: the client's GETs
// (of which isMeta tells the metadata fetches) up to the first one
// answered 200 must be want's URLs in order (origin prefixes a path).
// It returns whether the client fetched any metadata.
func discovery(hs []httpReq, isMeta func(string) bool, origin string, want []string, bad *findings, what string) bool {
	n := 0
	for _, h := range hs {
		if h.in.HTTP.Method != http.MethodGet || !isMeta(h.u.Path) {
			continue
		}
		got := origin + h.u.Path
		if n >= len(want) || got != want[n] {
			exp := "nothing more (every URI it should try was tried)"
			if n < len(want) {
				exp = want[n]
			}
			bad.add(h.msg(), fmt.Sprintf("the client's %s request #%d was %s; the spec's order asks for %s (in order: %s)", what, n+1, got, exp, strings.Join(want, ", ")))
			return true
		}
		n++
		if h.status == http.StatusOK {
			break
		}
	}
	return n > 0
}

// pkceChallenge is the S256 challenge of verifier (RFC 7636).
func pkceChallenge(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// codeOf is the authorization code the reply to an authorization request
// redirected with ("" when none).
func codeOf(h httpReq) string {
	if h.header == nil {
		return ""
	}
	loc, err := url.Parse(h.header.Get("Location"))
	if err != nil {
		return ""
	}
	return loc.Query().Get("code")
}

// withoutScope is a space-separated scope without one of its scopes.
func withoutScope(scope, drop string) string {
	return strings.Join(slices.DeleteFunc(strings.Fields(scope), func(s string) bool { return s == drop }), " ")
}

// scopeSet is a space-separated scope as a sorted set.
func scopeSet(s string) []string {
	f := strings.Fields(s)
	slices.Sort(f)
	return slices.Compact(f)
}

// knowsAS reports whether the client got the authorization server's
// metadata in r (what it offers: registration, metadata documents).
func knowsAS(t *c.T, r *scenario.Run) bool {
	return slices.ContainsFunc(httpRequests(t, r, r.ASConn), func(h httpReq) bool {
		return scenario.IsMetaPath(h.u.Path) && h.status == http.StatusOK
	})
}

const notTried = "the client did not try to authorize in any authorization scenario (it fetched no metadata and never reached the authorization server): authorization is OPTIONAL"

var _ = c.ClientArea("client", func() {
	c.It("CAUTH-001", "resource metadata: the challenge's URL, else the well-known URIs in order", func(t *c.T) {
		var bad findings
		judged := 0
		for _, r := range authRuns(t) {
			want := r.Auth.PRMOrder
			if r.Auth.ChallengePRM != "" {
				want = []string{r.Auth.ChallengePRM}
			}
			fetched := discovery(httpRequests(t, r, r.AuthConn), scenario.IsPRMPath, r.Auth.Origin, want, &bad, "protected resource metadata")
			as := httpRequests(t, r, r.ASConn)
			switch {
			case fetched:
				judged++
				t.Judged(r)
			case len(as) > 0:
				judged++
				t.Judged(r)
				bad.add(as[0].msg(), fmt.Sprintf("scenario %s: the client went to the authorization server without fetching the protected resource metadata, which MCP clients must use to find it", r.Scenario.Name))
			}
		}
		if judged == 0 {
			t.NA(notTried)
		}
		bad.report(t, "the resource_metadata URL of the challenge when it names one, else the path-based well-known URI, then the root one")
	})

	c.It("CAUTH-002", "authorization server metadata: the well-known endpoints in the prescribed order", func(t *c.T) {
		var bad findings
		judged := 0
		for _, r := range authRuns(t) {
			as := httpRequests(t, r, r.ASConn)
			if discovery(as, scenario.IsMetaPath, r.Auth.AS, r.Auth.MetaOrder, &bad, "authorization server metadata") {
				judged++
				t.Judged(r)
				continue
			}
			if az := authorizes(t, r); len(az) > 0 {
				judged++
				t.Judged(r)
				bad.add(az[0].msg(), fmt.Sprintf("scenario %s: the client authorized without fetching the authorization server's metadata", r.Scenario.Name))
			}
		}
		if judged == 0 {
			t.NA(notTried + "; or it never found the authorization server (CAUTH-001)")
		}
		bad.report(t, "the metadata endpoints tried in the spec's order for the issuer")
	})

	c.It("CAUTH-003", "PKCE with S256: the token request's verifier matches the challenge", func(t *c.T) {
		var bad findings
		judged := 0
		for _, r := range authRuns(t) {
			challenges := map[string]string{} // code → challenge
			for _, a := range authorizes(t, r) {
				judged++
				t.Judged(r)
				q := a.u.Query()
				ch, method := q.Get("code_challenge"), q.Get("code_challenge_method")
				switch {
				case ch == "":
					bad.add(a.msg(), fmt.Sprintf("scenario %s: the authorization request has no code_challenge", r.Scenario.Name))
					continue
				case method != "S256":
					bad.add(a.msg(), fmt.Sprintf("scenario %s: the authorization request's code_challenge_method is %q; the server supports S256, which clients must use", r.Scenario.Name, method))
				}
				if code := codeOf(a); code != "" {
					challenges[code] = ch
				}
			}
			for _, tr := range tokenRequests(t, r) {
				f := tr.form()
				ch, ok := challenges[f.Get("code")]
				if !ok {
					continue
				}
				if v := f.Get("code_verifier"); v == "" {
					bad.add(tr.msg(), fmt.Sprintf("scenario %s: the token request has no code_verifier", r.Scenario.Name))
				} else if pkceChallenge(v) != ch {
					bad.add(tr.msg(), fmt.Sprintf("scenario %s: the token request's code_verifier does not hash (S256) to the authorization request's code_challenge", r.Scenario.Name))
				}
			}
		}
		if judged == 0 {
			t.NA(notTried + "; or it made no authorization request")
		}
		bad.report(t, "code_challenge with code_challenge_method=S256, and the matching code_verifier in the token request")
	})

	c.It("CAUTH-004", "the resource parameter names the MCP server in authorization and token requests", func(t *c.T) {
		var bad findings
		judged := 0
		for _, r := range authRuns(t) {
			check := func(h httpReq, what string, v url.Values) {
				judged++
				t.Judged(r)
				res, ok := v["resource"]
				switch {
				case !ok || len(res) == 0 || res[0] == "":
					bad.add(h.msg(), fmt.Sprintf("scenario %s: the %s has no resource parameter", r.Scenario.Name, what))
				case !sameResource(res[0], r.Auth.Resource) && !sameResource(res[0], r.Auth.MCPURL):
					bad.add(h.msg(), fmt.Sprintf("scenario %s: the %s names resource %q; the MCP server is %s (its metadata's resource: %s)", r.Scenario.Name, what, res[0], r.Auth.MCPURL, r.Auth.Resource))
				case res[0] != r.Auth.Resource && res[0] != r.Auth.MCPURL:
					t.Note("scenario %s: the %s names resource %q, not the canonical %s (the spec asks for the form without a trailing slash)", r.Scenario.Name, what, res[0], r.Auth.Resource)
				}
			}
			for _, a := range authorizes(t, r) {
				check(a, "authorization request", a.u.Query())
			}
			for _, tr := range tokenRequests(t, r) {
				check(tr, "token request", tr.form())
			}
		}
		if judged == 0 {
			t.NA(notTried + "; or it made no authorization or token request")
		}
		bad.report(t, "resource=<the MCP server's URI> in every authorization and token request")
	})

	c.It("CAUTH-005", "the access token in the Authorization header of every request, never the query", func(t *c.T) {
		var bad findings
		judged := 0
		for _, r := range authRuns(t) {
			var issuedAt int64 = -1 // the first token the client got
			for _, tr := range tokenRequests(t, r) {
				if tr.status == http.StatusOK {
					issuedAt = tr.in.Seq
					break
				}
			}
			if issuedAt < 0 {
				continue
			}
			judged++
			t.Judged(r)
			var reqs []httpReq
			for _, conn := range append(append([]string{}, r.Conns...), r.AuthConn) {
				reqs = append(reqs, httpRequests(t, r, conn)...)
			}
			for _, h := range reqs {
				if h.in.Seq < issuedAt || scenario.IsPRMPath(h.u.Path) {
					continue
				}
				switch {
				case h.u.Query().Has("access_token"):
					bad.add(h.msg(), fmt.Sprintf("scenario %s: the client put the access token in the URI query (access_token)", r.Scenario.Name))
				case !strings.HasPrefix(h.in.HTTP.Header.Get("Authorization"), "Bearer "):
					bad.add(h.msg(), fmt.Sprintf("scenario %s: a %s request to the MCP server after the client got its token has no Authorization: Bearer header", r.Scenario.Name, h.in.HTTP.Method))
				}
			}
		}
		if judged == 0 {
			t.NA(notTried + "; or it never got a token")
		}
		bad.report(t, "Authorization: Bearer <token> on every request once the client holds a token; no token in the query")
	})

	c.It("CAUTH-006", "scope: the challenge's, else scopes_supported, else none", func(t *c.T) {
		var bad findings
		judged := 0
		for _, r := range authRuns(t) {
			a := r.Auth.Spec
			want, source := "", "neither the challenge nor the metadata defines a scope: scope omitted"
			switch {
			case a.ChallengeScope != "":
				want, source = a.ChallengeScope, "the 401 challenge's scope"
			case a.Scopes != nil:
				want, source = strings.Join(a.Scopes, " "), "the metadata's scopes_supported"
			}
			// the first authorization; after a 403 insufficient_scope the
			// step-up's scope is CAUTH-009's
			initial, _ := splitAt(authorizes(t, r), forbiddens(t, r))
			for _, az := range initial {
				judged++
				t.Judged(r)
				q := az.u.Query()
				got, has := q.Get("scope"), q.Has("scope")
				if !r.Revision.IsLegacy() {
					got = withoutScope(got, scenario.OfflineAccess) // CAUTH-018's
					has = has && got != ""
				}
				switch {
				case want == "" && has && got != "":
					bad.add(az.msg(), fmt.Sprintf("scenario %s: the client asked for scope %q; %s", r.Scenario.Name, got, source))
				case want != "" && !slices.Equal(scopeSet(got), scopeSet(want)):
					bad.add(az.msg(), fmt.Sprintf("scenario %s: the client asked for scope %q; expected %q (%s)", r.Scenario.Name, got, want, source))
				}
			}
		}
		if judged == 0 {
			t.NA(notTried + "; or it made no authorization request")
		}
		bad.report(t, "the scope of the challenge, else every scope of scopes_supported, else no scope")
	})

	c.It("CAUTH-007", "static client credentials are used when the client is given them", func(t *c.T) {
		var bad findings
		judged := 0
		for _, r := range authRuns(t) {
			az := authorizes(t, r)
			// no authorization request while the client was still running
			// at the deadline: it may wait for a user agent to follow the
			// authorization URL it opened (a browser), which would show
			// the client_id; only a client that ended by itself without
			// one is judged
			if !r.Auth.Spec.Prereg || !knowsAS(t, r) || len(az) == 0 && r.Stopped {
				continue
			}
			judged++
			t.Judged(r)
			if !slices.ContainsFunc(az, func(h httpReq) bool { return h.u.Query().Get("client_id") == scenario.PreregID }) {
				// the evidence: its last request to the authorization
				// server (knowsAS: one exists)
				hs := httpRequests(t, r, r.ASConn)
				ev := hs[len(hs)-1].msg()
				bad.add(ev, fmt.Sprintf("scenario %s: the client was given client_id %q (MCP_CONFORMANCE_CONTEXT) and the authorization server offers no registration, but it never authorized with that client_id", r.Scenario.Name, scenario.PreregID))
			}
		}
		if judged == 0 {
			t.NA(notTried + "; or it never got the authorization server's metadata in the pre-registration scenario, or it was still waiting (for a browser?) at the deadline without an authorization request")
		}
		bad.report(t, "the authorization request names the pre-registered client_id")
	})

	c.It("CAUTH-008", "a client ID metadata document where the server supports them", func(t *c.T) {
		var bad findings
		judged := 0
		for _, r := range authRuns(t) {
			if !r.Auth.Spec.CIMD || !knowsAS(t, r) {
				continue
			}
			as := httpRequests(t, r, r.ASConn)
			reg := keepReqs(as, func(h httpReq) bool { return h.in.HTTP.Method == http.MethodPost && scenario.IsRegister(h.u.Path) })
			az := authorizes(t, r)
			if len(reg) == 0 && len(az) == 0 {
				continue
			}
			judged++
			t.Judged(r)
			if len(reg) > 0 {
				bad.add(reg[0].msg(), fmt.Sprintf("scenario %s: the authorization server advertises client_id_metadata_document_supported, and the client registered dynamically", r.Scenario.Name))
				continue
			}
			for _, a := range az {
				id := a.u.Query().Get("client_id")
				if u, err := url.Parse(id); err != nil || u.Scheme != "https" || u.Path == "" || u.Path == "/" {
					bad.add(a.msg(), fmt.Sprintf("scenario %s: the client_id %q is not an https URL with a path (a client ID metadata document)", r.Scenario.Name, id))
				}
			}
		}
		if judged == 0 {
			t.NA(notTried + "; or it neither registered nor authorized where the server supports metadata documents")
		}
		bad.report(t, "an https client_id URL (a metadata document) instead of dynamic registration")
	})
})

// sameResource reports whether a resource parameter names the MCP server
// at want: the same URI, ignoring the case of scheme and host and a
// trailing slash.
func sameResource(got, want string) bool {
	g, err1 := url.Parse(got)
	w, err2 := url.Parse(want)
	if err1 != nil || err2 != nil || g.Fragment != "" {
		return false
	}
	return strings.EqualFold(g.Scheme, w.Scheme) && strings.EqualFold(g.Host, w.Host) &&
		strings.TrimSuffix(g.Path, "/") == strings.TrimSuffix(w.Path, "/") && g.RawQuery == w.RawQuery
}
