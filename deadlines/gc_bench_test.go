package deadlines

import (
	"fmt"
	"runtime"
	"testing"
	"time"
)

// BenchmarkCollect1M times a full collection of a heap holding a wheel of
// a million reminders, their keys made for each push and dropped by the
// caller, as the daemon's are: the mark work a collection pays for the
// wheel (with pointer-free entries, the slab is not scanned and no key is
// marked). Then the wheel is dropped and the same number of collections is
// timed without it (without-ms: the test binary's own heap, such as the
// other benchmarks' million keys). wheel-scan-MiB is the heap the wheel
// adds to what a collection could scan.
func BenchmarkCollect1M(b *testing.B) {
	const n = 1_000_000
	start := time.Unix(1_750_000_000, 0)
	w := NewWheel(time.Millisecond, start)
	for i := range n {
		w.Push(fmt.Sprintf("reminder/load-%07d", i), "reminder", start.Add(time.Duration(i)*time.Millisecond), nil)
	}
	runtime.GC()
	with := heapScanned()
	b.ResetTimer()
	for b.Loop() {
		runtime.GC()
	}
	b.StopTimer()
	runtime.KeepAlive(w)
	w = nil
	runtime.GC()
	runtime.GC()
	t0 := time.Now()
	for range b.N {
		runtime.GC()
	}
	b.ReportMetric(float64(time.Since(t0))/float64(b.N)/1e6, "without-ms")
	b.ReportMetric(float64(int64(with)-int64(heapScanned()))/(1<<20), "wheel-scan-MiB")
}
