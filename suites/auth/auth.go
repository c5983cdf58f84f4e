package auth

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/internal/catalog"
	c "github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/jsonrpc"
	"github.com/mcpconform/mcpconform/internal/session"
	"github.com/mcpconform/mcpconform/internal/wire"
	"github.com/mcpconform/mcpconform/internal/wire/streamhttp"
)

// The authorization checks: the server as an OAuth resource server over
// Streamable HTTP. Every check first decides whether the server is
// protected (requireProtected) and is NA otherwise. Requests the harness
// can make itself (no token, malformed, random) need nothing; the others
// need tokens only the user can give: the main one (--bearer-env), a
// weaker one (--weak-bearer-env), an expired one (--expired-bearer-env),
// one for another audience (--foreign-bearer-env). Each negative request
// differs from a valid one in its credential only (TOL-1).

var _ = c.Area("auth", func() {
	c.It("AUTH-001", "a protected server publishes RFC 9728 protected resource metadata with resource and authorization_servers", func(t *c.T) {
		p := requireProtected(t)
		var tried []string
		var urls []string
		var offOrigin string
		for _, ch := range bearerChallenges(p.noToken) {
			if rm := ch.Params["resource_metadata"]; rm != "" {
				if sameOrigin(t, rm) {
					urls = append(urls, rm)
				} else {
					offOrigin = rm
					t.Note("the challenge's resource_metadata %q is not an absolute URL on the server's origin; not fetched", rm)
				}
			}
		}
		urls = append(urls, wellKnownPRM(t)...)
		for _, u := range urls {
			st, _, body := fetch(t, http.MethodGet, u, nil)
			tried = append(tried, fmt.Sprintf("%s → %d", u, st))
			if st != http.StatusOK || !isJSONObject(body) {
				continue
			}
			var doc map[string]json.RawMessage
			_ = json.Unmarshal(body, &doc)
			var resource string
			_ = json.Unmarshal(doc["resource"], &resource)
			var servers []string
			serversOK := json.Unmarshal(doc["authorization_servers"], &servers) == nil && len(servers) > 0 && !slices.Contains(servers, "")
			t.Check(resource != "" && serversOK,
				`a JSON object with "resource" (a string) and "authorization_servers" (a non-empty array of URLs)`, c.Clip(body),
				"the protected resource metadata at %s lacks resource or a non-empty authorization_servers", u)
			if !strings.EqualFold(strings.TrimSuffix(resource, "/"), strings.TrimSuffix(t.Env.Target.URL, "/")) {
				t.Note("resource %q differs from the endpoint URL %s", resource, t.Env.Target.URL)
			}
			return
		}
		if u, err := url.Parse(offOrigin); err == nil && u.IsAbs() {
			t.NA("the challenge names metadata on another origin (%s), which the suite does not fetch, and none is served on the server's origin (%s)", offOrigin, strings.Join(tried, "; "))
		}
		t.Violation("an RFC 9728 document (200, JSON) via resource_metadata or a well-known URI", strings.Join(tried, "; "),
			"no protected resource metadata was found")
	})

	c.It("AUTH-002", "a request without a token, or with a malformed, random, badly signed or expired one, gets 401", func(t *c.T) {
		p := requireProtected(t)
		type probe struct {
			what, authz string
			malformed   bool
		}
		probes := []probe{
			{what: "a request with a random token", authz: "Bearer " + randomToken()},
			{what: `"Authorization: Bearer" without a token`, authz: "Bearer", malformed: true},
			{what: "a token with characters a bearer token cannot hold", authz: "Bearer ~~not(a)token~~", malformed: true},
		}
		tg := t.Env.Target
		for _, tok := range []string{tg.Bearer, tg.WeakBearer, tg.SecondBearer} {
			if bad, ok := tamper(tok); ok {
				t.Env.Recorder().Redactor().AddSecret(bad)
				probes = append(probes, probe{what: "a configured token with its signature altered", authz: "Bearer " + bad})
				break
			}
		}
		if tg.ExpiredBearer != "" {
			probes = append(probes, probe{what: "the expired token (" + tg.ExpiredBearerSource + ")", authz: "Bearer " + tg.ExpiredBearer})
		} else {
			t.Note("no expired token was given: give one with --expired-bearer-env NAME or --expired-bearer-file PATH to check that it is refused")
		}
		var bad []string
		if !p.challenged {
			bad = append(bad, "a request without Authorization → "+describeChallenge(p.noToken))
			if p.noToken.Status() != http.StatusUnauthorized {
				t.StatusClaim(p.noToken, http.StatusUnauthorized)
			}
		}
		for _, pr := range probes {
			resp := probeWith(t, pr.authz, "bad-token")
			switch st := resp.Status(); {
			case st == http.StatusUnauthorized:
			case st == http.StatusBadRequest && pr.malformed:
				t.Warn("%s got 400 (RFC 6750 invalid_request) rather than 401", pr.what)
			default:
				bad = append(bad, pr.what+" → "+describeChallenge(resp))
			}
		}
		if len(bad) > 0 {
			t.Violation("401 for every request without a valid token", strings.Join(bad, "; "), "a request without a valid token was not answered 401")
		}
	})

	c.It("AUTH-003", "the 401 names the protected resource metadata (resource_metadata, or a well-known URI from 2025-11-25)", func(t *c.T) {
		p := requireProtected(t)
		if !p.challenged {
			t.NA("the request without a token was not answered 401 (AUTH-002 judges that): no challenge to inspect")
		}
		chs := bearerChallenges(p.noToken)
		var rm string
		for _, ch := range chs {
			if v := ch.Params["resource_metadata"]; v != "" {
				rm = v
				break
			}
		}
		if rm != "" {
			u, err := url.Parse(rm)
			t.Check(err == nil && u.IsAbs() && (u.Scheme == "https" || u.Scheme == "http") && u.Host != "",
				"resource_metadata: an absolute http(s) URL", rm, "the challenge's resource_metadata is not an absolute URL")
			if !sameOrigin(t, rm) {
				t.Note("resource_metadata %s is on another origin; not fetched", rm)
				return
			}
			st, _, body := fetch(t, http.MethodGet, rm, nil)
			t.Check(st == http.StatusOK && isJSONObject(body), "200 with a JSON object at "+rm,
				fmt.Sprintf("%d: %s", st, c.Clip(body)), "the resource_metadata URL of the 401 challenge does not serve the metadata")
			return
		}
		if t.Rev < catalog.R20251125 {
			t.Violation(`WWW-Authenticate: Bearer resource_metadata="<absolute URL>" on 401`, describeChallenge(p.noToken),
				"the 401 does not name the protected resource metadata")
		}
		var tried []string
		for _, u := range wellKnownPRM(t) {
			st, _, body := fetch(t, http.MethodGet, u, nil)
			if st == http.StatusOK && isJSONObject(body) {
				t.Note("no resource_metadata in the challenge; the metadata is served at the well-known URI %s", u)
				if len(chs) == 0 {
					t.Warn("the 401 carries no WWW-Authenticate Bearer challenge (RFC 9110 requires WWW-Authenticate on 401)")
				}
				return
			}
			tried = append(tried, fmt.Sprintf("%s → %d", u, st))
		}
		t.Violation("resource_metadata in the 401 challenge, or the metadata (200, JSON) at a well-known URI", describeChallenge(p.noToken)+"; "+strings.Join(tried, "; "),
			"neither mechanism points a client to the protected resource metadata")
	})

	c.It("AUTH-004", "the 401 challenge includes scope", func(t *c.T) {
		p := requireProtected(t)
		if !p.challenged {
			t.NA("the request without a token was not answered 401 (AUTH-002 judges that): no challenge to inspect")
		}
		for _, ch := range bearerChallenges(p.noToken) {
			if strings.TrimSpace(ch.Params["scope"]) != "" {
				return
			}
		}
		t.Violation(`WWW-Authenticate: Bearer ... scope="..."`, describeChallenge(p.noToken), "the 401 challenge names no scope")
	})

	c.It("AUTH-005", "a valid token issued for another audience gets 401", func(t *c.T) {
		requireProtected(t)
		tg := t.Env.Target
		if tg.ForeignBearer == "" {
			t.NA("needs a valid token issued for another audience or resource: give one with --foreign-bearer-env NAME or --foreign-bearer-file PATH")
		}
		resp := probeWith(t, "Bearer "+tg.ForeignBearer, "foreign")
		t.Check(resp.Status() == http.StatusUnauthorized, "401", describeChallenge(resp),
			"a token issued for another audience (%s) was not refused with 401", tg.ForeignBearerSource)
	})

	c.It("AUTH-006", "a valid token lacking a needed scope gets 403 insufficient_scope with scope and resource_metadata in one challenge", func(t *c.T) {
		requireProtected(t)
		needToken(t, "to list what the stronger token may use")
		if t.Env.Target.WeakBearer == "" {
			t.NA("needs a second, weaker token (fewer scopes): give one with --weak-bearer-env NAME or --weak-bearer-file PATH")
		}
		if first := probeWith(t, "Bearer "+t.Env.Target.WeakBearer, "weak"); first.Status() == http.StatusForbidden {
			// the weaker token may not even connect: that refusal is the one to judge
			insufficientScope(t, first, "the weaker token's first request")
			return
		}
		strong := t.Open()
		weak := weakSession(t)
		defer weak.Close()
		cand := findWeakRefusal(t, strong, weak)
		resp := cand.weak
		if resp.Status() != http.StatusForbidden {
			t.Violation("403 with WWW-Authenticate: Bearer error=\"insufficient_scope\"", describeChallenge(resp),
				"the weaker token's call of %s (executed with the main token) was refused without 403", cand.name)
		}
		insufficientScope(t, resp, "the weaker token's call of "+cand.name)
	})

	c.It("AUTH-007", "a token passed only as ?access_token= is not accepted", func(t *c.T) {
		requireProtected(t)
		tok := needToken(t, "to pass in the query string")
		q := url.QueryEscape(tok)
		t.Env.Recorder().Redactor().AddSecret(q)
		u, err := url.Parse(t.Env.Target.URL)
		if err != nil {
			t.Error("bad target URL: %v", err)
		}
		if u.RawQuery != "" {
			u.RawQuery += "&"
		}
		u.RawQuery += "access_token=" + q
		hdr := t.Env.Target.Header.Clone()
		if hdr != nil {
			hdr.Del("Authorization")
		}
		conn, err := streamhttp.New(streamhttp.Options{URL: u.String(), Name: t.Env.Target.ConnName("http/query-token", t.Rev), Header: hdr, Recorder: t.Env.Recorder(), Client: t.Env.Target.HTTPClient()})
		if err != nil {
			t.Error("%v", err)
		}
		s := session.New(conn, session.Options{Revision: t.Rev, Timeout: t.Env.Target.Timeout, Recorder: t.Env.Recorder()})
		defer s.Close()
		resp := probeCall(t, s, "")
		switch st := resp.Status(); {
		case st == http.StatusUnauthorized:
		case st >= 400:
			t.Warn("the request with the token only in the query string was refused with %d rather than 401", st)
		default:
			t.Violation("401 (a token in the query string is never accepted)", describeChallenge(resp),
				"the server accepted the access token from the query string")
		}
	})

	c.It("AUTH-008", "every HTTP request is authorized; a session id never stands in for a token", func(t *c.T) {
		requireProtected(t)
		needToken(t, "to open the session whose later requests are checked")
		s := t.Open()
		var bad []string
		// (invalid tokens are AUTH-002's: here, a request without one)
		later := func(what string, o *session.CallOptions) {
			m, params := t.Probe()
			if c.Declared(s, "tools") {
				m, params = "tools/list", map[string]any{}
			}
			resp, _ := t.TryCall(s, m, params, o)
			if resp == nil || resp.Reply == nil {
				bad = append(bad, what+": no reply")
				return
			}
			if resp.Status() != http.StatusUnauthorized {
				bad = append(bad, fmt.Sprintf("%s (%s) → %s", what, m, describeChallenge(resp)))
			}
		}
		later("a later request without Authorization", &session.CallOptions{Remove: []string{"Authorization"}})
		if t.Modern() {
			if f := listenFilter(s); f != nil {
				if st := listenWithoutToken(t, s, f); st != http.StatusUnauthorized {
					bad = append(bad, fmt.Sprintf("subscriptions/listen without Authorization → HTTP %d", st))
				}
			}
		} else if sid := s.SessionID(); sid != "" {
			hdr := http.Header{session.HeaderSessionID: {sid}, session.HeaderProtocolVersion: {string(s.Revision())}}
			if s.Revision() < catalog.R20250618 {
				hdr.Del(session.HeaderProtocolVersion)
			}
			if st := doWithout(t, s, http.MethodGet, hdr); st >= 200 && st < 300 {
				bad = append(bad, fmt.Sprintf("GET (the session's stream) without Authorization → HTTP %d", st))
			} else if st != http.StatusUnauthorized {
				t.Note("GET without Authorization got %d (not served, but not 401)", st)
			}
			if st := doWithout(t, s, http.MethodDelete, hdr); st >= 200 && st < 300 {
				bad = append(bad, fmt.Sprintf("DELETE of the session without Authorization → HTTP %d", st))
			} else if st != http.StatusUnauthorized {
				t.Note("DELETE without Authorization got %d (not served, but not 401)", st)
			}
		}
		if len(bad) > 0 {
			t.Violation("401 for every request without a valid token, whatever session it names", strings.Join(bad, "; "),
				"a request without a valid token was served")
		}
	})

	c.It("AUTH-009", "offline_access is not advertised in the challenge scope or in scopes_supported", func(t *c.T) {
		p := requireProtected(t)
		var seen []string
		for _, ch := range bearerChallenges(p.noToken) {
			if slices.Contains(strings.Fields(ch.Params["scope"]), "offline_access") {
				seen = append(seen, "the 401 challenge's scope")
			}
		}
		found := false
		for _, u := range wellKnownPRM(t) {
			st, _, body := fetch(t, http.MethodGet, u, nil)
			if st != http.StatusOK || !isJSONObject(body) {
				continue
			}
			found = true
			var doc struct {
				Scopes []string `json:"scopes_supported"`
			}
			_ = json.Unmarshal(body, &doc)
			if slices.Contains(doc.Scopes, "offline_access") {
				seen = append(seen, "scopes_supported at "+u)
			}
			break
		}
		if !p.challenged && !found {
			t.NA("neither a 401 challenge nor protected resource metadata to inspect")
		}
		if len(seen) > 0 {
			t.Violation("no offline_access", strings.Join(seen, "; "), "the protected resource advertises offline_access")
		}
	})

	c.It("AUTH-010", "RFC 8414 authorization server metadata, or the default endpoints, exist", func(t *c.T) {
		requireProtected(t)
		hdr := http.Header{session.HeaderProtocolVersion: {string(t.Rev)}}
		u := asMetadataURL(t)
		st, _, body := fetch(t, http.MethodGet, u, hdr)
		if st == http.StatusOK && isJSONObject(body) {
			var doc map[string]json.RawMessage
			_ = json.Unmarshal(body, &doc)
			// RFC 8414 §2: issuer and response_types_supported always;
			// token_endpoint unless only the implicit grant is supported;
			// authorization_endpoint unless no supported grant uses it
			// (grant_types_supported defaults to authorization_code, implicit).
			var grants []string
			if json.Unmarshal(doc["grant_types_supported"], &grants) != nil || len(grants) == 0 {
				grants = []string{"authorization_code", "implicit"}
			}
			required := []string{"issuer", "response_types_supported"}
			if !slices.Equal(grants, []string{"implicit"}) {
				required = append(required, "token_endpoint")
			}
			if slices.Contains(grants, "authorization_code") || slices.Contains(grants, "implicit") {
				required = append(required, "authorization_endpoint")
			}
			var missing []string
			for _, k := range required {
				if len(doc[k]) == 0 || string(doc[k]) == "null" {
					missing = append(missing, k)
				}
			}
			t.Check(len(missing) == 0, "an RFC 8414 document with "+strings.Join(required, ", "),
				c.Clip(body), "the authorization server metadata lacks %s", strings.Join(missing, ", "))
			return
		}
		var absent []string
		for _, ep := range []struct{ method, path string }{{http.MethodGet, "/authorize"}, {http.MethodPost, "/token"}, {http.MethodPost, "/register"}} {
			est, _, _ := fetch(t, ep.method, origin(t).String()+ep.path, nil)
			if est == 0 || est == http.StatusNotFound {
				absent = append(absent, fmt.Sprintf("%s %s → %d", ep.method, ep.path, est))
			}
		}
		t.Check(len(absent) == 0, "metadata at "+u+" or the default /authorize, /token and /register endpoints",
			fmt.Sprintf("%s → %d; %s", u, st, strings.Join(absent, "; ")), "neither authorization server metadata nor the default endpoints exist")
	})
})

