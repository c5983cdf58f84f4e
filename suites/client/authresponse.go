package client

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	c "github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/scenario"
)

// The authorization response and token request checks: the RFC 9207 iss
// validation of 2026-07-28 (CAUTH-013, CAUTH-014; the auth/iss-*
// scenarios) and the token endpoint's client authentication (CAUTH-015;
// auth/token-endpoint-auth-*).

// issOutcome is what one iss scenario run showed: the authorization
// responses the client got (their codes and iss) and whether it redeemed
// one of those codes.
type issOutcome struct {
	r        *scenario.Run
	az       []httpReq // the authorization requests (their replies carry the code)
	iss      string    // the iss of the first reply ("": none)
	redeemed *httpReq  // the first token request redeeming one of their codes
}

func issOutcomes(t *c.T) (out []issOutcome) {
	for _, r := range authRuns(t) {
		if !r.Auth.Spec.IssScenario() {
			continue
		}
		o := issOutcome{r: r, az: authorizes(t, r)}
		codes := map[string]bool{}
		for i, a := range o.az {
			if code := codeOf(a); code != "" {
				codes[code] = true
				if i == 0 {
					o.iss = locationParam(a, "iss")
				}
			}
		}
		for _, tr := range tokenRequests(t, r) {
			if codes[tr.form().Get("code")] {
				o.redeemed = &tr
				break
			}
		}
		if len(codes) > 0 {
			out = append(out, o)
		}
	}
	return out
}

// locationParam is a query parameter of the redirect that answered h.
func locationParam(h httpReq, name string) string {
	if h.header == nil {
		return ""
	}
	loc, err := url.Parse(h.header.Get("Location"))
	if err != nil {
		return ""
	}
	return loc.Query().Get(name)
}

// issResponse says what the authorization response of o was.
func (o issOutcome) issResponse() string {
	adv := "advertises"
	if !o.r.Auth.Spec.IssAdvertised {
		adv = "does not advertise"
	}
	got := "no iss"
	if o.iss != "" {
		got = fmt.Sprintf("iss %q", o.iss)
	}
	return fmt.Sprintf("the authorization server %s the iss parameter and its response carried %s; the issuer recorded from its metadata is %q", adv, got, o.r.Auth.ServedIssuer)
}

// redeemsCodes reports whether the client redeemed an authorization code
// in a run of the report other than skip: it can authorize, so a code it
// leaves unredeemed is a choice.
func redeemsCodes(t *c.T, skip *scenario.Run) (string, bool) {
	for _, r := range authRuns(t) {
		if r == skip || r.Auth.Spec.IssMustReject() || r.Auth.Spec.IssuerMismatch || r.Auth.Spec.ResourceMismatch {
			continue
		}
		for _, tr := range tokenRequests(t, r) {
			if tr.status == http.StatusOK {
				return r.Scenario.Name, true
			}
		}
	}
	return "", false
}

// tokenAuthMethod is the client authentication of a token request: an
// Authorization: Basic header, client_secret in the body, both, or none
// (whether the credentials were right, the server judged as they came:
// AuthRun.CredentialProblem).
func tokenAuthMethod(h httpReq) string {
	hasBasic := strings.HasPrefix(h.in.HTTP.Header.Get("Authorization"), "Basic ")
	_, inBody := h.form()["client_secret"]
	switch {
	case hasBasic && inBody:
		return "both"
	case hasBasic:
		return scenario.AuthBasic
	case inBody:
		return scenario.AuthPost
	}
	return scenario.AuthNone
}

