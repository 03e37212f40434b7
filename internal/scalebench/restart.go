package main

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/wakewheel/wakewheel/api"
	"github.com/wakewheel/wakewheel/deadlines"
)

// restartRounds is how many restarts are measured, each right after a raw
// iteration of the same store: interleaved, so a change of the machine's
// load meets both sides alike.
const restartRounds = 3

// restartResult is the medians of the interleaved rounds.
type restartResult struct {
	raw, first, ready time.Duration
	ratios            []float64 // ready over raw, round by round
	// rawCPU and readyCPU are CPU times (medians): of this process for the
	// raw iteration, of the daemon from its start to ready. On a shared box
	// they move less than wall times do.
	rawCPU, readyCPU time.Duration
}

// restarts measures restartRounds rounds of a raw LevelDB iteration of the
// store in home, then a daemon started on it: its first answer (the socket,
// status "loading") and its readiness (every deadline loaded, every route
// served). It returns the daemon of the last round, running.
func restarts(bin, home string, n int) (restartResult, *daemon, error) {
	var raws, firsts, readies, rawCPUs, readyCPUs []time.Duration
	var res restartResult
	var d *daemon
	for i := range restartRounds {
		cpu0 := selfCPU()
		raw, count, err := rawIteration(home + "/store")
		rawCPU := selfCPU() - cpu0
		if err != nil {
			return res, nil, err
		}
		if count != n {
			return res, nil, fmt.Errorf("raw iteration counted %d deadlines, want %d", count, n)
		}
		if d, err = startDaemon(bin, home); err != nil {
			return res, nil, err
		}
		raws, firsts, readies = append(raws, raw), append(firsts, d.firstAnswer), append(readies, d.ready)
		rawCPUs, readyCPUs = append(rawCPUs, rawCPU), append(readyCPUs, d.readyCPU)
		res.ratios = append(res.ratios, ratio(d.ready, raw))
		fmt.Printf("restart %d: raw iteration %v (CPU %v), first answer %v, ready %v (CPU %v): %.2f× (CPU %.2f×); load average %s\n",
			i+1, ms(raw), ms(rawCPU), ms(d.firstAnswer), ms(d.ready), ms(d.readyCPU), ratio(d.ready, raw), ratio(d.readyCPU, rawCPU), loadAverage())
		if i < restartRounds-1 {
			d.stop()
		}
	}
	d.settleRSS()
	st, err := d.client.Status(context.Background())
	if err != nil {
		d.stop()
		return res, nil, err
	}
	if st.Pending != n {
		d.stop()
		return res, nil, fmt.Errorf("loaded daemon reports %d pending, want %d", st.Pending, n)
	}
	res.raw, res.first, res.ready = median(raws), median(firsts), median(readies)
	res.rawCPU, res.readyCPU = median(rawCPUs), median(readyCPUs)
	return res, d, nil
}

// settleRSS waits, up to 3 s, until the daemon's resident memory has
// stopped falling: a daemon returns its load's garbage to the system just
// after it is ready, beside serving.
func (d *daemon) settleRSS() {
	last := d.rss().rss
	for stable, end := 0, time.Now().Add(3*time.Second); stable < 3 && time.Now().Before(end); {
		time.Sleep(50 * time.Millisecond)
		now := d.rss().rss
		if now < last-256<<10 {
			stable = 0
		} else {
			stable++
		}
		last = now
	}
}