// STALE-007 is a staleness check (its container and label say so) that
// lives here because it needs the weak-token machinery of this area.
var _ = c.Area("staleness", func() {
	c.It("STALE-007", "a tool the weaker token may not use is refused at call time even after a listing made with the stronger token", func(t *c.T) {
		requireProtected(t)
		needToken(t, "to list the catalog with the stronger rights")
		tg := t.Env.Target
		if tg.WeakBearer == "" {
			t.NA("needs a second, weaker token (fewer rights): give one with --weak-bearer-env NAME or --weak-bearer-file PATH")
		}
		// the session whose catalog was listed with the main token
		strong := t.Open()
		weak := weakSession(t)
		defer weak.Close()
		cand := findWeakRefusal(t, strong, weak)
		// the same session, same listing, now presenting the weaker token
		resp, err := t.TryCall(strong, "tools/call", map[string]any{"name": cand.name, "arguments": cand.args},
			&session.CallOptions{Header: http.Header{"Authorization": {"Bearer " + tg.WeakBearer}}})
		if resp == nil || (resp.Reply == nil && resp.Msg == nil) {
			t.Error("tools/call %s: %v", cand.name, err)
		}
		t.Check(!succeeded(resp), "a refusal (401/403, a JSON-RPC error or isError), as the weaker token gets on its own session",
			describeChallenge(resp), "the weaker token's call of %s executed in a session listed with the stronger token", cand.name)
	})
})

