package reports

import (
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mcpconform/mcpconform/internal/result"
)

// Contract is the contract gate's part of a report.
type (
	Contract        = result.Contract
	ContractFinding = result.ContractFinding
)

// ContractText prints the contract part for a terminal: a headline, then
// each finding (ERR first) with where it is and why it matters. Every
// string the server sent is made safe for a terminal.
func ContractText(w io.Writer, c *Contract) {
	if c == nil {
		return
	}
	what := "lints"
	if c.File != "" {
		what = "contract " + c.File
	}
	verdict := "PASS"
	if !c.Passed {
		verdict = "FAIL"
	}
	fmt.Fprintf(w, "%s: %s — %d ERR, %d WARN, %d INFO, %d accepted\n", what, verdict, c.Err, c.Warn, c.Info, c.Accepted)
	for _, f := range c.Findings {
		fmt.Fprintf(w, "  %s\n", safeText(oneLine(f.String(), 400)))
		loc := f.Pointer()
		if f.Line > 0 {
			loc = fmt.Sprintf("%s:%d %s", c.File, f.Line, loc)
		}
		if loc != "" {
			fmt.Fprintf(w, "       at %s (fingerprint %s)\n", safeText(oneLine(loc, 300)), f.Fingerprint)
		}
		fmt.Fprintf(w, "       why: %s\n", f.Why)
	}
	for _, n := range c.Notes {
		fmt.Fprintf(w, "  note: %s\n", safeText(oneLine(n, 300)))
	}
}

// safeText writes control and invisible characters of server-sent text
// as escapes (no terminal sequence reaches the terminal).
func safeText(s string) string {
	var b strings.Builder
	for _, r := range s {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == utf8.RuneError {
			fmt.Fprintf(&b, "\\u%04x", r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// contractFailing counts the findings that fail the gate.
func contractFailing(c *Contract) int {
	if c == nil {
		return 0
	}
	return c.Err
}

// contractLevel maps a finding's level to a verdict-like word for the
// formats that know only those.
func contractLevel(f ContractFinding) string {
	switch {
	case f.Accepted:
		return "accepted"
	case f.Level == "ERR":
		return "failure"
	default:
		return strings.ToLower(f.Level)
	}
}
