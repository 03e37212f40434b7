package deadlines

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

var t0 = time.Unix(1_750_000_000, 0)

func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

// drain advances to Next until the wheel is empty and returns what fired,
// with the time each deadline fired at.
func drain(w *Wheel) (fired []Deadline, at []time.Time) {
	var due []Deadline
	for {
		next, ok := w.Next()
		if !ok {
			return fired, at
		}
		due = w.Advance(next, due[:0])
		for _, d := range due {
			fired = append(fired, d)
			at = append(at, next)
		}
	}
}

func TestPushPullsEarlierNeverLater(t *testing.T) {
	w := NewWheel(time.Millisecond, t0)
	if !w.Push("a", "k", t0.Add(ms(500)), nil) {
		t.Fatal("Push of a new key reports no change")
	}
	if w.Push("a", "k", t0.Add(ms(900)), nil) || w.Push("a", "k", t0.Add(ms(500)), nil) {
		t.Fatal("Push later or equal reports a change")
	}
	if d, _ := w.Get("a"); !d.At.Equal(t0.Add(ms(500))) {
		t.Fatalf("Push later moved At to %v", d.At)
	}
	if !w.Push("a", "k", t0.Add(ms(200)), nil) {
		t.Fatal("Push earlier reports no change")
	}
	if d, _ := w.Get("a"); !d.At.Equal(t0.Add(ms(200))) {
		t.Fatalf("Push earlier left At at %v", d.At)
	}
	if due := w.Advance(t0.Add(ms(199)), nil); len(due) != 0 {
		t.Fatalf("fired early: %v", due)
	}
	if due := w.Advance(t0.Add(ms(200)), nil); len(due) != 1 || due[0].Key != "a" {
		t.Fatalf("Advance to At = %v, want a", due)
	}
}

func TestExtendSlidesAndCaps(t *testing.T) {
	w := NewWheel(time.Millisecond, t0)
	window, cap := ms(500), 5*time.Second
	for step := range 13 { // an event every 400 ms for 4.8 s: each slides the window
		now := t0.Add(time.Duration(step) * ms(400))
		want := now.Add(window)
		if limit := t0.Add(cap); limit.Before(want) {
			want = limit
		}
		if got := w.Extend("burst/r", "burst", now, window, cap); !got.Equal(want) {
			t.Fatalf("step %d: Extend = %v, want %v", step, got, want)
		}
		if due := w.Advance(now, nil); len(due) != 0 {
			t.Fatalf("step %d: fired during the burst: %v", step, due)
		}
	}
	if d, _ := w.Get("burst/r"); !d.At.Equal(t0.Add(cap)) || !d.Since.Equal(t0) {
		t.Fatalf("after the burst At = %v, Since = %v; want the cap %v, Since %v", d.At, d.Since, t0.Add(cap), t0)
	}
	if due := w.Advance(t0.Add(cap), nil); len(due) != 1 {
		t.Fatalf("at the cap fired %v", keysOf(due))
	}
}

func TestExtendKeepsSinceUntilFired(t *testing.T) {
	w := NewWheel(time.Millisecond, t0)
	w.Extend("q", "reconcile", t0, 45*time.Second, time.Minute)
	w.Extend("q", "other-kind", t0.Add(10*time.Second), 45*time.Second, time.Minute)
	d, _ := w.Get("q")
	if !d.Since.Equal(t0) || d.Kind != "reconcile" || !d.At.Equal(t0.Add(55*time.Second)) {
		t.Fatalf("second extend: %+v", d)
	}
	due := w.Advance(t0.Add(55*time.Second), nil)
	if len(due) != 1 || !due[0].Since.Equal(t0) {
		t.Fatalf("fired %+v", due)
	}
	// A new window after the fire starts its own Since.
	now := t0.Add(time.Minute)
	w.Extend("q", "reconcile", now, 45*time.Second, time.Minute)
	if d, _ := w.Get("q"); !d.Since.Equal(now) {
		t.Fatalf("new window Since = %v, want %v", d.Since, now)
	}
	// A push starts a pushed deadline: the next extend opens a new window.
	w.Push("q", "reconcile", now.Add(time.Second), nil)
	if d, _ := w.Get("q"); !d.Since.IsZero() {
		t.Fatalf("Since after a push = %v, want zero", d.Since)
	}
}

