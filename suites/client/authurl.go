package client

import (
	"net/http"
	"strings"

	c "github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/scenario"
	"github.com/mcpconform/mcpconform/internal/wire"
)

// browserNote starts the note the harness's browser records for each URL
// a client opens (internal/scenario/browser.go).
const browserNote = "the client opened a browser (BROWSER): "

var _ = c.ClientArea("client", func() {
	c.It("CAUTH-021", "an authorization URL of a dangerous scheme is rejected, never opened", func(t *c.T) {
		var opened []wire.Frame
		judged := 0
		for _, r := range authRuns(t) {
			bad := r.Auth.Spec.AuthorizeURL
			if bad == "" {
				continue
			}
			// the client read the metadata that names it
			if len(keepReqs(httpRequests(t, r, r.ASConn), func(h httpReq) bool {
				return h.in.HTTP.Method == http.MethodGet && scenario.IsMetaPath(h.u.Path) && h.status == http.StatusOK
			})) == 0 {
				continue
			}
			judged++
			t.Judged(r)
			scheme, _, _ := strings.Cut(bad, ":")
			opened = append(opened, notes(t, r, r.Conn, browserNote, scheme+":")...)
		}
		if judged == 0 {
			t.NA(notTried + "; or it never read the authorization server metadata of auth/authorization-url-javascript or -file")
		}
		if len(opened) > 0 {
			t.Evidence(opened...)
			t.Violation("the authorization URL rejected (only http and https are allowed)", opened[0].Note,
				"the client opened an authorization URL of a dangerous scheme in a browser instead of rejecting it")
		}
	})
})
