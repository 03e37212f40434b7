package deadlines

import (
	"fmt"
	"testing"
	"time"
)

const us = time.Microsecond

// wakeAt is Wake's instant as an offset from t0.
func wakeAt(t *testing.T, w *Wheel, slack time.Duration) time.Duration {
	t.Helper()
	at, ok := w.Wake(slack)
	if !ok {
		t.Fatal("Wake: nothing pending")
	}
	return at.Sub(t0)
}

func TestWakeOfALoneDeadlineIsItsAt(t *testing.T) {
	w := NewWheel(time.Millisecond, t0)
	if _, ok := w.Wake(time.Millisecond); ok {
		t.Fatal("Wake of an empty wheel reports an instant")
	}
	w.Push("a", "k", t0.Add(5300*us), nil)
	w.Push("b", "k", t0.Add(6200*us), nil) // the next tick: not a's company
	if got := wakeAt(t, w, time.Millisecond); got != 5300*us {
		t.Fatalf("Wake = %v, want a's own 5.3ms", got)
	}
}

// Three deadlines in the tick (5 ms, 6 ms]: with a slack of a tick they
// share one wake at the tick's end; with less, the first wake is Next +
// slack, and each later one is asked for again.
func TestWakeCoalescesTheDeadlinesOfATick(t *testing.T) {
	push := func() *Wheel {
		w := NewWheel(time.Millisecond, t0)
		for k, at := range map[string]time.Duration{"a": 5300 * us, "b": 5700 * us, "c": 6000 * us} {
			w.Push(k, "k", t0.Add(at), nil)
		}
		return w
	}
	for _, c := range []struct {
		slack time.Duration
		want  time.Duration
	}{
		{0, 5300 * us},                 // every deadline at its own instant
		{-time.Millisecond, 5300 * us}, // as 0
		{200 * us, 5500 * us},          // Next + slack
		{time.Millisecond, 6000 * us},  // the tick's end
		{time.Hour, 6000 * us},         // never past the tick's end
		{700 * us, 6000 * us},          // Next + slack is the tick's end
		{699 * us, 5300*us + 699*us},   // a nanosecond short of it
		{time.Nanosecond, 5300*us + 1}, // the least slack
	} {
		if got := wakeAt(t, push(), c.slack); got != c.want {
			t.Errorf("slack %v: Wake = %v, want %v", c.slack, got, c.want)
		}
	}

	// Driven by Wake(200 µs): a alone at 5.5 ms, then b and c, on the
	// overdue list now, b at 5.9 ms, then c, alone, at its own 6 ms.
	w := push()
	var fired []string
	for _, want := range []time.Duration{5500 * us, 5900 * us, 6000 * us} {
		got := wakeAt(t, w, 200*us)
		if got != want {
			t.Fatalf("Wake = %v, want %v", got, want)
		}
		for _, d := range w.Advance(t0.Add(got), nil) {
			fired = append(fired, fmt.Sprintf("%s@%v", d.Key, got))
		}
		checkInvariants(t, w)
	}
	if got := fmt.Sprint(fired); got != "[a@5.5ms b@5.9ms c@6ms]" {
		t.Fatalf("fired %s", got)
	}
}

// After an Advance inside a tick, the tick's later deadlines wait on the
// overdue list: they are coalesced there the same way, to the current
// tick's end; a deadline pushed into the past keeps Wake at or after Next
// and no later than that end.
func TestWakeCoalescesTheOverdueList(t *testing.T) {
	w := NewWheel(time.Millisecond, t0)
	w.Push("a", "k", t0.Add(5300*us), nil)
	w.Push("b", "k", t0.Add(5700*us), nil)
	w.Advance(t0.Add(5200*us), nil)
	if n := w.Overdue(); n != 2 {
		t.Fatalf("%d overdue after an advance inside their tick, want 2", n)
	}
	if got := wakeAt(t, w, time.Millisecond); got != 6000*us {
		t.Fatalf("Wake = %v, want the tick's end, 6ms", got)
	}
	w.Push("late", "k", t0.Add(5100*us), nil) // already due
	next, _ := w.Next()
	if got := wakeAt(t, w, time.Millisecond); got != 6000*us || next.Sub(t0) != 5100*us {
		t.Fatalf("Wake = %v, Next = %v; want 6ms and 5.1ms", got, next.Sub(t0))
	}
	if got := wakeAt(t, w, 100*us); got != 5200*us {
		t.Fatalf("Wake(100µs) = %v, want 5.2ms", got)
	}
	w.Advance(t0.Add(6000*us), nil)
	w.Push("alone", "k", t0.Add(5900*us), nil) // alone on the overdue list
	if got := wakeAt(t, w, time.Millisecond); got != 5900*us {
		t.Fatalf("Wake = %v, want the lone overdue deadline's 5.9ms", got)
	}
}

// Deadlines further than level 0 wait for their slot's cascade: Wake is
// Next there, the slot's first instant, however many share the slot.
func TestWakeOfACoarseSlotIsNext(t *testing.T) {
	w := NewWheel(time.Millisecond, t0)
	for i := range 10 {
		w.Push(fmt.Sprint("d", i), "k", t0.Add(time.Hour+time.Duration(i)*us), nil)
	}
	next, _ := w.Next()
	if got, _ := w.Wake(time.Millisecond); !got.Equal(next) {
		t.Fatalf("Wake = %v, want Next %v", got.Sub(t0), next.Sub(t0))
	}
}

// Random bursts driven by Wake, as the runner drives the wheel: no
// deadline fires early or more than slack late, and the wakes that fire
// something number one per due tick with a slack of a tick (one per
// distinct At with none).
func TestWakeNeverEarlyAtMostSlackLate(t *testing.T) {
	const tick = time.Millisecond
	for _, slack := range []time.Duration{0, 10 * us, 250 * us, tick} {
		t.Run(slack.String(), func(t *testing.T) {
			r := newRand(t)
			w := NewWheel(tick, t0)
			ticks, instants := map[int64]bool{}, map[int64]bool{}
			const n = 5000
			for i := range n {
				at := t0.Add(time.Duration(r.Int64N(int64(200 * tick)))).Add(time.Duration(r.IntN(3)) * time.Hour)
				w.Push(fmt.Sprint("d", i), "k", at, nil)
				instants[at.UnixNano()] = true
				ticks[(at.UnixNano()+int64(tick)-1)/int64(tick)] = true
			}
			fired, firing := 0, 0
			var due []Deadline
			for {
				wake, ok := w.Wake(slack)
				if !ok {
					break
				}
				if next, _ := w.Next(); wake.Before(next) {
					t.Fatalf("Wake %v before Next %v", wake.Sub(t0), next.Sub(t0))
				}
				due = w.Advance(wake, due[:0])
				if len(due) > 0 {
					firing++
				}
				for _, d := range due {
					if late := wake.Sub(d.At); late < 0 || late > slack {
						t.Fatalf("%s due %v fired at %v (%v late, slack %v)", d.Key, d.At.Sub(t0), wake.Sub(t0), late, slack)
					}
				}
				fired += len(due)
			}
			checkInvariants(t, w)
			if fired != n {
				t.Fatalf("fired %d of %d", fired, n)
			}
			want := len(instants)
			if slack >= tick {
				want = len(ticks)
			}
			if firing > want || slack == 0 && firing != want || slack >= tick && firing != want {
				t.Fatalf("%d wakes fired deadlines; %d distinct instants, %d due ticks", firing, len(instants), len(ticks))
			}
			t.Logf("slack %v: %d wakes fired %d deadlines (%d instants, %d ticks)", slack, firing, n, len(instants), len(ticks))
		})
	}
}