var _ = c.ClientArea("client", func() {
	c.It("CAUTH-013", "the authorization response's iss is validated before the code is redeemed", func(t *c.T) {
		var bad findings
		judged := 0
		for _, o := range issOutcomes(t) {
			a := o.r.Auth.Spec
			switch {
			case a.Iss == scenario.IssNormalized:
				continue // CAUTH-014's
			case a.IssMustReject():
				judged++
				t.Judged(o.r)
				if o.redeemed != nil {
					bad.add(o.redeemed.msg(), fmt.Sprintf("scenario %s: %s; the response must be rejected, and the client redeemed its code (POST %s)",
						o.r.Scenario.Name, o.issResponse(), o.redeemed.u.Path))
				}
			case o.redeemed == nil && !o.r.Stopped:
				other, ok := redeemsCodes(t, o.r)
				if !ok {
					continue
				}
				judged++
				t.Judged(o.r)
				bad.add(o.az[0].msg(), fmt.Sprintf("scenario %s: %s; a valid response (the spec's table: proceed), and the client never redeemed its code, though it redeemed one in %s",
					o.r.Scenario.Name, o.issResponse(), other))
			default:
				judged++
				t.Judged(o.r)
			}
		}
		if judged == 0 {
			t.NA(notTried + "; or it made no authorization request in the auth/iss-* scenarios (2026-07-28)")
		}
		bad.report(t, "no code redeemed from a response whose iss is absent though advertised or differs from the recorded issuer; a valid response's code redeemed")
	})

	c.It("CAUTH-014", "the iss is compared without normalization", func(t *c.T) {
		outcomes := issOutcomes(t)
		compares := false // the client rejected a mismatched iss elsewhere
		for _, o := range outcomes {
			if o.r.Auth.Spec.Iss == scenario.IssWrong && o.redeemed == nil && !o.r.Stopped {
				compares = true
			}
		}
		var bad findings
		judged := 0
		for _, o := range outcomes {
			if o.r.Auth.Spec.Iss != scenario.IssNormalized {
				continue
			}
			if !compares {
				t.NA("the client did not reject a mismatched iss in auth/iss-wrong-issuer or auth/iss-unexpected: whether it compares iss at all is CAUTH-013's")
			}
			judged++
			t.Judged(o.r)
			if o.redeemed != nil {
				bad.add(o.redeemed.msg(), fmt.Sprintf("scenario %s: %s, equal to it only after normalization (a trailing slash); the client redeemed its code (POST %s)",
					o.r.Scenario.Name, o.issResponse(), o.redeemed.u.Path))
			}
		}
		if judged == 0 {
			t.NA(notTried + "; or it made no authorization request in auth/iss-normalized (2026-07-28)")
		}
		bad.report(t, "an iss equal to the recorded issuer only after normalization is a mismatch: the code is not redeemed")
	})

	c.It("CAUTH-015", "the token request authenticates the client by the method the server supports", func(t *c.T) {
		var bad, warn findings
		judged := 0
		for _, r := range authRuns(t) {
			want := r.Auth.Spec.TokenAuth
			if want == "" {
				continue
			}
			as := httpRequests(t, r, r.ASConn)
			registered := keepReqs(as, func(h httpReq) bool {
				return h.in.HTTP.Method == http.MethodPost && scenario.IsRegister(h.u.Path) && h.status == http.StatusCreated
			})
			if len(registered) == 0 {
				continue // the method is the registration's
			}
			for _, tr := range keepReqs(as, func(h httpReq) bool { return h.in.HTTP.Method == http.MethodPost && scenario.IsToken(h.u.Path) }) {
				judged++
				t.Judged(r)
				got, problem := tokenAuthMethod(tr), r.Auth.CredentialProblem(tr.form().Get("code"))
				switch {
				case got == "both":
					bad.add(tr.msg(), fmt.Sprintf("scenario %s: the token request authenticates twice, with a Basic header and client_secret in the body (one method per request)", r.Scenario.Name))
				case problem != "":
					bad.add(tr.msg(), fmt.Sprintf("scenario %s: %s", r.Scenario.Name, problem))
				case got == want:
				case want == scenario.AuthNone:
					warn.add(tr.msg(), fmt.Sprintf("scenario %s: the token endpoint supports none only and registration issued no secret (a public client); the token request sends client authentication (%s)", r.Scenario.Name, got))
				default:
					bad.add(tr.msg(), fmt.Sprintf("scenario %s: the token endpoint supports %s only, and registration issued a secret for it; the token request used %s", r.Scenario.Name, want, got))
				}
			}
		}
		if judged == 0 {
			t.NA(notTried + "; or it made no token request after registering in the auth/token-endpoint-auth-* scenarios")
		}
		bad.report(t, "the client authentication method the token endpoint supports, once per request")
		warn.warn(t)
	})
})
