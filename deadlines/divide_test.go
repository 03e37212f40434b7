package deadlines

import (
	"math"
	"testing"
	"time"
)

// The divider agrees with the hardware division for divisors of every
// shape (powers of two, those whose magic number needs the add step, the
// wheel's usual ticks) and for dividends at the edges and at random.
func TestDividerAgreesWithDivision(t *testing.T) {
	r := newRand(t)
	ds := []uint64{1, 2, 3, 5, 6, 7, 10, 641, 1000, 100_000, 1_000_000, 1_000_001, 1_000_000_000,
		1<<32 - 1, 1 << 32, 1<<32 + 1, 1<<63 - 1, 1 << 63, 1<<63 + 1, math.MaxUint64 - 1, math.MaxUint64}
	for range 2000 {
		ds = append(ds, r.Uint64()>>r.IntN(64)|1, r.Uint64()>>r.IntN(64)+1)
	}
	for _, d := range ds {
		v := newDivider(d)
		ns := []uint64{0, 1, d - 1, d, d + 1, 2*d - 1, 2 * d, math.MaxUint64, math.MaxUint64 - 1, math.MaxUint64 / d * d, math.MaxUint64/d*d - 1}
		for range 200 {
			ns = append(ns, r.Uint64(), r.Uint64()>>r.IntN(64))
		}
		for _, n := range ns {
			if got, want := v.div(n), n/d; got != want {
				t.Fatalf("%d / %d = %d, want %d (divider %+v)", n, d, got, want, v)
			}
		}
	}
}

// dueTick and floorTick give the tick numbers of the plain signed
// division, for ticks of every size and instants across the clamped span.
func TestTicksAgreeWithDivision(t *testing.T) {
	r := newRand(t)
	ticks := []int64{1, 7, int64(100 * time.Microsecond), int64(time.Millisecond), int64(time.Second), 1 << 20, 999_999_937}
	for range 50 {
		ticks = append(ticks, r.Int64N(int64(time.Hour))+1)
	}
	for _, tick := range ticks {
		w := NewWheel(time.Duration(tick), time.Unix(0, 0))
		ats := []int64{w.minAt, w.minAt + 1, w.maxAt, w.maxAt - 1, 0, 1, -1, tick, -tick, tick - 1, 1 - tick}
		for range 500 {
			ats = append(ats, w.clampAt(int64(r.Uint64())), w.clampAt(int64(r.Uint64())>>r.IntN(63)))
		}
		for _, at := range ats {
			q := at / tick
			due, floor := q, q
			if at-q*tick > 0 {
				due++
			}
			if at-q*tick < 0 {
				floor--
			}
			if got := w.dueTick(at); got != uint64(due)^bias {
				t.Fatalf("tick %d: dueTick(%d) = %d, want %d", tick, at, int64(got^bias), due)
			}
			if got := w.floorTick(at); got != uint64(floor)^bias {
				t.Fatalf("tick %d: floorTick(%d) = %d, want %d", tick, at, int64(got^bias), floor)
			}
		}
	}
}
