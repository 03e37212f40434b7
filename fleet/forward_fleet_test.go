//go:build fleet

package fleet_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/wakewheel/wakewheel/fleet"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wakewheel/wakewheel/api"
	"github.com/wakewheel/wakewheel/internal/supervise"
	ob "github.com/wakewheel/wakewheel/obligations"
)

// openLanes opens lanes on d once the fleet's buckets exist.
func openLanes(t *testing.T, d *daemon, lanes ...string) {
	t.Helper()
	for _, l := range lanes {
		deadline := time.Now().Add(120 * time.Second)
		for {
			_, err := d.client.OpenLane(ctxFor(t, 10*time.Second), l)
			if err == nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("open %s on %s: %v\n%s", l, d.host, err, d.tail())
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
}

// lanePosts returns the post entries of lane in d's ledger.
func lanePosts(t *testing.T, d *daemon, lane string) []ob.Entry {
	t.Helper()
	all, err := d.client.LedgerAll(ctxFor(t, 30*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	var out []ob.Entry
	for _, e := range all {
		if e.Kind == ob.EntryPost && e.Lane == lane {
			out = append(out, e)
		}
	}
	return out
}

// checkExactlyOnce: every id in want is posted in its lane exactly once,
// nothing else is, and each lane's sequence numbers are 1..n without gaps.
func checkExactlyOnce(t *testing.T, home *daemon, want map[string]string, lanes []string) {
	t.Helper()
	seen := map[string]int{}
	for _, l := range lanes {
		posts := lanePosts(t, home, l)
		for i, e := range posts {
			if e.Seq != uint64(i+1) {
				t.Fatalf("lane %s: entry %d has seq %d: a gap or a reordering", l, i, e.Seq)
			}
			seen[e.ID]++
			if wl, ok := want[e.ID]; ok && wl != l {
				t.Errorf("id %s landed in lane %s, posted to %s", e.ID, l, wl)
			}
		}
	}
	var missing, twice, extra []string
	for id := range want {
		switch seen[id] {
		case 0:
			missing = append(missing, id)
		case 1:
		default:
			twice = append(twice, id)
		}
	}
	for id := range seen {
		if _, ok := want[id]; !ok {
			extra = append(extra, id)
		}
	}
	sort.Strings(missing)
	if len(missing)+len(twice)+len(extra) > 0 {
		t.Fatalf("%d missing (%v), %d twice (%v), %d unexpected (%v)", len(missing), head(missing), len(twice), head(twice), len(extra), head(extra))
	}
}

func head(s []string) []string { return s[:min(len(s), 5)] }

// waitImported waits until home's lanes hold n posts in all.
func waitImported(t *testing.T, home *daemon, lanes []string, n int, within time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	for {
		total := 0
		ls, err := home.client.Lanes(ctxFor(t, 10*time.Second))
		if err == nil {
			for _, l := range ls {
				if slices.Contains(lanes, l.Lane) {
					total += int(l.Head)
				}
			}
		}
		if total >= n {
			return time.Since(start)
		}
		if time.Since(start) > within {
			t.Fatalf("%d of %d imported after %s\n%s", total, n, within, home.tail())
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestFleetForwardThroughStreamLeaderKill: three broker processes (R3),
// three daemons; 1,000 posts from B and C to lanes homed on A at eight
// concurrent posters, while the stream leader is SIGKILLed and restarted.
// Every post answered "forwarded" is in A's lanes exactly once, gap-free.
func TestFleetForwardThroughStreamLeaderKill(t *testing.T) {
	c := newCluster(t, 3, t.TempDir())
	a := startDaemon(t, "a", c.urls())
	b := startDaemon(t, "b.example", c.urls())
	cc := startDaemon(t, "c", c.urls())
	lanes := []string{"team.one", "team.two", "ops", "a_b.c"}
	openLanes(t, a, lanes...)

	const total, posters = 1000, 8
	var mu sync.Mutex
	answered := map[string]string{} // id → lane, for posts answered forwarded
	var queuedOnly, failed atomic.Int64
	var done atomic.Int64
	var stalls []time.Duration
	start := time.Now()
	var wg sync.WaitGroup
	for p := range posters {
		d := []*daemon{b, cc}[p%2]
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := p; i < total; i += posters {
				id := fmt.Sprintf("%s-%d", d.host, i)
				lane := lanes[i%len(lanes)]
				t0 := time.Now()
				res, err := d.client.Post(ctxFor(t, 90*time.Second), api.PostRequest{Lane: lane, Class: "human", ID: id,
					Body: fmt.Sprintf("post %d from %s", i, d.host), Wait: fleet.Forwarded})
				el := time.Since(t0)
				mu.Lock()
				switch {
				case err != nil:
					failed.Add(1)
					t.Logf("post %s: %v", id, err)
				case res.Route == fleet.Forwarded:
					answered[id] = lane
				case res.Route == fleet.Queued:
					queuedOnly.Add(1)
					answered[id] = lane // durable in the outbox: it must arrive too
				default:
					t.Errorf("post %s answered %q", id, res.Route)
				}
				if el > time.Second {
					stalls = append(stalls, el)
				}
				mu.Unlock()
				done.Add(1)
			}
		}()
	}
	// Kill the stream leader once posting is well under way.
	for done.Load() < total/5 {
		time.Sleep(10 * time.Millisecond)
	}
	leader := c.leader(fleet.StreamName)
	t.Logf("SIGKILL of stream leader %s after %d posts", leader, done.Load())
	c.node(leader).kill()
	time.Sleep(3 * time.Second)
	c.node(leader).start()
	wg.Wait()
	elapsed := time.Since(start)
	if failed.Load() > 0 {
		t.Fatalf("%d posts failed", failed.Load())
	}
	imported := waitImported(t, a, lanes, len(answered), 120*time.Second)
	checkExactlyOnce(t, a, answered, lanes)
	// Source parity: every obligation the stream holds for a is in its ledger.
	// A read of the stream that fails (the restarted node still catching
	// up) is retried; a report that names a missing post is not.
	var par fleet.Parity
	for attempt := 1; ; attempt++ {
		cmd := exec.Command(wakewheelBin(t), "fleet", "parity", "--json")
		cmd.Env = append(os.Environ(), a.env...)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if json.Unmarshal(out, &par) == nil {
			break
		}
		if attempt == 5 {
			t.Fatalf("fleet parity on a: %v\n%s\n%s", err, out, stderr.String())
		}
		t.Logf("fleet parity on a, attempt %d: %v: %s", attempt, err, strings.TrimSpace(stderr.String()))
		time.Sleep(2 * time.Second)
	}
	if len(par.Missing) != 0 || par.Found != par.InStream || par.InStream < len(answered) {
		t.Fatalf("source parity on a: %+v", par)
	}
	t.Logf("source parity on a: %d in the stream, all in the ledger", par.InStream)
	sort.Slice(stalls, func(i, j int) bool { return stalls[i] > stalls[j] })
	t.Logf("%d posts (%d answered queued only) in %s with the leader killed: %.0f posts/s; longest post %v; imported %s after the last answer",
		len(answered), queuedOnly.Load(), elapsed.Round(time.Millisecond), float64(total)/elapsed.Seconds(), head2(stalls), imported.Round(time.Millisecond))
}

func head2(d []time.Duration) []time.Duration { return d[:min(len(d), 3)] }

// TestFleetHomeSIGKILLedDuringImport: A's daemon is SIGKILLed at random
// points while it imports, 30 times; every post arrives exactly once.
func TestFleetHomeSIGKILLedDuringImport(t *testing.T) {
	c := newCluster(t, 3, t.TempDir())
	a := startDaemon(t, "a", c.urls(), "WAKEWHEEL_FLEET_ACK_WAIT=2s")
	b := startDaemon(t, "b", c.urls())
	lanes := []string{"work", "work.2"}
	openLanes(t, a, lanes...)

	const kills = 30
	want := map[string]string{}
	var mu sync.Mutex
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for p := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				id := fmt.Sprintf("p%d-%d", p, i)
				lane := lanes[i%2]
				res, err := b.client.Post(ctxFor(t, 30*time.Second), api.PostRequest{Lane: lane, Class: "human", ID: id, Body: "x"})
				if err != nil {
					t.Errorf("post %s: %v", id, err)
					return
				}
				if res.Route != fleet.Queued {
					t.Errorf("post %s answered %q", id, res.Route)
				}
				mu.Lock()
				want[id] = lane
				mu.Unlock()
				time.Sleep(2 * time.Millisecond)
			}
		}()
	}
	r := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))
	seed := r.Uint64()
	t.Logf("seed %d", seed)
	r = rand.New(rand.NewPCG(seed, 7))
	for k := range kills {
		time.Sleep(time.Duration(20+r.IntN(400)) * time.Millisecond)
		a.kill()
		if k == kills-1 {
			close(stop)
		}
		a.start()
	}
	wg.Wait()
	mu.Lock()
	n := len(want)
	mu.Unlock()
	waitImported(t, a, lanes, n, 120*time.Second)
	time.Sleep(3 * time.Second) // past the ack wait: a redelivery would show as a second post
	checkExactlyOnce(t, a, want, lanes)
	t.Logf("%d posts, %d SIGKILLs of the home during import: every post once", n, kills)
}

// TestFleetAllBrokersDown: with every broker node down, B's remote posts
// answer "queued"; once the brokers are back they are forwarded and
// imported exactly once, and A's consumer sees no no-op wake.
func TestFleetAllBrokersDown(t *testing.T) {
	c := newCluster(t, 3, t.TempDir())
	a := startDaemon(t, "a", c.urls())
	b := startDaemon(t, "b", c.urls())
	openLanes(t, a, "inbox")
	want := map[string]string{}
	// B learns the home while the broker is up.
	if res, err := b.client.Post(ctxFor(t, 30*time.Second), api.PostRequest{Lane: "inbox", Class: "human", ID: "before", Body: "x", Wait: fleet.Forwarded}); err != nil || res.Route != fleet.Forwarded {
		t.Fatalf("first post: %+v %v", res, err)
	}
	want["before"] = "inbox"
	waitImported(t, a, []string{"inbox"}, 1, 30*time.Second)

	// A's agent: waits, acks what it was woken for, counts no-op wakes.
	var noops, wakes atomic.Int64
	stop := make(chan struct{})
	consumed := make(chan struct{})
	go func() {
		defer close(consumed)
		after := ""
		for {
			select {
			case <-stop:
				return
			default:
			}
			res, err := a.client.WaitOnce(ctxFor(t, 30*time.Second), "inbox", "agent", after, 2*time.Second)
			if err != nil || !res.Woke {
				continue
			}
			wakes.Add(1)
			if res.Digest.Noop {
				noops.Add(1)
			}
			after = res.Digest.WakeID
			if res.Digest.Head > res.Digest.Consumed {
				_, _ = a.client.Ack(ctxFor(t, 10*time.Second), "inbox", res.Digest.Head, "")
			}
		}
	}()

	for _, n := range c.nodes {
		n.kill()
	}
	for i := range 50 {
		id := fmt.Sprintf("down-%d", i)
		res, err := b.client.Post(ctxFor(t, 10*time.Second), api.PostRequest{Lane: "inbox", Class: "human", ID: id, Body: "x"})
		if err != nil || res.Route != fleet.Queued {
			t.Fatalf("post %s with every broker down: %+v %v", id, res, err)
		}
		want[id] = "inbox"
	}
	// Status says so, from the daemon, while the broker cannot answer.
	var view struct {
		Member     fleet.MemberStatus `json:"member"`
		FleetError string             `json:"fleet_error"`
	}
	cmd := exec.Command(wakewheelBin(t), "fleet", "status", "--json")
	cmd.Env = append(os.Environ(), b.env...)
	out, err := cmd.CombinedOutput()
	if err != nil || json.Unmarshal(out, &view) != nil {
		t.Fatalf("fleet status on b: %v\n%s", err, out)
	}
	if view.Member.BrokerUp || view.Member.Outbox != 50 || !strings.Contains(view.Member.State, "broker unreachable") || view.FleetError == "" {
		t.Fatalf("fleet status with every broker down: %s", out)
	}
	t.Logf("b's status with every broker down: %q; fleet: %s", view.Member.State, view.FleetError)
	// Local lanes work unchanged on the home.
	if res, err := a.client.Post(ctxFor(t, 10*time.Second), api.PostRequest{Lane: "inbox", Class: "human", ID: "local", Body: "x"}); err != nil || res.Route != fleet.PostedLocal {
		t.Fatalf("local post with every broker down: %+v %v", res, err)
	}
	want["local"] = "inbox"
	time.Sleep(2 * time.Second)
	for _, n := range c.nodes {
		n.start()
	}
	took := waitImported(t, a, []string{"inbox"}, len(want), 120*time.Second)
	time.Sleep(3 * time.Second)
	close(stop)
	<-consumed
	checkExactlyOnce(t, a, want, []string{"inbox"})
	all, err := a.client.LedgerAll(ctxFor(t, 10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	ledgerNoops := 0
	for _, e := range all {
		if e.Kind == ob.EntryNoop {
			ledgerNoops++
		}
	}
	if noops.Load() != 0 || ledgerNoops != 0 {
		t.Fatalf("no-op wakes: %d seen by the agent, %d in the ledger", noops.Load(), ledgerNoops)
	}
	// The home published the lane's state on change: fleet status shows it.
	// (A publish that fails, a bucket still electing its leader after the
	// restart, is tried again 5 s later: the wait allows several.)
	var seen fleet.LaneSummary
	lanesErr := ""
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		var v struct {
			Fleet fleet.FleetStatus `json:"fleet"`
		}
		cmd := exec.Command(wakewheelBin(t), "fleet", "status", "--json")
		cmd.Env = append(os.Environ(), b.env...)
		if out, err := cmd.Output(); err == nil && json.Unmarshal(out, &v) == nil {
			lanesErr = v.Fleet.LanesError
			for _, l := range v.Fleet.Lanes {
				if l.Lane == "inbox" {
					seen = l
				}
			}
		}
		if seen.Reported && seen.Home == "a" && seen.Head == uint64(len(want)) {
			break
		}
	}
	if !seen.Reported || seen.Home != "a" || seen.Head != uint64(len(want)) || seen.Waiting != 0 {
		t.Fatalf("fleet status on b shows lane inbox as %+v (lane states read: %q), want home a, head %d, nothing waiting in the broker\na's log:\n%s",
			seen, lanesErr, len(want), a.tail())
	}
	// a's beacon carries its safety vector, the ledger report's.
	var safety *ob.Report
	for deadline := time.Now().Add(20 * time.Second); safety == nil && time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		var v struct {
			Fleet fleet.FleetStatus `json:"fleet"`
		}
		cmd := exec.Command(wakewheelBin(t), "fleet", "status", "--json")
		cmd.Env = append(os.Environ(), b.env...)
		if out, err := cmd.Output(); err == nil && json.Unmarshal(out, &v) == nil {
			for _, h := range v.Fleet.Hosts {
				if h.Host == "a" && h.Safety != nil && h.Safety.Posts >= len(want) {
					safety = h.Safety
				}
			}
		}
	}
	if safety == nil {
		t.Fatalf("a's beacon carries no safety vector with its %d posts", len(want))
	}
	if _, ok := safety.Metric("noop_rate"); !ok || !safety.Pass {
		t.Fatalf("a's safety vector in its beacon: %+v", safety)
	}
	// On a, the safety report judges source parity too. A read of the
	// stream that fails (a restarted node still catching up) leaves it
	// unjudged, with the reason, and is tried again; a loss is not.
	var par ob.Metric
	ok := false
	for attempt := 1; !ok && attempt <= 5; attempt++ {
		cmd = exec.Command(wakewheelBin(t), "ledger", "report", "--json")
		cmd.Env = append(os.Environ(), a.env...)
		out, err = cmd.Output()
		var rep ob.Report
		if err != nil || json.Unmarshal(out, &rep) != nil {
			t.Fatalf("ledger report on a: %v\n%s", err, out)
		}
		if par, ok = rep.Metric(ob.SourceParityMetric); !ok {
			t.Logf("ledger report on a, attempt %d: source parity not judged: %s", attempt, rep.SourceParityError)
			time.Sleep(2 * time.Second)
		}
	}
	if !ok || par.Value != 0 || par.N < len(want)-1 || !par.Pass {
		t.Fatalf("source parity in a's safety report: %+v (found %v); want 0 missing of at least %d in the stream", par, ok, len(want)-1)
	}
	t.Logf("a's beacon: safety %d metrics, pass %v; a's ledger report: source parity %d missing of %d in the stream",
		len(safety.Metrics), safety.Pass, int(par.Value), par.N)
	t.Logf("50 posts queued with every broker down; imported %s after the brokers restarted; %d wakes, 0 no-op", took.Round(time.Millisecond), wakes.Load())
}

// TestFleetOfOneEmbedsItsBroker: fleet.embed runs a one-node broker inside
// the daemon; lanes are homed, posts land, fleet status reads the broker.
func TestFleetOfOneEmbedsItsBroker(t *testing.T) {
	url := fmt.Sprintf("nats://127.0.0.1:%d", freePort(t))
	d := startDaemon(t, "solo", url, "WAKEWHEEL_FLEET_EMBED="+t.TempDir(), "WAKEWHEEL_FLEET_REPLICAS=1")
	openLanes(t, d, "me")
	if res, err := d.client.Post(ctxFor(t, 10*time.Second), api.PostRequest{Lane: "me", Class: "human", ID: "1", Body: "x"}); err != nil || res.Route != fleet.PostedLocal {
		t.Fatalf("post: %+v %v", res, err)
	}
	var out []byte
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		cmd := exec.Command(wakewheelBin(t), "fleet", "status", "--json")
		cmd.Env = append(os.Environ(), d.env...)
		var err error
		out, err = cmd.Output()
		var v struct {
			Member fleet.MemberStatus `json:"member"`
			Fleet  fleet.FleetStatus  `json:"fleet"`
		}
		if err == nil && json.Unmarshal(out, &v) == nil && v.Member.BrokerUp && len(v.Fleet.Hosts) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("fleet status of a fleet of one: %v\n%s", err, out)
		}
	}
	node := brokerChild(t, d)
	d.kill() // the embedded node dies with the daemon (SIGKILL); a restart brings both back
	for deadline := time.Now().Add(20 * time.Second); supervise.Alive(node); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the embedded broker node %d outlived its daemon killed with SIGKILL", node)
		}
	}
	d.start()
	openLanes(t, d, "me")
	if posts := lanePosts(t, d, "me"); len(posts) != 1 {
		t.Fatalf("after a restart: %d posts", len(posts))
	}
}

// brokerChild is the pid of the broker program the daemon d runs as its
// child (fleet.embed): its node is never inside the daemon's process.
func brokerChild(t *testing.T, d *daemon) int {
	t.Helper()
	d.mu.Lock()
	parent := d.cmd.Process.Pid
	d.mu.Unlock()
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	var kids []int
	for _, f := range stats {
		b, err := os.ReadFile(f)
		i := bytes.LastIndexByte(b, ')')
		if err != nil || i < 0 || !bytes.Contains(b[:i], []byte("(wakewheel-broke")) {
			continue
		}
		var state byte
		var pid, ppid int
		if _, err := fmt.Sscanf(string(b[i+2:]), "%c %d", &state, &ppid); err != nil || ppid != parent {
			continue
		}
		if _, err := fmt.Sscanf(string(b), "%d", &pid); err == nil {
			kids = append(kids, pid)
		}
	}
	if len(kids) != 1 {
		t.Fatalf("daemon %d runs %d broker programs (%v), want its one embedded node", parent, len(kids), kids)
	}
	return kids[0]
}
