package scenario

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// asDo sends one request to the mock authorization server of ar.
func asDo(t *testing.T, ar *AuthRun, method, target, body string, header http.Header) *httptest.ResponseRecorder {
	t.Helper()
	var req *http.Request
	if body != "" {
		req = httptest.NewRequest(method, target, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	} else {
		req = httptest.NewRequest(method, target, nil)
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	w := httptest.NewRecorder()
	ar.serveAS(1, w, req)
	return w
}

// The RFC 9207 scenarios: the metadata advertises the iss parameter as
// configured, and the authorization response carries the configured iss.
func TestAuthorizationResponseIss(t *testing.T) {
	for _, c := range []struct {
		a       Auth
		adv     bool
		wantIss string // "": none; "ISSUER" is replaced by the issuer
		reject  bool   // the spec's table: the client rejects the response
	}{
		{Auth{Meta: MetaOAuth, IssAdvertised: true, Iss: IssCorrect}, true, "ISSUER", false},
		{Auth{Meta: MetaOAuth, Iss: IssAbsent}, false, "", false},
		{Auth{Meta: MetaOAuth, IssAdvertised: true, Iss: IssAbsent}, true, "", true},
		{Auth{Meta: MetaOAuth, IssAdvertised: true, Iss: IssWrong}, true, WrongIss, true},
		{Auth{Meta: MetaOAuth, Iss: IssWrong}, false, WrongIss, true},
		{Auth{Meta: MetaOAuth, IssAdvertised: true, Iss: IssNormalized}, true, "ISSUER/", true},
	} {
		ar := newAuthRun(&c.a, "http://127.0.0.1:1", "http://127.0.0.1:2")
		var meta map[string]any
		if err := json.Unmarshal(asDo(t, ar, http.MethodGet, ar.MetaServed, "", nil).Body.Bytes(), &meta); err != nil {
			t.Fatal(err)
		}
		if got, _ := meta["authorization_response_iss_parameter_supported"].(bool); got != c.adv {
			t.Errorf("%+v: advertised %v, want %v", c.a, got, c.adv)
		}
		w := asDo(t, ar, http.MethodGet, "/authorize?client_id=c&state=s&redirect_uri="+url.QueryEscape("http://localhost:9/cb"), "", nil)
		loc, _ := url.Parse(w.Header().Get("Location"))
		want := strings.ReplaceAll(c.wantIss, "ISSUER", ar.Issuer)
		if got := loc.Query().Get("iss"); got != want || loc.Query().Has("iss") != (want != "") {
			t.Errorf("%+v: iss %q, want %q", c.a, got, want)
		}
		if got := c.a.IssMustReject(); got != c.reject {
			t.Errorf("%+v: IssMustReject %v, want %v", c.a, got, c.reject)
		}
	}
}

// The token endpoint auth scenarios: one method in the metadata, the
// registration answers it (a secret unless none), and the server judges
// the credentials of a token request as they came (the recorded
// Authorization header is redacted).
func TestTokenEndpointAuth(t *testing.T) {
	ar := newAuthRun(&Auth{Meta: MetaOAuth, TokenAuth: AuthPost}, "http://127.0.0.1:1", "http://127.0.0.1:2")
	var meta map[string]any
	_ = json.Unmarshal(asDo(t, ar, http.MethodGet, ar.MetaServed, "", nil).Body.Bytes(), &meta)
	if got, _ := json.Marshal(meta["token_endpoint_auth_methods_supported"]); string(got) != `["client_secret_post"]` {
		t.Errorf("methods %s", got)
	}
	var reg map[string]any
	_ = json.Unmarshal(asDo(t, ar, http.MethodPost, "/register", `{"redirect_uris":["http://localhost:9/cb"]}`, nil).Body.Bytes(), &reg)
	id, _ := reg["client_id"].(string)
	secret, _ := reg["client_secret"].(string)
	if reg["token_endpoint_auth_method"] != AuthPost || id == "" || secret == "" {
		t.Fatalf("registration %v", reg)
	}
	code := func() string {
		w := asDo(t, ar, http.MethodGet, "/authorize?client_id="+id+"&redirect_uri="+url.QueryEscape("http://localhost:9/cb"), "", nil)
		loc, _ := url.Parse(w.Header().Get("Location"))
		return loc.Query().Get("code")
	}
	basic := func(user, pass string) http.Header {
		r := httptest.NewRequest(http.MethodPost, "/", nil)
		r.SetBasicAuth(user, pass)
		return r.Header
	}
	for _, c := range []struct {
		name   string
		body   string
		header http.Header
		ok     bool
	}{
		{"post", "client_id=" + id + "&client_secret=" + secret, nil, true},
		{"post, wrong secret", "client_id=" + id + "&client_secret=nope", nil, false},
		{"basic", "", basic(id, secret), true},
		{"basic, another client", "", basic("someone", secret), false},
		{"basic, not base64", "", http.Header{"Authorization": {"Basic !!!"}}, false},
		{"none", "client_id=" + id, nil, true},
	} {
		k := code()
		body := "grant_type=authorization_code&code=" + k
		if c.body != "" {
			body += "&" + c.body
		}
		if w := asDo(t, ar, http.MethodPost, "/token", body, c.header); w.Code != http.StatusOK {
			t.Errorf("%s: HTTP %d (the mock server issues tokens whatever the credentials)", c.name, w.Code)
		}
		if p := ar.CredentialProblem(k); (p == "") != c.ok {
			t.Errorf("%s: problem %q", c.name, p)
		}
	}
}
