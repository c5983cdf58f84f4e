package main

import "testing"

func TestMemoryLimitFor(t *testing.T) {
	for _, c := range []struct{ live, want int64 }{
		{0, runMemoryFloor},
		{10 << 20, runMemoryFloor},
		{40 << 20, 60<<20 + runMemorySlack},
		{1 << 30, runMemoryLimit},
	} {
		if got := memoryLimitFor(c.live); got != c.want {
			t.Errorf("memoryLimitFor(%d MiB) = %d MiB, want %d MiB", c.live>>20, got>>20, c.want>>20)
		}
	}
}
