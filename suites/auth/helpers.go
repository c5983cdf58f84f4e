package auth

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/internal/catalog"
	c "github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/session"
	"github.com/mcpconform/mcpconform/internal/wire"
	"github.com/mcpconform/mcpconform/internal/wire/streamhttp"
	"github.com/mcpconform/mcpconform/internal/wwwauth"
)

// ---- requests with a chosen credential ----

// rawSession opens a connection that sends no Authorization header of its
// own (label names it in the transcript, "http#N/<label>"); it is closed
// when fn's check ends (the caller defers Close).
func rawSession(t *c.T, label string) *session.Session {
	s, err := t.Env.Target.SessionWith(t.Rev, "", label)
	if err != nil {
		t.Error("could not connect to the target: %v", err)
	}
	return s
}

// probeCall sends the era's first request (legacy: initialize; 2026-07-28:
// server/discover), valid in every respect, on s with the given
// Authorization header value ("" for none). The response is returned
// whatever came (its Reply holds the HTTP status); a transport failure is
// a harness ERROR.
func probeCall(t *c.T, s *session.Session, authorization string) *session.Response {
	o := &session.CallOptions{Remove: []string{"Authorization"}}
	if authorization != "" {
		o = &session.CallOptions{Header: http.Header{"Authorization": {authorization}}}
	}
	method, params := "server/discover", any(nil)
	if !t.Modern() {
		method, params = "initialize", session.InitializeParams(string(t.Rev))
		o.NoMeta = true
	}
	resp, err := t.TryCall(s, method, params, o)
	if resp == nil || resp.Reply == nil {
		t.Error("%s: no HTTP reply: %v", method, err)
	}
	return resp
}

// probeWith is probeCall on a new connection.
func probeWith(t *c.T, authorization, label string) *session.Response {
	s := rawSession(t, label)
	defer s.Close()
	return probeCall(t, s, authorization)
}

func served(resp *session.Response) bool {
	st := resp.Status()
	return st >= 200 && st < 300 && resp.Msg != nil && !resp.IsError()
}

// describe renders an HTTP reply with its WWW-Authenticate challenge.
func describeChallenge(resp *session.Response) string {
	d := resp.Describe()
	if resp != nil && resp.Reply != nil {
		if v := resp.Reply.Header.Values("WWW-Authenticate"); len(v) > 0 {
			d += "; WWW-Authenticate: " + strings.Join(v, " | ")
		}
	}
	return d
}

// randomToken is a well-formed bearer token nobody issued.
func randomToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// ---- protection ----

// protection is what the run knows about the server's authorization.
type protection struct {
	// noToken is the reply to the probe request sent without a token.
	noToken *session.Response
	// challenged: it was 401.
	challenged bool
}

// requireProtected decides whether the server is a protected resource and
// ends the check as NA when it is not: it is when a request without a
// token gets 401, or when a token was configured and the server publishes
// protected resource (or authorization server) metadata at a well-known
// URI (then serving a request without a token is a finding, not a sign
// that no authorization is required).
func requireProtected(t *c.T) protection {
	resp := probeWith(t, "", "no-token")
	if resp.Status() == http.StatusUnauthorized {
		return protection{noToken: resp, challenged: true}
	}
	if !served(resp) {
		// refused, but not with 401: protected if the same request with the
		// token is served (else the refusal has another cause)
		if t.Env.Target.Bearer == "" {
			t.Note("a request without a token was refused with HTTP %d; taken as a protected server", resp.Status())
			return protection{noToken: resp}
		}
		if with := probeWith(t, "Bearer "+t.Env.Target.Bearer, "with-token"); !served(with) {
			t.NA("the probe request is refused with and without the token (HTTP %d, HTTP %d): nothing to compare", with.Status(), resp.Status())
		}
		return protection{noToken: resp}
	}
	if t.Env.Target.Bearer != "" {
		for _, u := range append(wellKnownPRM(t), asMetadataURL(t)) {
			if st, _, body := fetch(t, http.MethodGet, u, nil); st == http.StatusOK && isJSONObject(body) {
				return protection{noToken: resp}
			}
		}
		t.NA("a bearer token was configured, but a request without one was answered HTTP %d and the server publishes no protected resource or authorization server metadata at the well-known URIs: it does not require authorization", resp.Status())
	}
	t.NA("the server does not require authorization: a request without a token was answered HTTP %d and no bearer token was configured (--bearer-env)", resp.Status())
	return protection{}
}

