package scenario

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
)

// The authorization scenarios (issue 32; the official harness's auth/*):
// the MCP endpoint is a protected resource (RFC 9728) — a request without
// a token the run's authorization server issued gets HTTP 401 with a
// Bearer challenge — and a mock authorization server, on a loopback
// listener of its own, approves at once: GET /authorize redirects to the
// redirect_uri with a code and the state, as the official harness's does
// (a client that opens a browser gets the run's user agent as $BROWSER,
// which follows the redirect on loopback: browser.go). Everything the client did to authorize — the requests
// that got 401, the metadata it fetched, its registration, authorization
// and token requests — is recorded on the run's AuthConn (the MCP
// server's side) and ASConn (the authorization server's); its MCP traffic,
// once authorized, on Conn, where the other client checks judge it.
//
// The mock server is lenient on purpose: it issues a code and a token
// whatever the PKCE, resource and scope parameters were, so that one
// fault of the client is judged by the one requirement it breaks and the
// rest of the flow goes on to be judged too.

// Auth is what an authorization scenario serves.
type Auth struct {
	// Header is what the 401 challenge names as resource_metadata:
	// PRMPath (the path-based well-known URI), PRMCustom, or "" (none).
	Header string
	// PRM is where the protected resource metadata is served: PRMPath,
	// PRMRoot or PRMCustom; anywhere else is 404.
	PRM string
	// IssuerPath is the authorization server's issuer path ("" or
	// "/tenant1").
	IssuerPath string
	// Meta is where the authorization server metadata is served:
	// MetaOAuth (RFC 8414), MetaOIDC (OpenID Connect Discovery, path
	// insertion) or MetaOIDCAppend (path appending); anywhere else is 404.
	Meta string
	// ChallengeScope is the scope the 401 challenge names ("": none);
	// Scopes the metadata's scopes_supported (nil: undefined).
	ChallengeScope string
	Scopes         []string
	// CIMD: the server advertises client_id_metadata_document_supported.
	CIMD bool
	// Prereg: no registration endpoint; the client is given PreregID and
	// PreregSecret in MCP_CONFORMANCE_CONTEXT.
	Prereg bool
	// StepUp is a scope every tools/call needs ("": none): a token
	// without it gets 403 insufficient_scope naming it (RFC 6750 section
	// 3.1; the MCP spec's runtime insufficient scope errors). StepUpEndless:
	// every tools/call gets that 403, whatever the token's scope (the
	// client must give up after a few re-authorizations).
	StepUp        string
	StepUpEndless bool
	// IssuerMismatch: the authorization server metadata names another
	// issuer than the one its URL was built from (the client must not use
	// it: RFC 8414 section 3.3). ResourceMismatch: the protected resource
	// metadata names another resource than the MCP server (RFC 9728
	// section 3.3: the client must not use it).
	IssuerMismatch, ResourceMismatch bool
	// Iss is the RFC 9207 iss parameter of the authorization response
	// in the RFC 9207 scenarios (IssAbsent, IssCorrect, IssWrong,
	// IssNormalized; "": not one of them, no iss); IssAdvertised:
	// the metadata says authorization_response_iss_parameter_supported.
	Iss           string
	IssAdvertised bool
	// TokenAuth is the one client authentication method the token endpoint
	// supports ("": client_secret_basic, client_secret_post and none);
	// dynamic registration answers it as the client's
	// token_endpoint_auth_method, with a secret unless it is "none".
	TokenAuth string
	// Migrate: once the client made an authorized MCP request with a
	// token of the first authorization server, the protected resource
	// metadata names a second one (its own listener, issuer at its root)
	// and the first one's tokens get 401 (SEP-2352: the client must
	// re-register there, not reuse the first one's client credentials).
	Migrate bool
	// ASScopes is the authorization server metadata's scopes_supported
	// (nil: none), where offline_access may be offered (SEP-2207).
	ASScopes []string
	// AuthorizeURL replaces the metadata's authorization_endpoint ("": the
	// server's own): a URL of a scheme the client must refuse to open
	// (JavascriptAuthorizeURL, FileAuthorizeURL).
	AuthorizeURL string
}

// The authorization_endpoint of auth/authorization-url-javascript and
// auth/authorization-url-file: URLs a client must reject rather than open
// (the security best practices' OAuth authorization URL validation:
// http and https only).
const (
	JavascriptAuthorizeURL = "javascript:alert(document.domain)//mcpconform"
	FileAuthorizeURL       = "file:///etc/passwd"
)

