package wakes

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/wakewheel/wakewheel/deadlines"
	ob "github.com/wakewheel/wakewheel/obligations"
	"github.com/wakewheel/wakewheel/store"
)

// Store namespaces.
//
//	ob/o/<lane>/<seq>    obligation record (obligations.Encode)
//	ob/c/<lane>          cursor record
//	ob/p/<lane>          checkpoint record
//	ob/b/<lane>          compaction record (retention.go)
//	ob/t/<lane>/<id>     tombstone of a compacted obligation
//	obledger/e/<seq:20>  ledger entry, JSON obligations.Entry; seq from 1
//	obledger/next        the last ledger seq used (8 bytes, big endian)
//
// Ledger entries are written in the same batch as the records whose
// effects they describe, with the counter. The ledger is kept as long as
// the obligations are: forever.
const (
	RecordNS = "ob"
	LedgerNS = "obledger"

	ledgerEntryPrefix = "e/"
	ledgerNextKey     = "next"
)

func loadLedgerNext(db Store) (uint64, error) {
	var next uint64
	err := db.Scan(LedgerNS, ledgerNextKey, func(key string, val []byte) error {
		if key != ledgerNextKey {
			return nil
		}
		if len(val) != 8 {
			return fmt.Errorf("wakes: ledger counter is %d bytes, want 8", len(val))
		}
		next = binary.BigEndian.Uint64(val)
		return nil
	})
	return next, err
}

// itemOf turns effects into a pipeline item: records and ledger entries as
// one batch of store ops. The caller holds mu (it numbers ledger entries).
func (s *Service) itemOf(eff ob.Effects) *item {
	return s.itemOfAll([]ob.Effects{eff})
}

// itemOfAll is one item of many calls' effects, in order, as itemOf of
// their merge would be, without the merge: every slice of the item is
// made once at its size (a batch of posts merged one by one grew each of
// them again and again, the largest allocation of a pipelined post).
func (s *Service) itemOfAll(effs []ob.Effects) *item {
	var records, ledger, muts, wakes int
	it := &item{done: make(chan error, 1)}
	for i := range effs {
		e := &effs[i]
		records += len(e.Records) + len(e.Deletes)
		ledger += len(e.Ledger)
		muts += len(e.Deadlines)
		wakes += len(e.Wakes)
		it.sync = it.sync || e.Sync
	}
	if len(effs) == 1 { // the item keeps them as they are
		it.muts, it.wakes = effs[0].Deadlines, effs[0].Wakes
	} else {
		it.muts, it.wakes = make([]deadlines.Mutation, 0, muts), make([]ob.Wake, 0, wakes)
		for i := range effs {
			it.muts, it.wakes = append(it.muts, effs[i].Deadlines...), append(it.wakes, effs[i].Wakes...)
		}
	}
	n := records + ledger
	if ledger > 0 {
		n++
	}
	it.ops = make([]store.Op, 0, n)
	for i := range effs {
		for _, r := range effs[i].Records {
			it.ops = append(it.ops, store.PutOp(RecordNS, r.Key(), ob.Encode(r)))
		}
	}
	for i := range effs {
		for _, key := range effs[i].Deletes {
			it.ops = append(it.ops, store.DeleteOp(RecordNS, key))
		}
	}
	// The entries' values and the counter take one buffer, one after
	// another: free is what is left of it (an append that outgrows it
	// moves on to a new one and leaves the values written where they are).
	free := make([]byte, 0, entryRoom*ledger+8)
	for i := range effs {
		for j := range effs[i].Ledger {
			e := &effs[i].Ledger[j]
			val, ok := appendEntry(free, e)
			if !ok {
				raw, err := json.Marshal(e)
				if err != nil {
					continue // a time encoding/json refuses: no entry, as ever
				}
				val = append(free, raw...)
			}
			free, val = val[len(val):], val[:len(val):len(val)]
			s.ledger++
			it.ops = append(it.ops, store.PutOp(LedgerNS, ledgerKey(s.ledger), val))
		}
	}
	if ledger > 0 {
		it.ops = append(it.ops, store.PutOp(LedgerNS, ledgerNextKey, binary.BigEndian.AppendUint64(free, s.ledger)))
	}
	return it
}

// entryRoom is the bytes a ledger entry is expected to take at most.
const entryRoom = 256

// errPageFull stops a ledger scan once a page is full.
var errPageFull = errors.New("page full")

// Ledger returns up to limit entries with a sequence number above after,
// in order, and the sequence number of the last one returned (after, when
// none). Only durable entries are returned. limit <= 0 means all.
// A page costs O(limit): the scan starts at the entry after the cursor.
func (s *Service) Ledger(ctx context.Context, after uint64, limit int) ([]ob.Entry, uint64, error) {
	if err := s.begin(); err != nil {
		return nil, after, err
	}
	t := s.pipe.barrier()
	s.mu.Unlock()
	if err := t.wait(ctx); err != nil {
		return nil, after, err
	}
	var out []ob.Entry
	last := after
	err := s.db.ScanFrom(LedgerNS, ledgerEntryPrefix, ledgerKey(after+1), func(key string, val []byte) error {
		seq, err := strconv.ParseUint(key[len(ledgerEntryPrefix):], 10, 64)
		if err != nil {
			return fmt.Errorf("wakes: ledger key %q: %w", key, err)
		}
		if seq <= after {
			return nil
		}
		if limit > 0 && len(out) >= limit {
			return errPageFull
		}
		var e ob.Entry
		if err := json.Unmarshal(val, &e); err != nil {
			return fmt.Errorf("wakes: ledger entry %d: %w", seq, err)
		}
		out = append(out, e)
		last = seq
		return nil
	})
	if err != nil && !errors.Is(err, errPageFull) {
		return nil, after, err
	}
	return out, last, nil
}
