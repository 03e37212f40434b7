package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/wakewheel/wakewheel/api"
)

// freePort returns a loopback address nothing listens on (a port the kernel
// just handed out and that was closed again).
func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// TestMetricsEndpoint runs a daemon with metrics.listen on loopback, lets a
// reminder fire, and scrapes the wakewheel_* series and /healthz.
func TestMetricsEndpoint(t *testing.T) {
	h := newHome(t)
	addr := freePort(t)
	h.env = append(h.env, "WAKEWHEEL_METRICS_LISTEN="+addr)
	d := h.start()
	defer d.stop(t)
	c := h.client()
	ctx := context.Background()
	if _, err := c.Remind(ctx, api.ReminderRequest{Name: "soon", In: "1ms"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Remind(ctx, api.ReminderRequest{Name: "later", In: "1h"}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the reminder to fire", func() bool {
		fires, err := c.Fires(ctx, 0, 10)
		return err == nil && len(fires) == 1
	})
	if out, err := h.run("post", "--create", "--lane", "m", "--class", "peer", "--locator", "repo=r,issue=1", "hello"); err != nil {
		t.Fatalf("post: %v\n%s", err, out)
	}
	if out, err := h.run("wait", "--lane", "m", "--timeout", "5s"); err != nil {
		t.Fatalf("wait: %v\n%s", err, out)
	}
	code, body := get(t, "http://"+addr+"/metrics")
	if code != 200 {
		t.Fatalf("/metrics: %d %s", code, body)
	}
	for _, want := range []string{
		`wakewheel_deadlines_pending{kind="reminder"} 1`,
		`wakewheel_deadlines_fired_total 1`,
		`wakewheel_action_runs_total{outcome="done"} 1`,
		`wakewheel_fire_lateness_seconds_count 1`,
		`wakewheel_jobs_waiting 0`,
		`wakewheel_engine_up 1`,
		`wakewheel_build_info{version="dev"} 1`,
		`wakewheel_obligations_unconsumed{class="peer",lane="m"} 1`,
		`wakewheel_wakes_total{lane="m"} 1`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	if t.Failed() {
		t.Logf("/metrics:\n%s", body)
	}
	if code, body := get(t, "http://"+addr+"/healthz"); code != 200 || body != "ok\n" {
		t.Errorf("/healthz: %d %q", code, body)
	}
}

// TestMetricsRefuseBeyondLoopback: a non-loopback metrics.listen stops the
// daemon at start with a message that names the fix.
func TestMetricsRefuseBeyondLoopback(t *testing.T) {
	h := newHome(t)
	h.env = append(h.env, "WAKEWHEEL_METRICS_LISTEN=0.0.0.0:9464")
	out, err := h.run("daemon")
	if err == nil || !strings.Contains(out, "metrics.listen") || !strings.Contains(out, "metrics.allow_remote") {
		t.Fatalf("daemon with a non-loopback metrics.listen: %v\n%s", err, out)
	}
}

// TestMetricsListenFailureIsAnAlert: a port already taken leaves the daemon
// running, with the alert metrics_listen_failed.
func TestMetricsListenFailureIsAnAlert(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	h := newHome(t)
	h.env = append(h.env, "WAKEWHEEL_METRICS_LISTEN="+taken.Addr().String())
	d := h.start()
	defer d.stop(t)
	alerts, err := h.client().Alerts(context.Background(), 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(alerts) != 1 || alerts[0].Code != "metrics_listen_failed" {
		t.Fatalf("alerts %+v, want metrics_listen_failed", alerts)
	}
}