// OfflineAccess is the scope that asks for a refresh token (SEP-2207).
const OfflineAccess = "offline_access"

// The iss of an authorization response (Auth.Iss): the issuer, another
// one, the issuer with a trailing slash (the same under RFC 3986
// normalization, not under simple string comparison).
const (
	IssAbsent     = "absent"
	IssCorrect    = "correct"
	IssWrong      = "wrong"
	IssNormalized = "normalized"
	// WrongIss is the iss IssWrong sends: a name, never a host anything
	// connects to.
	WrongIss = "https://issuer.invalid"
)

// IssMustReject reports whether the client must reject the authorization
// response of a run of a (the 2026-07-28 table of RFC 9207 validation:
// advertised but absent, or present and not the issuer by simple string
// comparison, advertised or not).
func (a *Auth) IssMustReject() bool {
	return a.IssAdvertised && a.Iss == IssAbsent || a.Iss == IssWrong || a.Iss == IssNormalized
}

// IssScenario reports whether a is one of the RFC 9207 scenarios.
func (a *Auth) IssScenario() bool { return a.Iss != "" }

// The token endpoint's client authentication methods (Auth.TokenAuth).
const (
	AuthBasic = "client_secret_basic"
	AuthPost  = "client_secret_post"
	AuthNone  = "none"
)

// Where the metadata is served.
const (
	PRMPath        = "path"
	PRMRoot        = "root"
	PRMCustom      = "custom"
	MetaOAuth      = "oauth"
	MetaOIDC       = "oidc"
	MetaOIDCAppend = "oidc-append"

	prmWellKnown   = "/.well-known/oauth-protected-resource"
	customPRMPath  = "/custom/metadata/prm.json"
	PreregID       = "mcpconform-preregistered-client"
	PreregSecret   = "mcpconform-preregistered-secret"
	authorizeEP    = "/authorize"
	tokenEP        = "/token"
	registerEP     = "/register"
	issuedPrefix   = "mcpconform-token-"
	oauthWellKnown = "/.well-known/oauth-authorization-server"
	oidcWellKnown  = "/.well-known/openid-configuration"
)

// AuthRun is what a run of an authorization scenario served: the URLs the
// client checks judge its requests against.
type AuthRun struct {
	// Resource is the protected resource metadata's resource: the MCP
	// server's URL, or its origin when the metadata is served at the root
	// well-known URI (RFC 9728 section 3.3: the resource the URL was
	// built from); MCPURL the MCP endpoint's URL.
	Resource, MCPURL string
	// ChallengePRM is the resource_metadata URL of the 401 challenge ("":
	// none); PRMOrder the well-known URIs in the order a client without
	// it must try them (RFC 9728; the MCP spec's fallback order).
	ChallengePRM string
	PRMOrder     []string
	// PRMServed is the URL of the one PRM document served.
	PRMServed string
	// AS is the authorization server's base URL, Issuer its issuer;
	// MetaOrder the metadata URLs in the order a client must try them for
	// that issuer, MetaServed the one served.
	AS, Issuer string
	MetaOrder  []string
	MetaServed string
	// Spec is the scenario's Auth; Origin the MCP server's origin
	// (http://127.0.0.1:PORT).
	Spec   *Auth
	Origin string
	// ServedResource and ServedIssuer are what the documents say (the
	// Resource and Issuer, unless the scenario makes them differ).
	ServedResource, ServedIssuer string
	// AS2 is the second authorization server's base URL and issuer
	// (Spec.Migrate; "": none), whose exchanges are recorded on the run's
	// AS2Conn.
	AS2 string
	// StepUpChallenge is the scope of the 403 insufficient_scope challenge
	// (Spec.StepUp): in 2025-11-25 the server names the scopes the client
	// already has too (the spec's recommended approach), in 2026-07-28
	// the operation's scope only (the client unions: SEP-2350).
	StepUpChallenge string

	mu      sync.Mutex
	tokens  map[string]string // token → the scope it was granted
	codes   map[string]string // code → the scope of its authorization request
	clients map[string]string // registered client_id → its secret ("": none)
	creds   map[string]string // code → what was wrong with the credentials of its token request
	// Spec.Migrate: the server that registered each client_id and issued
	// each token (1, 2), whether the metadata names the second one yet,
	// and the first one's client_ids presented at the second
	clientAS, tokenAS map[string]int
	migrated          bool
	reused            []string
}

