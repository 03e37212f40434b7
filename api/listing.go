package api

import (
	"net/http"
	"runtime"
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
type listingGate chan struct{}

// ReaderShare is the part of its place's time a reader may take: a reader
// that held a place for d keeps it taken until d/ReaderShare after it began
// (its answer is not held; the next reader waits). However many callers
// list or poll in a loop, readers then use at most a quarter of a core a
// place, and the rest stays for the loop, the posts and the rest of the
// machine: on a shared machine, a daemon that takes more than its share of
// the CPU has its threads wait behind the others' when a deadline falls
// due. ReaderTurn is the shortest turn, for the same reason: a status is
// ~100 µs in its handler, but each request also costs the HTTP server
// ~50 µs that no handler sees, so at most 1,000 readers a second a place
// are let through.
const (
	ReaderShare = 0.25
	ReaderTurn  = time.Millisecond
)

func newListingGate() listingGate {
	return make(listingGate, max(1, runtime.GOMAXPROCS(0)-1))
}

// HandleListing adds a route like Handle whose handler runs only while it
// holds a place in the listing gate.
func (s *Server) HandleListing(pattern, verb string, h func(w http.ResponseWriter, r *http.Request) error) {
	s.route(pattern, verb, s.listings.wrap(h))
}

func (g listingGate) wrap(h func(w http.ResponseWriter, r *http.Request) error) func(w http.ResponseWriter, r *http.Request) error {
	return func(w http.ResponseWriter, r *http.Request) error {
		select {
		case g <- struct{}{}:
		case <-r.Context().Done():
			return r.Context().Err()
		}
		start := time.Now()
		defer func() { time.AfterFunc(turnLeft(time.Since(start)), func() { <-g }) }()
		return h(w, r)
	}
}

// turnLeft is how long a place stays taken after a reader that held it for
// held answered.
func turnLeft(held time.Duration) time.Duration {
	return max(time.Duration(float64(held)/ReaderShare), ReaderTurn) - held
}
