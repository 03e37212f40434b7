package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// variant is one daemon of -only lateness: a binary and the environment
// it runs with, under a label.
type variant struct {
	label string
	bin   string
	env   []string
}

// parseVariants reads -against: "label=BIN" or "label=K=V,K=V:BIN"
// entries separated by ';' (e.g. "main=/tmp/ww-main;gcoff=GOGC=off:bin/wakewheel").
func parseVariants(s string) ([]variant, error) {
	var vs []variant
	for _, e := range strings.Split(s, ";") {
		if e == "" {
			continue
		}
		label, rest, ok := strings.Cut(e, "=")
		if !ok || label == "" || rest == "" {
			return nil, fmt.Errorf("-against %q: want label=BIN or label=K=V,K=V:BIN", e)
		}
		v := variant{label: label, bin: rest}
		if env, bin, ok := strings.Cut(rest, ":"); ok {
			v.env, v.bin = strings.Split(env, ","), bin
		}
		abs, err := filepath.Abs(v.bin)
		if err != nil {
			return nil, err
		}
		v.bin = abs
		vs = append(vs, v)
	}
	return vs, nil
}

// runLateness measures only the lateness of 1 ms reminders and the post
// latency with n pending, without callers and under the 10 callers, for
// the binary and each -against variant, each on its own copy of one store,
// all running at once and measured in turns. Beside each: the daemon's own
// runtime timer (its timer probe) and a runtime timer in a quiet process of
// its own on the same machine at the same moments (the machine's part).
//
// Each daemon goes through its two phases (no callers, then 10 callers)
// turns times, the daemons taking turns, probes/turns probes a phase: the
// finer the turns, the more alike a change of the machine's load meets them.
func runLateness(bin, work string, n, probes, turns int, against string) error {
	vs, err := parseVariants(against)
	if err != nil {
		return err
	}
	vs = append([]variant{{label: "this", bin: bin}}, vs...)
	fmt.Printf("# scalebench -only lateness: %d pending, %d probes a phase in %d turns, %s, load average %s\n",
		n, probes, turns, time.Now().UTC().Format(time.RFC3339), loadAverage())
	loaded, err := loadedStore(bin, work, n)
	if err != nil {
		return err
	}
	smp, err := startSampler()
	if err != nil {
		return err
	}
	defer smp.stop()
	ds := make([]*daemon, len(vs))
	defer func() {
		for _, d := range ds {
			if d != nil {
				d.stop()
			}
		}
	}()
	for i, v := range vs {
		home := filepath.Join(work, "late-"+v.label)
		if err := copyDir(filepath.Join(loaded, "store"), filepath.Join(home, "store")); err != nil {
			return err
		}
		if ds[i], err = startDaemonEnv(v.bin, home, v.env); err != nil {
			return err
		}
	}
	idle := make([]probeSet, len(vs))
	busy := make([]probeSet, len(vs))
	pages := make([]int64, len(vs))
	for r := range turns {
		for i, d := range ds {
			tag := fmt.Sprintf("%s-%d", vs[i].label, r)
			m := smp.mark()
			idle0 := d.cpu()
			p := probeFires(context.Background(), d.client, max(1, probes/turns), "idle-"+tag)
			idle[i].add(p, smp.since(m))
			idle[i].cpu += (d.cpu() - idle0).Seconds() / time.Since(m).Seconds()
			m = smp.mark()
			cpu0, self0, wait0 := d.cpu(), selfCPU(), d.runDelay()
			p, listed := underLoad(context.Background(), d, max(1, probes/turns), "busy-"+tag)
			busy[i].add(p, smp.since(m))
			wall := time.Since(m)
			busy[i].cpu += (d.cpu() - cpu0).Seconds() / wall.Seconds()
			busy[i].selfCPU += (selfCPU() - self0).Seconds() / wall.Seconds()
			busy[i].callersCPU += p.callersCPU.Seconds() / wall.Seconds()
			busy[i].wait += (d.runDelay() - wait0).Seconds() / wall.Seconds()
			busy[i].statusRate += p.rates.status
			busy[i].pageRate += p.rates.pages
			pages[i] += listed
		}
	}
	fmt.Printf("load average at the end %s\n", loadAverage())
	for i, v := range vs {
		m := ds[i].rss()
		fmt.Printf("%s RSS at the end %.1f MB (peak %.1f MB)\n", v.label, mb(m.rss), mb(m.hwm))
	}
	for i, v := range vs {
		fmt.Printf("%s without callers: the daemon used %.2f cores\n", v.label, idle[i].cpu/float64(turns))
		fmt.Printf("%s under the callers: the daemon used %.2f cores and its threads waited %.2f s a second for a CPU; the callers' process used %.2f cores, this one (the probes) %.2f; the callers got %.0f status answers and %.0f pages a second\n",
			v.label, busy[i].cpu/float64(turns), busy[i].wait/float64(turns), busy[i].callersCPU/float64(turns), busy[i].selfCPU/float64(turns), busy[i].statusRate/float64(turns), busy[i].pageRate/float64(turns))
	}
	fmt.Println()
	fmt.Println("| daemon | phase | reminder lateness p50 / p99 / max | its runtime timer p50 / p99 | quiet process's timer p50 / p99 | reminder p99 ÷ quiet p99 | post p50 / p99 | post p99 ÷ no callers |")
	fmt.Println("|---|---|---|---|---|---|---|---|")
	for i, v := range vs {
		for _, ph := range []struct {
			name string
			s    *probeSet
		}{{"no callers", &idle[i]}, {fmt.Sprintf("10 callers (%d pages)", pages[i]), &busy[i]}} {
			late, timer, post, quiet := distOf(ph.s.late), distOf(ph.s.timer), distOf(ph.s.post), distOf(ph.s.quiet)
			fmt.Printf("| %s | %s | %v / %v / %v | %v / %v | %v / %v | %.2f | %v / %v | %.2f |\n", v.label, ph.name,
				us(late.p50), us(late.p99), us(late.max), us(timer.p50), us(timer.p99), us(quiet.p50), us(quiet.p99),
				ratio(late.p99, quiet.p99), us(post.p50), us(post.p99), ratio(post.p99, distOf(idle[i].post).p99))
		}
	}
	return nil
}

