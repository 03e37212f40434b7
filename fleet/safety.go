package fleet

import (
	"context"
	"sync"

	ob "github.com/wakewheel/wakewheel/obligations"
)

// DefaultSafetyEntries is how many of the latest ledger entries the
// beacon's safety vector is computed over (registered as
// fleet.beacon.safety_entries; configs says why).
const DefaultSafetyEntries = 10000

// LedgerPage reads ledger entries after a sequence number, at most limit,
// and returns the last one's number; (*wakes.Service).Ledger satisfies it.
type LedgerPage func(ctx context.Context, after uint64, limit int) ([]ob.Entry, uint64, error)

// safetyTail keeps the latest ledger entries in memory, read incrementally
// (only the entries since the last read: a beacon never rescans the
// ledger), and computes the cut-over safety vector over them: the same
// report `wakewheel ledger report` prints for the whole ledger.
type safetyTail struct {
	read LedgerPage
	slos ob.SLOs
	max  int

	mu      sync.Mutex
	after   uint64
	entries []ob.Entry
}

func newSafetyTail(read LedgerPage, slos ob.SLOs, max int) *safetyTail {
	if max <= 0 {
		max = DefaultSafetyEntries
	}
	return &safetyTail{read: read, slos: slos, max: max}
}

// report reads what the ledger gained and returns the vector of the
// latest entries (without the per-turn table: the beacon stays small).
func (t *safetyTail) report(ctx context.Context) (ob.Report, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for {
		page, last, err := t.read(ctx, t.after, 1000)
		if err != nil {
			return ob.Report{}, err
		}
		if len(page) == 0 {
			break
		}
		t.entries = append(t.entries, page...)
		t.after = last
		if n := len(t.entries) - t.max; n > 0 {
			t.entries = append(t.entries[:0:0], t.entries[n:]...)
		}
	}
	r := ob.ComputeReport(t.entries, t.slos)
	r.Turns = nil
	return r, nil
}
