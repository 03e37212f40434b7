package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/opt"
	"github.com/syndtr/goleveldb/leveldb/util"

	"github.com/wakewheel/wakewheel/api"
	"github.com/wakewheel/wakewheel/deadlines"
	"github.com/wakewheel/wakewheel/store"
)

func main() {
	bin := flag.String("bin", "bin/wakewheel", "the wakewheel binary to measure")
	n := flag.Int("n", 1_000_000, "pending reminders of the loaded daemon")
	posts := flag.Int("posts", 20000, "obligations posted by the 64 posters, each way")
	rounds := flag.Int("rounds", 3, "with -only posters: rounds of in-process and socket posters, alternating; with -only load -against or -only backlog: rounds of restarts in turns")
	probes := flag.Int("probes", 400, "1 ms reminders whose lateness is measured, each phase")
	only := flag.String("only", "", "posters: measure only the 64 posters; load: only restart and RSS; lateness: only the reminders' lateness and the posts, with and without callers; backlog: only a restart on n reminders past due, until they have run")
	against := flag.String("against", "", "-only lateness, load or backlog: more daemons measured in turns with -bin, label=BIN or label=K=V,K=V:BIN, separated by ';'")
	turns := flag.Int("turns", 10, "with -only lateness: the turns each daemon takes through its two phases (probes/turns probes each)")
	keep := flag.Bool("keep", false, "keep the work directory (stores, daemon logs) and print its path")
	sock := flag.String("sock", "", "with -only callers: the daemon's socket")
	flag.Parse()
	if *only == "callers" { // the callers' process of the load phases
		if err := runCallers(*sock); err != nil {
			fmt.Fprintln(os.Stderr, "scalebench:", err)
			os.Exit(1)
		}
		return
	}
	if *only == "sampler" { // the quiet process of -only lateness
		if err := runSampler(); err != nil {
			fmt.Fprintln(os.Stderr, "scalebench:", err)
			os.Exit(1)
		}
		return
	}
	if err := measure(*bin, *only, *against, *keep, *n, *posts, *probes, *rounds, *turns); err != nil {
		fmt.Fprintln(os.Stderr, "scalebench:", err)
		os.Exit(1)
	}
}

// measure is the start every phase shares (the binary's absolute path, a
// work directory removed at the end unless keep) and the phase only names.
func measure(bin, only, against string, keep bool, n, posts, probes, rounds, turns int) error {
	bin, err := filepath.Abs(bin)
	if err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "wwscale")
	if err != nil {
		return err
	}
	if keep {
		fmt.Println("work directory:", work)
	} else {
		defer os.RemoveAll(work)
	}
	switch only {
	case "posters":
		return runPosters(bin, work, posts, rounds)
	case "load":
		if against != "" {
			return runLoadAgainst(bin, work, n, rounds, against)
		}
		return runLoad(bin, work, n)
	case "lateness":
		return runLateness(bin, work, n, probes, turns, against)
	case "backlog":
		return runBacklog(bin, work, n, rounds, against, keep)
	}
	return run(bin, work, n, posts, probes)
}

// runLoad measures only the restart with n pending and the RSS after it.
func runLoad(bin, work string, n int) error {
	dir, empty, err := setUp(bin, work, n)
	if err != nil {
		return err
	}
	base := empty.rss()
	empty.stop()
	fmt.Printf("empty daemon: ready in %v, CPU %v\n", ms(empty.ready), ms(empty.readyCPU))
	r, d, err := restarts(bin, dir, n)
	if err != nil {
		return err
	}
	defer d.stop()
	m := d.rss()
	wheel := wheelBytes(n)
	fmt.Printf("restart (median of %d interleaved): first answer %v, ready %v, raw iteration %v: ready %.2f× raw (median of the rounds' ratios %.2f×); CPU %v against %v (%.2f×)\n",
		restartRounds, ms(r.first), ms(r.ready), ms(r.raw), ratio(r.ready, r.raw), r.medianRatio(),
		ms(r.readyCPU), ms(r.rawCPU), ratio(r.readyCPU, r.rawCPU))
	fmt.Printf("RSS %.1f MB (empty daemon %.1f MB), peak %.1f MB: %.0f B a reminder over the empty daemon; the wheel's own with its keys %.0f B: %.0f B over it\n",
		mb(m.rss), mb(base.rss), mb(m.hwm), perReminder(m.rss-base.rss, n), wheel, perReminder(m.rss-base.rss, n)-wheel)
	return nil
}

