package reports

import "fmt"

// Performance says how fast the server answered and what the run opened;
// since 1.3.
type Performance struct {
	// LatencySamples answers of cheap requests (ping, server/discover, list
	// methods; not a connection's first answer) were timed; P50 and P99 are
	// their median and 99th percentile.
	LatencySamples int     `json:"latencySamples"`
	LatencyP50Ms   float64 `json:"latencyP50Ms"`
	LatencyP99Ms   float64 `json:"latencyP99Ms"`
	// PatienceMs is the wait derived from them for answers a server may
	// legitimately never send; TimeoutMs the per-request limit for a hung
	// server.
	PatienceMs float64 `json:"patienceMs"`
	TimeoutMs  float64 `json:"timeoutMs"`
	// Connections opened (on stdio, server processes started), handshakes
	// performed and their total time (on stdio including start-up).
	Connections int64   `json:"connections"`
	Handshakes  int64   `json:"handshakes"`
	HandshakeMs float64 `json:"handshakeMs"`
	// Prestarted of the Connections were stdio server processes started
	// ahead of need and taken by a check; Unused ones were started ahead
	// of need and ended unused (both counted in Connections).
	Prestarted int64 `json:"prestarted,omitempty"`
	Unused     int64 `json:"unused,omitempty"`
}

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
	return fmt.Sprintf("%s; %d %s%s, %d handshakes (%.1f s); run %.1f s", lat, p.Connections, what, pre, p.Handshakes, p.HandshakeMs/1000, float64(r.DurationMs)/1000)
}