// ClientAS is the authorization server (1, 2) that registered client_id
// (0: neither).
func (ar *AuthRun) ClientAS(id string) int {
	ar.mu.Lock()
	defer ar.mu.Unlock()
	return ar.clientAS[id]
}

// Reused lists the first authorization server's client credentials the
// client presented at the second one (Basic credentials included, which
// the recorded traffic shows redacted).
func (ar *AuthRun) Reused() []string {
	ar.mu.Lock()
	defer ar.mu.Unlock()
	return append([]string(nil), ar.reused...)
}

// Migrated reports whether the metadata names the second authorization
// server yet.
func (ar *AuthRun) Migrated() bool {
	ar.mu.Lock()
	defer ar.mu.Unlock()
	return ar.migrated
}

// CredentialProblem says what was wrong with the client credentials of
// the token request that redeemed code ("": nothing). The recorded
// Authorization header is redacted, so the server judges them as they
// came: Basic credentials that do not decode, or credentials (Basic or
// in the body) that are not the ones registration issued.
func (ar *AuthRun) CredentialProblem(code string) string {
	ar.mu.Lock()
	defer ar.mu.Unlock()
	return ar.creds[code]
}

// credentialProblem judges a token request's client credentials against
// the registered clients (ar.mu held).
func (ar *AuthRun) credentialProblem(req *http.Request) string {
	user, pass, basic := req.BasicAuth()
	switch {
	case basic:
		id, err1 := url.QueryUnescape(user)
		secret, err2 := url.QueryUnescape(pass)
		if want, ok := ar.clients[id]; err1 != nil || err2 != nil || !ok || want != secret {
			return "its Basic credentials are not the registered client_id and client_secret (form-encoded, then base64)"
		}
	case strings.HasPrefix(req.Header.Get("Authorization"), "Basic "):
		return "its Basic credentials are not base64 of client_id:client_secret"
	case req.PostForm.Has("client_secret"):
		if want, ok := ar.clients[req.PostForm.Get("client_id")]; !ok || want != req.PostForm.Get("client_secret") {
			return "the client_id and client_secret in its body are not the ones registration issued"
		}
	}
	return ""
}

// IsPRMPath reports whether path is one the client may fetch protected
// resource metadata at (the well-known ones, the custom one).
func IsPRMPath(path string) bool {
	return strings.HasPrefix(path, prmWellKnown) || path == customPRMPath
}

// IsMetaPath reports whether path is one of authorization server metadata.
func IsMetaPath(path string) bool {
	return strings.Contains(path, oauthWellKnown) || strings.Contains(path, oidcWellKnown)
}

// IsFlowEndpoint reports whether path is one of the endpoints the
// authorization server's metadata names (authorization, token,
// registration): a request there uses the metadata.
func IsFlowEndpoint(path string) bool { return IsAuthorize(path) || IsToken(path) || IsRegister(path) }

// Authorization endpoints of the mock server.
func IsAuthorize(path string) bool { return path == authorizeEP }
func IsToken(path string) bool     { return path == tokenEP }
func IsRegister(path string) bool  { return path == registerEP }

// newAuthRun lays out the URLs of a run served at base (the MCP server's
// origin) with the authorization server at as.
func newAuthRun(a *Auth, base, as string) *AuthRun {
	ar := &AuthRun{Resource: base + "/mcp", MCPURL: base + "/mcp", AS: as, Issuer: as + a.IssuerPath, Spec: a, Origin: base,
		tokens: map[string]string{}, codes: map[string]string{}, clients: map[string]string{}, creds: map[string]string{},
		clientAS: map[string]int{}, tokenAS: map[string]int{}}
	ar.PRMOrder = []string{base + prmWellKnown + "/mcp", base + prmWellKnown}
	switch a.PRM {
	case PRMPath:
		ar.PRMServed = ar.PRMOrder[0]
	case PRMRoot:
		ar.PRMServed = ar.PRMOrder[1]
		ar.Resource = base
	default:
		ar.PRMServed = base + customPRMPath
	}
	ar.ServedResource, ar.ServedIssuer = ar.Resource, ar.Issuer
	if a.ResourceMismatch {
		ar.ServedResource = base + "/not-this-server"
	}
	if a.IssuerMismatch {
		ar.ServedIssuer = as + "/another-issuer"
	}
	switch a.Header {
	case PRMPath:
		ar.ChallengePRM = ar.PRMOrder[0]
	case PRMCustom:
		ar.ChallengePRM = base + customPRMPath
	}
	if a.IssuerPath == "" {
		ar.MetaOrder = []string{as + oauthWellKnown, as + oidcWellKnown}
	} else {
		ar.MetaOrder = []string{as + oauthWellKnown + a.IssuerPath, as + oidcWellKnown + a.IssuerPath, as + a.IssuerPath + oidcWellKnown}
	}
	switch a.Meta {
	case MetaOAuth:
		ar.MetaServed = ar.MetaOrder[0]
	case MetaOIDC:
		ar.MetaServed = ar.MetaOrder[1]
	default:
		ar.MetaServed = ar.MetaOrder[len(ar.MetaOrder)-1]
	}
	return ar
}