func perReminder(b int64, n int) float64 { return float64(b) / float64(n) }

func run(bin, work string, n, posts, probes int) error {
	ctx := context.Background()

	fmt.Printf("# scalebench: %d pending reminders, %s, GOMAXPROCS from %d CPUs\n", n, time.Now().UTC().Format(time.RFC3339), numCPU())
	// The empty daemon: the baselines.
	loaded, idle, err := setUp(bin, work, n)
	if err != nil {
		return err
	}
	idleRSS := idle.rss()
	idleP := probeFires(ctx, idle.client, probes, "idle")
	emptyP, _ := underLoad(ctx, idle, probes, "empty")

	// The loaded daemon, started three times, each after a raw iteration.
	restart, d, err := restarts(bin, loaded, n)
	if err != nil {
		idle.stop()
		return err
	}
	rssLoaded := d.rss()
	idleStatus, loadedStatus := statusLatency(ctx, idle.client, d.client, 2000, statusGap)
	idleLoop, loadedLoop := statusLatency(ctx, idle.client, d.client, 2000, 0)
	busyP, listed := underLoad(ctx, d, probes, "busy")
	rssAfter := d.rss()
	d.stop()

	inprocSelf0 := selfCPU()
	inproc, _, err := inProcessPosters(filepath.Join(work, "inproc"), posts)
	if err != nil {
		idle.stop()
		return err
	}
	inprocCPU := (selfCPU() - inprocSelf0) / time.Duration(posts)
	cpu0, self0 := idle.cpu(), selfCPU()
	socket, err := socketPosters(ctx, idle.sock, posts)
	daemonCPU, clientCPU := (idle.cpu()-cpu0)/time.Duration(posts), (selfCPU()-self0)/time.Duration(posts)
	idle.stop()
	if err != nil {
		return err
	}

	wheel := wheelBytes(n)
	fmt.Println()
	fmt.Println("| measure | result | baseline (same run) | ratio | target |")
	fmt.Println("|---|---|---|---|---|")
	fmt.Printf("| restart to ready (every deadline loaded), %d pending (median of %d, each after a raw iteration) | %v | raw LevelDB open + iteration %v | %.2f (rounds' median %.2f) | ≤ 2 |\n",
		n, restartRounds, ms(restart.ready), ms(restart.raw), ratio(restart.ready, restart.raw), restart.medianRatio())
	fmt.Printf("| the same in CPU time: the daemon from exec to ready | %v | the raw iteration's %v | %.2f | — |\n",
		ms(restart.readyCPU), ms(restart.rawCPU), ratio(restart.readyCPU, restart.rawCPU))
	fmt.Printf("| restart to first `status` answer (state loading) | %v | — | %.2f | — |\n",
		ms(restart.first), ratio(restart.first, restart.raw))
	fmt.Printf("| daemon RSS, %d pending: after the restart / after the load phase | %.1f MB / %.1f MB | empty daemon %.1f MB | %.0f B / %.0f B a reminder | ≤ 150 MB |\n",
		n, mb(rssLoaded.rss), mb(rssAfter.rss), mb(idleRSS.rss), float64(rssLoaded.rss)/float64(n), float64(rssAfter.rss)/float64(n))
	fmt.Printf("| the same over the empty daemon, less the wheel's own with its keys (%.0f B, in process) | %.0f B / %.0f B a reminder | — | — | ≤ 64 B |\n",
		wheel, perReminder(rssLoaded.rss-idleRSS.rss, n)-wheel, perReminder(rssAfter.rss-idleRSS.rss, n)-wheel)
	fmt.Printf("| daemon peak RSS (VmHWM) | %.1f MB | — | — | — |\n", mb(rssAfter.hwm))
	fmt.Printf("| `status` p50 / p99, %d pending (2,000 calls, alternating with the empty daemon, %v between pairs) | %v / %v | 0 pending %v / %v | %.2f / %.2f | ≤ 2 |\n",
		n, statusGap, us(loadedStatus.p50), us(loadedStatus.p99), us(idleStatus.p50), us(idleStatus.p99),
		ratio(loadedStatus.p50, idleStatus.p50), ratio(loadedStatus.p99, idleStatus.p99))
	fmt.Printf("| the same back to back (a caller in a loop, which the listing gate paces) | %v / %v | 0 pending %v / %v | %.2f / %.2f | — |\n",
		us(loadedLoop.p50), us(loadedLoop.p99), us(idleLoop.p50), us(idleLoop.p99),
		ratio(loadedLoop.p50, idleLoop.p50), ratio(loadedLoop.p99, idleLoop.p99))
	fmt.Printf("| 1 ms reminder lateness p50 / p99 / max, %d pending, 10 callers on status+deadlines (%d pages listed) | %v / %v / %v | a plain 1 ms runtime timer in the daemon, same moments: %v / %v / %v | — | p99 ≤ 2 ms |\n",
		n, listed, us(busyP.late.p50), us(busyP.late.p99), us(busyP.late.max), us(busyP.timer.p50), us(busyP.timer.p99), us(busyP.timer.max))
	fmt.Printf("| the same, 0 pending, the same 10 callers | %v / %v / %v | runtime timer %v / %v / %v | — | — |\n",
		us(emptyP.late.p50), us(emptyP.late.p99), us(emptyP.late.max), us(emptyP.timer.p50), us(emptyP.timer.p99), us(emptyP.timer.max))
	fmt.Printf("| the same, 0 pending, no callers | %v / %v / %v | runtime timer %v / %v / %v | — | — |\n",
		us(idleP.late.p50), us(idleP.late.p99), us(idleP.late.max), us(idleP.timer.p50), us(idleP.timer.p99), us(idleP.timer.max))
	fmt.Printf("| reminder post p50 / p99, %d pending, 10 callers | %v / %v | idle %v / %v | %.2f / %.2f | p99 ≤ 2 |\n",
		n, us(busyP.post.p50), us(busyP.post.p99), us(idleP.post.p50), us(idleP.post.p99),
		ratio(busyP.post.p50, idleP.post.p50), ratio(busyP.post.p99, idleP.post.p99))
	fmt.Printf("| the same, 0 pending, the same 10 callers | %v / %v | idle %v / %v | %.2f / %.2f | — |\n",
		us(emptyP.post.p50), us(emptyP.post.p99), us(idleP.post.p50), us(idleP.post.p99),
		ratio(emptyP.post.p50, idleP.post.p50), ratio(emptyP.post.p99, idleP.post.p99))
	fmt.Printf("| 64 independent obligation posters through the socket (a client and a connection each) | %.0f posts/s | in-process `Service.Post`, 64 goroutines, %.0f posts/s | %.2f | ≥ 0.8 |\n",
		socket, inproc, socket/inproc)
	fmt.Printf("| CPU per post: daemon / posters' process, through the socket | %v / %v | in-process %v | — | — |\n",
		daemonCPU, clientCPU, inprocCPU)
	return nil
}

