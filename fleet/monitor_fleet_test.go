//go:build fleet

package fleet_test

import (
	"encoding/json"
	"flag"
	"fmt"
	"github.com/wakewheel/wakewheel/fleet"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wakewheel/wakewheel/liveness"
)

var healthyPeriods = flag.Int("fleet.healthy-periods", 60, "beacon periods (1 s) of TestFleetMonitorHealthyRunAndBlindness's healthy run")

// The daemons beacon every second with a grace of two (startDaemon); the
// monitor expects the same.
const monPeriod, monGrace = time.Second, 2 * time.Second

type monitorProc struct {
	*proc
	addr   string
	alarms string // the alarm command's log: one "host reason" line per alarm
}

func startMonitor(t *testing.T, urls string, extra ...string) *monitorProc {
	t.Helper()
	dir := t.TempDir()
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	alarms := filepath.Join(dir, "alarms")
	p := newProc(t, "monitor", dir, []string{"WAKEWHEEL_FLEET_URL=" + urls, "WAKEWHEEL_LOG_FORMAT=json", "XDG_CONFIG_HOME=" + dir},
		append([]string{"monitor", "--fleet", "--listen", addr, "--period", monPeriod.String(), "--grace", monGrace.String(),
			"--alarm-cmd", `echo "$WAKEWHEEL_ALARM_HOST $WAKEWHEEL_ALARM_REASON" >> ` + alarms}, extra...)...)
	p.start()
	return &monitorProc{proc: p, addr: addr, alarms: alarms}
}

func (m *monitorProc) status(t *testing.T) (hosts []liveness.HostStatus) {
	resp, err := http.Get("http://" + m.addr + "/status")
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	var st struct {
		Hosts []liveness.HostStatus `json:"hosts"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&st)
	return st.Hosts
}

// waitSeen waits until the monitor has seen at least two beacons of each host.
func (m *monitorProc) waitSeen(t *testing.T, hosts ...string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		seen := 0
		for _, h := range m.status(t) {
			for _, want := range hosts {
				if h.Host == want && h.Beacons >= 2 {
					seen++
				}
			}
		}
		if seen == len(hosts) {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("the monitor did not see %v beaconing: %+v\n%s", hosts, m.status(t), m.tail())
}

// sight is the monitor's own account of its blind spells.
func (m *monitorProc) sight(t *testing.T) liveness.SightStatus {
	resp, err := http.Get("http://" + m.addr + "/status")
	if err != nil {
		t.Fatalf("monitor status: %v", err)
	}
	defer resp.Body.Close()
	var st struct {
		Sight liveness.SightStatus `json:"sight"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		t.Fatalf("monitor status: %v", err)
	}
	return st.Sight
}

func (m *monitorProc) lines() []string {
	b, _ := os.ReadFile(m.alarms)
	s := strings.TrimSpace(string(b))
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// TestFleetMonitorAlarmsWithinPeriodPlusGrace: B's daemon and the beacons
// bucket's stream leader are SIGKILLed together; the monitor alarms that B
// is absent within period + grace (its own deadline, not the bucket's TTL
// marker), plus the time the monitor itself was blind if the kill blinded
// it (its node was the one killed), and never alarms the live hosts a and
// c, whose beacons keep coming on the core subject through the election.
func TestFleetMonitorAlarmsWithinPeriodPlusGrace(t *testing.T) {
	c := newCluster(t, 3, t.TempDir())
	a := startDaemon(t, "a", c.urls())
	b := startDaemon(t, "b", c.urls())
	startDaemon(t, "c", c.urls())
	openLanes(t, a, "ops")
	mon := startMonitor(t, c.urls(), "--alert-lane", "ops")
	mon.waitSeen(t, "a", "b", "c")
	leader := c.leader("KV_" + fleet.BeaconsBucket)
	t0 := time.Now()
	b.kill()
	c.node(leader).kill()
	var took time.Duration
	for {
		if slicesContains(mon.lines(), "b absent") {
			took = time.Since(t0)
			break
		}
		if time.Since(t0) > 30*time.Second {
			t.Fatalf("no absence alarm for b within 30s; alarms %v\n%s", mon.lines(), mon.tail())
		}
		time.Sleep(20 * time.Millisecond)
	}
	blind := mon.sight(t)
	// Watch the live hosts through the election and well past it: the
	// bucket has a leader again, and two more windows pass.
	c.leader("KV_" + fleet.BeaconsBucket)
	time.Sleep(2 * (monPeriod + monGrace))
	c.node(leader).start()
	// The alarm is also an alert obligation in the operator's lane on a.
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		found := false
		for _, e := range lanePosts(t, a, "ops") {
			found = found || strings.HasPrefix(e.ID, "alarm-b-absent-")
		}
		if found {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no alert obligation for b's absence in lane ops on a\n%s", mon.tail())
		}
	}
	limit := monPeriod + monGrace
	allowance := time.Duration(blind.Total * float64(time.Second))
	t.Logf("b SIGKILLed with the beacons leader %s: alarm after %s (period + grace = %s; the monitor was blind %s in %d spells); over %s: alarms %v",
		leader, took.Round(time.Millisecond), limit, allowance.Round(time.Millisecond), blind.Episodes,
		time.Since(t0).Round(time.Second), mon.lines())
	for _, l := range mon.lines() {
		if l == "a absent" || l == "c absent" {
			t.Errorf("live host falsely alarmed: %q (all alarms %v)", l, mon.lines())
		}
	}
	// The deadline is the last beacon seen + period + grace (+ the blind
	// time), and the last beacon came before the kill; the slack is the
	// sight probe's confirmation and the alarm command's start on a loaded
	// machine.
	if took > limit+allowance+time.Second {
		t.Fatalf("alarm after %s, want within %s + %s blind (+1s for the probe and the alarm command)", took, limit, allowance)
	}
}

