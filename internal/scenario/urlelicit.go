package scenario

import (
	"context"
	"fmt"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// URL-mode elicitation (elicitation-url, and the black-box server): the
// scenario server asks a client that declared elicitation.url to open a
// page of its own, on loopback. The user's browser is the harness's user
// agent ($BROWSER, browser.go), whose requests carry the run's mark: any
// other request for the page is the client fetching it itself (CLI-033).
// Once the client answered, the server sends notifications/elicitation/
// complete for that elicitation twice and once for an id it never used,
// then its next request, which a client that ignored them answers
// (CLI-034).

const (
	// ElicitURLPath is where the URL-mode elicitations point (on the
	// scenario server's own address: a client that opens one stays on
	// loopback).
	ElicitURLPath = "/elicitation/url-mode"
	// ElicitOpenedNote starts the note of a request for the page from
	// the user agent; ElicitFetchNote of one from anything else.
	ElicitOpenedNote = "the user's browser opened the URL-mode elicitation's page"
	ElicitFetchNote  = "the URL-mode elicitation's page was fetched, not by the user's browser"
	// CompleteNote starts the note of the notifications/elicitation/
	// complete the server sends after the client's answer; the server's
	// next request to the client follows them.
	CompleteNote = "the scenario server sends notifications/elicitation/complete for the URL-mode elicitation the client answered (twice: the second names an already-completed id) and for an id it never used"
	// UnknownElicitationID is the id of no elicitation of the run.
	UnknownElicitationID = "mcpconform-never-elicited"
)

// urlModeContext is the MCP_CONFORMANCE_CONTEXT of elicitation-url: the
// official harness has no such scenario, so a client that can declare
// url mode learns from it that it should (the reference client does; a
// client written for the official harness ignores it and declares what
// it always does).
const urlModeContext = `{"name":"elicitation-url","elicitationModes":["form","url"]}`

// elicitURLDeclared: test_client_elicitation_defaults first asks a
// client that declared elicitation.url for a URL-mode elicitation, sends
// the completions (askURLDeclared), then asks for the form of
// elicitDefaults, the request a client that ignored them answers.
func elicitURLDeclared(srv *mcp.Server, r *Run) {
	elicitDefaultsAfter(srv, r, func(ctx context.Context, ss *mcp.ServerSession) { askURLDeclared(ctx, ss, r) })
}

// askURLDeclared asks a client that declared elicitation.url to open
// the page, and once it answered, sends the completions. It reports
// whether they went out (the caller's next request to the client is the
// one CLI-034 judges).
func askURLDeclared(ctx context.Context, ss *mcp.ServerSession, r *Run) bool {
	if ss == nil {
		return false
	}
	ip := ss.InitializeParams()
	if ip == nil || ip.Capabilities == nil || ip.Capabilities.Elicitation == nil || ip.Capabilities.Elicitation.URL == nil {
		return false // url not declared: elicitation-url-undeclared's case
	}
	id := "mcpconform-url-" + randomToken()[:8]
	r.note("the scenario server asks the client, which declared elicitation.url, to open a page (a URL-mode elicitation, elicitationId " + id + ")")
	actx, cancel := r.awaitClient(ctx)
	_, err := ss.Elicit(actx, &mcp.ElicitParams{Mode: "url", Message: "Open this page to go on",
		URL: r.base + ElicitURLPath + "?elicitation=" + id, ElicitationID: id})
	cancel()
	if err != nil {
		r.note(fmt.Sprintf("no completion sent: the URL-mode elicitation got no result (%v)", err))
		return false
	}
	r.note(CompleteNote)
	for _, eid := range []string{id, id, UnknownElicitationID} {
		if err := ss.NotifyElicitationComplete(ctx, &mcp.ElicitationCompleteParams{ElicitationID: eid}); err != nil {
			r.note(fmt.Sprintf("notifications/elicitation/complete for %s could not be sent: %v", eid, err))
			return false
		}
	}
	return true
}

// elicitPage serves the URL-mode elicitations' page and says who asked
// for it: the user agent (its mark) or something else.
func (r *Run) elicitPage() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Header.Get(BrowserHeader) == r.mark {
			r.note(fmt.Sprintf("%s: %s %s", ElicitOpenedNote, req.Method, req.URL.RequestURI()))
		} else {
			r.note(fmt.Sprintf("%s: %s %s (User-Agent %q)", ElicitFetchNote, req.Method, req.URL.RequestURI(), clipURL(req.UserAgent())))
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte("<!doctype html><title>mcpconform</title><p>Done: you may close this page.</p>\n"))
	})
}