// insufficientScope judges a 403: one Bearer challenge with
// error="insufficient_scope", a scope and resource_metadata.
func insufficientScope(t *c.T, resp *session.Response, what string) {
	var complete, scoped int
	for _, ch := range bearerChallenges(resp) {
		if ch.Params["error"] == "insufficient_scope" {
			scoped++
			if strings.TrimSpace(ch.Params["scope"]) != "" && ch.Params["resource_metadata"] != "" {
				complete++
			}
		}
	}
	t.Check(scoped == 1 && complete == 1,
		`one challenge: Bearer error="insufficient_scope", scope="<every scope needed>", resource_metadata="<URL>"`, describeChallenge(resp),
		"the 403 for %s does not carry one complete insufficient_scope challenge", what)
}

// tamper returns a JWT-like token (three dot-separated parts) with its
// signature altered.
func tamper(tok string) (string, bool) {
	parts := strings.Split(tok, ".")
	if len(parts) != 3 || len(parts[2]) < 8 {
		return "", false
	}
	sig := []byte(parts[2])
	i := len(sig) / 2
	if sig[i] == 'A' {
		sig[i] = 'B'
	} else {
		sig[i] = 'A'
	}
	parts[2] = string(sig)
	return strings.Join(parts, "."), true
}

// listenFilter returns a subscriptions/listen filter for what the server
// declares (nil when it declares nothing one can listen to).
func listenFilter(s *session.Session) map[string]any {
	f := map[string]any{}
	for _, k := range []struct{ capability, field string }{{"tools", "toolsListChanged"}, {"prompts", "promptsListChanged"}, {"resources", "resourcesListChanged"}} {
		if c.SubCapability(s, k.capability, "listChanged") {
			f[k.field] = true
		}
	}
	if len(f) == 0 {
		return nil
	}
	return f
}

