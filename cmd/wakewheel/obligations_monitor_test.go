package main

import (
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/wakewheel/wakewheel/liveness"
)

// alarms collects the monitor's webhook calls with their arrival times.
type alarms struct {
	mu   sync.Mutex
	got  []liveness.Alarm
	srv  *httptest.Server
	seen chan struct{}
}

func newAlarms(t *testing.T) *alarms {
	a := &alarms{seen: make(chan struct{}, 100)}
	a.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var al liveness.Alarm
		if err := json.NewDecoder(r.Body).Decode(&al); err != nil {
			t.Errorf("webhook body: %v", err)
		}
		al.At = time.Now() // arrival
		a.mu.Lock()
		a.got = append(a.got, al)
		a.mu.Unlock()
		a.seen <- struct{}{}
	}))
	t.Cleanup(a.srv.Close)
	return a
}

func (a *alarms) all() []liveness.Alarm {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]liveness.Alarm(nil), a.got...)
}

// next waits for the next alarm.
func (a *alarms) next(t *testing.T, within time.Duration) liveness.Alarm {
	t.Helper()
	select {
	case <-a.seen:
		all := a.all()
		return all[len(all)-1]
	case <-time.After(within):
		t.Fatalf("no alarm within %v", within)
		return liveness.Alarm{}
	}
}

