package runner

import (
	"time"

	"github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/result"
)

// backoffOf reads how the harness held back for its own load: the lanes'
// caps, the run's quiet gate and its re-asks, the learned start-up
// deadline (report.json summary.backoff).
func backoffOf(env *conform.Env) *result.Backoff {
	lb := env.Backoff()
	q := env.Target.Quiet().Stats()
	slowest, _ := env.Target.SlowestStartup()
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	return &result.Backoff{
		Workers: lb.Width, Asked: lb.Asked, HeldBack: lb.HeldBack, Capped: lb.Capped,
		Quiet: q.Hushes, QuietWaited: q.Waited, Reasked: q.Reasked, Answered: q.Answered,
		SlowestStartupMs: ms(slowest), StartupDeadlineMs: ms(env.Target.StartupDeadline()),
	}
}
