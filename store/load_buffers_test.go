package store

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/wakewheel/wakewheel/deadlines"
)

// A store opened for a load reads with goleveldb's block buffer pool, and
// EndLoad reopens it without (the pool's drain timer is a goroutine that
// wakes every 2 s): every deadline still there, writes and reads go on, a
// second EndLoad changes nothing, and a store opened otherwise has no pool.
func TestEndLoadDropsTheBufferPool(t *testing.T) {
	dir := t.TempDir()
	pools := bufferPools()
	db := mustOpen(t, func(o Options) (*DB, error) { return Open(dir, o) }, Options{LoadChecksDeadlines: true})
	if got := bufferPools(); got != pools+1 {
		t.Fatalf("%d buffer pools draining after an Open for a load, want %d", got, pools+1)
	}
	start := time.Unix(1_700_000_000, 0)
	var want []deadlines.Deadline
	for i := range 2000 {
		d := deadlines.Deadline{Key: fmt.Sprintf("r/k%05d", i), Kind: "reminder", At: start.Add(time.Duration(i) * time.Second)}
		db.PutDeadline(d)
		want = append(want, d)
	}
	if got := len(loadAll(t, db)); got != len(want) {
		t.Fatalf("loaded %d deadlines, want %d", got, len(want))
	}
	if err := db.EndLoad(); err != nil {
		t.Fatalf("EndLoad: %v", err)
	}
	if got := bufferPools(); got != pools {
		t.Fatalf("%d buffer pools draining after EndLoad, want %d", got, pools)
	}
	after := deadlines.Deadline{Key: "r/after", Kind: "reminder", At: start}
	if err := db.PutDeadlineSync(after); err != nil {
		t.Fatalf("a synced put after EndLoad: %v", err)
	}
	if err := db.EndLoad(); err != nil {
		t.Fatalf("a second EndLoad: %v", err)
	}
	wantDeadlines(t, db, append(want, after)...)
	mustClose(t, db)

	db = mustOpen(t, func(o Options) (*DB, error) { return Open(dir, o) }, Options{})
	if got := bufferPools(); got != pools {
		t.Fatalf("%d buffer pools draining for a store not opened for a load, want %d", got, pools)
	}
	wantDeadlines(t, db, append(want, after)...)
}

// bufferPools counts the goroutines draining a goleveldb block buffer pool.
func bufferPools() int {
	buf := make([]byte, 4<<20)
	return strings.Count(string(buf[:runtime.Stack(buf, true)]), "util.(*BufferPool).drain")
}
