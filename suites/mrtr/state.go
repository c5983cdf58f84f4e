package mrtr

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"pgregory.net/rapid"

	"github.com/mcpconform/mcpconform/internal/rapidrun"

	c "github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/session"
)

// requestState as attacker input (MRTR-007: the mrtr page's server requirements): a rapid
// property mutates a real requestState (bit flips, character changes,
// truncation, extension, oversize) and replays it with the correct
// answers; every altered state must get a JSON-RPC error. rapid runs from
// inside the check through a small testing.TB adapter and
// shrinks a failure to a minimal mutation, which the verdict quotes.

const (
	// tamperCases is the number of rapid cases per flow.
	tamperCases = 12
	// tamperShrink bounds rapid's shrinking (each step is one request).
	tamperShrink = time.Second
	// oversize is the length of the oversize mutation.
	oversize = 64 << 10
)

// tamperFinding is the shrunk counterexample.
type tamperFinding struct {
	mutation string
	state    string
	actual   string
}

// mutate draws one mutation of state that changes it.
func mutate(rt *rapid.T, state string) (string, string) {
	b := []byte(state)
	switch rapid.IntRange(0, 4).Draw(rt, "kind") {
	case 0:
		if len(b) > 0 {
			i := rapid.IntRange(0, len(b)-1).Draw(rt, "byte")
			bit := rapid.IntRange(0, 6).Draw(rt, "bit")
			nb := b[i] ^ (1 << bit)
			if nb >= 0x20 && nb < 0x7f {
				out := append([]byte(nil), b...)
				out[i] = nb
				return string(out), fmt.Sprintf("bit %d of byte %d flipped (%q → %q)", bit, i, b[i], nb)
			}
		}
		fallthrough
	case 1:
		if len(b) > 0 {
			i := rapid.IntRange(0, len(b)-1).Draw(rt, "pos")
			ch := byte(rapid.IntRange(0x21, 0x7e).Draw(rt, "char"))
			if ch != b[i] {
				out := append([]byte(nil), b...)
				out[i] = ch
				return string(out), fmt.Sprintf("byte %d changed (%q → %q)", i, b[i], ch)
			}
		}
		fallthrough
	case 2:
		if len(b) > 1 {
			n := rapid.IntRange(1, len(b)-1).Draw(rt, "keep")
			return string(b[:n]), fmt.Sprintf("truncated to %d of %d bytes", n, len(b))
		}
		fallthrough
	case 3:
		suffix := rapid.StringMatching(`[A-Za-z0-9._=+/-]{1,16}`).Draw(rt, "suffix")
		return state + suffix, fmt.Sprintf("extended with %q", suffix)
	default:
		return state + strings.Repeat("A", oversize), fmt.Sprintf("extended to oversize (+%d bytes)", oversize)
	}
}

// tamperProperty runs the property on one flow; nil when every altered
// state was rejected.
func tamperProperty(t *c.T, s *session.Session, tg *c.MRTRTarget, retry session.Retry) *tamperFinding {
	state := tg.Interim.StateString
	var last *tamperFinding
	// reproducible (seed: SEP-2322); rapid shrinks a failure to a minimal mutation
	tb := rapidrun.Check(rapidrun.Options{Checks: tamperCases, Seed: 2322, ShrinkTime: tamperShrink}, &rapidrun.TB{Label: "mcpconform-mrtr-state"}, func(rt *rapid.T) {
		if t.Ctx.Err() != nil {
			return
		}
		mutated, desc := mutate(rt, state)
		if mutated == state {
			return
		}
		raw, _ := json.Marshal(mutated)
		resp, err := send(t, s, tg.Method, tg.Params, nil, session.Retry{InputResponses: retry.InputResponses, RequestState: raw})
		switch outcome(resp, err) {
		case "complete", "input_required":
			last = &tamperFinding{mutation: desc, state: mutated, actual: resp.Describe()}
			rt.Fatalf("accepted")
		}
	})
	if !tb.Failed() {
		return nil
	}
	return last
}
