package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/reports"
)

// TestAuthOnlyServer: an HTTP server that answers every request without a
// token with 401 (and a random token with 500, and publishes
// authorization_servers: [""]) gets its token-free authorization verdicts
// and exit 1, not exit 2, and the run says the rest needs a token.
func TestAuthOnlyServer(t *testing.T) {
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/.well-known/oauth-protected-resource") {
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(map[string]any{"resource": srv.URL + "/mcp", "authorization_servers": []string{""}})
			return
		}
		if r.Header.Get("Authorization") != "" {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+srv.URL+`/.well-known/oauth-protected-resource/mcp", scope="read"`)
		w.WriteHeader(http.StatusUnauthorized)
	}))
	defer srv.Close()
	dir := t.TempDir()
	_, stderr, code, _ := cli(t, nil, "run", "--quiet", "--reports", "json", "--report-dir", dir, "--url", srv.URL+"/mcp")
	if code != 1 {
		t.Fatalf("exit %d, want 1 (AUTH failures): %s", code, stderr)
	}
	b, err := os.ReadFile(filepath.Join(dir, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep reports.Report
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	verdicts := map[string]reports.Verdict{}
	for _, r := range rep.Results {
		if r.Verdict != "NA" || verdicts[r.Requirement] == "" {
			verdicts[r.Requirement] = r.Verdict
		}
		if !strings.HasPrefix(r.Requirement, "AUTH-") {
			t.Errorf("%s ran on an auth-only server without a token", r.Requirement)
		}
	}
	for id, want := range map[string]reports.Verdict{"AUTH-001": "FAIL", "AUTH-002": "FAIL", "AUTH-003": "PASS", "AUTH-004": "PASS"} {
		if verdicts[id] != want {
			t.Errorf("%s: %s, want %s", id, verdicts[id], want)
		}
	}
	if !strings.Contains(rep.Summary.HollowReason, "token") {
		t.Errorf("the summary does not say the rest needs a token: %q", rep.Summary.HollowReason)
	}
}
