package store

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/storage"
	"github.com/syndtr/goleveldb/leveldb/util"

	"github.com/wakewheel/wakewheel/deadlines"
)

// A load hands its deadlines over in batches, in key order, every one
// once, with an estimate of the whole load's count that comes early (from
// the first batch on, for a store in tables) and is close (within a
// quarter: the index the engine sizes from it has that much to spare).
func TestLoadDeadlineBatchesEstimateTheirCount(t *testing.T) {
	const n = 100_000
	mem := storage.NewMemStorage()
	db, err := OpenStorage(mem, Options{})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Unix(1_700_000_000, 0)
	for i := range n {
		db.PutDeadline(deadlines.Deadline{Key: fmt.Sprintf("r/k%07d", i), Kind: "reminder", At: start.Add(time.Duration(i) * time.Second)})
	}
	mustClose(t, db)
	ldb, err := leveldb.Open(mem, nil) // the records in tables, as a daemon that ran a while leaves them
	if err != nil {
		t.Fatal(err)
	}
	if err := ldb.CompactRange(util.Range{}); err != nil {
		t.Fatal(err)
	}
	if err := ldb.Close(); err != nil {
		t.Fatal(err)
	}
	db = mustOpen(t, func(o Options) (*DB, error) { return OpenStorage(mem, o) }, Options{})
	var batches, read, firstEstimate, lastEstimate int
	last := ""
	err = db.LoadDeadlineBatches(func(decode DecodeBatch, expect int) error {
		if batches++; expect > 0 && firstEstimate == 0 {
			firstEstimate = batches
		}
		if expect > 0 {
			lastEstimate = expect
		}
		return decode(func(d deadlines.Deadline) error {
			if d.Key <= last {
				return fmt.Errorf("%s after %s", d.Key, last)
			}
			last = strings.Clone(d.Key) // a view of the batch, good only during the call
			read++
			return nil
		})
	})
	if err != nil || read != n {
		t.Fatalf("load: %d deadlines, %v; want %d", read, err, n)
	}
	if firstEstimate != 1 || lastEstimate < n*3/4 || lastEstimate > n*5/4 {
		t.Fatalf("%d batches, the first estimate with batch %d, the last %d; want one with the first batch and within a quarter of %d",
			batches, firstEstimate, lastEstimate, n)
	}
}
