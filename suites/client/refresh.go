package client

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	c "github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/scenario"
)

// The refresh token checks (CAUTH-017, CAUTH-018), 2026-07-28: SEP-2207's
// guidance for clients that want refresh tokens, exercised by
// auth/offline-access-scope (the authorization server offers
// offline_access) and auth/offline-access-not-supported (it does not).

// asksOffline reports whether an authorization request's scope asks for
// offline_access.
func asksOffline(h httpReq) bool {
	return slices.Contains(strings.Fields(h.u.Query().Get("scope")), scenario.OfflineAccess)
}

// modernAuthRuns are the 2026-07-28 authorization runs.
func modernAuthRuns(t *c.T) []*scenario.Run {
	return slices.DeleteFunc(authRuns(t), func(r *scenario.Run) bool { return r.Revision.IsLegacy() })
}

var _ = c.ClientArea("client", func() {
	c.It("CAUTH-017", "a client that asks for refresh tokens registers the refresh_token grant", func(t *c.T) {
		var bad findings
		judged := 0
		for _, r := range modernAuthRuns(t) {
			as := httpRequests(t, r, r.ASConn)
			desire := ""
			switch {
			case slices.ContainsFunc(authorizes(t, r), asksOffline):
				desire = "it asked for offline_access"
			case slices.ContainsFunc(as, func(h httpReq) bool {
				return scenario.IsToken(h.u.Path) && h.form().Get("grant_type") == "refresh_token"
			}):
				desire = "it used a refresh token"
			default:
				continue
			}
			for _, reg := range keepReqs(as, func(h httpReq) bool {
				return h.in.HTTP.Method == http.MethodPost && scenario.IsRegister(h.u.Path) && h.status == http.StatusCreated
			}) {
				judged++
				t.Judged(r)
				var meta struct {
					GrantTypes []string `json:"grant_types"`
				}
				_ = json.Unmarshal(reg.in.Raw, &meta)
				if !slices.Contains(meta.GrantTypes, "refresh_token") {
					bad.add(reg.msg(), fmt.Sprintf("scenario %s: %s, and its registration's grant_types are %q, without refresh_token", r.Scenario.Name, desire, meta.GrantTypes))
				}
			}
		}
		if judged == 0 {
			t.NA(notTried + "; or it showed no desire for refresh tokens (no offline_access asked, no refresh token used) in a run where it registered dynamically (2026-07-28)")
		}
		bad.report(t, "refresh_token among the grant_types of the registration of a client that wants refresh tokens")
	})

	c.It("CAUTH-018", "offline_access only where the authorization server offers it", func(t *c.T) {
		var bad findings
		judged := 0
		for _, r := range modernAuthRuns(t) {
			offered := slices.Contains(r.Auth.Spec.ASScopes, scenario.OfflineAccess)
			for _, az := range authorizes(t, r) {
				judged++
				t.Judged(r)
				if asksOffline(az) && !offered {
					listed := "lists no scopes_supported"
					if r.Auth.Spec.ASScopes != nil {
						listed = fmt.Sprintf("lists %q", r.Auth.Spec.ASScopes)
					}
					bad.add(az.msg(), fmt.Sprintf("scenario %s: the client asked for offline_access; the authorization server's metadata %s", r.Scenario.Name, listed))
				}
			}
		}
		if judged == 0 {
			t.NA(notTried + "; or it made no authorization request in a 2026-07-28 authorization scenario")
		}
		bad.report(t, "offline_access asked for only where the authorization server's metadata lists it in scopes_supported")
	})
})
