package enginetest

import (
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/syndtr/goleveldb/leveldb/storage"

	"github.com/wakewheel/wakewheel/scheduler"
	"github.com/wakewheel/wakewheel/store"
)

// Mem opens a store on memory and an engine over it at now, with opts and
// a quiet logger. The store is closed when t ends, after the cleanups the
// caller registers later (a runner stopped in one of them stops first).
func Mem(t testing.TB, opts scheduler.Options, now time.Time) (*store.DB, *scheduler.Engine) {
	t.Helper()
	db, err := store.OpenStorage(storage.NewMemStorage(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	opts.Logger = zerolog.Nop()
	eng, err := scheduler.NewEngine(db, opts, now)
	if err != nil {
		t.Fatal(err)
	}
	return db, eng
}
