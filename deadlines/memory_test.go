package deadlines

import (
	"fmt"
	"runtime"
	"testing"
	"time"
	"unsafe"
)

// makeKeys allocates n distinct keys, as a caller's would be.
func makeKeys(prefix string, n int) []string {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("%s/%08d", prefix, i)
	}
	return keys
}

func heapAlloc() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// bytesPerDeadline measures the heap a wheel holding one deadline per key
// takes, not counting the keys themselves, which the caller allocated.
func bytesPerDeadline(keys []string) float64 {
	kinds := []string{"burst", "reconcile", "lease", "redeliver"}
	start := time.Unix(1_750_000_000, 0)
	before := heapAlloc()
	w := NewWheel(time.Millisecond, start)
	for i, k := range keys {
		w.Push(k, kinds[i%len(kinds)], start.Add(time.Duration(i%100_000)*time.Second+time.Duration(i)), nil)
	}
	after := heapAlloc()
	runtime.KeepAlive(w)
	runtime.KeepAlive(keys)
	return float64(after-before) / float64(len(keys))
}

func TestMemoryPerDeadline(t *testing.T) {
	sizes := []int{100_000, 1_000_000}
	if testing.Short() {
		sizes = sizes[:1]
	}
	for _, n := range sizes {
		got := bytesPerDeadline(makeKeys("burst/root", n))
		t.Logf("%d pending: %.1f bytes/deadline (keys not counted)", n, got)
		if got > 64 {
			t.Errorf("%d pending: %.1f bytes/deadline, want <= 64", n, got)
		}
	}
}

func TestEntrySize(t *testing.T) {
	if size := unsafe.Sizeof(entry{}); size > 48 {
		t.Fatalf("entry is %d bytes, want <= 48", size)
	}
}

func TestGroupIsOneCacheLine(t *testing.T) {
	if size := unsafe.Sizeof(group{}); size != 64 {
		t.Fatalf("an index group is %d bytes, want 64 (one cache line)", size)
	}
}
