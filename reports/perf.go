package reports

import "fmt"

// PerformanceLine renders Performance for the terminal summary ("" when
// the report has none).
func PerformanceLine(r *Report) string {
	p := r.Performance
	if p == nil {
		return ""
	}
	what := "connections"
	if r.Target.Transport == "stdio" {
		what = "server processes"
	}
	lat := "latency not measured"
	if p.LatencySamples > 0 {
		lat = fmt.Sprintf("server latency p50 %.1f ms, p99 %.1f ms (%d answers)", p.LatencyP50Ms, p.LatencyP99Ms, p.LatencySamples)
	}
	pre := ""
	if p.Prestarted+p.Unused > 0 {
		pre = fmt.Sprintf(" (%d started ahead of need, %d of them unused)", p.Prestarted+p.Unused, p.Unused)
	}
	lanes := ""
	switch {
	case p.Lanes > 1 && p.Workers > p.Lanes:
		lanes = fmt.Sprintf(" (%d revisions side by side, %d lane workers)", p.Lanes, p.Workers)
	case p.Lanes > 1:
		lanes = fmt.Sprintf(" (%d revisions side by side)", p.Lanes)
	case p.Workers > 1:
		lanes = fmt.Sprintf(" (%d lane workers)", p.Workers)
	}
	hs := fmt.Sprintf("%.1f s", p.HandshakeMs/1000)
	if p.HandshakeWallMs > 0 && p.HandshakeWallMs < p.HandshakeMs*0.95 {
		hs = fmt.Sprintf("%.1f s, %.1f s of the run's wall time", p.HandshakeMs/1000, p.HandshakeWallMs/1000)
	}
	return fmt.Sprintf("%s; %d %s%s, %d handshakes (%s); run %.1f s%s", lat, p.Connections, what, pre, p.Handshakes, hs, float64(r.DurationMs)/1000, lanes)
}
