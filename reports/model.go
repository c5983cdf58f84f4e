// Package reports renders a run's result model (internal/result) into the
// files and text people and machines read: report.json (versioned,
// documented in reports/FORMAT.md), junit.xml (Ginkgo's JUnit reporter,
// tuned), report.html, summary.md, sarif.json and the terminal summary.
// Write is the one entry point; each format is one file that registers
// itself (format.go).
package reports

import "github.com/mcpconform/mcpconform/internal/result"

// The model the reports render is internal/result's; these names keep
// the renderers short.
type (
	Report          = result.Report
	Tool            = result.Tool
	Target          = result.Target
	Era             = result.Era
	Result          = result.Result
	Exchange        = result.Exchange
	Counts          = result.Counts
	Summary         = result.Summary
	Performance     = result.Performance
	Verdict         = result.Verdict
	Baseline        = result.Baseline
	BaselineEntry   = result.BaselineEntry
	BaselineSummary = result.BaselineSummary
)

// SchemaVersion of report.json (result.SchemaVersion).
const SchemaVersion = result.SchemaVersion
