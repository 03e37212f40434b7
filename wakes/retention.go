package wakes

import (
	"context"
	"fmt"
	"runtime/debug"
	"time"

	ob "github.com/wakewheel/wakewheel/obligations"
	"github.com/wakewheel/wakewheel/scheduler"
	"github.com/wakewheel/wakewheel/store"
)

// The I/O of retention (obligations/retention.go decides): the compaction
// deadline's action, the tombstone lookup of a post, and the sweep of
// tombstones past the dedup horizon. Tombstones (ob/t/<lane>/<id>) are
// never loaded at start: a lane compacted to millions of posts costs the
// memory of what it still keeps.

// sweepBatch bounds the tombstones one sweep write deletes.
const sweepBatch = 4096

// CompactHandler is the action of kind obligations.CompactKind: one
// compaction step (at most obligations.CompactBatch obligations), then the
// sweeps it asks for. It re-arms its own deadline through the state.
func (s *Service) CompactHandler() scheduler.Handler {
	return func(ctx context.Context, f scheduler.Firing) scheduler.Outcome {
		if s.attachedRunner(ctx.Done()) == nil {
			return scheduler.RetryLater(ctx.Err())
		}
		if err := s.Compact(ctx); err != nil {
			return scheduler.RetryLater(err)
		}
		return scheduler.Succeeded()
	}
}

// Compact runs one compaction step now, durably.
func (s *Service) Compact(ctx context.Context) error {
	var sweeps []ob.Sweep
	dropped := 0
	err := s.change(ctx, func(now time.Time) (*item, error) {
		eff := s.st.Compact(now)
		sweeps, dropped = eff.Sweeps, len(eff.Deletes)
		return s.commitLocked(eff), nil
	})
	if err != nil {
		return err
	}
	s.compacted += dropped
	if dropped < ob.CompactBatch && s.compacted >= ob.CompactBatch {
		// A run of compaction steps ended having dropped many bodies:
		// give their memory back to the system now, not when the
		// scavenger gets to it, so the resident set follows what is kept.
		s.compacted = 0
		debug.FreeOSMemory()
	}
	for _, sw := range sweeps {
		oldest, err := s.sweep(sw)
		if err != nil {
			return err
		}
		if err := s.change(ctx, func(now time.Time) (*item, error) {
			eff, err := s.st.Swept(sw.Lane, oldest, now)
			if err != nil {
				return nil, err
			}
			return s.commitLocked(eff), nil
		}); err != nil {
			return err
		}
	}
	return nil
}

// sweep deletes sw.Lane's tombstones compacted at or before sw.Before and
// returns when the oldest one left was compacted (zero when none is).
func (s *Service) sweep(sw ob.Sweep) (time.Time, error) {
	var oldest time.Time
	var ops []store.Op
	flush := func() error {
		if len(ops) == 0 {
			return nil
		}
		err := s.db.Write(true, ops...)
		ops = ops[:0]
		return err
	}
	err := s.db.Scan(RecordNS, ob.TombstoneKey(sw.Lane, ""), func(key string, val []byte) error {
		r, err := ob.Decode(val)
		if err != nil || r.Kind != ob.RecordTombstone {
			return fmt.Errorf("wakes: tombstone %s/%s: %v (run `wakewheel repair`)", RecordNS, key, err)
		}
		if !r.Tombstone.Compacted.After(sw.Before) {
			ops = append(ops, store.DeleteOp(RecordNS, key))
			if len(ops) >= sweepBatch {
				return flush()
			}
			return nil
		}
		if oldest.IsZero() || r.Tombstone.Compacted.Before(oldest) {
			oldest = r.Tombstone.Compacted
		}
		return nil
	})
	if err == nil {
		err = flush()
	}
	return oldest, err
}

// absorbLocked decides a post of o whose id is not live against its
// tombstone (the caller holds mu): it reports the compacted original when
// the id was posted within the dedup horizon.
func (s *Service) absorbLocked(o ob.Obligation, now time.Time) (ob.Obligation, bool, error) {
	if !s.st.NeedsTombstone(o.Lane, o.ID) {
		return ob.Obligation{}, false, nil
	}
	val, ok, err := s.db.Get(RecordNS, ob.TombstoneKey(o.Lane, o.ID))
	if err != nil {
		return ob.Obligation{}, false, fmt.Errorf("%w: reading the tombstone of id %q: %v", ErrStore, o.ID, err)
	}
	var t *ob.Tombstone
	if ok {
		r, err := ob.Decode(val)
		if err != nil || r.Kind != ob.RecordTombstone {
			return ob.Obligation{}, false, fmt.Errorf("%w: the tombstone of id %q does not decode: %v (run `wakewheel repair`)", ErrStore, o.ID, err)
		}
		t = &r.Tombstone
	}
	got, dup := s.st.Absorb(o.Lane, o.ID, t, now)
	return got, dup, nil
}

// loadRecords reads the records Restore needs: every kind but tombstones.
func loadRecords(db Store) ([]ob.Record, error) {
	var recs []ob.Record
	for _, prefix := range []string{"b/", "c/", "o/", "p/"} {
		err := db.Scan(RecordNS, prefix, func(key string, val []byte) error {
			r, err := ob.Decode(val)
			if err != nil {
				return fmt.Errorf("wakes: record %s/%s: %w (run `wakewheel repair` to drop records that do not decode)", RecordNS, key, err)
			}
			recs = append(recs, r)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return recs, nil
}
