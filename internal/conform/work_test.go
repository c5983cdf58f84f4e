package conform

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
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
