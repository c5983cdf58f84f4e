package session

import (
	"slices"
	"sync"
	"time"
)

// Latency collects how long a server takes to answer cheap requests (ping,
// server/discover, the list methods, initialize), so that waits can be
// derived from the server's normal pace instead of a fixed clock. It is
// shared by every session of a target and safe for concurrent use.
type Latency struct {
	mu      sync.Mutex
	samples []time.Duration // the last maxLatencySamples
	next    int
	n       int
	// tools holds the slowest answer to tools/call seen per tool name
	// (ObserveTool): a tool's own pace, apart from the server's.
	tools map[string]time.Duration
}

// maxTools bounds the tools whose pace is kept.
const maxTools = 4096

// ObserveTool records an answer of tools/call for tool name after d.
func (l *Latency) ObserveTool(name string, d time.Duration) {
	if l == nil || d < 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.tools == nil {
		l.tools = map[string]time.Duration{}
	}
	if _, ok := l.tools[name]; ok || len(l.tools) < maxTools {
		l.tools[name] = max(l.tools[name], d)
	}
}

// Tool returns the slowest answer of tool name seen so far (false: none
// was seen).
func (l *Latency) Tool(name string) (time.Duration, bool) {
	if l == nil {
		return 0, false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	d, ok := l.tools[name]
	return d, ok
}

const maxLatencySamples = 1024

// cheap lists the methods whose answer time says how fast the server is.
var cheap = map[string]bool{
	"ping": true, "server/discover": true,
	"tools/list": true, "prompts/list": true, "resources/list": true, "resources/templates/list": true,
}

// Observe adds one answer time.
func (l *Latency) Observe(d time.Duration) {
	if l == nil || d < 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.samples) < maxLatencySamples {
		l.samples = append(l.samples, d)
	} else {
		l.samples[l.next] = d
		l.next = (l.next + 1) % maxLatencySamples
	}
	l.n++
}

// Count returns how many answers were observed.
func (l *Latency) Count() int {
	if l == nil {
		return 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.n
}

// Quantile returns the q-quantile (0 < q ≤ 1) of the kept answer times
// (0 when none was observed).
func (l *Latency) Quantile(q float64) time.Duration {
	if l == nil {
		return 0
	}
	l.mu.Lock()
	s := slices.Clone(l.samples)
	l.mu.Unlock()
	if len(s) == 0 {
		return 0
	}
	slices.Sort(s)
	i := int(q*float64(len(s))+0.999999) - 1
	return s[min(max(i, 0), len(s)-1)]
}

// observe records the answer time of a cheap method's result. The first
// answer of a connection is left out: on stdio it includes the process's
// start-up; so is an answer to a request sent while others were in flight
// or behind raw input the server had not answered yet (a barrier after
// megabytes of input measures the input, not the server's pace).
func (s *Session) observe(method string, resp *Response, err error) {
	if err != nil || resp == nil || resp.Msg == nil {
		return
	}
	if !resp.clean {
		s.warm.Store(true)
		return
	}
	if !s.warm.Swap(true) || s.opts.Latency == nil || !cheap[method] {
		return
	}
	s.opts.Latency.Observe(resp.Elapsed)
}
