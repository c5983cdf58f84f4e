package suites

import (
	"reflect"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/internal/catalog"
)

// TestOptions: each With* option sets what it says on the run's config,
// the repeatable ones add, and the token options read the named variable.
func TestOptions(t *testing.T) {
	t.Setenv("SUITES_OPT_MAIN", "main-token")
	t.Setenv("SUITES_OPT_SECOND", "second-token")
	t.Setenv("SUITES_OPT_WEAK", "weak-token")
	t.Setenv("SUITES_OPT_EXPIRED", "expired-token")
	t.Setenv("SUITES_OPT_FOREIGN", "foreign-token")
	c := &config{}
	for _, o := range []Option{
		WithEnv("A=1"), WithEnv("B=2", "C=3"),
		WithDir("/srv"),
		WithBearerEnv("SUITES_OPT_MAIN"),
		WithHeader("X-One", "1"), WithHeader("X-One", "2"), WithHeader("X-Two", "t"),
		WithRevisions("2025-11-25"), WithRevisions("2026-07-28"),
		WithReportDir("/tmp/reports"),
		WithStrict(),
		WithLabelFilter("area:lifecycle"),
		WithTimeout(7 * time.Second),
		WithCallTools("none"),
		WithSampleArguments("get_order", map[string]any{"order_id": "A1"}), WithSampleArguments("ping", nil),
		WithSecondBearerEnv("SUITES_OPT_SECOND"),
		WithWeakBearerEnv("SUITES_OPT_WEAK"),
		WithExpiredBearerEnv("SUITES_OPT_EXPIRED"),
		WithForeignBearerEnv("SUITES_OPT_FOREIGN"),
	} {
		o(c)
	}
	want := &config{
		env: []string{"A=1", "B=2", "C=3"}, dir: "/srv",
		bearer: "main-token", source: "env SUITES_OPT_MAIN",
		header:    map[string][]string{"X-One": {"1", "2"}, "X-Two": {"t"}},
		revisions: []catalog.Revision{"2025-11-25", "2026-07-28"},
		reportDir: "/tmp/reports", strict: true, labelFilter: "area:lifecycle", timeout: 7 * time.Second,
		callTools: "none", samples: map[string]map[string]any{"get_order": {"order_id": "A1"}, "ping": nil},
		second: "second-token", weak: "weak-token", expired: "expired-token", foreign: "foreign-token",
	}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("config\n got %+v\nwant %+v", c, want)
	}
	if got := Stdio("srv", "--flag"); !reflect.DeepEqual(got.Command(), []string{"srv", "--flag"}) || got.URL() != "" {
		t.Errorf("Stdio: %v %q", got.Command(), got.URL())
	}
	if got := HTTP("http://127.0.0.1:1/mcp"); got.Command() != nil || got.URL() != "http://127.0.0.1:1/mcp" {
		t.Errorf("HTTP: %v %q", got.Command(), got.URL())
	}
}
