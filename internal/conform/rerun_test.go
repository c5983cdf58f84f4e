package conform

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/internal/catalog"
	"github.com/mcpconform/mcpconform/internal/target"
	"github.com/mcpconform/mcpconform/internal/wire"
)

// A verdict reached after a wait that is not a request's deadline ran out
// (a listen stream's acknowledgment, a GET stream's reply head) is decided
// by a re-run of the check with the harness otherwise idle (issue 31):
// the re-run's verdict is the check's, with a note on the wait that ran
// out when it differs, and "confirmed" on a FAIL it reaches again. A
// verdict with no such wait, or a PASS, is not re-run.
func TestRerunAfterATimedOutWait(t *testing.T) {
	req := catalog.MustGet("SUB-001")
	exec := func(fn func(t *T)) *Outcome {
		env := &Env{Target: &target.Target{Recorder: wire.NewRecorder(nil), Timeout: time.Second}, SpecBudget: time.Minute}
		return execute(context.Background(), env, req, catalog.Modern, wire.HTTP, fn, nil)
	}
	calls := 0
	// slow the first time only: the re-run passes
	out := exec(func(t *T) {
		calls++
		if calls == 1 {
			t.TimedOut("the wait for a message on the subscriptions/listen stream 1")
			t.Violation("notifications/subscriptions/acknowledged", "nothing within 1s", "no acknowledgment for subscriptions/listen")
		}
	})
	if calls != 2 || out.Verdict != PASS || len(out.Notes) != 1 || !strings.Contains(out.Notes[0], UnderLoad) || !strings.Contains(out.Notes[0], "no acknowledgment") {
		t.Errorf("slow once: %d runs, %s %q notes %q; want 2 runs, PASS with a note %q naming the FAIL it replaced", calls, out.Verdict, out.Message, out.Notes, UnderLoad)
	}
	// silent both times: the FAIL stands, confirmed
	calls = 0
	out = exec(func(t *T) {
		calls++
		t.TimedOut("the wait for a message on the subscriptions/listen stream 1")
		t.Violation("notifications/subscriptions/acknowledged", "nothing within 1s", "no acknowledgment for subscriptions/listen")
	})
	if calls != 2 || out.Verdict != FAIL || !strings.Contains(out.Message, "confirmed with the harness otherwise idle") {
		t.Errorf("silent twice: %d runs, %s %q; want 2 runs and a confirmed FAIL", calls, out.Verdict, out.Message)
	}
	// an NA after a wait: not re-run (it claims nothing)
	calls = 0
	out = exec(func(t *T) {
		calls++
		t.TimedOut("the wait for a message on the subscriptions/listen stream 1")
		t.NA("no acknowledgment came (judged by SUB-001)")
	})
	if calls != 1 || out.Verdict != NA {
		t.Errorf("NA after a wait: %d runs, %s; want 1 run, NA", calls, out.Verdict)
	}
	// a FAIL with no wait that ran out: not re-run
	calls = 0
	out = exec(func(t *T) {
		calls++
		t.Violation("x", "y", "z")
	})
	if calls != 1 || out.Verdict != FAIL {
		t.Errorf("FAIL without a timed-out wait: %d runs, %s; want 1 run, FAIL", calls, out.Verdict)
	}
}