// listenWithoutToken opens subscriptions/listen without Authorization and
// returns the HTTP status (the stream, if served, is closed at once).
func listenWithoutToken(t *c.T, s *session.Session, filter map[string]any) int {
	params := map[string]any{"notifications": filter, "_meta": s.ModernMeta()}
	payload := jsonrpc.Request(s.NewID(), "subscriptions/listen", params)
	ctx, cancel := context.WithTimeout(t.Ctx, t.Env.Target.Timeout)
	defer cancel()
	reply, err := s.Conn().Send(ctx, payload, &wire.SendOptions{Header: modernHeaders("subscriptions/listen"), Remove: []string{"Authorization"}})
	if err != nil || reply == nil {
		return 0
	}
	return reply.Status
}

// doWithout sends method (GET, DELETE) on the session's connection with hdr
// and without Authorization; it returns the status (0: no reply) and
// closes a stream that was opened.
func doWithout(t *c.T, s *session.Session, method string, hdr http.Header) int {
	d, ok := s.Conn().(wire.HTTPDoer)
	if !ok {
		return 0
	}
	ctx, cancel := context.WithTimeout(t.Ctx, t.Env.Target.Timeout)
	defer cancel()
	reply, err := d.Do(ctx, method, nil, &wire.SendOptions{Header: hdr, Remove: []string{"Authorization"}})
	if err != nil || reply == nil {
		return 0
	}
	return reply.Status
}