// needToken ends the check as NA when no main bearer token was given.
func needToken(t *c.T, why string) string {
	if t.Env.Target.Bearer == "" {
		t.NA("needs a valid bearer token (--bearer-env NAME or --bearer-file PATH) %s", why)
	}
	return t.Env.Target.Bearer
}

// ---- metadata documents ----

func origin(t *c.T) *url.URL {
	u, err := url.Parse(t.Env.Target.URL)
	if err != nil {
		t.Error("bad target URL: %v", err)
	}
	return &url.URL{Scheme: u.Scheme, Host: u.Host}
}

// wellKnownPRM returns the RFC 9728 well-known URIs in the order clients
// try them: path-suffixed, then root.
func wellKnownPRM(t *c.T) []string {
	u, _ := url.Parse(t.Env.Target.URL)
	root := origin(t).String() + "/.well-known/oauth-protected-resource"
	var out []string
	if p := strings.TrimSuffix(u.EscapedPath(), "/"); p != "" {
		out = append(out, root+p)
	}
	return append(out, root)
}

// asMetadataURL is the RFC 8414 document of the 2025-03-26 model: at the
// authorization base URL (the endpoint with its path discarded).
func asMetadataURL(t *c.T) string {
	return origin(t).String() + "/.well-known/oauth-authorization-server"
}

// sameOrigin reports whether raw is an absolute http(s) URL on the
// target's origin (the only place the suite sends requests to).
func sameOrigin(t *c.T, raw string) bool {
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() {
		return false
	}
	o := origin(t)
	return strings.EqualFold(u.Scheme, o.Scheme) && strings.EqualFold(u.Host, o.Host)
}