// medianRatio is the median of the rounds' own ratios.
func (r restartResult) medianRatio() float64 {
	s := append([]float64(nil), r.ratios...)
	for i := range s { // a handful: insertion sort
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	return s[len(s)/2]
}

// wheelBytes is the heap a wheel holding the n reminders of prefill takes
// in this process, their keys included (the daemon must hold them too):
// the floor of the daemon's memory per pending reminder.
func wheelBytes(n int) float64 {
	before := heapNow()
	base := time.Now().Add(30 * 24 * time.Hour)
	w := deadlines.Load(time.Millisecond, time.Now(), func(yield func(deadlines.Deadline) bool) {
		for i := range n {
			if !yield(deadlines.Deadline{Key: fmt.Sprintf("%sload-%07d", api.ReminderPrefix, i), Kind: api.ReminderKind,
				At: base.Add(time.Duration(i) * time.Microsecond)}) {
				return
			}
		}
	})
	after := heapNow()
	runtime.KeepAlive(w)
	return float64(after-before) / float64(n)
}

func heapNow() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// runLoadAgainst is -only load with -against: the binary and each variant
// restarted in turns on the one store, rounds times, each restart right
// after a raw iteration of the store (the order of the daemons rotating
// from round to round, so none always follows the same one). It prints
// every restart and, by daemon, the medians: ready, the raw iterations
// just before its restarts, their ratio and the median of its rounds'
// ratios, and the same in CPU time.
func runLoadAgainst(bin, work string, n, rounds int, against string) error {
	vs, err := parseVariants(against)
	if err != nil {
		return err
	}
	vs = append([]variant{{label: "this", bin: bin}}, vs...)
	fmt.Printf("# scalebench -only load: %d pending, %d daemons in turns, %d rounds, %s, load average %s\n",
		n, len(vs), rounds, time.Now().UTC().Format(time.RFC3339), loadAverage())
	home, err := loadedStore(bin, work, n)
	if err != nil {
		return err
	}
	type side struct {
		raw, ready, rawCPU, readyCPU, first []time.Duration
		faults                              []int64
	}
	sides := make([]side, len(vs))
	ratios := make([][]float64, len(vs))
	for r := range rounds {
		for k := range vs {
			i := (k + r) % len(vs)
			cpu0 := selfCPU()
			raw, count, err := rawIteration(home + "/store")
			rawCPU := selfCPU() - cpu0
			if err != nil {
				return err
			}
			if count != n {
				return fmt.Errorf("raw iteration counted %d deadlines, want %d", count, n)
			}
			d, err := startDaemonEnv(vs[i].bin, home, vs[i].env)
			if err != nil {
				return err
			}
			faults := d.minorFaults()
			d.stop()
			s := &sides[i]
			s.raw, s.ready, s.first = append(s.raw, raw), append(s.ready, d.ready), append(s.first, d.firstAnswer)
			s.rawCPU, s.readyCPU = append(s.rawCPU, rawCPU), append(s.readyCPU, d.readyCPU)
			s.faults = append(s.faults, faults)
			ratios[i] = append(ratios[i], ratio(d.ready, raw))
			fmt.Printf("round %d %s: raw iteration %v (CPU %v), first answer %v, ready %v (CPU %v, %d page faults): %.2f× (CPU %.2f×); load average %s\n",
				r+1, vs[i].label, ms(raw), ms(rawCPU), ms(d.firstAnswer), ms(d.ready), ms(d.readyCPU), faults,
				ratio(d.ready, raw), ratio(d.readyCPU, rawCPU), loadAverage())
		}
	}
	fmt.Println()
	fmt.Println("| daemon | ready (median) | raw iteration (median) | ratio of medians / median of the rounds' | CPU to ready / raw | first answer | page faults by ready |")
	fmt.Println("|---|---|---|---|---|---|---|")
	for i, v := range vs {
		s := sides[i]
		res := restartResult{ratios: ratios[i]}
		slices.Sort(s.faults)
		fmt.Printf("| %s | %v | %v | %.2f / %.2f | %v / %v = %.2f | %v | %d |\n", v.label, ms(median(s.ready)), ms(median(s.raw)),
			ratio(median(s.ready), median(s.raw)), res.medianRatio(), ms(median(s.readyCPU)), ms(median(s.rawCPU)),
			ratio(median(s.readyCPU), median(s.rawCPU)), ms(median(s.first)), s.faults[len(s.faults)/2])
	}
	return nil
}

// minorFaults is the daemon's minor page faults so far (/proc stat field
// 10): read right after ready, the memory a start touched for the first
// time, page by page.
func (d *daemon) minorFaults() int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", d.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	n, _ := strconv.ParseInt(f[7], 10, 64)
	return n
}