// probeSet pools the raw samples of several phases.
type probeSet struct {
	late, post, timer, quiet []time.Duration
	cpu, selfCPU, callersCPU float64 // cores used by the daemon, this process and the callers' one, summed over the phases
	wait                     float64 // the daemon's threads' time waiting for a CPU a second, summed likewise
	statusRate, pageRate     float64 // the callers' status answers and pages a second, summed likewise
}

func (s *probeSet) add(p probes, quiet []time.Duration) {
	s.late, s.post, s.timer = append(s.late, p.raw.late...), append(s.post, p.raw.post...), append(s.timer, p.raw.timer...)
	s.quiet = append(s.quiet, quiet...)
}

func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	return strings.Join(f[:min(3, len(f))], " ")
}

func copyDir(from, to string) error {
	if err := os.MkdirAll(filepath.Dir(to), 0o700); err != nil {
		return err
	}
	out, err := exec.Command("cp", "-a", from, to).CombinedOutput()
	if err != nil {
		return fmt.Errorf("cp -a %s %s: %v: %s", from, to, err, out)
	}
	return nil
}

// sampler is a child process of this binary that does nothing but sleep
// 1 ms at a time and print how late each sleep woke (-only sampler): the
// lateness the machine alone gives a plain runtime timer, measured beside
// the daemons in a process nobody loads.
type sampler struct {
	cmd     *exec.Cmd
	samples chan sample
	all     []sample
}

type sample struct {
	at   time.Time
	late time.Duration
}

func startSampler() (*sampler, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self, "-only", "sampler")
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &sampler{cmd: cmd, samples: make(chan sample, 1<<16)}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			var at, late int64
			if _, err := fmt.Sscan(sc.Text(), &at, &late); err == nil {
				s.samples <- sample{at: time.Unix(0, at), late: time.Duration(late)}
			}
		}
		close(s.samples)
	}()
	return s, nil
}

// mark is a moment; since returns the samples taken after it.
func (s *sampler) mark() time.Time { return time.Now() }

func (s *sampler) since(t time.Time) []time.Duration {
	for more := true; more; {
		select {
		case x, ok := <-s.samples:
			if !ok {
				more = false
				break
			}
			s.all = append(s.all, x)
		default:
			more = false
		}
	}
	var out []time.Duration
	for _, x := range s.all {
		if x.at.After(t) {
			out = append(out, x.late)
		}
	}
	return out
}

func (s *sampler) stop() { s.cmd.Process.Kill(); s.cmd.Wait() }

// runSampler is the sampler's side: 1 ms sleeps until killed, a line on
// stdout for each: when it began (Unix nanoseconds) and how late it woke.
func runSampler() error {
	w := bufio.NewWriter(os.Stdout)
	for i := 0; ; i++ {
		t := time.Now()
		time.Sleep(time.Millisecond)
		fmt.Fprintln(w, t.UnixNano(), int64(time.Since(t)-time.Millisecond))
		if i%64 == 63 {
			if err := w.Flush(); err != nil {
				return nil // the bench went away
			}
		}
	}
}
