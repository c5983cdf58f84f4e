package conform

import (
	"bytes"
	"strings"

	"github.com/mcpconform/mcpconform/internal/catalog"
	"github.com/mcpconform/mcpconform/internal/result"
	"github.com/mcpconform/mcpconform/internal/wire"
)

// Result is the outcome in the result model: the verdict and its reason
// (a problem's message names the transport problems its transcript
// recorded), the requirement's catalog text, and the transcript. The
// runner adds what Ginkgo measured (duration, the log of a failed check).
func (o *Outcome) Result() result.Result {
	msg := o.Message
	if o.Verdict.Problem() {
		msg = withCauses(msg, o.Frames)
	}
	res := result.Result{
		Requirement: o.Requirement, Level: string(o.Level), Verdict: o.Verdict, Transport: o.Transport,
		Revision: string(o.Revision), Message: msg, Expected: o.Expected, Actual: o.Actual, Notes: o.Notes,
		Transcript: result.TranscriptOf(o.Frames),
	}
	if o.Verdict == FAIL || o.Verdict == WARN {
		res.Evidence = o.Evidence
	}
	if r, ok := catalog.Get(o.Requirement); ok {
		res.Describe(r)
	}
	return res
}

// withCauses appends to a verdict's message the transport problems
// (wire.CausePrefix notes) recorded while the check ran, so that a check
// that saw silence or garbage names the cause (a cap exceeded, invalid
// UTF-8, a message cut off, a crash). At most three distinct ones.
func withCauses(msg string, frames []wire.Frame) string {
	var causes []string
	seen := map[string]bool{}
	for _, f := range frames {
		c, ok := strings.CutPrefix(f.Note, wire.CausePrefix)
		if f.Kind != wire.KindNote || !ok {
			continue
		}
		key, _, _ := strings.Cut(c, " (")
		if seen[key] {
			continue
		}
		seen[key] = true
		if len(causes) < 3 {
			causes = append(causes, c)
		}
	}
	if len(causes) == 0 {
		return msg
	}
	return msg + " [" + wire.CausePrefix + strings.Join(causes, "; ") + "]"
}

// quotedFrames returns the server frames of frames that a verdict's text
// quotes (Clip of their payload, or its first 64 bytes, appears in it):
// the evidence of a check that named no frame itself. Payloads shorter than
// 16 bytes ("null", "{}") are too common to tell one frame from another.
func quotedFrames(frames []wire.Frame, texts ...string) []int64 {
	var out []int64
	for _, f := range frames {
		if f.Dir != wire.In || (f.Kind != wire.KindMessage && f.Kind != wire.KindBody) {
			continue
		}
		raw := bytes.TrimSpace(f.Raw)
		if len(raw) < 16 {
			continue
		}
		head := raw[:min(len(raw), 64)]
		for _, t := range texts {
			if t != "" && strings.Contains(t, string(head)) {
				out = append(out, f.Seq)
				break
			}
		}
	}
	return out
}
