package client

import (
	"fmt"
	"net/http"
	"slices"

	c "github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/scenario"
)

// The metadata validation checks (CAUTH-011, CAUTH-012), 2026-07-28:
// auth/metadata-issuer-mismatch serves authorization server metadata whose
// issuer is not the one its URL was built from, auth/resource-mismatch
// protected resource metadata whose resource is not the MCP server. A
// client that fetched such a document must not use it; one that never
// fetched it is not judged.

// firstOK is the first of hs that isDoc accepts and got 200 (nil: none).
func firstOK(hs []httpReq, isDoc func(string) bool) *httpReq {
	for i, h := range hs {
		if h.in.HTTP.Method == http.MethodGet && isDoc(h.u.Path) && h.status == http.StatusOK {
			return &hs[i]
		}
	}
	return nil
}

var _ = c.ClientArea("client", func() {
	c.It("CAUTH-011", "authorization server metadata naming another issuer is not used", func(t *c.T) {
		var bad findings
		judged := 0
		for _, r := range authRuns(t) {
			if !r.Auth.Spec.IssuerMismatch {
				continue
			}
			as := httpRequests(t, r, r.ASConn)
			meta := firstOK(as, scenario.IsMetaPath)
			if meta == nil {
				continue
			}
			judged++
			t.Judged(r)
			for _, h := range as {
				if h.in.Seq > meta.in.Seq && scenario.IsFlowEndpoint(h.u.Path) {
					bad.add(h.msg(), fmt.Sprintf("scenario %s: the metadata at %s names issuer %q, not %q, the issuer its URL was built from; the client used it (%s %s)",
						r.Scenario.Name, r.Auth.AS+meta.u.Path, r.Auth.ServedIssuer, r.Auth.Issuer, h.in.HTTP.Method, h.u.Path))
					break
				}
			}
		}
		if judged == 0 {
			t.NA(notTried + "; or it never fetched the authorization server's metadata in auth/metadata-issuer-mismatch")
		}
		bad.report(t, "no request to the endpoints of metadata whose issuer differs from the one its URL was built from")
	})

	c.It("CAUTH-012", "protected resource metadata naming another resource is not used", func(t *c.T) {
		var bad findings
		judged := 0
		for _, r := range authRuns(t) {
			if !r.Auth.Spec.ResourceMismatch {
				continue
			}
			prm := firstOK(httpRequests(t, r, r.AuthConn), scenario.IsPRMPath)
			if prm == nil {
				continue
			}
			judged++
			t.Judged(r)
			var used []httpReq
			for _, h := range httpRequests(t, r, r.ASConn) {
				if h.in.Seq > prm.in.Seq {
					used = append(used, h)
				}
			}
			if len(used) == 0 {
				continue
			}
			how := "it made no registration, authorization or token request there"
			if i := slices.IndexFunc(used, func(h httpReq) bool { return scenario.IsFlowEndpoint(h.u.Path) }); i >= 0 {
				how = fmt.Sprintf("and went on to %s %s", used[i].in.HTTP.Method, used[i].u.Path)
			}
			bad.add(used[0].msg(), fmt.Sprintf("scenario %s: the protected resource metadata at %s names resource %q, not the MCP server %s; the client used the authorization server it names (%s %s; %s)",
				r.Scenario.Name, r.Auth.Origin+prm.u.Path, r.Auth.ServedResource, r.Auth.Resource, used[0].in.HTTP.Method, used[0].u.Path, how))
		}
		if judged == 0 {
			t.NA(notTried + "; or it never fetched the protected resource metadata in auth/resource-mismatch")
		}
		bad.report(t, "no request to the authorization server of metadata whose resource is not the MCP server")
	})
})
