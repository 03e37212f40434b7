package api

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/wakewheel/wakewheel/deadlines"
	"github.com/wakewheel/wakewheel/internal/yieldtest"

	_ "time/tzdata" // the zones of TestPageTimesAreEncodingJSONs, on any machine
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

// A page's times, written by hand (pageTimes), are encoding/json's in
// every zone and year it takes, across the zone's changes and from one
// location to another with the same writer; what it does not take
// (a year past 9999 or before 0, an offset of a part of a minute or of a
// day) is refused or written as encoding/json does.
func TestPageTimesAreEncodingJSONs(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	lhi, err := time.LoadLocation("Australia/Lord_Howe") // a half-hour change of offset
	if err != nil {
		t.Fatal(err)
	}
	locs := []*time.Location{time.UTC, time.Local, ny, lhi, time.FixedZone("", -(9*3600 + 30*60)),
		time.FixedZone("east", 14*3600), time.FixedZone("sec", 3600+17), time.FixedZone("day", 24*3600)}
	var times []time.Time
	r := rand.New(rand.NewPCG(11, 12))
	for range 20000 {
		sec := r.Int64N(400*365*86400) - 200*365*86400 // 1770..2170
		if r.IntN(10) == 0 {
			sec = r.Int64N(10200*365*86400) - 2000*365*86400 - 62135596800 // years -2000..8200 past year 0
		}
		ns := int64(0)
		switch r.IntN(3) {
		case 1:
			ns = r.Int64N(1e9)
		case 2:
			ns = r.Int64N(1e3) * 1e6
		}
		times = append(times, time.Unix(sec, ns).In(locs[r.IntN(len(locs))]))
	}
	for _, loc := range locs[:4] { // around the changes of the zones that change
		for y := 1969; y <= 2031; y += 3 {
			for _, m := range []time.Month{3, 4, 10, 11} {
				for d := 1; d <= 31; d += 2 {
					for h := 0; h < 24; h++ {
						at := time.Date(y, m, d, h, 59, 59, 999999999, loc)
						times = append(times, at, at.Add(time.Nanosecond), time.Unix(0, at.UnixNano()))
					}
				}
			}
		}
	}
	times = append(times, time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC),
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(-1, 12, 31, 23, 59, 59, 0, time.UTC), time.Time{},
		time.Date(1, 1, 1, 0, 0, 0, 0, time.FixedZone("", -60)), time.Date(9999, 12, 31, 23, 59, 0, 0, time.FixedZone("", 60)))
	var z pageTimes
	for _, tm := range times {
		want, werr := json.Marshal(tm)
		got, ok := z.append([]byte("x"), tm)
		if ok != (werr == nil) {
			if ok { // a time encoding/json refuses that appendTime writes: the hand path must agree with it
				if old, oldOK := appendTime([]byte("x"), tm); oldOK && string(old) == string(got) {
					continue
				}
			}
			t.Fatalf("%v (%s): took it %v, encoding/json's error %v", tm, tm.Location(), ok, werr)
		}
		if ok && string(got) != "x"+string(want) {
			t.Fatalf("%v (%s):\n got %s\nwant x%s", tm, tm.Location(), got, want)
		}
		if !ok && string(got) != "x" {
			t.Fatalf("%v: refused, but wrote %s", tm, got)
		}
	}
}
