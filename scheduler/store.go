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
	// LoadDeadlineBatches visits every persisted deadline, a batch at a
	// time: fn owns each batch and returns the slice to fill next (nil
	// for a new one; store.DB.LoadDeadlineBatchesWatched).
	LoadDeadlineBatches(fn func(batch []deadlines.Deadline) ([]deadlines.Deadline, error)) error
	// Complete records a finished run and, unless keep, retires the
	// deadline's record, in one batch.
	Complete(key string, keep bool, f wakewheel.Fire) (wakewheel.Fire, error)
	// AddAlert appends to the bounded alert log.
	AddAlert(a wakewheel.Alert) (wakewheel.Alert, error)
}
