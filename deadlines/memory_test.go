package deadlines

import (
	"fmt"
	"reflect"
	"runtime"
	"runtime/metrics"
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

// bytesPerDeadline measures the heap a wheel holding n deadlines takes,
// their keys included: each key is made for its push and dropped by the
// caller after it, as the daemon's requests and its load do, so what the
// wheel keeps of it is counted.
func bytesPerDeadline(prefix string, n int) float64 {
	kinds := []string{"burst", "reconcile", "lease", "redeliver"}
	start := time.Unix(1_750_000_000, 0)
	before := heapAlloc()
	w := NewWheel(time.Millisecond, start)
	for i := range n {
		w.Push(fmt.Sprintf("%s/%08d", prefix, i), kinds[i%len(kinds)], start.Add(time.Duration(i%100_000)*time.Second+time.Duration(i)), nil)
	}
	after := heapAlloc()
	runtime.KeepAlive(w)
	return float64(after-before) / float64(n)
}

// A deadline with a key the entry holds (up to inlineKey bytes) takes its
// 64-byte entry and its share of the index and the hints, nothing else:
// 73 bytes at 100k pending, 76 at 1M (at 100k 72 with a hint for every
// four index slots, not two, 71 with one for every eight; 70 and 74 when
// the index took 4 bytes a slot, before its control bytes had an array of
// their own; with the key's string beside a 48-byte entry it was 82 and 86
// for these 19-byte keys).
func TestMemoryPerDeadline(t *testing.T) {
	sizes := []int{100_000, 1_000_000}
	if testing.Short() {
		sizes = sizes[:1]
	}
	for _, n := range sizes {
		got := bytesPerDeadline("reminder/r", n)
		t.Logf("%d pending: %.1f bytes/deadline, keys included", n, got)
		if got > 78 {
			t.Errorf("%d pending: %.1f bytes/deadline, keys included, want <= 78", n, got)
		}
	}
}

func TestEntryIsOneCacheLine(t *testing.T) {
	if size := unsafe.Sizeof(entry{}); size != 64 {
		t.Fatalf("entry is %d bytes, want 64 (one cache line)", size)
	}
	if size := unsafe.Sizeof([pageSize]entry{}); size != 64<<10 {
		t.Fatalf("a slab page is %d bytes, want 64 KiB (eight runtime pages)", size)
	}
	s := slab{free: nilIdx}
	for range 3 * pageSize {
		s.alloc()
	}
	for p, page := range s.pages {
		if addr := uintptr(unsafe.Pointer(page)); addr%64 != 0 {
			t.Fatalf("slab page %d at %#x: not aligned to a cache line", p, addr)
		}
	}
}

// hasPointers reports whether a value of type t holds a pointer the
// collector would follow.
func hasPointers(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Array:
		return t.Len() > 0 && hasPointers(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if hasPointers(t.Field(i).Type) {
				return true
			}
		}
		return false
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		return false
	}
	return true
}

func TestSlabPagesHoldNoPointers(t *testing.T) {
	for _, v := range []any{entry{}, [pageSize]entry{}, ctrlGroup{}, slotGroup{}} {
		if tp := reflect.TypeOf(v); hasPointers(tp) {
			t.Errorf("%v holds pointers: the collector would scan every one", tp)
		}
	}
}

// heapScanned is the heap the last collection could scan: the bytes of
// objects that may hold pointers.
func heapScanned() uint64 {
	s := []metrics.Sample{{Name: "/gc/scan/heap:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// The collector skips the slab and the index: a wheel of 200,000 entries
// (12.5 MiB of pages, 2 MiB of index) adds almost nothing to the heap a
// collection scans. With keys' string headers in the entries it added
// the whole slab.
func TestCollectorSkipsTheWheel(t *testing.T) {
	if heapScanned() == 0 && !metricKnown("/gc/scan/heap:bytes") {
		t.Skip("this Go does not report /gc/scan/heap:bytes")
	}
	const n = 200_000
	start := time.Unix(1_750_000_000, 0)
	runtime.GC()
	before := heapScanned()
	w := NewWheel(time.Millisecond, start)
	for i := range n {
		w.Push(fmt.Sprintf("reminder/load-%07d", i), "reminder", start.Add(time.Duration(i)*time.Millisecond), nil)
	}
	runtime.GC()
	added := int64(heapScanned()) - int64(before)
	slabBytes := int64(len(w.slab.pages)) * int64(unsafe.Sizeof([pageSize]entry{}))
	t.Logf("%d pending: the collector scans %d more bytes of heap (the slab is %d)", n, added, slabBytes)
	if added > slabBytes/16 {
		t.Fatalf("%d pending: the collector scans %d more bytes of heap, want under %d (a sixteenth of the slab's %d)", n, added, slabBytes/16, slabBytes)
	}
	runtime.KeepAlive(w)
}

func metricKnown(name string) bool {
	for _, d := range metrics.All() {
		if d.Name == name {
			return true
		}
	}
	return false
}

func TestGroupIsOneCacheLine(t *testing.T) {
	if size := unsafe.Sizeof(slotGroup{}); size != 64 {
		t.Fatalf("an index group's slots are %d bytes, want 64 (one cache line)", size)
	}
	if size := unsafe.Sizeof(ctrlGroup{}); 64%size != 0 {
		t.Fatalf("an index group's control bytes are %d bytes, which do not divide a cache line", size)
	}
}
