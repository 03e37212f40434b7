package api

import (
	"runtime"
	"sync"

	"github.com/wakewheel/wakewheel/deadlines"
)

// yieldEvery is how many deadlines of a page are written between yields of
// the processor (about 50 µs of work here).
const yieldEvery = 128

// appendDeadlinePage appends the page of ds (next: the cursor of the page
// after it, "" for the last) as json.Encoder writes the DeadlinePage that
// pageOf makes of them (with its newline), without reflection and without
// that copy; false when encoding/json must write it (a time it would
// refuse). A page of 10,000 is about 1 MB of JSON: every yieldEvery
// deadlines the writer yields (runtime.Gosched), so that the engine's
// loop, woken by a deadline that fell due meanwhile, gets a core at once
// instead of after the page. The Go scheduler preempts a running goroutine
// only after 10 ms; two listings on two cores would otherwise hold a due
// reminder that long.
func appendDeadlinePage(b []byte, ds []deadlines.Deadline, next string) ([]byte, bool) {
	b = append(b, `{"deadlines":[`...) // a list, empty or not (as pageOf makes it)
	for i := range ds {
		if i > 0 {
			b = append(b, ',')
			if i%yieldEvery == 0 {
				runtime.Gosched()
			}
		}
		d := &ds[i]
		b = append(b, `{"key":`...)
		b = appendString(b, d.Key)
		b = append(b, `,"kind":`...)
		b = appendString(b, d.Kind)
		b = append(b, `,"at":`...)
		var ok bool
		if b, ok = appendTime(b, d.At); !ok {
			return b, false
		}
		if !d.Since.IsZero() {
			b = append(b, `,"since":`...)
			if b, ok = appendTime(b, d.Since); !ok {
				return b, false
			}
		}
		b = append(b, '}')
	}
	b = append(b, ']')
	if next != "" {
		b = append(b, `,"next":`...)
		b = appendString(b, next)
	}
	return append(b, "}\n"...), true
}

// pageOf is the answer a page of ds is, as a value (what encoding/json
// writes when appendDeadlinePage cannot).
func pageOf(ds []deadlines.Deadline, next string) DeadlinePage {
	out := DeadlinePage{Deadlines: make([]Deadline, len(ds)), Next: next}
	for i, d := range ds {
		out.Deadlines[i] = toAPI(d)
	}
	return out
}

// A page is written into a buffer of its own pool: a page of 1,000
// deadlines is ~95 KB of JSON, past the 64 KiB the shared pool keeps, and
// a buffer grown anew for every page (8 KB, 16 KB, … 128 KB) was most of a
// listing's garbage, and so of the collections under callers that list in
// a loop. Listings take turns (the listing gate), so the pool holds a
// buffer or two; one longer than maxPooledPage (a page of MaxDeadlinePage
// with long keys) is dropped.
var pageBuffers = sync.Pool{New: func() any { return new([]byte) }}

const maxPooledPage = 2 << 20

// pageBytes is the size a page of n deadlines is likely to take.
func pageBytes(n int) int { return 64 + n*100 }

func getPageBuffer(n int) *[]byte {
	b := pageBuffers.Get().(*[]byte)
	if cap(*b) < pageBytes(n) {
		*b = make([]byte, 0, pageBytes(n))
	}
	return b
}

func putPageBuffer(b *[]byte) {
	if cap(*b) <= maxPooledPage {
		*b = (*b)[:0]
		pageBuffers.Put(b)
	}
}

// The deadlines of a page come into a slice of their own pool, for the
// same reason: a page of 1,000 read into a new slice was ~100 KB of
// garbage, a third of what a page cost (most of the rest is LevelDB's
// blocks, read anew for each page). A slice is cleared before it goes
// back, so that it holds no key of the page it served; one longer than
// MaxDeadlinePage+1 (none is) would be dropped.
var pageDeadlines = sync.Pool{New: func() any { return new([]deadlines.Deadline) }}

func getPageDeadlines() *[]deadlines.Deadline { return pageDeadlines.Get().(*[]deadlines.Deadline) }

func putPageDeadlines(ds *[]deadlines.Deadline) {
	if cap(*ds) > MaxDeadlinePage+1 {
		return
	}
	clear((*ds)[:cap(*ds)])
	*ds = (*ds)[:0]
	pageDeadlines.Put(ds)
}
