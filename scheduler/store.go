package scheduler

import (
	"github.com/wakewheel/wakewheel"
	"github.com/wakewheel/wakewheel/deadlines"
)

// Store is what the runner needs of persistence. The store package's *DB
// implements it; the runner never depends on a concrete store.
type Store interface {
	// PutDeadline and DeleteDeadline are written behind, coalesced per key.
	PutDeadline(d deadlines.Deadline)
	DeleteDeadline(key string)
	// Sync makes every earlier write-behind mutation durable (fsync) before
	// it returns; concurrent callers share one synced commit.
	Sync() error
	// LoadDeadlineBatches reads every persisted deadline and hands them
	// to fn a batch at a time, not yet decoded: fn gets the batch's
	// decode, which checks and decodes it and calls its own fn with each
	// deadline, on the goroutine that calls it (one batch at a time, in
	// order, each once), and the store's estimate of the deadlines of the
	// whole load, 0 when it has none (store.DB.LoadDeadlineBatchesWatched).
	// A deadline's Key may be a view of the batch's bytes, good only
	// during the call: what keeps one copies it.
	LoadDeadlineBatches(fn func(decode func(fn func(deadlines.Deadline) error) error, expect int) error) error
	// CompleteAll records finished runs, in order and in one batch: each
	// one's fire record and, unless Keep, the retirement of its deadline's
	// record; on an error, none of them. A Runner calls it from a
	// goroutine of its own (completer.go), beside the loop's other calls.
	CompleteAll(done []wakewheel.Finished) error
	// AddAlert appends to the bounded alert log.
	AddAlert(a wakewheel.Alert) (wakewheel.Alert, error)
}
