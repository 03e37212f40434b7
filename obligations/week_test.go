package obligations_test

import (
	"container/heap"
	"flag"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/wakewheel/wakewheel/deadlines"
	ob "github.com/wakewheel/wakewheel/obligations"
)

var weekSeed = flag.Uint64("week.seed", 20260105, "seed of TestWeekSimulation (printed by the test)")

// TestWeekSimulation replays a week of traffic on three lanes and all four
// classes under the fake clock, with consumers that sometimes take their
// time, ack only part of what they received, or are away for up to an hour,
// and a daemon that restarts about once a day (sometimes losing its wheel).
// It asserts the engine's side of the doctrine:
//
//   - every obligation is consumed by the end;
//   - a wake is emitted only while its lane holds unconsumed work, so
//     consumers reading on wake see no no-op wake;
//   - no unconsumed obligation goes longer than its class SLO without a
//     wake, counted from its post or the lane's previous wake;
//   - human and peer messages are delivered in order, one per obligation,
//     bodies intact (never merged);
//   - a redelivered wake keeps the wake id of the wake it repeats.
func TestWeekSimulation(t *testing.T) {
	seed := *weekSeed
	t.Logf("seed %d (replay: go test ./obligations -run TestWeekSimulation -week.seed=%d)", seed, seed)
	w := newWeek(t, seed)
	w.run(7 * 24 * time.Hour)
	w.check()
	w.log()
}

// TestWeekSimulationSeeds runs the same week under more seeds, quietly.
func TestWeekSimulationSeeds(t *testing.T) {
	if testing.Short() {
		t.Skip("short mode")
	}
	for seed := uint64(1); seed <= 8; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			w := newWeek(t, seed)
			w.run(7 * 24 * time.Hour)
			w.check()
		})
	}
}

type simOb struct {
	class  ob.Class
	body   string
	posted time.Time
}

type consumer struct {
	busy   bool   // an ack is scheduled; wakes meanwhile are not acted on
	missed uint64 // the highest head announced by a wake that came while busy
}

type week struct {
	t     *testing.T
	seed  uint64
	rng   *rand.Rand
	h     *harness
	lanes []string
	model map[string][]simOb // per lane, index seq-1
	cons  map[string]*consumer
	last  map[string]time.Time // last wake per lane
	ids   map[string]string    // last post-minted wake id per lane
	queue events
	seq   int

	// counters
	posts, dups, canaries, restarts, lostWheels   int
	wakes                                         map[ob.WakeReason]int
	dropped, deliveries, redelivered, noops, acks int
	partialAcks, ignoredWakes                     int
	postsBy                                       map[ob.Class]int
	maxGap                                        map[ob.Class]time.Duration
	violations                                    []string
}

func newWeek(t *testing.T, seed uint64) *week {
	w := &week{
		t: t, seed: seed, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		h:     newHarness(t, time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)),
		lanes: []string{"alpha", "beta", "gamma"},
		model: map[string][]simOb{}, cons: map[string]*consumer{},
		last: map[string]time.Time{}, ids: map[string]string{},
		wakes: map[ob.WakeReason]int{}, postsBy: map[ob.Class]int{}, maxGap: map[ob.Class]time.Duration{},
	}
	for _, l := range w.lanes {
		w.cons[l] = &consumer{}
	}
	return w
}

// Mean time between posts, per class and lane.
var meanGap = map[ob.Class]time.Duration{
	ob.ClassHuman:  50 * time.Minute,
	ob.ClassPeer:   70 * time.Minute,
	ob.ClassDigest: 35 * time.Minute,
	ob.ClassAlert:  4 * time.Hour,
}

func (w *week) run(span time.Duration) {
	end := w.h.start.Add(span)
	for _, l := range w.lanes {
		for _, c := range ob.Classes {
			w.schedule(w.h.now.Add(w.exp(meanGap[c])), evPost, l, c, 0)
		}
	}
	w.schedule(w.h.now.Add(w.uniform(12*time.Hour, 36*time.Hour)), evRestart, "", "", 0)
	for w.queue.Len() > 0 {
		ev := heap.Pop(&w.queue).(*event)
		if ev.kind != evAck && !ev.at.Before(end) {
			continue // the week is over: no new posts or restarts
		}
		w.h.advance(ev.at, w.onFire)
		w.audit()
		switch ev.kind {
		case evPost:
			w.post(ev.lane, ev.class)
			w.schedule(w.h.now.Add(w.exp(meanGap[ev.class])), evPost, ev.lane, ev.class, 0)
		case evAck:
			w.ack(ev.lane, ev.upto)
		case evRestart:
			lose := w.rng.IntN(2) == 0
			w.h.restart(lose)
			w.restarts++
			if lose {
				w.lostWheels++
			}
			w.schedule(w.h.now.Add(w.uniform(12*time.Hour, 36*time.Hour)), evRestart, "", "", 0)
		}
	}
	// The week is over and every scheduled ack ran; unconsumed work left by
	// partial acks is picked up on re-wakes. Run the wheel until it is idle.
	for guard := 0; ; guard++ {
		next, ok := w.h.nextDue()
		if !ok {
			break
		}
		if guard > 100000 {
			w.t.Fatal("the wheel never went idle")
		}
		w.h.advance(next, w.onFire)
		w.audit()
		for w.queue.Len() > 0 {
			ev := heap.Pop(&w.queue).(*event)
			w.h.advance(ev.at, w.onFire)
			w.audit()
			w.ack(ev.lane, ev.upto)
		}
	}
}

