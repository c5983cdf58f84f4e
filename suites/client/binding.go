package client

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	c "github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/scenario"
)

// The authorization server binding check (CAUTH-016), 2026-07-28:
// auth/authorization-server-migration moves the protected resource
// metadata to a second authorization server once the client made an
// authorized request; the client must re-register there, not reuse the
// first one's client credentials. The mock servers record which server
// registered each client_id and judge the Basic credentials, which the
// recorded traffic shows redacted.

var _ = c.ClientArea("client", func() {
	c.It("CAUTH-016", "a new authorization server gets a new registration, not the old credentials", func(t *c.T) {
		var bad findings
		judged := 0
		for _, r := range authRuns(t) {
			if !r.Auth.Spec.Migrate || r.AS2Conn == "" {
				continue
			}
			as2 := httpRequests(t, r, r.AS2Conn)
			flow := keepReqs(as2, func(h httpReq) bool {
				return scenario.IsAuthorize(h.u.Path) || scenario.IsToken(h.u.Path) && h.in.HTTP.Method == http.MethodPost
			})
			if len(flow) == 0 {
				continue // it never went on to the new server's endpoints
			}
			judged++
			if reused := r.Auth.Reused(); len(reused) > 0 {
				bad.add(flow[0].msg(), fmt.Sprintf("scenario %s: the protected resource metadata named the new authorization server %s; at it, %s", r.Scenario.Name, r.Auth.AS2, strings.Join(reused, "; ")))
				continue
			}
			registered := len(keepReqs(as2, func(h httpReq) bool {
				return h.in.HTTP.Method == http.MethodPost && scenario.IsRegister(h.u.Path) && h.status == http.StatusCreated
			})) > 0
			for _, h := range flow {
				id := h.u.Query().Get("client_id")
				if id == "" {
					id = h.form().Get("client_id")
				}
				if u, err := url.Parse(id); registered || id == "" || err == nil && u.Scheme == "https" {
					continue // registered there, credentials only in a Basic header, or a portable metadata document URL
				}
				bad.add(h.msg(), fmt.Sprintf("scenario %s: at the new authorization server %s the client used client_id %q without registering there", r.Scenario.Name, r.Auth.AS2, id))
				break
			}
		}
		if judged == 0 {
			t.NA(notTried + "; or it never went on to the new authorization server's endpoints in auth/authorization-server-migration (2026-07-28)")
		}
		bad.report(t, "a registration with the new authorization server, and none of the old one's client credentials there")
	})
})
