package stdio

import (
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Orphans. A server may start children that leave its process group (a
// new session, a double fork) and outlive it, holding pipes or just
// running. With AdoptOrphans the harness becomes their "child subreaper"
// (Linux): when the server exits, they become children of the harness,
// and ReapOrphans kills and reaps every child the harness did not start
// as a server. Close calls it; the CLI also calls it before it exits.

var (
	liveMu sync.Mutex
	live   = map[int]bool{} // pids of running server processes started by Start
	adopt  atomic.Bool
)

// AdoptOrphans makes this process the subreaper of the servers it starts
// from now on, so that no process they spawn outlives the run. It fails
// where the platform has no subreapers (then orphans go to init as usual).
func AdoptOrphans() error {
	if err := setSubreaper(); err != nil {
		return err
	}
	adopt.Store(true)
	return nil
}

// ReapOrphans kills (SIGKILL) and reaps every child of this process that
// is not a running server started by Start, and returns how many it found.
// It does nothing unless AdoptOrphans succeeded.
func ReapOrphans() int {
	if !adopt.Load() {
		return 0
	}
	liveMu.Lock()
	defer liveMu.Unlock()
	n := 0
	for _, pid := range children() {
		if live[pid] {
			continue
		}
		n++
		_ = syscall.Kill(pid, syscall.SIGKILL)
		reap(pid)
	}
	return n
}

// children lists the child processes of this process: from
// /proc/self/task/*/children (each thread's children; an orphan is
// reparented to one of the subreaper's threads), else by scanning every
// process's parent in /proc (kernels without CONFIG_PROC_CHILDREN). The
// scan reads a file per process on the machine, the task files one per
// thread of this process.
func children() []int {
	if tasks, err := os.ReadDir("/proc/self/task"); err == nil {
		var out []int
		ok := true
		for _, t := range tasks {
			b, err := os.ReadFile("/proc/self/task/" + t.Name() + "/children")
			if err != nil {
				ok = false
				break
			}
			for _, f := range strings.Fields(string(b)) {
				if pid, err := strconv.Atoi(f); err == nil {
					out = append(out, pid)
				}
			}
		}
		if ok {
			return out
		}
	}
	self := os.Getpid()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range entries {
		if pid, err := strconv.Atoi(e.Name()); err == nil && parentOf(pid) == self {
			out = append(out, pid)
		}
	}
	return out
}

// reap waits (bounded) for a killed child so it leaves no zombie.
func reap(pid int) {
	deadline := time.Now().Add(2 * time.Second)
	for {
		var ws syscall.WaitStatus
		got, err := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
		if got == pid || err != nil || time.Now().After(deadline) {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// parentOf reads the parent pid from /proc/PID/stat (-1 when unknown).
func parentOf(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return -1
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')') // the command name may hold spaces and parentheses
	if i < 0 {
		return -1
	}
	f := strings.Fields(s[i+1:]) // state, ppid, ...
	if len(f) < 2 {
		return -1
	}
	ppid, err := strconv.Atoi(f[1])
	if err != nil {
		return -1
	}
	return ppid
}
