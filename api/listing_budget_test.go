package api

import (
	"testing"
	"time"
)

// The readers' budget, with times as values: readers that come now and
// then never wait; a run of them waits once the burst is spent, for what
// they spent at ReaderShare (a request's unseen overhead included); a quiet
// spell pays it all back.
func TestReadersBudget(t *testing.T) {
	g := &listingGate{places: make(chan struct{}, 1)}
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	if w := g.due(now); w > 0 {
		t.Fatalf("a new gate makes the first reader wait %v", w)
	}
	const held = 100 * time.Microsecond // a status
	cost := time.Duration(float64(held+readerOverhead) / ReaderShare)
	burst := int(ReaderBurst / cost) // readers let through back to back
	for i := range burst {
		if w := g.due(now); w > 0 {
			t.Fatalf("reader %d of a run waits %v within the burst of %d", i, w, burst)
		}
		g.spend(now, held)
	}
	g.spend(now, held)
	if w, want := g.due(now), time.Duration(burst+1)*cost-ReaderBurst; w <= 0 || w != want {
		t.Fatalf("past the burst the next reader waits %v, want %v", w, want)
	}
	later := now.Add(time.Second)
	if w := g.due(later); w > 0 {
		t.Fatalf("after a quiet second a reader waits %v", w)
	}
	g.spend(later, held)
	if w, want := g.due(later), cost-ReaderBurst; w != want {
		t.Fatalf("a reader after the quiet spell is counted from its own start: wait %v, want %v", w, want)
	}
}
