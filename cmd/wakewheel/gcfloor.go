package main

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
)

// The collector's floor. The daemon runs at steadyGCPercent (50) so that
// its resident memory follows the wheel at a million reminders; but with
// a small live heap that percent collects after a few megabytes of
// garbage, and a busy daemon with little pending (64 posters through the
// socket, a live heap of 12-16 MB) then spends about a tenth of its CPU in
// the collector, which a process posting in process at Go's default does
// not. So after every collection the percent is raised, if need be, until
// the next collection comes after at least heapFloor of garbage; at a live
// heap of 2×heapFloor/steadyGCPercent×100 and more (64 MB at 50%) the
// percent is steadyGCPercent as before, and the wheel's memory at a
// million reminders is unchanged.

// heapFloor is the least garbage between two collections: a few
// megabytes of resident memory for a daemon that holds little, against a
// collection every few hundred posts.
const heapFloor = 32 << 20

// floorPercent is the collector's percent for a live heap of live bytes:
// percent, or more if that would collect after less than floor.
func floorPercent(percent int, live, floor uint64) int {
	if percent <= 0 || live == 0 || live*uint64(percent)/100 >= floor {
		return percent
	}
	return int((floor*100 + live - 1) / live)
}

// gcSentinel is what the collector frees to tell keepHeapFloor that a
// collection ended (a pointer field keeps it out of the tiny allocator,
// which could keep it alive with a neighbour).
type gcSentinel struct {
	_ *int
	_ [16]byte
}

// keepHeapFloor sets the collector's percent from percent and the live
// heap now, and again after every collection, for the life of the process.
func keepHeapFloor(percent int) {
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	var tune func(int)
	tune = func(percent int) {
		metrics.Read(live)
		var n uint64
		if live[0].Value.Kind() == metrics.KindUint64 {
			n = live[0].Value.Uint64()
		}
		debug.SetGCPercent(floorPercent(percent, n, heapFloor))
		runtime.AddCleanup(new(gcSentinel), tune, percent)
	}
	tune(percent)
}
