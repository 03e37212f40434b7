package store

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/wakewheel/wakewheel/deadlines"
)

// burstExtend is what the detector persists for one event of a burst:
// 500 ms of silence capped at 5 s from the first event.
func burstExtend(now time.Time) deadlines.Deadline {
	at := now.Add(500 * time.Millisecond)
	if limit := t0.Add(5 * time.Second); at.After(limit) {
		at = limit
	}
	return deadlines.Deadline{Key: "burst/repo", Kind: "burst", At: at, Since: t0}
}

// TestBurstCostsAFewWrites: a checkout's 30,000 events extend one burst
// deadline 30,000 times; that must cost a handful of LevelDB writes.
func TestBurstCostsAFewWrites(t *testing.T) {
	const extends = 30000
	dir := filepath.Join(t.TempDir(), "store")
	open := func(o Options) (*DB, error) { return Open(dir, o) }
	db := mustOpen(t, open, Options{})
	before := db.Stats()
	start := time.Now()
	var last deadlines.Deadline
	for i := range extends {
		last = burstExtend(t0.Add(time.Duration(i) * 10 * time.Microsecond))
		db.PutDeadline(last)
	}
	if err := db.Flush(); err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(start)
	after := db.Stats()
	writes := after.Batches - before.Batches
	t.Logf("%d extends of one key in %v cost %d LevelDB write batches (%d records)", extends, elapsed, writes, after.Records-before.Records)
	// Write-behind coalesces per key within one flush interval: at most one
	// batch per interval that elapsed, plus the final Flush. On an idle
	// machine the loop takes well under one interval, so this is 1–3.
	if limit := uint64(elapsed/DefaultFlushInterval) + 2; writes > limit {
		t.Errorf("%d extends over %v cost %d LevelDB writes, want <= %d (one per %v flush interval + the final flush)",
			extends, elapsed, writes, limit, DefaultFlushInterval)
	}
	mustClose(t, db)
	db = mustOpen(t, open, Options{})
	wantDeadlines(t, db, last)
}
