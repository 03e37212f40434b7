package liveness

import (
	"context"
	"encoding/json"
	"flag"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/wakewheel/wakewheel/internal/clock"
	"github.com/wakewheel/wakewheel/internal/enginetest"
	"github.com/wakewheel/wakewheel/scheduler"
	"github.com/wakewheel/wakewheel/store"
)

var monitorSeed = flag.Uint64("monitor.seed", 0, "seed of TestMonitorFakeClock (0: from the clock; printed by the test)")

func memEngine(t *testing.T, now time.Time) (*scheduler.Engine, *store.DB) {
	t.Helper()
	db, eng := enginetest.Mem(t, scheduler.Options{}, now)
	return eng, db
}

// step runs the engine synchronously up to now, as the runner would: it
// wakes at each due time on the way, and runs what fell due.
func step(eng *scheduler.Engine, now time.Time) {
	for {
		at, ok := eng.Next()
		if !ok || at.After(now) {
			at = now
		}
		eng.Due(at)
		for {
			job, ok := eng.NextJob(at)
			if !ok {
				break
			}
			eng.Finish(at, job, eng.Run(context.Background(), job))
		}
		if !at.Before(now) {
			return
		}
	}
}

// TestMonitorFakeClock replays a simulated day of beacons from three hosts
// that beacon every period, late by up to just under the grace: no alarm.
// Then one host goes silent: the alarm comes exactly period + grace after
// its last beacon (at most one wheel tick late), and only once.
// seededMonitor is a monitor on a memory engine at a fixed start time, with
// a random source from -monitor.seed (or the clock, said in the log so the
// run can be replayed); stream tells the tests' sources apart.
func seededMonitor(t *testing.T, stream uint64, period, grace time.Duration) (*rand.Rand, time.Time, *scheduler.Engine, *Monitor) {
	t.Helper()
	seed := *monitorSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (replay: go test ./liveness -run %s -monitor.seed=%d)", seed, t.Name(), seed)
	t0 := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	eng, _ := memEngine(t, t0)
	m, err := NewMonitor(MonitorOptions{Period: period, Grace: grace, Logger: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	m.Register(eng)
	return rand.New(rand.NewPCG(seed, stream)), t0, eng, m
}

func TestMonitorFakeClock(t *testing.T) {
	const period, grace = time.Minute, 30 * time.Second
	rng, t0, eng, m := seededMonitor(t, 1, period, grace)

	hosts := []string{"alpha", "beta", "gamma"}
	next := map[string]time.Time{}
	for _, h := range hosts {
		next[h] = t0.Add(time.Duration(rng.Int64N(int64(period))))
	}
	end := t0.Add(24 * time.Hour)
	beacons := 0
	var last time.Time // of alpha
	for {
		h := hosts[0]
		for _, x := range hosts[1:] {
			if next[x].Before(next[h]) {
				h = x
			}
		}
		now := next[h]
		if now.After(end) {
			break
		}
		step(eng, now)
		if h == "alpha" && now.After(end.Add(-time.Hour)) {
			next[h] = end.Add(48 * time.Hour) // alpha dies an hour before the end
			continue
		}
		if _, err := m.seen(eng, now, h, ViaHTTP, "success", ""); err != nil {
			t.Fatal(err)
		}
		if h == "alpha" {
			last = now
		}
		beacons++
		// the next beacon: a period later, up to 1 s early or just under grace late
		next[h] = now.Add(period + time.Duration(rng.Int64N(int64(grace))) - time.Second)
	}
	alarms := m.Alarms()
	if len(alarms) != 1 || alarms[0].Host != "alpha" || alarms[0].Reason != "absent" {
		t.Fatalf("%d beacons over a simulated day, alarms %+v; want exactly one, for alpha", beacons, alarms)
	}
	late := alarms[0].At.Sub(last.Add(period + grace))
	if late < 0 || late > time.Millisecond {
		t.Fatalf("alarm at %v after alpha's last beacon, want period+grace = %v (at most one tick late)", alarms[0].At.Sub(last), period+grace)
	}
	t.Logf("%d beacons over a simulated day: no false alarm; alpha's absence alarmed %v after its last beacon",
		beacons, alarms[0].At.Sub(last))

	// A fail beacon alarms at once; alpha's return is reported.
	now := end.Add(time.Minute)
	step(eng, now)
	raised, err := m.seen(eng, now, "alpha", ViaHTTP, "fail", "disk full")
	if err != nil || len(raised) != 2 || raised[0].Reason != "recovered" || raised[1].Reason != "fail" {
		t.Fatalf("alpha back with a fail: %+v %v", raised, err)
	}
}

// TestBeaconToMonitor wires a daemon's beacon to a monitor over HTTP, on
// the real clock with short periods: a healthy run raises nothing, a
// recorded alert turns the next beacon into a fail, and stopping the
// daemon alarms within period + grace. The grace is long against the
// period so that a beacon held up on a loaded machine is not an absence;
// the exact timing of the alarm is TestMonitorFakeClock's.
func TestBeaconToMonitor(t *testing.T) {
	const period, grace = 40 * time.Millisecond, time.Second
	var mu sync.Mutex
	var hooked []Alarm
	webhook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var a Alarm
		json.NewDecoder(r.Body).Decode(&a)
		a.At = time.Now() // arrival
		mu.Lock()
		hooked = append(hooked, a)
		mu.Unlock()
	}))
	defer webhook.Close()

	meng, _ := memEngine(t, time.Now())
	key := []byte("0123456789abcdef0123456789abcdef")
	m, err := NewMonitor(MonitorOptions{Period: period, Grace: grace, Webhook: webhook.URL, Logger: zerolog.Nop(),
		Keys: Keys{"dev1": key}})
	if err != nil {
		t.Fatal(err)
	}
	m.Register(meng)
	mr := scheduler.Start(meng, clock.Real{})
	defer mr.Stop()
	m.Attach(mr)
	msrv := httptest.NewServer(m.Handler())
	defer msrv.Close()

	deng, ddb := memEngine(t, time.Now())
	b, err := NewBeacon(BeaconOptions{URL: msrv.URL + "/ping/dev1", Host: "dev1", Period: period, Logger: zerolog.Nop(),
		Key: key, Clock: clock.Real{}}, ddb)
	if err != nil {
		t.Fatal(err)
	}
	deng.Register(BeaconKind, b.Handler())
	dr := scheduler.Start(deng, clock.Real{})
	if err := b.Start(context.Background(), dr); err != nil {
		t.Fatal(err)
	}
	time.Sleep(600 * time.Millisecond)
	if as := m.Alarms(); len(as) != 0 {
		t.Fatalf("alarms during a healthy run: %+v", as)
	}
	dr.Do(context.Background(), func(e *scheduler.Engine, now time.Time) { e.Alert(now, "action_failed", "x", "boom") })
	waitFor(t, "a fail beacon", func() bool {
		as := m.Alarms()
		return len(as) > 0 && as[len(as)-1].Reason == "fail"
	})
	if as := m.Alarms(); len(as) != 1 {
		t.Fatalf("alarms up to the fail beacon: %+v; want the fail alone", as)
	}
	ok, failed := b.Sent()
	// the daemon dies: no more beacons
	dr.Stop()
	b.Stop()
	died := time.Now()
	waitFor(t, "the absence alarm", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(hooked) == 2
	})
	mu.Lock()
	a := hooked[1]
	mu.Unlock()
	if a.Reason != "absent" || a.Host != "dev1" {
		t.Fatalf("webhook got %+v", a)
	}
	// The last beacon was at most a period before the daemon died, so the
	// alarm is due by died+period+grace; the slack is the webhook's
	// delivery on a loaded machine.
	if d := a.At.Sub(died); d > period+grace+500*time.Millisecond {
		t.Errorf("alarm %v after the daemon died; want within period+grace %v (+500ms)", d, period+grace)
	}
	t.Logf("%d beacons sent (%d failed); alarm %v after the daemon stopped (period+grace %v)",
		ok, failed, a.At.Sub(died), period+grace)
}