// TestFleetMonitorLosesItsOwnNode: the broker node the monitor is
// connected to is SIGKILLed with B's daemon. The monitor reconnects to
// another node; no absence alarms until a probe of its own comes back
// through the broker after the absence fell due. B is
// alarmed within period + grace + the time it was blind; a and c never.
func TestFleetMonitorLosesItsOwnNode(t *testing.T) {
	c := newCluster(t, 3, t.TempDir())
	startDaemon(t, "a", c.urls())
	b := startDaemon(t, "b", c.urls())
	startDaemon(t, "c", c.urls())
	mon := startMonitor(t, c.urls())
	mon.waitSeen(t, "a", "b", "c")
	node := c.connectedNode(mon.proc)
	t0 := time.Now()
	b.kill()
	c.node(node).kill()
	var took time.Duration
	for !slicesContains(mon.lines(), "b absent") {
		if time.Since(t0) > 30*time.Second {
			t.Fatalf("no absence alarm for b within 30s; alarms %v\n%s", mon.lines(), mon.tail())
		}
		time.Sleep(20 * time.Millisecond)
	}
	took = time.Since(t0)
	blind := mon.sight(t)
	time.Sleep(2 * (monPeriod + monGrace))
	limit := monPeriod + monGrace
	allowance := time.Duration(blind.Total * float64(time.Second))
	t.Logf("b SIGKILLed with the monitor's own node %s: alarm after %s (period + grace = %s; blind %s in %d spells); alarms %v",
		node, took.Round(time.Millisecond), limit, allowance.Round(time.Millisecond), blind.Episodes, mon.lines())
	for _, l := range mon.lines() {
		if l == "a absent" || l == "c absent" {
			t.Errorf("live host falsely alarmed: %q (all alarms %v)", l, mon.lines())
		}
	}
	if took > limit+allowance+time.Second {
		t.Fatalf("alarm after %s, want within %s + %s blind (+1s for the probe and the alarm command)", took, limit, allowance)
	}
}

// TestFleetMonitorHealthyRunAndBlindness: a healthy run of 60 beacon
// periods raises no alarm; with every broker down the monitor says it is
// blind.
func TestFleetMonitorHealthyRunAndBlindness(t *testing.T) {
	c := newCluster(t, 3, t.TempDir())
	for _, h := range []string{"a", "b", "c"} {
		startDaemon(t, h, c.urls())
	}
	mon := startMonitor(t, c.urls())
	mon.waitSeen(t, "a", "b", "c")
	periods := *healthyPeriods
	time.Sleep(time.Duration(periods) * monPeriod)
	healthy := mon.sight(t)
	if l := mon.lines(); len(l) != 0 {
		t.Fatalf("healthy run of %d periods raised %d alarms: %v", periods, len(l), l)
	}
	for _, h := range mon.status(t) {
		if h.Beacons < uint64(periods/2) {
			t.Errorf("host %s: %d beacons in %d periods", h.Host, h.Beacons, periods)
		}
	}
	t0 := time.Now()
	for _, n := range c.nodes {
		n.kill()
	}
	for !slicesContains(mon.lines(), "broker "+fleet.BlindReason) {
		if time.Since(t0) > 30*time.Second {
			t.Fatalf("no %s alarm with every broker down: %v\n%s", fleet.BlindReason, mon.lines(), mon.tail())
		}
		time.Sleep(50 * time.Millisecond)
	}
	blindAfter := time.Since(t0)
	// Blind, the monitor holds the hosts' absences: it cannot tell.
	time.Sleep(2 * (monPeriod + monGrace))
	if l := mon.lines(); len(l) != 1 {
		t.Fatalf("with every broker down the monitor raised %v; want %s alone (the hosts' absences are held)", l, fleet.BlindReason)
	}
	t.Logf("0 alarms in %d healthy periods (the monitor's own probe late %d times, %.3fs blind in all); %s %s after every broker was SIGKILLed, and no absence while blind",
		periods, healthy.Episodes, healthy.Total, fleet.BlindReason, blindAfter.Round(time.Millisecond))
}

func slicesContains(lines []string, want string) bool {
	for _, l := range lines {
		if l == want {
			return true
		}
	}
	return false
}
