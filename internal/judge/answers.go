package judge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/mcpconform/mcpconform/internal/jsonrpc"
)

// Answers the checks accept, and answers the environment caused.
//
//   - A well-formed JSON-RPC error (an integer code, a string message) is
//     an answer to a request, never a malformed result: a check whose
//     requirement is about a successful result (the items of a list, the
//     shape of a completion) judges items only when items came, and
//     judges an error by what its sentence says about errors.
//   - An error or an isError tool result whose message names a failure of
//     the server's own backend (a database, a cluster, a cloud API that
//     is unreachable or refuses the server's credentials) is the
//     environment, not the protocol: reported as such (NA or a note; a
//     WARN under --strict, TOL-21), never as a FAIL of a MUST. So is a
//     tools/call that stalls on its ordinary arguments while the server
//     keeps answering its other requests (a slow tool).

// EnvironmentTolerance is the catalog entry of environment-dependent
// outcomes (shown as WARN under --strict).
const EnvironmentTolerance = "TOL-21"

// ErrorAnswer reports whether m is a well-formed JSON-RPC error response:
// a JSON-RPC message with an error (no result) whose code is an integer and
// whose message is a string. Its id is not judged here ("id": null where
// the server could not read the request's id is TOL-14's).
func ErrorAnswer(m *jsonrpc.Message) bool {
	return m != nil && m.IsJSONRPC() && m.IsError() && m.Error != nil && m.Error.CodeIsInt && m.Error.MessageIsString
}

// DescribeError renders a well-formed error answer for a verdict's reason:
// `error -32601 ("Method not found")`.
func DescribeError(m *jsonrpc.Message) string {
	if m == nil || m.Error == nil {
		return "an error"
	}
	msg := m.Error.Message
	if len(msg) > 120 {
		msg = msg[:120] + "…"
	}
	return fmt.Sprintf("error %d (%q)", m.Error.Code, msg)
}

// backendPatterns name a failure of what a server talks to, as the
// runtimes and client libraries word it (Node's errno names, getaddrinfo,
// Go's dial errors, Python's requests/httpx, fetch, HTTP statuses an
// upstream API answered with, credentials the upstream refused).
var backendPatterns = regexp.MustCompile(`(?i)\b(` + strings.Join([]string{
	`ECONNREFUSED`, `ECONNRESET`, `ENOTFOUND`, `ETIMEDOUT`, `EAI_AGAIN`, `EHOSTUNREACH`, `ENETUNREACH`, `EPIPE`,
	`getaddrinfo`, `connection refused`, `connection reset`, `connect(ion)? timed? ?out`, `timed out`, `timeout`,
	`fetch failed`, `failed to fetch`, `socket hang up`, `no such host`, `name resolution`, `network is unreachable`,
	`dial tcp`, `could not connect`, `cannot connect`, `unable to connect`, `failed to connect`, `connection error`,
	`service unavailable`, `bad gateway`, `gateway time-?out`, `upstream (error|unavailable|timed out|returned|failed)`,
	`unauthori[sz]ed`, `(invalid|missing|no|bad)[ _-]?api[ _-]?key`, `api[ _-]?key (is )?(invalid|missing|required|expired)`,
	`authentication failed`, `invalid credentials`, `missing credentials`, `expired token`, `token expired`,
	`status( ?code)?:? ?(401|403|429|502|503|504)`, `(401|403|429|502|503|504) (unauthorized|forbidden|too many requests|bad gateway|service unavailable|gateway timeout)`,
	`database (is )?(unavailable|unreachable|down|error)`, `(could not|cannot|unable to) (connect|reach)`, `ECONNABORTED`, `rate limit(ed)?`,
}, "|") + `)\b`)

// BackendFailure returns the words of text that name a failure of the
// server's own backend ("" when none do).
func BackendFailure(text string) string {
	return backendPatterns.FindString(text)
}

// Backend reports whether m, an answer, is the server's report that its
// own backend failed: an internal error (-32603, or any well-formed error
// whose message or data names a connection failure) or an isError tool
// result whose text does. why quotes the words that say so.
func Backend(m *jsonrpc.Message) (why string, ok bool) {
	if m == nil || !m.IsJSONRPC() {
		return "", false
	}
	if ErrorAnswer(m) {
		text := m.Error.Message + " " + string(m.Error.Data)
		if w := BackendFailure(text); w != "" {
			return fmt.Sprintf("%s, which names a failure of the server's own backend (%q)", DescribeError(m), w), true
		}
		return "", false
	}
	if !m.HasResult || m.HasError {
		return "", false
	}
	res := m.ResultObject()
	if string(bytes.TrimSpace(res["isError"])) != "true" {
		return "", false
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(res["content"], &blocks)
	var text strings.Builder
	for _, b := range blocks {
		text.WriteString(b.Text)
		text.WriteByte(' ')
	}
	text.Write(res["structuredContent"])
	if w := BackendFailure(text.String()); w != "" {
		return fmt.Sprintf("an isError result, which names a failure of the server's own backend (%q)", w), true
	}
	return "", false
}
