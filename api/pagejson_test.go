package api

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/wakewheel/wakewheel/deadlines"
	"github.com/wakewheel/wakewheel/internal/yieldtest"
)

// A deadline page, too, is written as encoding/json writes it.
func TestDeadlinePageJSONIsEncodingJSONs(t *testing.T) {
	since := time.Date(2026, 12, 1, 9, 0, 0, 5, time.FixedZone("z", 3600))
	type page struct {
		ds   []deadlines.Deadline
		next string
	}
	pages := []page{{}, {ds: []deadlines.Deadline{}}, {next: "reminder/<b>"}}
	var many page
	for i, s := range awkward {
		d := deadlines.Deadline{Key: s, Kind: s, At: time.Date(2026, 12, 1, 11, 0, i, i*1000, time.UTC)}
		if i%2 == 0 {
			d.Since = since
		}
		many.ds = append(many.ds, d)
	}
	for i := range 3 * yieldEvery {
		many.ds = append(many.ds, deadlines.Deadline{Key: fmt.Sprint("reminder/load-", i), Kind: "reminder", At: since})
	}
	many.next = "reminder/load-9"
	reused := getPageWriter(1) // one writer for every page, as the pool hands them out
	for _, p := range append(pages, many, pages[0]) {
		var want strings.Builder
		if err := json.NewEncoder(&want).Encode(pageOf(p.ds, p.next)); err != nil {
			t.Fatal(err)
		}
		if got, ok := appendDeadlinePage(nil, p.ds, p.next); !ok || string(got) != want.String() {
			t.Errorf("page of %d:\n got %s\nwant %s", len(p.ds), got, want.String())
		}
		reused.start(reused.b)
		for _, d := range p.ds {
			reused.add([]byte(d.Key), []byte(d.Kind), d.At, d.Since)
		}
		if p.next != "" {
			reused.last = append(reused.last[:0], p.next...)
		}
		if got, ok := reused.end(p.next != ""); !ok || string(got) != want.String() {
			t.Errorf("page of %d by a reused writer:\n got %s\nwant %s", len(p.ds), got, want.String())
		}
	}
	bad := []deadlines.Deadline{{Key: "k", At: time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC)}}
	if _, ok := appendDeadlinePage(nil, bad, ""); ok {
		t.Error("a year before 0 written by hand; encoding/json refuses it")
	}
}

// Writing a long page yields the processor every yieldEvery deadlines:
// with one processor, a goroutine that is ready to run runs many times
// during a page of 10,000 instead of only after it.
func TestDeadlinePageJSONYieldsAsItWrites(t *testing.T) {
	ds := make([]deadlines.Deadline, MaxDeadlinePage)
	for i := range ds {
		ds[i] = deadlines.Deadline{Key: fmt.Sprintf("reminder/load-%07d", i), Kind: "reminder", At: time.Unix(int64(i), 0)}
	}
	var ok bool
	during := yieldtest.RunsDuring(func() { _, ok = appendDeadlinePage(nil, ds, "") })
	if want := int64(len(ds) / yieldEvery / 2); !ok || during < want {
		t.Fatalf("a ready goroutine ran %d times while a page of %d was written, want at least %d", during, len(ds), want)
	}
}
