package main

import (
	"os"
	"runtime"
	"sync"
)

// The checks of a run go on one P (GOMAXPROCS 1): they mostly wait for
// the server, and on a machine the server shares, a second P spent a core
// on the GC's idle mark workers and on threads spinning for work, beside
// the server instead of for it (against the go-sdk conformance server on
// two cores, 8 interleaved runs: 0.57 -> 0.49 CPU-s, wall 0.72 -> 0.70 s).
// The reports, written after, get every P back. A GOMAXPROCS in the
// environment is the user's choice and is left as it is.
var oneP struct {
	sync.Mutex
	users, saved int
}

// checksOnOneP sets GOMAXPROCS to 1 until restore is called; runs that
// overlap (tests call cmdRun side by side) restore it when the last ends.
func checksOnOneP() (restore func()) {
	if os.Getenv("GOMAXPROCS") != "" {
		return func() {}
	}
	oneP.Lock()
	defer oneP.Unlock()
	if oneP.users == 0 {
		oneP.saved = runtime.GOMAXPROCS(1)
	}
	oneP.users++
	var once sync.Once
	return func() {
		once.Do(func() {
			oneP.Lock()
			defer oneP.Unlock()
			if oneP.users--; oneP.users == 0 {
				runtime.GOMAXPROCS(oneP.saved)
			}
		})
	}
}
