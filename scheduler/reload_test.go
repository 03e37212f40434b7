package scheduler_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/storage"

	"github.com/wakewheel/wakewheel/deadlines"
	"github.com/wakewheel/wakewheel/scheduler"
	"github.com/wakewheel/wakewheel/store"
)

// A reload reads batches on one goroutine and decodes them on the
// engine's: every deadline of a store of several batches comes back, and a
// record in the middle that does not decode fails the reload with the
// store's ErrCorrupt naming its key (the reader, stopped while it waits to
// hand a batch over, does not hang the reload).
func TestReloadDecodesEveryBatchAndStopsAtABadRecord(t *testing.T) {
	const n = 10_000 // a few batches
	mem := storage.NewMemStorage()
	db, err := store.OpenStorage(mem, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Unix(1_700_000_000, 0)
	for i := range n {
		db.PutDeadline(deadlines.Deadline{Key: fmt.Sprintf("k%05d", i), Kind: "reminder", At: start.Add(time.Duration(i) * time.Second)})
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	reload := func() (*scheduler.Engine, error) {
		db, err := store.OpenStorage(mem, store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		return scheduler.NewEngine(db, scheduler.Options{Logger: zerolog.Nop()}, start)
	}
	eng, err := reload()
	if err != nil || eng.Len() != n {
		t.Fatalf("reload: %v pending, %v; want %d", eng.Len(), err, n)
	}
	for _, i := range []int{0, 4095, 4096, n - 1} {
		key := fmt.Sprintf("k%05d", i)
		if d, ok := eng.Get(key); !ok || !d.At.Equal(start.Add(time.Duration(i)*time.Second)) {
			t.Fatalf("%s after the reload: %+v %t", key, d, ok)
		}
	}

	ldb, err := leveldb.Open(mem, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := ldb.Put([]byte("d/k05000x"), []byte{9, 9, 9}, nil); err != nil {
		t.Fatal(err)
	}
	if err := ldb.Close(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := reload(); done <- err }()
	select {
	case err = <-done:
	case <-time.After(time.Minute):
		t.Fatal("a reload that met a bad record did not return")
	}
	if !errors.Is(err, store.ErrCorrupt) || !strings.Contains(err.Error(), "k05000x") {
		t.Fatalf("reload over a bad record: %v; want ErrCorrupt naming d/k05000x", err)
	}
}
