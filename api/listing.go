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
// requests that change things. A listing waiting for its turn waits no longer than its request's
// timeout.
//
// status takes turns with them: alone it is cheap, but callers polling it
// in a loop are heavy readers together, and each of them running at once
// is one more goroutine ahead of the loop for a core.
type listingGate chan struct{}

func newListingGate() listingGate {
	return make(listingGate, max(1, runtime.GOMAXPROCS(0)-1))
}

// HandleListing adds a route like Handle whose handler runs only while it
// holds a place in the listing gate.
func (s *Server) HandleListing(pattern, verb string, h func(w http.ResponseWriter, r *http.Request) error) {
	s.route(pattern, verb, s.listings.wrap(h))
}

// A reader that held a place for d keeps it taken for d more after it
// answered (its answer is not held; the next reader waits): readers use
// at most half of their places' time, however many callers list or poll
// in a loop, and the rest stays for the loop, the posts and the callers'
// own processes.
func (g listingGate) wrap(h func(w http.ResponseWriter, r *http.Request) error) func(w http.ResponseWriter, r *http.Request) error {
	return func(w http.ResponseWriter, r *http.Request) error {
		select {
		case g <- struct{}{}:
		case <-r.Context().Done():
			return r.Context().Err()
		}
		start := time.Now()
		defer func() { time.AfterFunc(time.Since(start), func() { <-g }) }()
		return h(w, r)
	}
}
