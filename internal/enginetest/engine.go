package enginetest

import (
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/syndtr/goleveldb/leveldb/storage"

	"github.com/wakewheel/wakewheel/internal/clock"
	ob "github.com/wakewheel/wakewheel/obligations"
	"github.com/wakewheel/wakewheel/scheduler"
	"github.com/wakewheel/wakewheel/store"
	"github.com/wakewheel/wakewheel/wakes"
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

// Wakes opens the obligations service on db with pol (a real clock, a
// quiet logger) and an engine over db at now, with the service's
// redeliveries registered and its start-up mutations applied: what the
// daemon does, before a runner starts.
func Wakes(t testing.TB, db *store.DB, pol ob.Policies, now time.Time) (*wakes.Service, *scheduler.Engine) {
	t.Helper()
	svc, muts, err := wakes.Open(db, wakes.Options{Policies: pol, Clock: clock.Real{}, Logger: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	eng, err := scheduler.NewEngine(db, scheduler.Options{Logger: zerolog.Nop()}, now)
	if err != nil {
		t.Fatal(err)
	}
	eng.Register(ob.RedeliverKind, svc.Handler())
	if err := eng.ApplyAll(now, muts...); err != nil {
		t.Fatal(err)
	}
	return svc, eng
}
