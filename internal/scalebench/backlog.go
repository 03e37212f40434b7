package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/wakewheel/wakewheel/api"
	"github.com/wakewheel/wakewheel/deadlines"
	"github.com/wakewheel/wakewheel/store"
)

// runBacklog is -only backlog: a daemon started on a store of n reminders
// that all fell due while it was down (within the second an hour ago, in
// an order unrelated to their names), as a host finds them after downtime. For the binary and each -against
// one, in turns, each on a copy of the one store, -rounds times: the
// restart to ready, status asked every 5 ms until nothing is pending or
// waiting (its latency, and the drain's length), the daemon's peak RSS,
// and, once drained, its RSS and 200 status calls on the same daemon: the
// baseline of the latency ratio; then its RSS again. Ready is when a
// status call first got a ready answer, however long the call took.
func runBacklog(bin, work string, n, rounds int, against string, keep bool) error {
	vs, err := parseVariants(against)
	if err != nil {
		return err
	}
	vs = append([]variant{{label: "this", bin: bin}}, vs...)
	fmt.Printf("# scalebench -only backlog: %d reminders past due, %d daemons in turns, %d rounds, %s, load average %s\n",
		n, len(vs), rounds, time.Now().UTC().Format(time.RFC3339), loadAverage())
	startCallTimeout = time.Minute
	orig := filepath.Join(work, "backlog-store")
	if err := prefillPastDue(orig, n); err != nil {
		return err
	}
	runs := make([][]backlogRun, len(vs))
	for r := range rounds {
		for k := range vs {
			i := (k + r) % len(vs)
			home := filepath.Join(work, fmt.Sprintf("backlog-%d-%d", r, i))
			if err := copyDir(orig, filepath.Join(home, "store")); err != nil {
				return err
			}
			run, err := drainBacklog(vs[i], home)
			if err != nil {
				return err
			}
			if !keep { // each daemon's home, its log with it
				os.RemoveAll(home)
			}
			runs[i] = append(runs[i], run)
			fmt.Printf("round %d %s: %s; load average %s\n", r+1, vs[i].label, run, loadAverage())
		}
	}
	fmt.Println()
	fmt.Println("| daemon | ready | drained | status during the drain p50 / p99 / max | calls over 1 s | idle after p50 / p99 | p99 ÷ idle p99 | RSS drained / after the idle calls / peak | daemon CPU |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|")
	for i, v := range vs {
		var ready, drained, p50, p99, mx, i50, i99, cpu []time.Duration
		var slow, rss, later, hwm []int64
		var ratios []float64
		for _, r := range runs[i] {
			ready, drained, cpu = append(ready, r.ready), append(drained, r.drained), append(cpu, r.cpu)
			p50, p99, mx = append(p50, r.during.p50), append(p99, r.during.p99), append(mx, r.during.max)
			i50, i99 = append(i50, r.idle.p50), append(i99, r.idle.p99)
			slow, rss, later, hwm = append(slow, int64(r.slow)), append(rss, r.rss), append(later, r.later), append(hwm, r.hwm)
			ratios = append(ratios, ratio(r.during.p99, r.idle.p99))
		}
		fmt.Printf("| %s | %v | %v | %v / %v / %v | %d | %v / %v | %.1f | %.1f / %.1f / %.1f MB | %v |\n", v.label,
			ms(median(ready)), ms(median(drained)), us(median(p50)), us(median(p99)), us(median(mx)),
			medianInt(slow), us(median(i50)), us(median(i99)), medianFloat(ratios), mb(medianInt(rss)), mb(medianInt(later)), mb(medianInt(hwm)), ms(median(cpu)))
	}
	return nil
}

// backlogRun is one daemon's drain of the backlog.
type backlogRun struct {
	ready, drained, cpu time.Duration
	during, idle        dist
	slow, calls         int
	rss, later, hwm     int64 // later: after the idle status calls
}

func (r backlogRun) String() string {
	return fmt.Sprintf("ready %v, drained at %v; status %d calls, p50 %v p99 %v max %v, %d over 1 s; idle after p50 %v p99 %v; RSS drained %.1f MB, after the idle calls %.1f MB, peak %.1f MB; CPU %v",
		ms(r.ready), ms(r.drained), r.calls, us(r.during.p50), us(r.during.p99), us(r.during.max), r.slow,
		us(r.idle.p50), us(r.idle.p99), mb(r.rss), mb(r.later), mb(r.hwm), ms(r.cpu))
}

// drainBacklog starts v on home's store and times status until the
// backlog is gone.
func drainBacklog(v variant, home string) (backlogRun, error) {
	start := time.Now()
	d, err := startDaemonEnv(v.bin, home, v.env)
	if err != nil {
		return backlogRun{}, err
	}
	defer d.stop()
	run := backlogRun{ready: d.ready}
	var lat []time.Duration
	for {
		if time.Since(start) > 5*time.Minute {
			return run, fmt.Errorf("%s: the backlog did not drain in 5 minutes", v.label)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		t := time.Now()
		st, err := d.client.Status(ctx)
		cancel()
		l := time.Since(t)
		if err != nil {
			return run, fmt.Errorf("%s: status during the drain: %w", v.label, err)
		}
		lat = append(lat, l)
		if l > time.Second {
			run.slow++
		}
		if st.Pending+st.Waiting == 0 {
			break
		}
		time.Sleep(statusGap)
	}
	m := d.rss()
	run.drained, run.cpu, run.rss, run.hwm = time.Since(start), d.cpu(), m.rss, m.hwm
	run.calls, run.during = len(lat), distOf(lat)
	lat = lat[:0]
	for range 200 {
		time.Sleep(statusGap)
		t := time.Now()
		if _, err := d.client.Status(context.Background()); err != nil {
			return run, err
		}
		lat = append(lat, time.Since(t))
	}
	run.idle = distOf(lat)
	run.later = d.rss().rss
	return run, nil
}

// prefillPastDue writes n reminders due an hour ago (within a second, in
// an order unrelated to their keys) into a new store and
// compacts it, as a daemon would have left them.
func prefillPastDue(dir string, n int) error {
	db, err := store.Open(dir, store.Options{})
	if err != nil {
		return err
	}
	base := time.Now().Add(-time.Hour)
	for i := range n {
		db.PutDeadline(deadlines.Deadline{Key: fmt.Sprintf("%sdue-%07d", api.ReminderPrefix, i), Kind: api.ReminderKind,
			At: base.Add(time.Duration(i*7919%n) * time.Microsecond)})
	}
	if err := db.Close(); err != nil {
		return err
	}
	return compactStore(dir)
}

func medianInt(xs []int64) int64 {
	xs = slices.Clone(xs)
	slices.Sort(xs)
	return xs[len(xs)/2]
}

func medianFloat(xs []float64) float64 {
	xs = slices.Clone(xs)
	slices.Sort(xs)
	return xs[len(xs)/2]
}
