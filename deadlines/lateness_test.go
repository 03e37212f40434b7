package deadlines

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

// TestLateness pushes 100,000 deadlines at horizons spread log-uniformly from
// 1 ms to two weeks, plus more while time runs, and drives the wheel as the
// runner does under a fake clock: advance to Next, again and again. No
// deadline may fire early, none more than one tick late.
func TestLateness(t *testing.T) {
	const (
		n     = 100_000
		more  = 20_000 // pushed while time runs, from fired deadlines
		tick  = time.Millisecond
		reach = 14 * 24 * time.Hour
	)
	r := newRand(t)
	start := time.Unix(1_750_000_000, int64(r.IntN(1e9)))
	w := NewWheel(tick, start)
	for i := range n {
		w.Push(fmt.Sprint("d", i), "k", start.Add(logUniform(r, tick, reach)), nil)
	}
	pushed, advances := n, 0
	var late []time.Duration
	var due []Deadline
	for {
		next, ok := w.Next()
		if !ok {
			break
		}
		advances++
		due = w.Advance(next, due[:0])
		for _, d := range due {
			lateness := next.Sub(d.At)
			if lateness < 0 || lateness >= tick {
				t.Fatalf("%s due %v fired at %v (%v late)", d.Key, d.At, next, lateness)
			}
			late = append(late, lateness)
			if pushed < n+more {
				w.Push(fmt.Sprint("d", pushed), "k", next.Add(logUniform(r, tick, reach)), nil)
				pushed++
			}
		}
	}
	if len(late) != pushed {
		t.Fatalf("fired %d of %d deadlines", len(late), pushed)
	}
	slices.Sort(late)
	t.Logf("%d deadlines, %d advances: 0 early, lateness max %v, p99 %v, p50 %v",
		len(late), advances, late[len(late)-1], late[len(late)*99/100], late[len(late)/2])
}
