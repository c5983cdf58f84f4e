package reports

import (
	"fmt"
	"strings"
)

// BackoffLine says, for the terminal and Markdown summaries, how the
// harness held back so that its own load made no verdict ("" when it did
// not): "the harness limited itself to 8 checks at once (--parallel 16),
// started no more lane workers during 3 slow checks while its own
// work, the machine or start-ups were busy, held the run quiet 2 times to re-ask 2 silences (1 answered:
// slow under load, not reproduced)".
func BackoffLine(r *Report) string {
	b := r.Summary.Backoff
	if !b.Any() {
		return ""
	}
	var parts []string
	if b.Workers < b.Asked {
		parts = append(parts, fmt.Sprintf("limited itself to %d checks at once (--parallel %d)", b.Workers, b.Asked))
	}
	if n := b.HeldBack + b.Capped; n > 0 {
		parts = append(parts, fmt.Sprintf("started no more lane workers during %d slow checks while its own work, the machine or start-ups were busy", n))
	}
	if b.Quiet > 0 || b.Reasked > 0 {
		q := fmt.Sprintf("held the run quiet %d times", b.Quiet)
		if b.QuietWaited > 0 {
			q += fmt.Sprintf(" (%d waited for requests in flight)", b.QuietWaited)
		}
		q += fmt.Sprintf(" to re-ask %d silences (%d answered: slow under load, not reproduced, at most WARN)", b.Reasked, b.Answered)
		parts = append(parts, q)
	}
	return "the harness backed off: " + strings.Join(parts, "; ") + fmt.Sprintf("; start-up deadline %.1f s", b.StartupDeadlineMs/1000)
}
