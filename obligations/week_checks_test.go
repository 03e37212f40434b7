package obligations_test

import (
	"fmt"
	"strings"

	ob "github.com/wakewheel/wakewheel/obligations"
)

// The week simulation's invariant checks.

// checkDigest: human and peer messages in order, one per obligation, bodies
// intact; counts agree with the model.
func (w *week) checkDigest(d ob.Digest) {
	var want []uint64
	var counts [4]int
	for seq := d.Consumed + 1; seq <= d.Head; seq++ {
		o := w.model[d.Lane][seq-1]
		counts[indexOf(o.class)]++
		if o.class == ob.ClassHuman || o.class == ob.ClassPeer {
			want = append(want, seq)
		}
	}
	if len(d.Messages) != len(want) {
		w.violate("%s digest has %d messages, want %d", d.Lane, len(d.Messages), len(want))
		return
	}
	for i, m := range d.Messages {
		o := w.model[d.Lane][want[i]-1]
		if m.Seq != want[i] || m.Body != o.body || m.Class != o.class {
			w.violate("%s digest message %d is #%d %q, want #%d %q", d.Lane, i, m.Seq, m.Body, want[i], o.body)
		}
	}
	if got := [4]int{d.Counts.Human, d.Counts.Peer, d.Counts.Digest, d.Counts.Alert}; got != counts {
		w.violate("%s digest counts %v, want %v", d.Lane, got, counts)
	}
	if d.Machine != nil && d.Machine.Count != counts[2] {
		w.violate("%s machine digest coalesces %d, want %d", d.Lane, d.Machine.Count, counts[2])
	}
}

// audit: at this instant, no unconsumed obligation has gone longer than
// its class SLO since its post or its lane's last wake.
func (w *week) audit() {
	for _, lane := range w.lanes {
		st, ok := w.h.st.Lane(lane)
		if !ok {
			continue
		}
		for seq := st.Consumed + 1; seq <= st.Head; seq++ {
			o := w.model[lane][seq-1]
			slo, _ := w.h.st.Policy(o.class)
			if gap := w.h.now.Sub(later(o.posted, w.last[lane])); gap > slo.SLO {
				w.violate("%s#%d (%s) unwoken for %v > SLO %v at %s", lane, seq, o.class, gap, slo.SLO, w.h.clock(w.h.now))
			}
		}
	}
}

func (w *week) check() {
	for _, lane := range w.lanes {
		st, _ := w.h.st.Lane(lane)
		if st.Consumed != st.Head || st.Head != uint64(len(w.model[lane])) {
			w.violate("%s ends with consumed %d, head %d, posted %d", lane, st.Consumed, st.Head, len(w.model[lane]))
		}
	}
	for c, gap := range w.maxGap {
		if slo, _ := w.h.st.Policy(c); gap > slo.SLO {
			w.violate("class %s: a re-wake came %v after the obligation or previous wake (SLO %v)", c, gap, slo.SLO)
		}
	}
	if w.noops != 0 {
		w.violate("%d no-op wakes from the engine", w.noops)
	}
	if w.wakes[ob.WakeRedeliver] == 0 || w.partialAcks == 0 || w.restarts == 0 || w.dups == 0 {
		w.violate("the simulation did not exercise redelivery, partial acks, restarts and retries: %+v", w.wakes)
	}
	if len(w.violations) > 0 {
		w.t.Errorf("%d violations (seed %d), first ones:\n%s", len(w.violations), w.seed,
			strings.Join(w.violations[:min(len(w.violations), 10)], "\n"))
	}
}

// summary is the week's outcome as a script prints it: deterministic for a
// seed, and every line a claim of the doctrine.
func (w *week) summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "lanes %d, posts %d (human %d, peer %d, digest %d, alert %d), retried ids deduplicated %d\n",
		len(w.lanes), w.posts, w.postsBy[ob.ClassHuman], w.postsBy[ob.ClassPeer], w.postsBy[ob.ClassDigest],
		w.postsBy[ob.ClassAlert], w.dups)
	consumed := 0
	for _, lane := range w.lanes {
		st, _ := w.h.st.Lane(lane)
		consumed += int(st.Consumed)
	}
	fmt.Fprintf(&b, "consumed %d of %d\n", consumed, w.posts)
	fmt.Fprintf(&b, "wakes on post %d, redelivered %d (same wake id), no-op wakes %d of %d deliveries\n",
		w.wakes[ob.WakePost], w.wakes[ob.WakeRedeliver], w.noops, w.deliveries+w.noops)
	for _, c := range ob.Classes {
		p, _ := w.h.st.Policy(c)
		fmt.Fprintf(&b, "longest wait for a re-wake, %s: %v (SLO %v)\n", c, w.maxGap[c], p.SLO)
	}
	fmt.Fprintf(&b, "restarts %d (%d lost the wheel)\n", w.restarts, w.lostWheels)
	fmt.Fprintf(&b, "violations %d\n", len(w.violations))
	for _, v := range w.violations {
		fmt.Fprintf(&b, "  %s\n", v)
	}
	return b.String()
}
