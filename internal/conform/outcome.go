package conform

import (
	"bytes"
	"slices"
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
		msg = withCauses(msg, o.Frames, o.Evidence)
	}
	res := result.Result{
		Requirement: o.Requirement, Level: string(o.Level), Verdict: o.Verdict, Transport: o.Transport,
		Revision: string(o.Revision), Message: msg, Expected: o.Expected, Actual: o.Actual, Notes: o.Notes,
		Transcript: result.TranscriptOf(o.Frames),
	}
	if o.Verdict == FAIL || o.Verdict == WARN {
		res.Evidence = o.Evidence
		res.Claim = o.Claim
	}
	if o.Verdict != NA {
		res.Judged = o.Judged
	}
	if r, ok := catalog.Get(o.Requirement); ok {
		res.Describe(r)
	}
	return res
}

// withCauses appends to a verdict's message the transport problems
// (wire.CausePrefix notes) recorded while the check ran, so that a check
// that saw silence or garbage names the cause (a cap exceeded, invalid
// UTF-8, a message cut off, a crash). At most three distinct ones, and
// only those of the connections the verdict is about (verdictConns): a
// process of the check that ended for another reason is not this
// verdict's cause.
func withCauses(msg string, frames []wire.Frame, evidence []int64) string {
	conns := verdictConns(frames, evidence)
	var causes []string
	seen := map[string]bool{}
	for _, f := range frames {
		c, ok := strings.CutPrefix(f.Note, wire.CausePrefix)
		if f.Kind != wire.KindNote || !ok || (conns != nil && !conns[f.Conn]) {
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

// verdictConns names the connections a verdict is about: those of its
// evidence frames, else the one the harness last sent a message on (a
// check ends on the exchange it judged). Nil when the frames do not tell
// (every connection counts).
func verdictConns(frames []wire.Frame, evidence []int64) map[string]bool {
	conns := map[string]bool{}
	for _, f := range frames {
		if f.Conn != "" && slices.Contains(evidence, f.Seq) {
			conns[f.Conn] = true
		}
	}
	if len(conns) > 0 {
		return conns
	}
	for i := len(frames) - 1; i >= 0; i-- {
		if f := frames[i]; f.Dir == wire.Out && (f.Kind == wire.KindMessage || f.Kind == wire.KindBody) && f.Conn != "" {
			return map[string]bool{f.Conn: true}
		}
	}
	return nil
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
