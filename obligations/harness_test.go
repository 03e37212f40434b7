package obligations_test

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wakewheel/wakewheel/deadlines"
	ob "github.com/wakewheel/wakewheel/obligations"
)

// harness plays the runner under a fake clock: it persists Effects.Records
// (encoded, by key, as a store would), applies deadline mutations to a real
// deadlines.Wheel, collects the ledger, and hands wakes to an observer. Time
// moves only through advance, which steps the wheel to Next().
type harness struct {
	t      testing.TB
	start  time.Time
	now    time.Time
	pol    ob.Policies
	st     *ob.State
	wheel  *deadlines.Wheel
	store  map[string][]byte
	ledger []ob.Entry
}

const wheelTick = 100 * time.Millisecond

func newHarness(t testing.TB, start time.Time) *harness {
	pol := ob.DefaultPolicies()
	st, err := ob.New(pol)
	if err != nil {
		t.Fatal(err)
	}
	return &harness{
		t: t, start: start, now: start, pol: pol, st: st,
		wheel: deadlines.NewWheel(wheelTick, start), store: map[string][]byte{},
	}
}

// apply does what the runner does with effects, in the documented order:
// persist, then deadlines, then ledger. Wakes are the caller's to deliver.
func (h *harness) apply(eff ob.Effects) {
	for _, r := range eff.Records {
		h.store[r.Key()] = ob.Encode(r)
	}
	for _, key := range eff.Deletes {
		delete(h.store, key)
	}
	for _, m := range eff.Deadlines {
		if _, err := h.wheel.Apply(h.now, m); err != nil {
			h.t.Fatalf("%s: %v", m, err)
		}
	}
	h.ledger = append(h.ledger, eff.Ledger...)
}

// nextDue is when the wheel next has something due, if anything.
func (h *harness) nextDue() (time.Time, bool) {
	next, ok := h.wheel.Next()
	if ok && next.Before(h.now) {
		next = h.now
	}
	return next, ok
}

// advance moves the clock to target, stepping to every due deadline on the
// way, firing each through State.Fire and applying its effects. onFire sees
// every firing (eff is empty when it was dropped).
func (h *harness) advance(target time.Time, onFire func(d deadlines.Deadline, eff ob.Effects)) {
	for stalls := 0; ; {
		next, ok := h.nextDue()
		if !ok || next.After(target) {
			break
		}
		h.now = next
		due := h.wheel.Advance(h.now, nil)
		if len(due) == 0 {
			if stalls++; stalls > 1000 {
				h.t.Fatalf("wheel stalls at %v", h.now)
			}
			continue
		}
		stalls = 0
		for _, d := range due {
			if d.At.After(h.now) {
				h.t.Fatalf("%s fired early: due %v, now %v", d.Key, d.At, h.now)
			}
			eff, err := h.st.Fire(d.Key, h.now)
			if err != nil {
				h.t.Fatalf("fire %s: %v", d.Key, err)
			}
			h.apply(eff)
			if onFire != nil {
				onFire(d, eff)
			}
		}
	}
	if target.After(h.now) {
		h.now = target
	}
}

// restart decodes every persisted record into a fresh State, as a daemon
// does at startup. The wheel survives (the runner reloads persisted
// deadlines) unless loseDeadlines, which models a store that had not yet
// written them behind.
func (h *harness) restart(loseDeadlines bool) (int, ob.Effects) {
	keys := make([]string, 0, len(h.store))
	for k := range h.store {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	recs := make([]ob.Record, 0, len(keys))
	for _, k := range keys {
		r, err := ob.Decode(h.store[k])
		if err != nil {
			h.t.Fatalf("decode %s: %v", k, err)
		}
		recs = append(recs, r)
	}
	st, eff, err := ob.Restore(h.pol, recs, h.now)
	if err != nil {
		h.t.Fatalf("restore: %v", err)
	}
	h.st = st
	if loseDeadlines {
		h.wheel = deadlines.NewWheel(wheelTick, h.now)
	}
	h.apply(eff)
	return len(recs), eff
}

// clock renders an instant relative to the start: d<day> hh:mm:ss.
func (h *harness) clock(at time.Time) string {
	d := at.Sub(h.start)
	day := d / (24 * time.Hour)
	d -= day * 24 * time.Hour
	s := fmt.Sprintf("d%d %02d:%02d:%02d", day, d/time.Hour, d%time.Hour/time.Minute, d%time.Minute/time.Second)
	if frac := d % time.Second; frac != 0 {
		s += fmt.Sprintf(".%03d", frac/time.Millisecond)
	}
	return s
}

// pending lists the wheel's deadlines in due order.
func (h *harness) pending() []deadlines.Deadline {
	var ds []deadlines.Deadline
	for d := range h.wheel.All() {
		ds = append(ds, d)
	}
	slices.SortFunc(ds, func(a, b deadlines.Deadline) int {
		if c := a.At.Compare(b.At); c != 0 {
			return c
		}
		return cmp.Compare(a.Key, b.Key)
	})
	return ds
}

// describe renders effects, one line each, indented.
func (h *harness) describe(b *strings.Builder, eff ob.Effects) {
	for _, r := range eff.Records {
		sync := ""
		if eff.Sync {
			sync = " sync"
		}
		switch r.Kind {
		case ob.RecordObligation:
			fmt.Fprintf(b, "  persist%s: obligation %s#%d\n", sync, r.Obligation.Lane, r.Obligation.Seq)
		case ob.RecordCursor:
			fmt.Fprintf(b, "  persist%s: cursor %s received=%d consumed=%d\n", sync, r.Cursor.Lane, r.Cursor.Received, r.Cursor.Consumed)
		case ob.RecordCheckpoint:
			fmt.Fprintf(b, "  persist%s: checkpoint %s consumed=%d head=%d\n", sync, r.Checkpoint.Lane, r.Checkpoint.Consumed, r.Checkpoint.Head)
		}
	}
	for _, key := range eff.Deletes {
		fmt.Fprintf(b, "  delete: %s\n", key)
	}
	for _, m := range eff.Deadlines {
		if m.Op == deadlines.OpCancel {
			fmt.Fprintf(b, "  cancel %s\n", m.Key)
		} else {
			fmt.Fprintf(b, "  %s %s at %s\n", m.Op, m.Key, h.clock(m.At))
		}
	}
	for _, w := range eff.Wakes {
		fmt.Fprintf(b, "  wake %s (%s, %s)\n", w.WakeID, w.Reason, w.Class)
	}
}
