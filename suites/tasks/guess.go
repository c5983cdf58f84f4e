package tasks

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// minIDBits is the entropy a task id must be able to carry (estimated from
// its length and alphabet).
const minIDBits = 64

// guessable says why a set of task ids (from one requester, created one
// after another) looks guessable, or "".
func guessable(ids []string) string {
	for _, id := range ids {
		if bits := idBits(id); bits < minIDBits {
			return fmt.Sprintf("%q can carry at most ~%.0f bits (want >= %d)", id, bits, minIDBits)
		}
	}
	if len(ids) < 2 {
		return ""
	}
	// strip what all ids share at both ends; look at what varies
	pre, suf := ids[0], ids[0]
	for _, id := range ids[1:] {
		pre = commonPrefix(pre, id)
		suf = commonSuffix(suf, id)
	}
	var mids []string
	numeric := true
	for _, id := range ids {
		m := id[min(len(pre), len(id)):]
		m = m[:max(0, len(m)-len(suf))]
		mids = append(mids, m)
		if _, err := strconv.ParseUint(m, 10, 64); err != nil {
			numeric = false
		}
	}
	if numeric {
		return fmt.Sprintf("the ids differ only by a number (%s)", strings.Join(mids, ", "))
	}
	for _, m := range mids {
		if len(m) < 8 {
			return fmt.Sprintf("consecutive ids share all but %d characters", len(m))
		}
	}
	return ""
}

func idBits(id string) float64 {
	if hexOnly(id) {
		return float64(len(strings.ReplaceAll(id, "-", ""))) * 4
	}
	var digits, lower, upper, other bool
	for _, r := range id {
		switch {
		case r >= '0' && r <= '9':
			digits = true
		case r >= 'a' && r <= 'z':
			lower = true
		case r >= 'A' && r <= 'Z':
			upper = true
		default:
			other = true
		}
	}
	alphabet := 0.0
	for _, c := range []struct {
		on bool
		n  float64
	}{{digits, 10}, {lower, 26}, {upper, 26}, {other, 4}} {
		if c.on {
			alphabet += c.n
		}
	}
	if alphabet < 2 {
		return 0
	}
	return float64(len(id)) * math.Log2(alphabet)
}

func hexOnly(id string) bool {
	for _, r := range id {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f' || r >= 'A' && r <= 'F' || r == '-') {
			return false
		}
	}
	return true
}

func commonPrefix(a, b string) string {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return a[:n]
}

func commonSuffix(a, b string) string {
	n := 0
	for n < len(a) && n < len(b) && a[len(a)-1-n] == b[len(b)-1-n] {
		n++
	}
	return a[len(a)-n:]
}
