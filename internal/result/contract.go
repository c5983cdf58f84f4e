package result

import (
	"fmt"
	"strings"
)

// Contract is the contract gate's part of a report (since 1.10): the
// changes of the server's surface from its contract file, classified by
// the rules of `mcpconform list --contract-rules`, and the lints of the
// text a model reads. File is "" when only the lints ran.
type Contract struct {
	File     string            `json:"file,omitempty"`
	Findings []ContractFinding `json:"findings"`
	// Passed: no ERR finding that the contract's policy did not accept.
	Passed bool `json:"passed"`
	// Err, Warn, Info count the findings by level, accepted ones apart.
	Err      int `json:"err"`
	Warn     int `json:"warn"`
	Info     int `json:"info"`
	Accepted int `json:"accepted"`
	// Notes: what the snapshot noticed (revisions the server declined,
	// lists cut short).
	Notes []string `json:"notes,omitempty"`
}

// ContractFinding is one classified change or lint hit.
type ContractFinding struct {
	Rule     string `json:"rule"`
	Level    string `json:"level"`    // ERR, WARN, INFO
	Category string `json:"category"` // wire, model, safety
	// Revisions the change was seen on (newest first) and the credential
	// profile.
	Revisions []string `json:"revisions,omitempty"`
	Profile   string   `json:"profile,omitempty"`
	// Path is the JSON pointer of the change within a section of the
	// contract (/tools/NAME/inputSchema …), with the instance path inside
	// a schema after "#".
	Path    string `json:"path"`
	Subject string `json:"subject"`
	Message string `json:"message"`
	// Fingerprint identifies the change for the contract's policy.accept.
	Fingerprint string `json:"fingerprint"`
	Accepted    bool   `json:"accepted,omitempty"`
	Reason      string `json:"reason,omitempty"`
	// Why is the rule's reason; Line the finding's line in the contract
	// file (0: not known).
	Why  string `json:"why"`
	Line int    `json:"line,omitempty"`
}

// Pointer is the finding's JSON pointer in the contract file (its newest
// revision's section).
func (f ContractFinding) Pointer() string {
	if len(f.Revisions) == 0 {
		return ""
	}
	p, _, _ := strings.Cut(f.Path, "#")
	return "/revisions/" + f.Revisions[0] + "/profiles/" + f.Profile + p
}

func (f ContractFinding) String() string {
	s := fmt.Sprintf("%-4s %s %s: %s", f.Level, f.Rule, f.Subject, f.Message)
	if len(f.Revisions) > 0 {
		s += " [" + strings.Join(f.Revisions, ", ") + "]"
	}
	if f.Accepted {
		s += " (accepted: " + f.Reason + ")"
	}
	return s
}
