package conform

import (
	"encoding/json"
	"math"
	"regexp"
	"strings"
	"time"
)

// durationName matches input properties that set how long a tool works
// ("duration", "delayMs", "sleep_seconds", "wait").
var durationName = regexp.MustCompile(`(?i)^(duration|delay|sleep|wait|pause|seconds|secs|millis|milliseconds|ms)([_-]?(ms|millis|milliseconds|s|sec|secs|seconds|in[_-]?(ms|seconds)))?$`)

// Paced returns a copy of args (derived for tool, its raw object from
// tools/list) in which every numeric input whose name says it sets how long
// the tool works (duration, delay, sleep, wait …) is set so the call lasts
// about d instead of its default: a server whose demo tool runs for ten
// seconds by default is not waited out by every check that calls it, and a
// check that needs a call still running (cancellation) gets one of a known,
// short length. The unit is read from the name and description ("ms",
// "millisecond" → milliseconds; else seconds, or milliseconds when the
// default is 100 or more); the schema's minimum and maximum are kept.
// changed lists the inputs set (empty: args returned as they were).
// Configured arguments (--config) are the user's and are never paced.
func Paced(tool json.RawMessage, args map[string]any, d time.Duration) (out map[string]any, changed []string) {
	var obj struct {
		InputSchema struct {
			Properties map[string]json.RawMessage `json:"properties"`
		} `json:"inputSchema"`
	}
	if json.Unmarshal(tool, &obj) != nil || len(obj.InputSchema.Properties) == 0 {
		return args, nil
	}
	out = args
	for name, raw := range obj.InputSchema.Properties {
		if !durationName.MatchString(name) {
			continue
		}
		var p struct {
			Type        json.RawMessage `json:"type"`
			Description string          `json:"description"`
			Default     *float64        `json:"default"`
			Minimum     *float64        `json:"minimum"`
			Maximum     *float64        `json:"maximum"`
			ExclMin     *float64        `json:"exclusiveMinimum"`
		}
		if json.Unmarshal(raw, &p) != nil {
			continue
		}
		typ := strings.Trim(string(p.Type), `"`)
		if typ != "number" && typ != "integer" {
			continue
		}
		lower := strings.ToLower(name + " " + p.Description)
		ms := strings.Contains(lower, "millisecond") || strings.Contains(lower, "ms") && !strings.Contains(lower, "second")
		if !ms && !strings.Contains(lower, "second") && p.Default != nil && *p.Default >= 100 {
			ms = true
		}
		v := d.Seconds()
		if ms {
			v = float64(d.Milliseconds())
		}
		if typ == "integer" {
			v = math.Ceil(v)
		}
		if p.Minimum != nil && v < *p.Minimum {
			v = *p.Minimum
		}
		if p.ExclMin != nil && v <= *p.ExclMin {
			continue // a value just above it would be a guess of its scale
		}
		if p.Maximum != nil && v > *p.Maximum {
			v = *p.Maximum
		}
		if p.Default != nil && *p.Default <= v {
			continue // already quick
		}
		if len(changed) == 0 {
			out = make(map[string]any, len(args)+1)
			for k, x := range args {
				out[k] = x
			}
		}
		out[name] = v
		changed = append(changed, name)
	}
	return out, changed
}

// QuickWork is how long a paced call of a tool that takes a duration lasts
// in checks that only need its result.
const QuickWork = 50 * time.Millisecond

// PacedArgs is ArgsFor with derived arguments Paced to d (configured ones
// are the user's and kept as given).
func (t *T) PacedArgs(tool json.RawMessage, d time.Duration) (args map[string]any, source string, ok bool) {
	args, source, ok = t.ArgsFor(tool)
	if ok && source == "derived" {
		args, _ = Paced(tool, args, d)
	}
	return args, source, ok
}