// runDelay is the time the daemon's threads have waited for a CPU so far
// (the kernel's schedstat, summed over the threads alive now).
func (d *daemon) runDelay() time.Duration {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", d.cmd.Process.Pid))
	var sum time.Duration
	for _, t := range tasks {
		b, err := os.ReadFile(t)
		if err != nil {
			continue
		}
		if f := strings.Fields(string(b)); len(f) >= 2 {
			ns, _ := strconv.ParseInt(f[1], 10, 64)
			sum += time.Duration(ns)
		}
	}
	return sum
}

// cpu is the daemon's user+system CPU time so far.
func (d *daemon) cpu() time.Duration { return procCPU(fmt.Sprintf("/proc/%d/stat", d.cmd.Process.Pid)) }

func selfCPU() time.Duration { return procCPU("/proc/self/stat") }

func procCPU(path string) time.Duration {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * 10 * time.Millisecond // USER_HZ is 100 on Linux
}

// setUp is what the measures of a loaded daemon start from: the home of a
// store holding n reminders, and an empty daemon running (the baseline).
func setUp(bin, work string, n int) (loaded string, empty *daemon, err error) {
	if loaded, err = loadedStore(bin, work, n); err != nil {
		return "", nil, err
	}
	empty, err = startDaemon(bin, filepath.Join(work, "empty"))
	return loaded, empty, err
}

