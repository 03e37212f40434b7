package main

import (
	"context"
	"errors"

	"github.com/wakewheel/wakewheel/api"
	ob "github.com/wakewheel/wakewheel/obligations"
	"github.com/wakewheel/wakewheel/roots"
	"github.com/wakewheel/wakewheel/store"
)

// watchedStore is the daemon's store as the engine loads from it: every
// deadline read moves progress on, which the socket's status shows while
// the load runs (api.Front). Everything else is the store's own.
type watchedStore struct {
	*store.DB
	progress *store.LoadProgress
	ctx      context.Context // a SIGTERM during the load ends it
}

func (s watchedStore) LoadDeadlineBatches(fn func(store.DecodeBatch, int) error) error {
	n := 0
	return s.LoadDeadlineBatchesWatched(func(decode store.DecodeBatch, expect int) error {
		if n++; n%stopCheckEvery == 0 && s.ctx.Err() != nil {
			return errors.New("the daemon was stopped while it loaded its deadlines")
		}
		return fn(decode, expect)
	}, s.progress)
}

// stopCheckEvery is how many batches (store.LoadBatchLen deadlines each) a
// load reads between two looks at the signal context: a stop waits for at
// most a few milliseconds of load.
const stopCheckEvery = 16

// loadState reads p for a status answered while loading.
func loadState(p *store.LoadProgress) func() api.LoadState {
	return func() api.LoadState { return api.LoadState{Percent: p.Percent(), Read: p.Read()} }
}

// indexedKinds are the kinds the engine indexes (scheduler.Options.Indexed)
// because start-up and a config reload visit their deadlines on the loop:
// the roots' resume reads the leases back, re-timing visits the bursts,
// reconciles and redeliveries (capability.timedKinds). Each is a handful
// per root or lane; the reminders, which may be a million, are not among
// them.
func indexedKinds() []string {
	return []string{roots.KindBurst, roots.KindReconcile, roots.KindLease, ob.RedeliverKind}
}
