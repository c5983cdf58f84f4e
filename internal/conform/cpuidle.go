package conform

import (
	"bytes"
	"os"
	"runtime"
	"strconv"
	"syscall"
	"time"
)

// cpuIdle tells whether the machine's CPUs were mostly idle lately, from
// /proc/stat's aggregate line (Linux; elsewhere, or when it cannot be read,
// they count as idle). Not safe for concurrent use (lanes.mu guards it).
type cpuIdle struct {
	at         time.Time
	idle, all  uint64
	lastAnswer bool
	// self is the CPU time our own process had used at the last sample
	// (ownShare): the checks run on GOMAXPROCS Ps, and a worker more
	// beside a saturated one only makes every answer wait for us.
	self time.Duration
	// busySelf counts the samples that found our own process saturated.
	busySelf int
}

// ownShare is the share of the checks' Ps our own process may keep busy
// before spare says no: beyond it our own work, not the server, is what
// a check waits for.
const ownShare = 0.8

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
	self := selfCPU()
	ownBusy := false
	if !c.at.IsZero() && self > c.self {
		ownBusy = float64(self-c.self) >= ownShare*float64(runtime.GOMAXPROCS(0))*float64(now.Sub(c.at))
	}
	if ownBusy {
		c.busySelf++
	}
	idle, all, ok := readCPU()
	answer := !ownBusy
	if ok && !c.at.IsZero() && all > c.all {
		answer = answer && float64(idle-c.idle)/float64(all-c.all) >= idleShare
	}
	c.at, c.idle, c.all, c.self, c.lastAnswer = now, idle, all, self, answer
	return answer
}

// selfCPU is the CPU time (user and system) our process used so far (0
// where getrusage is not available).
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
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
