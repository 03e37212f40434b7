package api

import (
	"bytes"
	"runtime"
	"sync"
	"time"
	"unsafe"

	"github.com/wakewheel/wakewheel/deadlines"
)

// yieldEvery is how many deadlines of a page are written between yields of
// the processor (about 50 µs of work here).
const yieldEvery = 128

// pageWriter writes a deadline page as json.Encoder writes the
// DeadlinePage that pageOf makes of it (with its newline), one deadline at
// a time as the store reads them (Records.VisitDeadlinePage), without
// reflection and without a copy of the page: no key, no slice of
// deadlines. Every yieldEvery deadlines it yields (runtime.Gosched), so
// that the engine's loop, woken by a deadline that fell due meanwhile,
// gets a core at once instead of after the page. The Go scheduler preempts
// a running goroutine only after 10 ms; two listings on two cores would
// otherwise hold a due reminder that long.
type pageWriter struct {
	b    []byte
	n    int    // deadlines written
	last []byte // the key written last: the next page's cursor
	ok   bool   // false once a time encoding/json would refuse came
	// times writes the times; kind is the kind written last and kindJSON
	// its JSON, written again for the next deadline of the same kind (a
	// page is mostly of one kind).
	times    pageTimes
	kind     []byte
	kindJSON []byte
}

// start begins a page in b[:0].
func (p *pageWriter) start(b []byte) {
	p.b = append(b[:0], `{"deadlines":[`...) // a list, empty or not (as pageOf makes it)
	p.n, p.last, p.ok = 0, p.last[:0], true
}

// add writes one deadline; key and kind are only read during the call.
func (p *pageWriter) add(key, kind []byte, at, since time.Time) {
	if !p.ok {
		return
	}
	if p.n > 0 {
		p.b = append(p.b, ',')
		if p.n%yieldEvery == 0 {
			runtime.Gosched()
		}
	}
	p.n++
	p.last = append(p.last[:0], key...)
	b := append(p.b, `{"key":`...)
	b = appendString(b, transient(key))
	b = append(b, `,"kind":`...)
	if !bytes.Equal(kind, p.kind) || p.kindJSON == nil {
		p.kind = append(p.kind[:0], kind...)
		p.kindJSON = appendString(p.kindJSON[:0], transient(kind))
	}
	b = append(b, p.kindJSON...)
	b = append(b, `,"at":`...)
	if b, p.ok = p.times.append(b, at); p.ok && !since.IsZero() {
		b = append(b, `,"since":`...)
		b, p.ok = p.times.append(b, since)
	}
	p.b = append(b, '}')
}

// end closes the page: when more follow, its next cursor is the key
// written last. It is the page unless a time encoding/json would refuse
// came (false): then encoding/json must write the page, to say so.
func (p *pageWriter) end(more bool) ([]byte, bool) {
	b := append(p.b, ']')
	if more {
		b = append(b, `,"next":`...)
		b = appendString(b, transient(p.last))
	}
	p.b = append(b, "}\n"...)
	return p.b, p.ok
}

// transient is b as a string for the length of a call that only reads it
// (appendString), without a copy; the string must not be kept.
func transient(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// appendDeadlinePage appends the page of ds (next: the cursor of the page
// after it, "" for the last) as pageWriter writes it; false when
// encoding/json must write it.
func appendDeadlinePage(b []byte, ds []deadlines.Deadline, next string) ([]byte, bool) {
	var p pageWriter
	p.start(b)
	for i := range ds {
		p.add([]byte(ds[i].Key), []byte(ds[i].Kind), ds[i].At, ds[i].Since)
	}
	p.last = append(p.last[:0], next...)
	return p.end(next != "")
}

// pageOf is the answer a page of ds is, as a value (what encoding/json
// writes when pageWriter cannot).
func pageOf(ds []deadlines.Deadline, next string) DeadlinePage {
	out := DeadlinePage{Deadlines: make([]Deadline, len(ds)), Next: next}
	for i, d := range ds {
		out.Deadlines[i] = toAPI(d)
	}
	return out
}

// A page is written by a writer of a pool, into its buffer: a page of
// 1,000 deadlines is ~95 KB of JSON, past the 64 KiB the shared pool
// keeps, and a buffer grown anew for every page (8 KB, 16 KB, … 128 KB)
// was most of a listing's garbage, and so of the collections under callers
// that list in a loop. Listings take turns (the listing gate), so the pool
// holds a writer or two; one whose buffer grew past maxPooledPage (a page
// of MaxDeadlinePage with long keys) is dropped.
var pageWriters = sync.Pool{New: func() any { return new(pageWriter) }}

const maxPooledPage = 2 << 20

// pageBytes is the size a page of n deadlines is likely to take.
func pageBytes(n int) int { return 64 + n*100 }

// getPageWriter is a writer started on a buffer for a page of n.
func getPageWriter(n int) *pageWriter {
	p := pageWriters.Get().(*pageWriter)
	if cap(p.b) < pageBytes(n) {
		p.b = make([]byte, 0, pageBytes(n))
	}
	p.start(p.b)
	return p
}

func putPageWriter(p *pageWriter) {
	if cap(p.b) <= maxPooledPage {
		p.b = p.b[:0]
		pageWriters.Put(p)
	}
}