// context is the MCP_CONFORMANCE_CONTEXT of the scenario ("": none).
func (a *Auth) context(name string) string {
	if !a.Prereg {
		return ""
	}
	b, _ := json.Marshal(map[string]string{"name": name, "client_id": PreregID, "client_secret": PreregSecret})
	return string(b)
}

// serveAuth starts the mock authorization server and returns the handler
// that protects next (the MCP endpoint) and serves the resource metadata,
// and a function that stops the authorization server.
func (r *Run) serveAuth(a *Auth, mux *http.ServeMux, next http.Handler) (http.Handler, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, err
	}
	ar := newAuthRun(a, r.base, "http://"+ln.Addr().String())
	if a.StepUp != "" {
		ar.StepUpChallenge = a.StepUp
		if r.Revision.IsLegacy() && a.ChallengeScope != "" {
			ar.StepUpChallenge = a.ChallengeScope + " " + a.StepUp
		}
	}
	r.Auth = ar
	r.AuthConn, r.ASConn = r.Conn+"/auth", r.Conn+"/as"
	r.rec.Note(r.AuthConn, "the authorization server's issuer is "+ar.Issuer+"; the MCP server's protected resource metadata is at "+ar.PRMServed)
	hs := &http.Server{Handler: r.recordOn(r.ASConn, ar.asHandler(1)), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	stop := func() { _ = hs.Close() }
	if a.Migrate {
		ln2, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			stop()
			return nil, nil, err
		}
		ar.AS2 = "http://" + ln2.Addr().String()
		r.AS2Conn = r.Conn + "/as2"
		hs2 := &http.Server{Handler: r.recordOn(r.AS2Conn, ar.asHandler(2)), ReadHeaderTimeout: 10 * time.Second}
		go func() { _ = hs2.Serve(ln2) }()
		stop = func() { _ = hs.Close(); _ = hs2.Close() }
		r.rec.Note(r.AuthConn, "once the client made an authorized request, the protected resource metadata names a second authorization server, "+ar.AS2+", and the first one's tokens get 401")
	}
	mux.Handle("/.well-known/", r.recordOn(r.AuthConn, http.HandlerFunc(ar.servePRM)))
	mux.Handle(customPRMPath, r.recordOn(r.AuthConn, http.HandlerFunc(ar.servePRM)))
	unauthorized := r.recordOn(r.AuthConn, http.HandlerFunc(ar.challenge))
	forbidden := r.recordOn(r.AuthConn, http.HandlerFunc(ar.insufficientScope))
	gate := http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		tok, ok := strings.CutPrefix(req.Header.Get("Authorization"), "Bearer ")
		scope, issued := ar.issued(tok)
		if ok && !issued {
			// judged by CAUTH-020 (the recorded header is redacted)
			r.rec.Note(r.AuthConn, fmt.Sprintf("%s: %s %s (%s)", ForeignTokenNote, req.Method, req.URL.Path, methodOf(req)))
		}
		switch {
		case !ok || !issued || ar.superseded(tok):
			unauthorized.ServeHTTP(w, req)
		case a.StepUp != "" && req.Method == http.MethodPost && methodOf(req) == "tools/call" &&
			(a.StepUpEndless || !slices.Contains(strings.Fields(scope), a.StepUp)):
			forbidden.ServeHTTP(w, req)
		default:
			next.ServeHTTP(w, req)
		}
	})
	return gate, stop, nil
}

// ForeignTokenNote starts the transcript note the MCP server's gate
// records for a request whose bearer token no authorization server of the
// run issued (the request gets 401).
const ForeignTokenNote = "the client presented a bearer token that no authorization server of this run issued"

