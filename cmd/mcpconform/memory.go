package main

import (
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// A run keeps little alive (the recorder's frames, the shared sessions, the
// results: 10–25 MB against a typical server), but the checks make garbage
// in bursts (multi-megabyte requests, whole-run transcript scans), and with
// the GC's default pacing the heap grows to twice the live heap before it is
// collected: the peak RSS of a run was about twice what it needed. The run's
// soft memory limit therefore follows the live heap: max(runMemoryFloor,
// 1.5 × live + runMemorySlack), never above runMemoryLimit. Small runs stay
// within the floor (the GC collects a burst sooner; no CPU cost was
// measurable against the go-sdk everything server); a run whose live heap
// grows (a hostile server filling the recorder) keeps a limit half again
// above it, so the GC never runs without end. The floor of 24 MiB (it was
// 32) took the peak RSS of a full run against the go-sdk conformance server
// from 45–46 MB to 41 MB at the same CPU time (the binary's own pages are
// about 19 MB of it).
const (
	runMemoryFloor = 24 << 20
	runMemorySlack = 8 << 20
	runMemoryEvery = 50 * time.Millisecond
)

// adaptMemoryLimit sets the soft memory limit from the live heap now and
// every runMemoryEvery until stop is called.
func adaptMemoryLimit() (stop func()) {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	set := func() {
		metrics.Read(sample)
		var live int64
		if sample[0].Value.Kind() == metrics.KindUint64 {
			live = int64(sample[0].Value.Uint64())
		}
		debug.SetMemoryLimit(memoryLimitFor(live))
	}
	set()
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(runMemoryEvery)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				set()
			}
		}
	}()
	return func() { close(done) }
}

// memoryLimitFor is the soft memory limit for a live heap of live bytes.
func memoryLimitFor(live int64) int64 {
	return min(max(runMemoryFloor, live+live/2+runMemorySlack), runMemoryLimit)
}
