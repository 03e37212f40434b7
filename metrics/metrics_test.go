package metrics_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/wakewheel/wakewheel/metrics"
)

func snapshot() metrics.Snapshot {
	return metrics.Snapshot{
		PendingByKind: map[string]int{"reminder": 3, "burst": 1},
		Waiting:       2,
		Fired:         40,
		RunsByOutcome: map[string]uint64{"done": 38, "retry": 2},
		AlertsByCode:  map[string]uint64{"action_failed": 1},
		Lateness:      []time.Duration{500 * time.Microsecond, 3 * time.Millisecond, 2 * time.Hour},
		Backlog:       map[string]int{"/src/repo": 17},
		Unconsumed:    map[metrics.LaneClass]int{{Lane: "dev", Class: "human"}: 2},
		Wakes:         map[string]uint64{"dev": 5},
		NoopWakes:     map[string]uint64{"dev": 1},
	}
}

func TestSeriesFromASnapshot(t *testing.T) {
	calls := 0
	m := metrics.New(func(context.Context) (metrics.Snapshot, error) {
		calls++
		s := snapshot()
		if calls > 1 {
			s.Lateness = nil // observed once, at the first scrape
		}
		return s, nil
	}, "v1.2.3")
	want := `
# HELP wakewheel_deadlines_pending Pending deadlines, by kind.
# TYPE wakewheel_deadlines_pending gauge
wakewheel_deadlines_pending{kind="burst"} 1
wakewheel_deadlines_pending{kind="reminder"} 3
`
	for range 2 {
		if err := testutil.GatherAndCompare(m.Registry(), strings.NewReader(want), "wakewheel_deadlines_pending"); err != nil {
			t.Fatal(err)
		}
	}
	got, err := testutil.GatherAndCount(m.Registry(),
		"wakewheel_deadlines_pending", "wakewheel_jobs_waiting", "wakewheel_deadlines_fired_total",
		"wakewheel_action_runs_total", "wakewheel_alerts_total", "wakewheel_backlog_paths",
		"wakewheel_obligations_unconsumed", "wakewheel_wakes_total", "wakewheel_noop_wakes_total",
		"wakewheel_engine_up", "wakewheel_build_info", "wakewheel_fire_lateness_seconds")
	if err != nil {
		t.Fatal(err)
	}
	if got != 2+1+1+2+1+1+1+1+1+1+1+1 {
		t.Errorf("%d series, want 14", got)
	}
	text := scrape(t, httptest.NewServer(m.Handler(nil)), "/metrics")
	for _, line := range []string{
		`wakewheel_fire_lateness_seconds_count 3`,
		`wakewheel_fire_lateness_seconds_bucket{le="0.001"} 1`,
		`wakewheel_fire_lateness_seconds_bucket{le="0.005"} 2`,
		`wakewheel_obligations_unconsumed{class="human",lane="dev"} 2`,
		`wakewheel_build_info{version="v1.2.3"} 1`,
		`wakewheel_engine_up 1`,
		`go_goroutines `,
	} {
		if !strings.Contains(text, line) {
			t.Errorf("/metrics lacks %q", line)
		}
	}
}

func TestAFailingSourceKeepsTheScrapeUp(t *testing.T) {
	m := metrics.New(func(context.Context) (metrics.Snapshot, error) {
		return metrics.Snapshot{}, errors.New("runner stopped")
	}, "dev")
	srv := httptest.NewServer(m.Handler(func(context.Context) error { return errors.New("runner stopped") }))
	defer srv.Close()
	if text := scrape(t, srv, "/metrics"); !strings.Contains(text, "wakewheel_engine_up 0") {
		t.Errorf("engine_up is not 0:\n%s", text)
	}
	resp, err := http.Get(srv.URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), "runner stopped") {
		t.Errorf("healthz: %d %q", resp.StatusCode, body)
	}
}

func TestListenRefusesBeyondLoopback(t *testing.T) {
	for _, addr := range []string{":0", "0.0.0.0:0", "[::]:0"} {
		if ln, err := metrics.Listen(addr, false); !errors.Is(err, metrics.ErrNotLoopback) {
			if ln != nil {
				ln.Close()
			}
			t.Errorf("Listen(%q): %v, want ErrNotLoopback", addr, err)
		}
	}
	ln, err := metrics.Listen("127.0.0.1:0", false)
	if err != nil {
		t.Fatal(err)
	}
	ln.Close()
	ln, err = metrics.Listen("0.0.0.0:0", true)
	if err != nil {
		t.Fatalf("allow_remote: %v", err)
	}
	ln.Close()
}

func TestServeHealthz(t *testing.T) {
	m := metrics.New(func(context.Context) (metrics.Snapshot, error) { return snapshot(), nil }, "dev")
	ln, err := metrics.Listen("127.0.0.1:0", false)
	if err != nil {
		t.Fatal(err)
	}
	srv := metrics.Serve(ln, m.Handler(func(context.Context) error { return nil }))
	defer srv.Shutdown(context.Background())
	resp, err := http.Get("http://" + ln.Addr().String() + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != "ok\n" {
		t.Errorf("healthz: %d %q", resp.StatusCode, body)
	}
}

func scrape(t *testing.T, srv *httptest.Server, path string) string {
	t.Helper()
	resp, err := http.Get(srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("%s: %d %s", path, resp.StatusCode, body)
	}
	return string(body)
}
