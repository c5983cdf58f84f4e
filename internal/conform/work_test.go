package conform

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/internal/target"
)

func TestPaced(t *testing.T) {
	for _, c := range []struct {
		name, tool string
		args, want map[string]any
	}{
		{"seconds, number", `{"inputSchema":{"properties":{"duration":{"type":"number","default":10,"description":"Duration of the operation in seconds"},"steps":{"type":"number","default":5}}}}`,
			map[string]any{}, map[string]any{"duration": 0.4}},
		{"milliseconds by name", `{"inputSchema":{"properties":{"delayMs":{"type":"integer"}},"required":["delayMs"]}}`,
			map[string]any{"delayMs": 1.0}, map[string]any{"delayMs": 400.0}},
		{"milliseconds by default", `{"inputSchema":{"properties":{"sleep":{"type":"integer","default":5000}}}}`,
			map[string]any{}, map[string]any{"sleep": 400.0}},
		{"integer seconds rounds up, minimum kept", `{"inputSchema":{"properties":{"wait_seconds":{"type":"integer","minimum":2}}}}`,
			map[string]any{}, map[string]any{"wait_seconds": 2.0}},
		{"already quick", `{"inputSchema":{"properties":{"duration":{"type":"number","default":0.1}}}}`,
			map[string]any{}, map[string]any{}},
		{"not a duration", `{"inputSchema":{"properties":{"count":{"type":"number","default":10},"durationText":{"type":"string"}}}}`,
			map[string]any{}, map[string]any{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, _ := Paced(json.RawMessage(c.tool), c.args, 400*time.Millisecond)
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("got %v, want %v", got, c.want)
			}
		})
	}
}

// TestQuietWindow: the window follows the observed p99 (3×, within
// WindowFloor..DefaultWindow), is DefaultWindow until enough answers were
// observed, and an explicit Env.Window is used as given.
func TestQuietWindow(t *testing.T) {
	observe := func(e *Env, d time.Duration, n int) {
		for range n {
			e.Target.Latency().Observe(d)
		}
	}
	e := &Env{Target: &target.Target{}}
	if w := e.QuietWindow(); w != DefaultWindow {
		t.Errorf("no answers observed: window %s, want %s", w, DefaultWindow)
	}
	observe(e, 100*time.Microsecond, 10)
	if w := e.QuietWindow(); w != WindowFloor {
		t.Errorf("fast server: window %s, want the floor %s", w, WindowFloor)
	}
	observe(e, 4*time.Millisecond, 10)
	if w := e.QuietWindow(); w != 12*time.Millisecond {
		t.Errorf("p99 4ms: window %s, want 12ms", w)
	}
	observe(e, 50*time.Millisecond, 10)
	if w := e.QuietWindow(); w != DefaultWindow {
		t.Errorf("slow server: window %s, want the ceiling %s", w, DefaultWindow)
	}
	e.Window = 100 * time.Millisecond
	if w := e.QuietWindow(); w != 100*time.Millisecond {
		t.Errorf("explicit --window 100ms: window %s", w)
	}
}
