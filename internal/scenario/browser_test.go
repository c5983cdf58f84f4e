package scenario

import (
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestUserAgentFollowsLoopbackOnly: the $BROWSER script hands the URL to
// the run, which follows it and its redirects as a browser would (the
// client's callback gets the code, its requests marked), and never a URL or a redirect off
// loopback.
func TestUserAgentFollowsLoopbackOnly(t *testing.T) {
	called := make(chan string, 1)
	mux := http.NewServeMux()
	mux.HandleFunc("/authorize", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/callback?code=c1&state="+r.URL.Query().Get("state"), http.StatusFound)
	})
	mux.HandleFunc("/callback", func(w http.ResponseWriter, r *http.Request) {
		called <- r.URL.RawQuery + " " + r.Header.Get(BrowserHeader)
	})
	mux.HandleFunc("/away", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://example.invalid/phish", http.StatusFound)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	notes := make(chan string, 8)
	ua, err := startUserAgent(func(s string) { notes <- s }, "mark-1")
	if err != nil {
		t.Fatal(err)
	}
	defer ua.stop()
	open := func(u string) string {
		t.Helper()
		// as xdg-open runs it: $BROWSER URL
		if out, err := exec.Command("sh", "-c", `"$0" "$1"`, ua.script, u).CombinedOutput(); err != nil {
			t.Fatalf("the browser script: %v\n%s", err, out)
		}
		select {
		case n := <-notes:
			return n
		case <-time.After(time.Minute): // a hung user agent, not a timing assertion
			t.Fatalf("no note for %s", u)
			return ""
		}
	}

	n := open(srv.URL + "/authorize?state=s1")
	// the browser's requests carry the run's mark (a page the harness
	// serves tells them from the client's own)
	if q := <-called; q != "code=c1&state=s1 mark-1" {
		t.Errorf("the callback got %q (query, then its %s)", q, BrowserHeader)
	}
	if !strings.Contains(n, "/callback?code=c1") || !strings.HasSuffix(n, "HTTP 200") {
		t.Errorf("note %q", n)
	}
	if n := open("http://example.invalid/authorize"); !strings.Contains(n, "not on loopback: not followed") {
		t.Errorf("off-loopback URL: %q", n)
	}
	if n := open(srv.URL + "/away"); !strings.Contains(n, "not on loopback: not followed") {
		t.Errorf("off-loopback redirect: %q", n)
	}
	if n := open("file:///etc/passwd"); !strings.Contains(n, "not an http(s) URL") {
		t.Errorf("file URL: %q", n)
	}
}
