package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/wakewheel/wakewheel/liveness"
)

// rssKB is the resident set of process pid, in KiB (VmRSS).
func rssKB(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Skipf("no /proc to measure memory: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			return n
		}
	}
	t.Fatal("no VmRSS")
	return 0
}

type monitorStatus struct {
	Hosts   []liveness.HostStatus `json:"hosts"`
	Alarms  []liveness.Alarm      `json:"alarms"`
	Refused uint64                `json:"refused"`
}

func (m monitorProc) status(t *testing.T) monitorStatus {
	t.Helper()
	resp, err := http.Get("http://" + m.addr + "/status")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var st monitorStatus
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		t.Fatal(err)
	}
	return st
}

// TestMonitorRefusesAFloodOfUnauthenticatedPings: a real monitor with a
// key for devbox, and a real daemon beaconing to it signed with that key.
// 20,000 unsigned pings for made-up hosts (a fifth of them fail pings),
// and forged pings for devbox itself: every one is refused (401), no host
// is added, no alarm is raised, the monitor's memory stays bounded, and
// devbox, SIGKILLed afterwards, still alarms within period + grace.
func TestMonitorRefusesAFloodOfUnauthenticatedPings(t *testing.T) {
	if testing.Short() {
		t.Skip("real processes and real time")
	}
	const flood = 20000
	const window = 2 * time.Second // period 1 s + grace 1 s
	h := newHome(t)
	hooks := newAlarms(t)
	cmdLog := filepath.Join(h.dir, "alarm-cmd.log")
	mon := startMonitorProc(t, h, "1s", "1s", "--keys", beaconKeys(t, h, "devbox"), "--webhook", hooks.srv.URL,
		"--alarm-cmd", `echo "$WAKEWHEEL_ALARM_HOST $WAKEWHEEL_ALARM_REASON" >> `+cmdLog)
	h.env = append(h.env, "WAKEWHEEL_BEACON_URL=http://"+mon.addr+"/ping/devbox", "WAKEWHEEL_BEACON_PERIOD=1s",
		"WAKEWHEEL_BEACON_HOST=devbox")
	d := h.start()
	time.Sleep(1500 * time.Millisecond) // devbox's signed beacons arrive
	before := rssKB(t, mon.cmd.Process.Pid)

	var codes sync.Map
	var sent atomic.Int64
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 32}, Timeout: 10 * time.Second}
	start := time.Now()
	var wg sync.WaitGroup
	for w := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < flood; i += 32 {
				url := fmt.Sprintf("http://%s/ping/fake-%d", mon.addr, i)
				switch {
				case i%5 == 0:
					url += "/fail"
				case i%97 == 0: // forged: devbox's name, no valid signature
					url = "http://" + mon.addr + "/ping/devbox/fail"
				}
				req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader("forged"))
				if i%2 == 0 {
					req.Header.Set("Authorization", "WW1 t="+strconv.FormatInt(time.Now().UnixMilli(), 10)+",mac="+strings.Repeat("ab", 32))
				}
				resp, err := client.Do(req)
				if err != nil {
					codes.Store("error: "+err.Error(), true)
					continue
				}
				resp.Body.Close()
				sent.Add(1)
				n, _ := codes.LoadOrStore(resp.StatusCode, new(atomic.Int64))
				n.(*atomic.Int64).Add(1)
			}
		}()
	}
	wg.Wait()
	took := time.Since(start)
	after := rssKB(t, mon.cmd.Process.Pid)
	codes.Range(func(k, v any) bool {
		if k != http.StatusUnauthorized {
			t.Errorf("answered %v to a flood ping (want only 401)", k)
		}
		return true
	})
	time.Sleep(500 * time.Millisecond)
	st := mon.status(t)
	if sent.Load() != flood || st.Refused < flood {
		t.Fatalf("%d pings answered, %d refused; want %d refused", sent.Load(), st.Refused, flood)
	}
	if len(st.Hosts) != 1 || st.Hosts[0].Host != "devbox" || st.Hosts[0].Down {
		t.Fatalf("after the flood the monitor keeps %d hosts: %+v; want devbox alone, up", len(st.Hosts), st.Hosts[:min(3, len(st.Hosts))])
	}
	if n := len(hooks.all()); n != 0 || len(st.Alarms) != 0 {
		t.Fatalf("the flood raised %d alarms: %+v", n, st.Alarms)
	}
	if out, _ := os.ReadFile(cmdLog); len(out) != 0 {
		t.Fatalf("the alarm command ran during the flood:\n%s", out)
	}
	// Bounded: nothing of a refused ping is kept; what grows is the
	// runtime's buffers for 32 connections.
	if grew := after - before; grew > 32<<10 {
		t.Errorf("monitor RSS grew %d KiB over the flood (%d -> %d KiB); want under 32 MiB", grew, before, after)
	}
	t.Logf("%d unauthenticated pings in %v (%.0f/s): all 401, %d refused, 0 alarms, hosts kept 1; monitor RSS %d -> %d KiB",
		flood, took.Round(time.Millisecond), float64(flood)/took.Seconds(), st.Refused, before, after)

	// The real host still alarms.
	d.cmd.Process.Signal(syscall.SIGKILL)
	killed := time.Now()
	d.cmd.Wait()
	d.log.Close()
	a := hooks.next(t, 3*time.Second)
	if a.Reason != "absent" || a.Host != "devbox" {
		t.Fatalf("alarm %+v, want devbox absent", a)
	}
	delay := a.At.Sub(killed)
	if delay > window+250*time.Millisecond {
		t.Errorf("alarm %v after SIGKILL, want within period+grace %v", delay, window)
	}
	t.Logf("devbox SIGKILLed after the flood: alarm after %v (period+grace %v)", delay.Round(time.Millisecond), window)
}
