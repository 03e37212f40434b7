package api

import (
	"net/http"
	"runtime"
	"sync"
	"time"
)

// Listings (deadline pages, fire pages, ledger pages) cost CPU in proportion
// to their page, and a caller may ask for page after page. They never touch
// the engine's loop, but on a machine of two cores a handful of callers
// listing at once could still take every core from the loop and from the
// requests that change things, and a deadline due meanwhile would wait for
// the scheduler. So listings take turns through a gate of GOMAXPROCS-1
// places (at least one): one core always stays for the loop and the
// requests that change things.
//
// status takes turns with them: alone it is cheap, but callers polling it
// in a loop are heavy readers together, and each of them running at once
// is one more goroutine ahead of the loop for a core.
//
// Readers wait for their turn in the order they came (the channel's queue
// of senders), for as long as their request may last (the client's
// timeout, RequestTimeout): a reader is never refused because others are
// ahead of it. Refusing (429) would only turn the wait into retries, each
// one more request to parse; the wait is the callers' back-pressure, and
// what it protects is the loop and the posts, which never queue here.
type listingGate struct {
	places chan struct{}
	mu     sync.Mutex
	paid   time.Time // when the readers' spending so far is paid back at their share
}

// ReaderShare is the part of its places' time readers may take, averaged:
// a reader that held a place for d costs the readers (d + readerOverhead) /
// ReaderShare / places of time, and the next one starts only once what they
// spent is paid back, less ReaderBurst (the next one waits, with the place;
// no answer is held). However many callers list or poll in a loop, readers
// then use at most 0.15 of a core a place, and the rest stays for the
// loop, the posts and the rest of the machine: on a shared machine a daemon
// that takes more than its share of the CPU has its threads wait behind
// the others' when a deadline falls due. ReaderBurst lets a caller that
// asks now and then, or a short run of pages, through without waiting.
// 0.15, not 0.25: at a million pending, ten callers polling status and
// paging in a loop then get ~150 answers a second of each, not ~260, and
// post p99 under them is 1.7-2.2 times its idle p99, not 2.1-2.5
// (BENCHMARKS.md, "Posts under callers, thirteenth landing").
const (
	ReaderShare = 0.15
	ReaderBurst = 20 * time.Millisecond
)

// readerOverhead is what a reader's request costs the machine outside its
// handler, which the gate does not see. In the daemon ~100 µs (measured at
// a million pending with callers polling status or paging in a loop: the
// HTTP server reading, parsing and answering it, the threads woken to
// serve it, the collector's work on a page's garbage; a post's is ~50 µs);
// and in its caller, which is on this machine (a unix socket) and is woken
// for every answer, ~70 µs for a status and ~200 µs for a page of 1,000
// (BENCHMARKS.md, "Posts under callers, ninth landing"). Counted at a
// post's 50 µs, ten callers polling and paging in a loop got a third more
// answers a second than they get now, and the wake-ups of those answers on
// both sides of the socket took a core from the posts often enough that
// post p99 under them was above twice its idle p99 in about a third of
// the runs.
const readerOverhead = 200 * time.Microsecond

func newListingGate() *listingGate {
	return &listingGate{places: make(chan struct{}, max(1, runtime.GOMAXPROCS(0)-1))}
}

// HandleListing adds a route like Handle whose handler runs only while it
// holds a place in the listing gate.
func (s *Server) HandleListing(pattern, verb string, h func(w http.ResponseWriter, r *http.Request) error) {
	s.route(pattern, verb, s.listings.wrap(h))
}

func (g *listingGate) wrap(h func(w http.ResponseWriter, r *http.Request) error) func(w http.ResponseWriter, r *http.Request) error {
	return func(w http.ResponseWriter, r *http.Request) error {
		ctx := r.Context()
		select {
		case g.places <- struct{}{}:
		case <-ctx.Done():
			return ctx.Err()
		}
		defer func() { <-g.places }()
		if wait := g.due(time.Now()); wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return ctx.Err()
			}
		}
		start := time.Now()
		defer func() { g.spend(start, time.Since(start)) }()
		return h(w, r)
	}
}

// due is how long a reader holding a place at now waits before it starts.
func (g *listingGate) due(now time.Time) time.Duration {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.paid.After(now) {
		return -ReaderBurst // all paid back (or nothing spent yet)
	}
	return g.paid.Sub(now) - ReaderBurst
}

// spend counts a reader that began at start and held its place for held.
func (g *listingGate) spend(start time.Time, held time.Duration) {
	cost := time.Duration(float64(held+readerOverhead) / ReaderShare / float64(cap(g.places)))
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.paid.Before(start) {
		g.paid = start
	}
	g.paid = g.paid.Add(cost)
}