func (w *week) post(lane string, c ob.Class) {
	w.seq++
	n := len(w.model[lane])
	if n > 0 && w.rng.IntN(20) == 0 { // a producer retries an earlier post
		seq := 1 + w.rng.IntN(n)
		o, eff, err := w.h.st.Post(ob.Obligation{Lane: lane, ID: fmt.Sprintf("%s-%d", lane, seq), Class: ob.ClassHuman}, w.h.now)
		if err != nil || !o.Duplicate || o.Seq != uint64(seq) || !eff.Empty() {
			w.violate("retry of %s#%d: %v %+v %+v", lane, seq, err, o, eff)
		}
		w.dups++
		return
	}
	body := fmt.Sprintf("%s %s message %d", lane, c, w.seq)
	if c == ob.ClassHuman && w.rng.IntN(3) == 0 {
		body += "\nwith a second line"
	}
	o := ob.Obligation{Lane: lane, ID: fmt.Sprintf("%s-%d", lane, n+1), Class: c, Body: body,
		Canary: w.rng.IntN(50) == 0}
	if c.Actionable() {
		o.Locator = ob.Locator{Repo: "repo" + string(rune('a'+w.rng.IntN(3))), SHA: fmt.Sprintf("%07x", w.rng.Uint32()&0xfffffff),
			File: fmt.Sprintf("pkg/f%d.go", w.rng.IntN(8))}
		if c == ob.ClassAlert {
			o.Key = fmt.Sprintf("alarm-%d", w.rng.IntN(3))
		}
	}
	got, eff, err := w.h.st.Post(o, w.h.now)
	if err != nil {
		w.t.Fatalf("post: %v", err)
	}
	w.model[lane] = append(w.model[lane], simOb{class: c, body: body, posted: w.h.now})
	w.posts++
	w.postsBy[c]++
	if o.Canary {
		w.canaries++
	}
	if got.Seq != uint64(len(w.model[lane])) {
		w.violate("%s: seq %d, model has %d", lane, got.Seq, len(w.model[lane]))
	}
	w.h.apply(eff)
	for _, wk := range eff.Wakes {
		w.onWake(wk)
	}
}

func (w *week) onFire(d deadlines.Deadline, eff ob.Effects) {
	if len(eff.Wakes) == 0 {
		w.dropped++
		lane, c, _ := ob.ParseRedeliverKey(d.Key)
		if st, _ := w.h.st.Lane(lane); st.Counts.Of(c) != 0 {
			w.violate("%s dropped with %d unconsumed", d.Key, st.Counts.Of(c))
		}
	}
	for _, wk := range eff.Wakes {
		w.onWake(wk)
	}
}

// onWake checks the wake against the model, then plays the consumer.
func (w *week) onWake(wk ob.Wake) {
	w.wakes[wk.Reason]++
	lane := wk.Lane
	st, _ := w.h.st.Lane(lane)
	if st.Counts.Total() == 0 {
		w.violate("%s woken (%s) with nothing unconsumed", lane, wk.Reason)
	}
	switch wk.Reason {
	case ob.WakePost:
		if wk.WakeID == w.ids[lane] || wk.WakeID != ob.WakeID(lane, st.Head) {
			w.violate("post wake %s: not a new id (previous %s, head %d)", wk.WakeID, w.ids[lane], st.Head)
		}
		w.ids[lane] = wk.WakeID
	case ob.WakeRedeliver:
		if wk.WakeID != w.ids[lane] {
			w.violate("redelivered wake %s does not keep the id %s", wk.WakeID, w.ids[lane])
		}
		if st.Counts.Of(wk.Class) == 0 {
			w.violate("redeliver of %s/%s with none of its class", lane, wk.Class)
		}
	}
	for seq := st.Consumed + 1; seq <= st.Head; seq++ {
		o := w.model[lane][seq-1]
		gap := wk.At.Sub(later(o.posted, w.last[lane]))
		w.maxGap[o.class] = max(w.maxGap[o.class], gap)
	}
	w.last[lane] = wk.At

	c := w.cons[lane]
	if c.busy {
		w.ignoredWakes++
		c.missed = max(c.missed, wk.Head)
		return
	}
	w.consume(lane)
}

