package target

import "time"

// Adaptive waits. A wait for something a server may legitimately never
// send is derived from the server's observed pace (Latency: the answer
// times of cheap requests so far), never the per-request timeout, which is
// only the limit for a hung server. The suite (conform) and the fuzzer
// wait alike.
const (
	// PatienceFloor is the shortest adaptive wait.
	PatienceFloor = 250 * time.Millisecond
	// PatienceFactor multiplies the observed p99.
	PatienceFactor = 10
	// MinLatencySamples: with fewer answers observed, the timeout is used.
	MinLatencySamples = 5
)

// Patience is how long to wait for an answer the server may legitimately
// never send, when no barrier can decide it: PatienceFactor × the p99 of
// the answer times observed so far, at least PatienceFloor, at most the
// per-request timeout (also used while fewer than MinLatencySamples
// answers were observed).
func (t *Target) Patience() time.Duration {
	to := t.Timeout
	if to <= 0 {
		to = 5 * time.Second
	}
	l := t.Latency()
	if l.Count() < MinLatencySamples {
		return to
	}
	return min(max(PatienceFloor, PatienceFactor*l.Quantile(0.99)), to)
}

// The quiet window: the grace, after a barrier request was answered, for
// a server that handles messages concurrently to send what it meant to
// send for the messages before the barrier. Like Patience it follows the
// server's observed pace: WindowFactor × the p99 of the answer times
// observed so far, at least WindowFloor, at most DefaultWindow (also used
// while fewer than MinLatencySamples answers were observed).
const (
	// DefaultWindow is the longest adaptive quiet window.
	DefaultWindow = 25 * time.Millisecond
	// WindowFloor is the shortest adaptive quiet window.
	WindowFloor = 5 * time.Millisecond
	// WindowFactor multiplies the observed p99.
	WindowFactor = 3
)

// QuietWindow returns the adaptive quiet window (see DefaultWindow).
func (t *Target) QuietWindow() time.Duration {
	l := t.Latency()
	if l.Count() < MinLatencySamples {
		return DefaultWindow
	}
	return min(max(WindowFloor, WindowFactor*l.Quantile(0.99)), DefaultWindow)
}
