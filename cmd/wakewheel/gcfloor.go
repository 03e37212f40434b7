package main

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
)

// The collector's pacing. Go's GOGC lets garbage grow to a percent of the
// live heap, but what a collection costs is the heap it must scan, and
// most of a large daemon's heap is the wheel's slab and index, which hold
// no pointers and are never scanned (deadlines/slab.go): a percent of the
// whole heap let the garbage grow with the wheel, and the resident memory
// with it (158 MB at the peak of a drain of a million reminders, a heap
// goal of 131 MB over a live heap of 87 MB), for no collector time saved.
// So after every collection the percent is set anew so that the next one
// comes after steadyGCPercent of the scannable heap in garbage
// (/gc/scan/heap), and never after less than heapFloor: with a small heap
// a percent collects after a few megabytes, and a busy daemon with little
// pending (64 posters through the socket, a live heap of 12-16 MB) then
// spent about a tenth of its CPU in the collector, which a process posting
// in process at Go's default does not.

// heapFloor is the least garbage between two collections: a few
// megabytes of resident memory for a daemon that holds little, against a
// collection every few hundred posts.
const heapFloor = 32 << 20

// floorPercent is the collector's percent for a live heap of live bytes
// of which scan are scannable: the percent that lets percent of scan in
// garbage, or floor if that is more. An unknown scan (0) counts the whole
// heap, as GOGC does.
func floorPercent(percent int, live, scan, floor uint64) int {
	if percent <= 0 || live == 0 {
		return percent
	}
	if scan == 0 || scan > live {
		scan = live
	}
	garbage := max(scan*uint64(percent)/100, floor)
	return max(int((garbage*100+live-1)/live), 1)
}

// gcSentinel is what the collector frees to tell keepHeapFloor that a
// collection ended (a pointer field keeps it out of the tiny allocator,
// which could keep it alive with a neighbour).
type gcSentinel struct {
	_ *int
	_ [16]byte
}

// keepHeapFloor sets the collector's percent from percent and the heap
// now, and again after every collection, for the life of the process.
func keepHeapFloor(percent int) {
	heap := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/gc/scan/heap:bytes"}}
	var tune func(int)
	tune = func(percent int) {
		metrics.Read(heap)
		debug.SetGCPercent(floorPercent(percent, sampled(heap[0]), sampled(heap[1]), heapFloor))
		runtime.AddCleanup(new(gcSentinel), tune, percent)
	}
	tune(percent)
}

// sampled is a metric's value, or 0 when this runtime does not have it.
func sampled(s metrics.Sample) uint64 {
	if s.Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s.Value.Uint64()
}

// giveBackMemory returns the heap's free memory to the system, off the
// loop that calls it (scheduler.Options.Shrunk): once the wheel was built
// anew smaller, its old pages and tables, tens of megabytes after a drain
// of a million, would wait for the next collection, which a daemon that
// has gone idle may not run for minutes, and then for the scavenger.
func giveBackMemory() { go debug.FreeOSMemory() }