// superseded reports whether tok is the first authorization server's
// while the metadata names the second (Spec.Migrate); the first request
// authorized by a first-server token moves the metadata to the second.
func (ar *AuthRun) superseded(tok string) bool {
	if !ar.Spec.Migrate {
		return false
	}
	ar.mu.Lock()
	defer ar.mu.Unlock()
	if ar.tokenAS[tok] != 1 {
		return false
	}
	if ar.migrated {
		return true
	}
	ar.migrated = true
	return false
}

// challenge answers a request without a valid token: 401 and the Bearer
// challenge.
func (ar *AuthRun) challenge(w http.ResponseWriter, _ *http.Request) {
	var params []string
	if ar.ChallengePRM != "" {
		params = append(params, fmt.Sprintf("resource_metadata=%q", ar.ChallengePRM))
	}
	if ar.Spec.ChallengeScope != "" {
		params = append(params, fmt.Sprintf("scope=%q", ar.Spec.ChallengeScope))
	}
	v := "Bearer"
	if len(params) > 0 {
		v += " " + strings.Join(params, ", ")
	}
	w.Header().Set("WWW-Authenticate", v)
	writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_token", "error_description": "authorization required"})
}

// insufficientScope answers a tools/call whose token lacks the step-up
// scope: 403 and the insufficient_scope challenge.
func (ar *AuthRun) insufficientScope(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("WWW-Authenticate", fmt.Sprintf("Bearer error=\"insufficient_scope\", scope=%q, resource_metadata=%q, error_description=\"the tool needs %s\"",
		ar.StepUpChallenge, ar.PRMServed, ar.Spec.StepUp))
	writeJSON(w, http.StatusForbidden, map[string]string{"error": "insufficient_scope", "error_description": "the tool needs " + ar.Spec.StepUp})
}

func (ar *AuthRun) servePRM(w http.ResponseWriter, req *http.Request) {
	if ar.PRMServed != ar.Origin+req.URL.Path {
		http.NotFound(w, req)
		return
	}
	issuer := ar.Issuer
	if ar.Migrated() {
		issuer = ar.AS2
	}
	doc := map[string]any{"resource": ar.ServedResource, "authorization_servers": []string{issuer}}
	if ar.Spec.Scopes != nil {
		doc["scopes_supported"] = ar.Spec.Scopes
	}
	writeJSON(w, http.StatusOK, doc)
}

// asHandler is the mock authorization server n (1; 2: the second of
// Spec.Migrate, its issuer at its root, RFC 8414 metadata).
func (ar *AuthRun) asHandler(n int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) { ar.serveAS(n, w, req) })
}