// consume is the consumer reading its digest and scheduling its ack.
func (w *week) consume(lane string) {
	c := w.cons[lane]
	d, eff, err := w.h.st.Deliver(lane, "", w.h.now)
	if err != nil {
		w.t.Fatalf("deliver: %v", err)
	}
	w.h.apply(eff)
	w.checkDigest(d)
	switch {
	case d.Noop:
		w.noops++
		return
	case d.Redelivery:
		w.redelivered++
	default:
		w.deliveries++
	}
	c.busy = true
	upto := d.Received
	if w.rng.IntN(5) == 0 && d.Received > d.Consumed+1 { // ack only part
		upto = d.Consumed + 1 + uint64(w.rng.IntN(int(d.Received-d.Consumed-1)))
	}
	var delay time.Duration
	switch r := w.rng.IntN(100); {
	case r < 85:
		delay = w.uniform(0, 2*time.Minute)
	case r < 99:
		delay = w.uniform(2*time.Minute, 10*time.Minute)
	default:
		delay = w.uniform(20*time.Minute, time.Hour) // away
	}
	w.schedule(w.h.now.Add(delay), evAck, lane, "", upto)
}

func (w *week) ack(lane string, upto uint64) {
	c := w.cons[lane]
	c.busy = false
	action := ""
	if w.rng.IntN(4) == 0 {
		action = "acted"
	}
	before, _ := w.h.st.Lane(lane)
	eff, err := w.h.st.Ack(lane, upto, action, w.h.now)
	if err != nil {
		w.t.Fatalf("ack %s upto %d: %v", lane, upto, err)
	}
	w.h.apply(eff)
	after, _ := w.h.st.Lane(lane)
	if after.Consumed < before.Consumed {
		w.violate("%s: CONSUMED moved back from %d to %d", lane, before.Consumed, after.Consumed)
	}
	w.acks++
	if after.Consumed < after.Head {
		w.partialAcks++
	}
	// A wake came while busy announcing more than was just acked: read
	// again now rather than wait for the re-wake.
	if c.missed > upto {
		c.missed = 0
		w.consume(lane)
	}
}

func (w *week) log() {
	total := w.deliveries + w.noops
	rate := 0.0
	if total > 0 {
		rate = float64(w.noops) / float64(total)
	}
	w.t.Logf("simulated %s: %d posts (human %d, peer %d, digest %d, alert %d; %d canaries), %d retried ids deduplicated",
		w.h.clock(w.h.now), w.posts, w.postsBy[ob.ClassHuman], w.postsBy[ob.ClassPeer], w.postsBy[ob.ClassDigest],
		w.postsBy[ob.ClassAlert], w.canaries, w.dups)
	w.t.Logf("wakes: %d on post, %d redelivered (same wake id); %d redeliver firings dropped (nothing unconsumed)",
		w.wakes[ob.WakePost], w.wakes[ob.WakeRedeliver], w.dropped)
	w.t.Logf("consumer: %d deliveries, %d re-reads of a delivered wake, %d wakes while busy, %d acks (%d partial)",
		w.deliveries, w.redelivered, w.ignoredWakes, w.acks, w.partialAcks)
	w.t.Logf("no-op wakes: %d of %d, rate %.3f", w.noops, total, rate)
	for _, c := range ob.Classes {
		p, _ := w.h.st.Policy(c)
		w.t.Logf("max time to re-wake, %-6s: %-8v (cadence %v, SLO %v)", c, w.maxGap[c], p.Cadence, p.SLO)
	}
	w.t.Logf("restarts: %d (%d lost the wheel)", w.restarts, w.lostWheels)
	w.t.Logf("ledger report (latencies are the consumers' too: some are away for up to an hour):\n%s",
		ob.ComputeReport(w.h.ledger, ob.DefaultSLOs(w.h.pol)))
}

func (w *week) violate(format string, args ...any) {
	w.violations = append(w.violations, fmt.Sprintf(format, args...))
}

func (w *week) exp(mean time.Duration) time.Duration {
	return time.Duration(w.rng.ExpFloat64() * float64(mean)).Round(time.Second)
}

func (w *week) uniform(lo, hi time.Duration) time.Duration {
	return (lo + time.Duration(w.rng.Int64N(int64(hi-lo)+1))).Round(time.Second)
}

func (w *week) schedule(at time.Time, kind evKind, lane string, c ob.Class, upto uint64) {
	w.seq++
	heap.Push(&w.queue, &event{at: at, order: w.seq, kind: kind, lane: lane, class: c, upto: upto})
}
