package fleet

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/wakewheel/wakewheel/store"
)

// OutboxNS is the store namespace of the outbox.
const OutboxNS = "fleet-outbox"

// Store is what the fleet needs of the daemon's store; *store.DB
// satisfies it. A synced Write is durable when it returns.
type Store interface {
	Write(sync bool, ops ...store.Op) error
	Scan(ns, prefix string, fn func(key string, val []byte) error) error
}

// Outbox holds this host's posts to lanes homed elsewhere until the broker
// has acknowledged them: a post is answered "queued" only once its record
// is synced, and the record is deleted only after the broker's ack. A
// crash in between re-sends it, which the broker's window or the home's id
// index absorbs.
type Outbox struct {
	db    Store
	limit int

	mu      sync.Mutex
	next    uint64
	pending map[uint64]Envelope
	order   []uint64 // sequence numbers in pending, oldest first
	waiters map[uint64][]chan struct{}
	kick    chan struct{}
}

// OpenOutbox loads what a previous run left queued.
func OpenOutbox(db Store, limit int) (*Outbox, error) {
	b := &Outbox{db: db, limit: limit, next: 1, pending: map[uint64]Envelope{}, waiters: map[uint64][]chan struct{}{}, kick: make(chan struct{}, 1)}
	err := db.Scan(OutboxNS, "", func(key string, val []byte) error {
		var seq uint64
		if _, err := fmt.Sscanf(key, "%020d", &seq); err != nil {
			return fmt.Errorf("fleet: outbox key %q: %w", key, err)
		}
		var e Envelope
		if err := json.Unmarshal(val, &e); err != nil {
			return fmt.Errorf("fleet: outbox record %s: %w (run `wakewheel repair`)", key, err)
		}
		b.pending[seq] = e
		b.order = append(b.order, seq)
		b.next = max(b.next, seq+1)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(b.order) > 0 {
		b.kick <- struct{}{}
	}
	return b, nil
}

func outboxKey(seq uint64) string { return fmt.Sprintf("%020d", seq) }

// Add queues e durably. It refuses with ErrOutboxFull past the bound.
func (b *Outbox) Add(e Envelope) (uint64, error) {
	val, err := json.Marshal(e)
	if err != nil {
		return 0, err
	}
	b.mu.Lock()
	if len(b.pending) >= b.limit {
		n := len(b.pending)
		b.mu.Unlock()
		return 0, fmt.Errorf("%w: %d posts wait for the broker (fleet.outbox.max); the post to lane %s was not taken: retry once the broker is back (`wakewheel fleet status`)", ErrOutboxFull, n, e.Lane)
	}
	seq := b.next
	b.next++
	b.pending[seq] = e
	b.order = append(b.order, seq)
	b.mu.Unlock()
	// Synced writes from concurrent posters are grouped by the store.
	if err := b.db.Write(true, store.PutOp(OutboxNS, outboxKey(seq), val)); err != nil {
		b.mu.Lock()
		delete(b.pending, seq)
		b.mu.Unlock()
		return 0, fmt.Errorf("fleet: outbox write failed, the post was not taken: %w", err)
	}
	select {
	case b.kick <- struct{}{}:
	default:
	}
	return seq, nil
}

// Len is the number of queued posts.
func (b *Outbox) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.pending)
}

// peek returns up to n queued posts, oldest first.
func (b *Outbox) peek(n int) ([]uint64, []Envelope) {
	b.mu.Lock()
	defer b.mu.Unlock()
	var seqs []uint64
	var envs []Envelope
	keep := b.order[:0]
	for _, s := range b.order {
		e, ok := b.pending[s]
		if !ok {
			continue // removed, or a failed Add
		}
		keep = append(keep, s)
		if len(seqs) < n {
			seqs, envs = append(seqs, s), append(envs, e)
		}
	}
	b.order = keep
	return seqs, envs
}

// remove forgets posts the broker acknowledged. The delete need not be
// synced: a delete lost to a power cut re-sends a post that is absorbed.
func (b *Outbox) remove(seqs []uint64) error {
	if len(seqs) == 0 {
		return nil
	}
	ops := make([]store.Op, len(seqs))
	b.mu.Lock()
	for i, s := range seqs {
		delete(b.pending, s)
		ops[i] = store.DeleteOp(OutboxNS, outboxKey(s))
		for _, ch := range b.waiters[s] {
			close(ch)
		}
		delete(b.waiters, s)
	}
	b.mu.Unlock()
	return b.db.Write(false, ops...)
}

// Wait blocks until the broker has acknowledged the post queued as seq.
func (b *Outbox) Wait(ctx context.Context, seq uint64) error {
	b.mu.Lock()
	if _, ok := b.pending[seq]; !ok {
		b.mu.Unlock()
		return nil
	}
	ch := make(chan struct{})
	b.waiters[seq] = append(b.waiters[seq], ch)
	b.mu.Unlock()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