// beaconKeys writes a key for host where its daemon reads it (0600) and
// the monitor's keys file, and points the home's beacon at the key.
func beaconKeys(t *testing.T, h *home, host string) (keysFile string) {
	t.Helper()
	key := "0f1e2d3c4b5a69788796a5b4c3d2e1f0" + host
	keyFile := filepath.Join(h.dir, "beacon.key")
	keysFile = filepath.Join(h.dir, "monitor.keys")
	if err := os.WriteFile(keyFile, []byte(key+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keysFile, []byte("# host key\n"+host+" "+key+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	h.env = append(h.env, "WAKEWHEEL_BEACON_KEY_FILE="+keyFile)
	return keysFile
}

// startMonitor runs `wakewheel monitor` and waits until it answers.
func startMonitor(t *testing.T, h *home, period, grace string, args ...string) string {
	return startMonitorProc(t, h, period, grace, args...).addr
}

// monitorProc is a running `wakewheel monitor`.
type monitorProc struct {
	addr string
	cmd  *exec.Cmd
}

func startMonitorProc(t *testing.T, h *home, period, grace string, args ...string) monitorProc {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := h.command(append([]string{"monitor", "--listen", addr, "--period", period, "--grace", grace}, args...)...)
	logf, _ := os.Create(filepath.Join(h.dir, "monitor.log"))
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
		logf.Close()
	})
	for i := 0; ; i++ {
		resp, err := http.Get("http://" + addr + "/status")
		if err == nil {
			resp.Body.Close()
			return monitorProc{addr: addr, cmd: cmd}
		}
		if i > 1000 {
			t.Fatalf("monitor does not answer: %v", err)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestMonitorAlarmsWithinPeriodPlusGraceAfterSIGKILL: a real daemon beacons
// every second (beacon.period's minimum) to a real monitor (period 1 s,
// grace 300 ms). While it runs, nothing alarms; each time it is SIGKILLed,
// the monitor's webhook and alarm command fire within period + grace; when
// it comes back, the monitor says so.
func TestMonitorAlarmsWithinPeriodPlusGraceAfterSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("real processes and real time")
	}
	// A grace of a whole period: on a loaded 2-core machine a beacon can be
	// late by a few hundred ms, and a false alarm here would be the test's.
	const window = 2 * time.Second
	h := newHome(t)
	hooks := newAlarms(t)
	cmdLog := filepath.Join(h.dir, "alarm-cmd.log")
	addr := startMonitor(t, h, "1s", "1s", "--keys", beaconKeys(t, h, "devbox"), "--webhook", hooks.srv.URL,
		"--alarm-cmd", `echo "$WAKEWHEEL_ALARM_HOST $WAKEWHEEL_ALARM_REASON" >> `+cmdLog)
	h.env = append(h.env, "WAKEWHEEL_BEACON_URL=http://"+addr+"/ping/devbox", "WAKEWHEEL_BEACON_PERIOD=1s",
		"WAKEWHEEL_BEACON_HOST=devbox")
	var delays []time.Duration
	for round := range 3 {
		d := h.start()
		if round > 0 {
			if a := hooks.next(t, 2*time.Second); a.Reason != "recovered" {
				t.Fatalf("round %d: after the restart, alarm %+v; want recovered", round, a)
			}
		}
		time.Sleep(2*time.Second + time.Duration(round)*330*time.Millisecond) // healthy; kill at another phase each round
		if n := len(hooks.all()); n != 2*round {
			t.Fatalf("round %d: %d alarms while the daemon was healthy: %+v", round, n-2*round, hooks.all())
		}
		d.cmd.Process.Signal(syscall.SIGKILL)
		killed := time.Now()
		d.cmd.Wait()
		d.log.Close()
		a := hooks.next(t, 3*time.Second)
		delay := a.At.Sub(killed)
		delays = append(delays, delay)
		if a.Reason != "absent" || a.Host != "devbox" {
			t.Fatalf("round %d: alarm %+v, want devbox absent", round, a)
		}
		// period + grace after the last beacon, which came at most a
		// period before the kill; 250 ms for a wheel tick and the webhook's
		// HTTP round trip on a busy machine.
		if delay > window+250*time.Millisecond {
			t.Errorf("round %d: alarm %v after SIGKILL, want within period+grace %v", round, delay, window)
		}
	}
	// The command is a sink of its own, beside the webhook: it may
	// finish after the webhook's call.
	var out []byte
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		out, _ = os.ReadFile(cmdLog)
		if strings.Count(string(out), "devbox absent") >= 3 || time.Now().After(deadline) {
			break
		}
	}
	if got := strings.Count(string(out), "devbox absent"); got != 3 {
		t.Errorf("alarm command ran %d times for an absence, want 3:\n%s", got, out)
	}
	t.Logf("alarm after SIGKILL: %v (period+grace %v)", delays, window)
}

// TestMonitorHealthyRunRaisesNoAlarm: 6 s of a daemon beaconing every
// second to a monitor expecting 1 s + 500 ms grace: not one alarm. (The
// fake-clock day of liveness.TestMonitorFakeClock and the 40 ms periods of
// liveness.TestBeaconToMonitor cover longer runs and shorter periods.)
func TestMonitorHealthyRunRaisesNoAlarm(t *testing.T) {
	if testing.Short() {
		t.Skip("real processes and real time")
	}
	h := newHome(t)
	hooks := newAlarms(t)
	addr := startMonitor(t, h, "1s", "500ms", "--keys", beaconKeys(t, h, "devbox"), "--webhook", hooks.srv.URL)
	h.env = append(h.env, "WAKEWHEEL_BEACON_URL=http://"+addr+"/ping/devbox", "WAKEWHEEL_BEACON_PERIOD=1s",
		"WAKEWHEEL_BEACON_HOST=devbox")
	d := h.start()
	time.Sleep(6 * time.Second)
	resp, err := http.Get("http://" + addr + "/status")
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		Hosts  []liveness.HostStatus
		Alarms []liveness.Alarm
	}
	json.NewDecoder(resp.Body).Decode(&st)
	resp.Body.Close()
	d.stop(t)
	if len(hooks.all()) != 0 || len(st.Alarms) != 0 {
		t.Fatalf("alarms during a healthy run: %+v", st.Alarms)
	}
	if len(st.Hosts) != 1 || st.Hosts[0].Beacons < 6 {
		t.Fatalf("monitor saw %+v; want at least 6 beacons (a start, then one a second) from devbox", st.Hosts)
	}
	t.Logf("6 s healthy: %d beacons from devbox, no alarm", st.Hosts[0].Beacons)
}