// loadedStore is the home (work/loaded) of a store holding n reminders,
// prefilled and settled: what every measure of a loaded daemon reads.
func loadedStore(bin, work string, n int) (string, error) {
	home := filepath.Join(work, "loaded")
	t0 := time.Now()
	if err := prefill(filepath.Join(home, "store"), n); err != nil {
		return "", err
	}
	fmt.Printf("prefill: %d reminders written in %v\n", n, time.Since(t0).Round(time.Millisecond))
	return home, settle(bin, home)
}

// settle starts and stops the daemon once on a new store, then compacts
// it whole, so that the store the measures read is the one a long-running
// daemon leaves behind (its journal in tables, the tables compacted), and
// stays the same through every round: a short daemon run leaves level-0
// tables that the next open compacts in the background, under the rounds.
func settle(bin, home string) error {
	d, err := startDaemon(bin, home)
	if err != nil {
		return err
	}
	d.stop()
	return compactStore(filepath.Join(home, "store"))
}

// compactStore compacts the LevelDB of a store in dir whole.
func compactStore(dir string) error {
	ldb, err := leveldb.OpenFile(dir, nil)
	if err != nil {
		return err
	}
	if err := ldb.CompactRange(util.Range{}); err != nil {
		ldb.Close()
		return err
	}
	return ldb.Close()
}

func numCPU() int {
	b, _ := os.ReadFile("/proc/cpuinfo")
	return max(1, strings.Count(string(b), "processor\t:"))
}

// prefill writes n reminders a month out into a new store, as the daemon
// would have persisted them.
func prefill(dir string, n int) error {
	db, err := store.Open(dir, store.Options{})
	if err != nil {
		return err
	}
	base := time.Now().Add(30 * 24 * time.Hour)
	for i := range n {
		db.PutDeadline(deadlines.Deadline{Key: fmt.Sprintf("%sload-%07d", api.ReminderPrefix, i), Kind: api.ReminderKind,
			At: base.Add(time.Duration(i) * time.Microsecond)})
	}
	return db.Close()
}

// rawIteration opens the store's LevelDB directly and iterates the deadline
// records, each key and value read: the floor of any reload, as an
// embedded user of LevelDB pays it (goleveldb's default options, its block
// buffer pool on; the daemon keeps it off for its idle wake-ups).
func rawIteration(dir string) (time.Duration, int, error) {
	start := time.Now()
	ldb, err := leveldb.OpenFile(dir, &opt.Options{ReadOnly: true})
	if err != nil {
		return 0, 0, err
	}
	defer ldb.Close()
	it := ldb.NewIterator(util.BytesPrefix([]byte("d/")), &opt.ReadOptions{DontFillCache: true})
	n, size := 0, 0
	for it.Next() {
		n++
		size += len(it.Key()) + len(it.Value()) // each record's value read too, as a reload reads it
	}
	it.Release()
	if n > 0 && size == 0 {
		return 0, 0, fmt.Errorf("raw iteration read %d empty records", n)
	}
	return time.Since(start), n, it.Error()
}

type daemon struct {
	sock        string
	cmd         *exec.Cmd
	client      *api.Client
	firstAnswer time.Duration // the first status answer (loading, or ready)
	ready       time.Duration // the first status that said ready
	readyCPU    time.Duration // the daemon's CPU time by then
}