func TestCancelReportsPending(t *testing.T) {
	w := NewWheel(time.Millisecond, t0)
	if w.Cancel("x") {
		t.Fatal("Cancel of an unknown key reports pending")
	}
	w.Push("x", "k", t0.Add(time.Hour), []byte("p"))
	if !w.Cancel("x") {
		t.Fatal("Cancel of a pending key reports not pending")
	}
	if w.Cancel("x") || w.Len() != 0 {
		t.Fatal("Cancel twice reports pending")
	}
	w.Push("y", "k", t0.Add(ms(3)), nil)
	w.Advance(t0.Add(ms(3)), nil)
	if w.Cancel("y") {
		t.Fatal("Cancel after the fire reports pending")
	}
}

func TestFarFutureFires(t *testing.T) {
	w := NewWheel(time.Millisecond, t0)
	year := 365 * 24 * time.Hour
	for i, h := range []time.Duration{2 * year, 10 * year, 150 * year, 200*year + 7} {
		w.Push(fmt.Sprint("far", i), "k", t0.Add(h), nil)
	}
	fired, at := drain(w)
	if len(fired) != 4 {
		t.Fatalf("fired %d of 4", len(fired))
	}
	for i, d := range fired {
		if !at[i].Equal(d.At) {
			t.Errorf("%s due %v fired at %v", d.Key, d.At, at[i])
		}
	}
}

func TestPastDeadlinesFireAtTheNextAdvance(t *testing.T) {
	w := NewWheel(time.Millisecond, t0)
	w.Push("old", "k", t0.Add(-time.Hour), nil)
	w.Reset(Deadline{Key: "zero", Kind: "k"}) // the zero time: long past
	w.Push("now", "k", t0, nil)
	if next, _ := w.Next(); next.After(t0.Add(-time.Hour)) {
		t.Fatalf("Next = %v, later than the overdue deadline", next)
	}
	due := w.Advance(t0, nil)
	if keys := keysOf(due); !slices.Equal(keys, []string{"zero", "old", "now"}) {
		t.Fatalf("fired %v", keys)
	}
}

// TestOverdueDrainsByNext reloads deadlines that fell due during downtime
// and drives the wheel as a simulation does, one Next at a time: they fire
// in (At, Key) order, each at its own instant, without a scan per step.
func TestOverdueDrainsByNext(t *testing.T) {
	w := NewWheel(time.Millisecond, t0)
	const n = 50_000
	for i := range n {
		at := t0.Add(-time.Duration(i*7919%n) * time.Millisecond).Add(-time.Microsecond)
		w.Reset(Deadline{Key: fmt.Sprintf("k%05d", i), Kind: "k", At: at})
	}
	fired, at := drain(w)
	if len(fired) != n {
		t.Fatalf("fired %d of %d", len(fired), n)
	}
	for i, d := range fired {
		if i > 0 && compareDeadlines(fired[i-1], d) >= 0 {
			t.Fatalf("%s fired after %s", d.Key, fired[i-1].Key)
		}
		if !at[i].Equal(d.At) {
			t.Fatalf("%s due %v fired at %v", d.Key, d.At, at[i])
		}
	}
}

