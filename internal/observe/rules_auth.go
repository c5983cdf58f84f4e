package observe

import (
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/internal/catalog"
	"github.com/mcpconform/mcpconform/internal/wwwauth"
)

// The run-wide authorization rules: every 401 and 403 of an MCP exchange
// of the run, whichever check provoked it (a bad token, a later request
// without one, a weaker token), carries the challenge the AUTH
// requirements ask of the one the AUTH checks provoke themselves.

// bearerParams returns the auth-params of each Bearer challenge of the
// WWW-Authenticate values, read as the AUTH checks' own probes read them.
func bearerParams(values []string) []map[string]string {
	var out []map[string]string
	for _, ch := range wwwauth.Bearer(values) {
		out = append(out, ch.Params)
	}
	return out
}

// challenges returns the Bearer challenges of a 401 or 403 reply of an MCP
// exchange; ok is false for any other frame, and for the later frames of an
// exchange whose reply was judged already (computed once per event for the
// three rules).
func challenges(e *event) (status int, chs []map[string]string, ok bool) {
	if !e.auth.done {
		e.auth.done = true
		f := e.f
		st := e.c.streams[f.Exchange]
		if f.HTTP != nil && (f.HTTP.Status == http.StatusUnauthorized || f.HTTP.Status == http.StatusForbidden) && st != nil && !st.authJudged {
			st.authJudged = true
			e.auth.ok, e.auth.status = true, f.HTTP.Status
			e.auth.chs = bearerParams(f.HTTP.Header.Values("WWW-Authenticate"))
		}
	}
	return e.auth.status, e.auth.chs, e.auth.ok
}

func (e *event) what() string {
	switch {
	case e.req != nil:
		return "the POSTed " + e.req.method
	case e.posted != nil:
		return "the POSTed " + e.posted.method
	}
	return "a request"
}

// AUTH-003: a 401 challenge's resource_metadata is an absolute http(s)
// URL; in 2025-06-18 (no well-known fallback) it must be there.
func auth003(e *event) {
	status, chs, ok := challenges(e)
	if !ok || status != http.StatusUnauthorized {
		return
	}
	var rm string
	for _, ch := range chs {
		if rm = ch["resource_metadata"]; rm != "" {
			break
		}
	}
	if rm != "" {
		if u, err := url.Parse(rm); err != nil || !u.IsAbs() || u.Scheme != "https" && u.Scheme != "http" || u.Host == "" {
			e.violate("AUTH-003", false, "the 401 answering %s names resource_metadata %q, not an absolute http(s) URL", e.what(), rm)
		}
	} else if e.rev == catalog.R20250618 {
		e.violate("AUTH-003", false, "the 401 answering %s carries no WWW-Authenticate Bearer resource_metadata (2025-06-18 has no well-known fallback)", e.what())
	}
}

// AUTH-004: a 401 challenge names a scope (SHOULD).
func auth004(e *event) {
	status, chs, ok := challenges(e)
	if !ok || status != http.StatusUnauthorized {
		return
	}
	for _, ch := range chs {
		if strings.TrimSpace(ch["scope"]) != "" {
			return
		}
	}
	e.violate("AUTH-004", false, "the 401 challenge answering %s names no scope (WWW-Authenticate: %s)", e.what(), clip([]byte(strings.Join(e.f.HTTP.Header.Values("WWW-Authenticate"), " | "))))
}

// AUTH-009: no 401 or 403 challenge offers offline_access in its scope
// (SHOULD NOT).
func auth009(e *event) {
	status, chs, ok := challenges(e)
	if !ok {
		return
	}
	for _, ch := range chs {
		if slices.Contains(strings.Fields(ch["scope"]), "offline_access") {
			e.violate("AUTH-009", false, "the %d challenge answering %s offers offline_access in its scope %q", status, e.what(), ch["scope"])
			return
		}
	}
}
