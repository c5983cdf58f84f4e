package client

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"

	c "github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/scenario"
	"github.com/mcpconform/mcpconform/internal/wire"
)

// The registration checks of 2026-07-28: the application_type of every
// dynamic registration (CAUTH-019), and the authorization server binding
// (CAUTH-016):
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
			t.Judged(r)
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

	c.It("CAUTH-019", "dynamic registration names an application_type", func(t *c.T) {
		var bad, warn findings
		judged := 0
		for _, r := range modernAuthRuns(t) {
			conns := []string{r.ASConn}
			if r.AS2Conn != "" {
				conns = append(conns, r.AS2Conn)
			}
			for _, conn := range conns {
				for _, reg := range keepReqs(httpRequests(t, r, conn), func(h httpReq) bool {
					return h.in.HTTP.Method == http.MethodPost && scenario.IsRegister(h.u.Path)
				}) {
					judged++
					t.Judged(r)
					var meta struct {
						ApplicationType string   `json:"application_type"`
						RedirectURIs    []string `json:"redirect_uris"`
					}
					_ = json.Unmarshal(reg.in.Raw, &meta)
					switch {
					case meta.ApplicationType == "":
						bad.add(reg.msg(), fmt.Sprintf("scenario %s: the registration request names no application_type (redirect_uris %q)", r.Scenario.Name, meta.RedirectURIs))
					case meta.ApplicationType == "web" && len(meta.RedirectURIs) > 0 && allLoopback(meta.RedirectURIs):
						warn.add(reg.msg(), fmt.Sprintf("scenario %s: application_type \"web\" with redirect URIs all on loopback (%q): a native application should say \"native\"", r.Scenario.Name, meta.RedirectURIs))
					}
				}
			}
		}
		if judged == 0 {
			t.NA(notTried + "; or it registered dynamically in no 2026-07-28 authorization scenario")
		}
		bad.report(t, "an application_type in every dynamic registration request")
		warn.warn(t)
	})
})

// allLoopback reports whether every URI is on a loopback host.
func allLoopback(uris []string) bool {
	for _, raw := range uris {
		u, err := url.Parse(raw)
		if err != nil {
			return false
		}
		h := u.Hostname()
		if ip := net.ParseIP(h); h != "localhost" && (ip == nil || !ip.IsLoopback()) {
			return false
		}
	}
	return true
}

var _ = c.ClientArea("client", func() {
	c.It("CAUTH-020", "the client sends the MCP server only tokens its authorization server issued", func(t *c.T) {
		var foreign []wire.Frame
		judged := 0
		for _, r := range authRuns(t) {
			presented := false
			for _, conn := range append(append([]string{}, r.Conns...), r.AuthConn) {
				for _, h := range httpRequests(t, r, conn) {
					if strings.HasPrefix(h.in.HTTP.Header.Get("Authorization"), "Bearer ") {
						presented = true
					}
				}
			}
			if !presented {
				continue
			}
			judged++
			t.Judged(r)
			foreign = append(foreign, notes(t, r, r.AuthConn, scenario.ForeignTokenNote)...)
		}
		if judged == 0 {
			t.NA(notTried + "; or it presented no bearer token to the MCP server")
		}
		if len(foreign) > 0 {
			t.Evidence(foreign...)
			t.Violation("only bearer tokens the run's authorization server issued", foreign[0].Note,
				"the client presented the MCP server a bearer token that no authorization server of the run issued (%d request(s)): one left over from another server, or made up", len(foreign))
		}
	})
})
