package reports

import (
	"github.com/mcpconform/mcpconform/internal/repro"
	"github.com/mcpconform/mcpconform/internal/result"
)

// ReproCommand is the command that prints a result's reproduction script.
func ReproCommand(res Result) string {
	return "mcpconform repro report.json " + res.Requirement + " --revision " + res.Revision
}

// ReproOptions are the options of a result's script in a report: what
// `run --verify-repro` found, or (never verified) a script whose OK is an
// exit 2.
func ReproOptions(res *result.Result) repro.Options {
	switch v := res.Repro; {
	case v == nil:
		return repro.Options{Unverified: true}
	case v.Status == repro.Reproduced:
		return repro.Options{Prefix: v.Prefix, Verified: v.Why}
	case v.Status == repro.Unreproduced:
		return repro.Options{Unreproduced: v.Why}
	}
	return repro.Options{Unverified: true}
}