// serveAS is the mock authorization server n.
func (ar *AuthRun) serveAS(n int, w http.ResponseWriter, req *http.Request) {
	base, meta, issuer := ar.AS, ar.MetaServed, ar.ServedIssuer
	if n == 2 {
		base, issuer = ar.AS2, ar.AS2
		meta = base + oauthWellKnown
	}
	switch p := req.URL.Path; {
	case base+p == meta:
		doc := map[string]any{
			"issuer":                                issuer,
			"authorization_endpoint":                base + authorizeEP,
			"token_endpoint":                        base + tokenEP,
			"response_types_supported":              []string{"code"},
			"grant_types_supported":                 []string{"authorization_code", "refresh_token"},
			"code_challenge_methods_supported":      []string{"S256"},
			"token_endpoint_auth_methods_supported": []string{AuthBasic, AuthPost, AuthNone},
		}
		if ar.Spec.TokenAuth != "" {
			doc["token_endpoint_auth_methods_supported"] = []string{ar.Spec.TokenAuth}
		}
		if ar.Spec.AuthorizeURL != "" && n == 1 {
			doc["authorization_endpoint"] = ar.Spec.AuthorizeURL
		}
		if ar.Spec.IssAdvertised {
			doc["authorization_response_iss_parameter_supported"] = true
		}
		if ar.Spec.ASScopes != nil && n == 1 {
			doc["scopes_supported"] = ar.Spec.ASScopes
		}
		if !ar.Spec.Prereg {
			doc["registration_endpoint"] = base + registerEP
		}
		if ar.Spec.CIMD {
			doc["client_id_metadata_document_supported"] = true
		}
		if ar.Spec.Meta != MetaOAuth && n == 1 {
			doc["subject_types_supported"] = []string{"public"}
			doc["id_token_signing_alg_values_supported"] = []string{"RS256"}
			doc["jwks_uri"] = base + "/jwks"
		}
		writeJSON(w, http.StatusOK, doc)
	case p == registerEP && !ar.Spec.Prereg && req.Method == http.MethodPost:
		var meta map[string]any
		_ = json.NewDecoder(http.MaxBytesReader(w, req.Body, 1<<20)).Decode(&meta)
		if meta == nil {
			meta = map[string]any{}
		}
		meta["client_id"] = "mcpconform-client-" + nonce()
		if ar.Spec.TokenAuth != "" {
			meta["token_endpoint_auth_method"] = ar.Spec.TokenAuth
		}
		if m, _ := meta["token_endpoint_auth_method"].(string); m != AuthNone {
			meta["client_secret"] = "mcpconform-secret-" + nonce()
		}
		secret, _ := meta["client_secret"].(string)
		ar.mu.Lock()
		ar.clients[meta["client_id"].(string)] = secret
		ar.clientAS[meta["client_id"].(string)] = n
		ar.mu.Unlock()
		meta["client_id_issued_at"] = time.Now().Unix()
		writeJSON(w, http.StatusCreated, meta)
	case p == authorizeEP && req.Method == http.MethodGet:
		q := req.URL.Query()
		redirect, err := url.Parse(q.Get("redirect_uri"))
		if err != nil || redirect.Scheme == "" || q.Get("client_id") == "" {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_request", "error_description": "client_id and an absolute redirect_uri are required"})
			return
		}
		code := "mcpconform-code-" + nonce()
		ar.mu.Lock()
		ar.codes[code] = q.Get("scope")
		ar.noteReuse(n, q.Get("client_id"), "the authorization request")
		ar.mu.Unlock()
		back := redirect.Query()
		back.Set("code", code)
		if s := q.Get("state"); s != "" {
			back.Set("state", s)
		}
		if iss := ar.issParam(); iss != "" {
			back.Set("iss", iss)
		}
		redirect.RawQuery = back.Encode()
		http.Redirect(w, req, redirect.String(), http.StatusFound)
	case p == tokenEP && req.Method == http.MethodPost:
		_ = req.ParseForm()
		ar.mu.Lock()
		// the token has the scope the authorization request asked for (a
		// refresh: the scope it names)
		code := req.PostForm.Get("code")
		scope, known := ar.codes[code]
		if p := ar.credentialProblem(req); p != "" && code != "" {
			ar.creds[code] = p
		}
		if user, _, ok := req.BasicAuth(); ok {
			id, _ := url.QueryUnescape(user)
			ar.noteReuse(n, id, "the token request's Basic credentials")
		} else {
			ar.noteReuse(n, req.PostForm.Get("client_id"), "the token request's body")
		}
		if req.PostForm.Get("grant_type") == "refresh_token" {
			scope, known = req.PostForm.Get("scope"), true
		}
		tok := issuedPrefix + nonce()
		if known {
			ar.tokens[tok] = scope
			ar.tokenAS[tok] = n
		}
		ar.mu.Unlock()
		if !known {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant"})
			return
		}
		res := map[string]any{"access_token": tok, "token_type": "Bearer", "expires_in": 3600}
		if s := req.PostForm.Get("scope"); s != "" {
			res["scope"] = s
		}
		writeJSON(w, http.StatusOK, res)
	default:
		http.NotFound(w, req)
	}
}

// noteReuse records a client_id the first authorization server
// registered, presented to the second (ar.mu held).
func (ar *AuthRun) noteReuse(n int, id, where string) {
	if n == 2 && id != "" && ar.clientAS[id] == 1 {
		ar.reused = append(ar.reused, fmt.Sprintf("%s carried %q, a client_id the first authorization server registered", where, id))
	}
}

// issParam is the iss of the authorization response ("": none).
func (ar *AuthRun) issParam() string {
	switch ar.Spec.Iss {
	case IssCorrect:
		return ar.ServedIssuer
	case IssWrong:
		return WrongIss
	case IssNormalized:
		return ar.ServedIssuer + "/"
	}
	return ""
}

// issued reports whether the run's authorization server issued tok, and
// the scope it has.
func (ar *AuthRun) issued(tok string) (scope string, ok bool) {
	ar.mu.Lock()
	defer ar.mu.Unlock()
	scope, ok = ar.tokens[tok]
	return scope, ok
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func nonce() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