// fetch sends one request without credentials to a URL on the target's
// origin and returns status, header and body (status 0 when no reply came,
// noted in the transcript). The exchange is recorded.
func fetch(t *c.T, method, rawURL string, hdr http.Header) (int, http.Header, []byte) {
	if !sameOrigin(t, rawURL) {
		return 0, nil, nil
	}
	conn, err := streamhttp.New(streamhttp.Options{URL: rawURL, Name: t.Env.Target.ConnName("http/auth-metadata", t.Rev), Recorder: t.Env.Recorder(), Client: t.Env.Target.HTTPClient(), MaxMessageBytes: 1 << 20, MaxBodyBytes: 1 << 20})
	if err != nil {
		return 0, nil, nil
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(t.Ctx, t.Env.Target.Timeout)
	defer cancel()
	if hdr == nil {
		hdr = http.Header{}
	}
	hdr.Set("Accept", "application/json")
	reply, err := conn.Do(ctx, method, nil, &wire.SendOptions{Header: hdr})
	if err != nil {
		return 0, nil, nil
	}
	var body []byte
	for {
		f, err := conn.Recv(ctx)
		if err != nil || f.Kind == wire.KindClosed {
			break
		}
		if f.Exchange != reply.Exchange {
			continue
		}
		if f.Kind == wire.KindNote && f.Note == wire.NoteExchangeEnd {
			break
		}
		if f.Kind == wire.KindMessage || f.Kind == wire.KindBody {
			body = append(body, f.Raw...)
		}
	}
	return reply.Status, reply.Header, body
}

func isJSONObject(b []byte) bool {
	var o map[string]json.RawMessage
	return json.Unmarshal(b, &o) == nil && o != nil
}

// bearerChallenges returns the Bearer challenges of a reply.
func bearerChallenges(resp *session.Response) []wwwauth.Challenge {
	if resp == nil || resp.Reply == nil {
		return nil
	}
	return wwwauth.Bearer(resp.Reply.Header.Values("WWW-Authenticate"))
}

// ---- tools and refusals ----

// refused reports whether a tools/call reply refused the call: an HTTP
// error status, a JSON-RPC error, or an isError result.
func refused(resp *session.Response) bool {
	if resp == nil {
		return false
	}
	if st := resp.Status(); st >= 400 {
		return true
	}
	if resp.IsError() {
		return true
	}
	var r struct {
		IsError bool `json:"isError"`
	}
	return resp.IsResult() && resp.Result(&r) == nil && r.IsError
}

// succeeded reports a tools/call that executed: a result without isError.
func succeeded(resp *session.Response) bool {
	return resp != nil && resp.IsResult() && !refused(resp)
}

// candidate is a tool the weaker token is refused while the main one may
// call it with the same arguments.
type candidate struct {
	name string
	args map[string]any
	weak *session.Response // the weaker token's refusal
}

const maxToolsTried = 12

// findWeakRefusal lists the tools with the main token (on strong) and calls
// them, as far as the call policy allows, with the weaker token (on weak)
// until one is refused there and executes with the main token. It ends
// the check as NA when there is nothing to try or nothing is refused.
func findWeakRefusal(t *c.T, strong, weak *session.Session) candidate {
	if !c.Declared(strong, "tools") {
		t.NA("the server declares no tools capability: no operation to compare the two tokens on")
	}
	w := t.WalkList(strong, "tools/list")
	if len(w.Items) == 0 {
		t.NA("tools/list with the main token listed no tools (%s)", w.Problem)
	}
	tried, policy := 0, 0
	for _, tool := range w.Items {
		if tried == maxToolsTried {
			break
		}
		if ok, _ := t.MayCall(tool); !ok {
			policy++
			continue
		}
		args, _, ok := t.ArgsFor(tool)
		if !ok {
			continue
		}
		name := c.ItemKey(tool, "name")
		tried++
		params := map[string]any{"name": name, "arguments": args}
		wr, _ := t.TryCall(weak, "tools/call", params, nil)
		if !refused(wr) {
			continue
		}
		sr, _ := t.TryCall(strong, "tools/call", params, nil)
		if succeeded(sr) {
			return candidate{name: name, args: args, weak: wr}
		}
	}
	if tried == 0 && policy > 0 {
		t.PolicyNA("none of the %d listed tools may be called under the call policy (--call-tools)", policy)
	}
	t.NA("the weaker token was refused none of the %d tools called (%d more not called by the call policy): no operation it lacks the rights for was found", tried, policy)
	return candidate{}
}

// weakSession opens the weaker token's session; a 401 or 403 on the
// handshake itself ends the check as NA (the token cannot even connect,
// so no tool-level comparison is possible).
func weakSession(t *c.T) *session.Session {
	s, err := t.Env.Target.SessionWith(t.Rev, t.Env.Target.WeakBearer, "weak")
	if err != nil {
		t.Error("could not connect: %v", err)
	}
	ctx, cancel := context.WithTimeout(t.Ctx, 4*t.Env.Target.Timeout+time.Second)
	defer cancel()
	if t.Rev.IsLegacy() {
		err = s.OpenLegacy(ctx)
	} else {
		err = s.OpenModern(ctx)
	}
	if err != nil {
		s.Close()
		t.NA("the weaker token (%s) could not open a %s session (%v): give a token that may connect but lacks rights for some tool", t.Env.Target.WeakBearerSource, t.Rev, err)
	}
	return s
}

// modernHeaders are the 2026-07-28 request headers for method.
func modernHeaders(method string) http.Header {
	return http.Header{"Mcp-Protocol-Version": {string(catalog.Modern)}, "Mcp-Method": {method}}
}