// startDaemon starts the binary on home/store and waits until its status
// says ready, noting when it first answered.
func startDaemon(bin, home string) (*daemon, error) { return startDaemonEnv(bin, home, nil) }

// startCallTimeout bounds each status call of a start's wait for ready;
// -only backlog waits as long as a call takes, so that ready is when a
// caller got its first ready answer.
var startCallTimeout = time.Second

// startDaemonEnv is startDaemon with more environment (K=V) for the daemon.
func startDaemonEnv(bin, home string, env []string) (*daemon, error) {
	sock := filepath.Join(home, "s.sock")
	if len(sock) > 100 {
		return nil, fmt.Errorf("socket path %s too long", sock)
	}
	if err := os.MkdirAll(home, 0o700); err != nil {
		return nil, err
	}
	logf, err := os.Create(filepath.Join(home, "daemon.log"))
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "daemon")
	if v := os.Getenv("SCALE_NICE"); v != "" {
		// nice execs the daemon: the same process, at another priority.
		cmd = exec.Command("nice", "-n", v, bin, "daemon")
	}
	cmd.Env = append(os.Environ(),
		"XDG_CONFIG_HOME="+filepath.Join(home, "config"),
		"XDG_STATE_HOME="+filepath.Join(home, "state"),
		"WAKEWHEEL_ENGINE_STORE_DIR="+filepath.Join(home, "store"),
		"WAKEWHEEL_ENGINE_SOCKET_PATH="+sock,
		"WAKEWHEEL_LOG_FORMAT=json",
		"WAKEWHEEL_LOG_LEVEL=warn",
	)
	if v := os.Getenv("SCALE_GODEBUG"); v != "" {
		cmd.Env = append(cmd.Env, "GODEBUG="+v)
	}
	cmd.Env = append(cmd.Env, env...)
	if slices.Contains(cmd.Env, "SCALE_SETSID=1") {
		// A session of its own, as a service manager starts a daemon: with
		// the kernel's autogroups, its own share of the CPU beside the
		// callers' session.
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	d := &daemon{sock: sock, cmd: cmd, client: api.NewClient(sock)}
	for {
		ctx, cancel := context.WithTimeout(context.Background(), startCallTimeout)
		st, err := d.client.Status(ctx)
		cancel()
		if err == nil && d.firstAnswer == 0 {
			d.firstAnswer = time.Since(start)
		}
		if err == nil && st.State != api.StateLoading {
			d.ready, d.readyCPU = time.Since(start), d.cpu()
			return d, nil
		}
		if time.Since(start) > 2*time.Minute {
			d.stop()
			return nil, fmt.Errorf("daemon in %s did not answer: %v", home, err)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func (d *daemon) stop() {
	d.cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { d.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		d.cmd.Process.Kill()
		<-done
	}
}

type memory struct{ rss, hwm int64 }

func (d *daemon) rss() memory {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", d.cmd.Process.Pid))
	if err != nil {
		return memory{}
	}
	var m memory
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		kb, _ := strconv.ParseInt(f[1], 10, 64)
		switch f[0] {
		case "VmRSS:":
			m.rss = kb << 10
		case "VmHWM:":
			m.hwm = kb << 10
		}
	}
	return m
}

type dist struct{ p50, p99, max time.Duration }

func distOf(ds []time.Duration) dist {
	if len(ds) == 0 {
		return dist{}
	}
	slices.Sort(ds)
	return dist{p50: ds[len(ds)/2], p99: ds[(len(ds)*99)/100], max: ds[len(ds)-1]}
}

func median(ds []time.Duration) time.Duration { return distOf(slices.Clone(ds)).p50 }

// statusGap is the pause between two pairs of status calls: a caller that
// asks now and then, as a person or an agent asks for status. Within the
// readers' share (api.ReaderShare: a status call costs the gate ~2 ms of
// its place's time), so the gate never paces it, and the calls time the
// answer. Back to back (a gap of 0), a caller is paced by the gate, and
// the calls time the pacing, whichever daemon they go to.
const statusGap = 5 * time.Millisecond

// statusLatency times n status calls to each daemon, alternating between
// them, so that the machine's other load falls on both alike, with gap
// between one pair and the next.
func statusLatency(ctx context.Context, a, b *api.Client, n int, gap time.Duration) (da, db dist) {
	var as, bs []time.Duration
	for range n {
		if gap > 0 {
			time.Sleep(gap)
		}
		for _, c := range []*api.Client{a, b} {
			t := time.Now()
			if _, err := c.Status(ctx); err == nil {
				if c == a {
					as = append(as, time.Since(t))
				} else {
					bs = append(bs, time.Since(t))
				}
			}
		}
	}
	return distOf(as), distOf(bs)
}

// probes are the lateness of reminders due in 1 ms, posted one at a time,
// the latency of those posts, and beside each reminder the lateness of a
// plain runtime timer of 1 ms in the same daemon at the same moment (its
// timer probe): the machine's part of the lateness.
type probes struct {
	late, post, timer dist
	raw               struct{ late, post, timer []time.Duration }
	rates             struct{ status, pages float64 } // the callers' answers a second, under load
	callersCPU        time.Duration                   // the callers' process's CPU time, under load
}

// probeFires posts n reminders due in 1 ms, one at a time, each followed by
// a timer probe of 1 ms, and returns the three distributions.
func probeFires(ctx context.Context, c *api.Client, n int, tag string) probes {
	var after uint64
	if fs, err := c.Fires(ctx, 0, 0); err == nil && len(fs) > 0 {
		after = fs[len(fs)-1].Seq
	}
	var posts, timers []time.Duration
	want := map[string]bool{}
	for i := range n {
		name := fmt.Sprintf("probe-%s-%d", tag, i)
		t := time.Now()
		if _, err := c.Remind(ctx, api.ReminderRequest{Name: name, In: "1ms"}); err != nil {
			continue
		}
		posts = append(posts, time.Since(t))
		want[api.ReminderPrefix+name] = true
		if p, err := c.TimerProbe(ctx, time.Millisecond); err == nil {
			timers = append(timers, p.Late)
		}
		time.Sleep(2 * time.Millisecond)
	}
	var lates []time.Duration
	deadline := time.Now().Add(10 * time.Second)
	for len(lates) < len(want) && time.Now().Before(deadline) {
		fs, err := c.Fires(ctx, after, 10000)
		if err != nil {
			break
		}
		for _, f := range fs {
			after = f.Seq
			if want[f.Key] {
				lates = append(lates, f.Fired.Sub(f.At))
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	p := probes{late: distOf(lates), post: distOf(posts), timer: distOf(timers)}
	p.raw.late, p.raw.post, p.raw.timer = lates, posts, timers
	return p
}

// underLoad runs probeFires while 10 callers loop in a process of their
// own (startCallers): five on status, five on deadlines pages of 1,000
// from scattered places of the listing. The callers' own rate is the
// probes' calls/s: status calls and pages answered a second.
func underLoad(ctx context.Context, d *daemon, n int, tag string) (_ probes, pages int64) {
	start := time.Now()
	c, err := startCallers(d.sock)
	if err != nil {
		fmt.Fprintln(os.Stderr, "scalebench: callers:", err)
		return probes{}, 0
	}
	time.Sleep(200 * time.Millisecond)
	p := probeFires(ctx, d.client, n, tag)
	statuses, listed, cpu, err := c.wait()
	if err != nil {
		fmt.Fprintln(os.Stderr, "scalebench: callers:", err)
	}
	p.rates.status = float64(statuses) / time.Since(start).Seconds()
	p.rates.pages = float64(listed) / time.Since(start).Seconds()
	p.callersCPU = cpu
	return p, listed
}

func ms(d time.Duration) string { return fmt.Sprintf("%.0f ms", float64(d)/1e6) }
func us(d time.Duration) string { return fmt.Sprintf("%.0f µs", float64(d)/1e3) }
func mb(b int64) float64        { return float64(b) / (1 << 20) }
func ratio(a, b time.Duration) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}