func TestCatchUpFiresEverythingOnceInOrder(t *testing.T) {
	w := NewWheel(time.Millisecond, t0)
	var want []Deadline
	for i := range 5000 {
		d := Deadline{Key: fmt.Sprintf("k%04d", i), Kind: "k", At: t0.Add(time.Duration(i*7919%5000) * ms(97))}
		w.Reset(d)
		want = append(want, d)
	}
	slices.SortFunc(want, compareDeadlines)
	// Downtime: one Advance a week later fires everything, once, in order.
	due := w.Advance(t0.Add(7*24*time.Hour), nil)
	if !slices.Equal(keysOf(due), keysOf(want)) {
		t.Fatalf("catch-up fired %d deadlines, not in (At, Key) order", len(due))
	}
	if w.Len() != 0 {
		t.Fatalf("Len = %d after catch-up", w.Len())
	}
	if due := w.Advance(t0.Add(8*24*time.Hour), nil); len(due) != 0 {
		t.Fatalf("fired again: %v", keysOf(due))
	}
}

// TestCatchUpOrdersEqualInstantsByKey: a backlog that shares its instants
// (a hundred keys at each of 50) fires in (At, Key) order, the keys of one
// instant by key, whatever order they were set in.
func TestCatchUpOrdersEqualInstantsByKey(t *testing.T) {
	for _, c := range []struct {
		n, instants int
		step        time.Duration
	}{
		{5000, 50, ms(97)},                           // sorted as pairs by comparing them
		{40_000, 400, -time.Duration(1<<40 + 12345)}, // by a radix sort: instants over decades, into the past
	} {
		w := NewWheel(time.Millisecond, t0)
		var want []Deadline
		for i := range c.n {
			j := i % c.instants
			d := Deadline{Key: fmt.Sprintf("k%05d", i*7919%c.n), Kind: "k", At: t0.Add(time.Duration(j*j%c.instants) * c.step)}
			w.Reset(d)
			want = append(want, d)
		}
		slices.SortFunc(want, compareDeadlines)
		due := w.Advance(t0.Add(time.Hour), nil)
		if !slices.Equal(keysOf(due), keysOf(want)) {
			t.Fatalf("%d: catch-up fired %d deadlines, not in (At, Key) order", c.n, len(due))
		}
		for k := 1; k < len(due); k++ {
			if due[k].At.Before(due[k-1].At) {
				t.Fatalf("%d: deadline %d (%s) fired before %d's At", c.n, k, due[k].Key, k-1)
			}
		}
	}
}

func TestSameSlotRearmTouchesNothing(t *testing.T) {
	w := NewWheel(time.Millisecond, t0)
	for _, k := range []string{"a", "b", "c"} {
		w.Push(k, "k", t0.Add(10*time.Second), nil)
	}
	heads, occupied := w.heads, w.occupied
	i, _, _ := w.index.find(&w.slab, "b", w.hash("b"))
	before := *w.slab.at(i)
	// 10 s is level 2 (64^2 ms slots); moving by 1 ms stays in the same slot.
	w.Push("b", "k", t0.Add(10*time.Second-ms(1)), nil)
	after := *w.slab.at(i)
	if w.heads != heads || w.occupied != occupied || after.next != before.next || after.prev != before.prev {
		t.Fatal("a same-slot re-arm changed the lists")
	}
}

func TestRearmingDoesNotAllocate(t *testing.T) {
	w := NewWheel(time.Millisecond, t0)
	w.Extend("burst/r", "burst", t0, ms(500), time.Hour)
	now := t0
	allocs := testing.AllocsPerRun(1000, func() {
		now = now.Add(time.Microsecond * 37)
		w.Extend("burst/r", "burst", now, ms(500), time.Hour)
	})
	if allocs != 0 {
		t.Fatalf("Extend allocates %v times per call", allocs)
	}
	keys := makeKeys("fresh", 64)
	n := 0
	allocs = testing.AllocsPerRun(1000, func() {
		k := keys[n%len(keys)]
		n++
		w.Push(k, "burst", now.Add(time.Second), nil)
		w.Cancel(k)
	})
	if allocs != 0 {
		t.Fatalf("Push and Cancel of a new key allocate %v times per call", allocs)
	}
}

func keysOf(ds []Deadline) []string {
	keys := make([]string, len(ds))
	for i, d := range ds {
		keys[i] = d.Key
	}
	return keys
}
