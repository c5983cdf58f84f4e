package fuzz

import (
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/internal/catalog"
	"github.com/mcpconform/mcpconform/internal/conform"
)

// aftersalesTrigger is the reference fixture's catalog_change trigger, as
// fixtures/killmatrix/aftersales.yaml names it for the suite.
var aftersalesTrigger = &conform.Trigger{Tool: "catalog_control", Arguments: map[string]any{"action": "change"},
	Restore: &conform.Trigger{Tool: "catalog_control", Arguments: map[string]any{"action": "restore"}}}

// The state machines with catalog-change steps find nothing on the
// reference (every change and restore is announced, lists and calls
// are served after them), in both eras; and they do run such steps.
func TestSeqCatalogStepsOnReference(t *testing.T) {
	for _, rev := range []catalog.Revision{catalog.LatestLegacy, ""} {
		t.Run(string(rev), func(t *testing.T) {
			// The case count decides, not a clock: the duration only bounds
			// a hung campaign (on a loaded machine 30 cases take longer).
			res := campaign(t, stdioTarget(), Config{Revision: rev, Checks: 30, Rounds: 1, Properties: []string{PropSeq}, CatalogChange: aftersalesTrigger, Duration: 3 * time.Minute})
			if len(res.Findings) > 0 || res.PerProperty[PropSeq] < 30 {
				t.Fatalf("%v cases, findings: %+v", res.PerProperty, res.Findings)
			}
		})
	}
}
