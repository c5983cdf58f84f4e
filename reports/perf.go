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
	if p.Lanes > 1 {
		lanes = fmt.Sprintf(" (%d revisions side by side)", p.Lanes)
	}
	return fmt.Sprintf("%s; %d %s%s, %d handshakes (%.1f s); run %.1f s%s", lat, p.Connections, what, pre, p.Handshakes, p.HandshakeMs/1000, float64(r.DurationMs)/1000, lanes)
}
