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
// above it, so the GC never runs without end. The floor is a trade between
// the GC's CPU and the peak RSS (the binary's own pages are about 19 MB of
// it); against the go-sdk conformance server (both eras, every report),
// medians of 16 interleaved runs: 24 MiB, 0.60 CPU-s and 44 MB peak RSS
// (max 46); 28 MiB, 0.52 CPU-s and 46 MB (max 46.5); 32 MiB, 49.8 MB at
// most, too near the 50 MB budget. A full run allocates about 80 MB, with
// the GC's mark workers and assists a quarter of its CPU at 24 MiB.
const (
	runMemoryFloor = 28 << 20
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
