package conform

import (
	"bytes"
	"os"
	"strconv"
	"time"
)

// cpuIdle tells whether the machine's CPUs were mostly idle lately, from
// /proc/stat's aggregate line (Linux; elsewhere, or when it cannot be read,
// they count as idle). Not safe for concurrent use (lanes.mu guards it).
type cpuIdle struct {
	at         time.Time
	idle, all  uint64
	lastAnswer bool
}

// idleShare is the share of CPU time spent idle since the last sample above
// which the machine has CPU to spare.
const idleShare = 0.3

// cpuSample is how old a sample may be before spare takes another (a
// shorter interval measures noise; the answer in between is reused).
const cpuSample = 200 * time.Millisecond

// spare reports whether at least idleShare of the CPU time since the last
// sample was idle.
func (c *cpuIdle) spare() bool {
	now := time.Now()
	if !c.at.IsZero() && now.Sub(c.at) < cpuSample {
		return c.lastAnswer
	}
	idle, all, ok := readCPU()
	if !ok {
		return true
	}
	answer := true
	if !c.at.IsZero() && all > c.all {
		answer = float64(idle-c.idle)/float64(all-c.all) >= idleShare
	}
	c.at, c.idle, c.all, c.lastAnswer = now, idle, all, answer
	return answer
}

// readCPU returns the idle (idle and iowait) and total jiffies of all CPUs.
func readCPU() (idle, all uint64, ok bool) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0, false
	}
	line, _, _ := bytes.Cut(b, []byte("\n"))
	f := bytes.Fields(line)
	if len(f) < 6 || string(f[0]) != "cpu" {
		return 0, 0, false
	}
	for i, v := range f[1:] {
		n, err := strconv.ParseUint(string(v), 10, 64)
		if err != nil {
			return 0, 0, false
		}
		if i >= 7 { // guest and guest_nice are already in user and nice
			break
		}
		all += n
		if i == 3 || i == 4 { // idle, iowait
			idle += n
		}
	}
	return idle, all, true
}
