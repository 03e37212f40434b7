package liveness

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/wakewheel/wakewheel/internal/clock"
	"github.com/wakewheel/wakewheel/scheduler"
)

const testKey = "0123456789abcdef0123456789abcdef"

// authMonitor is a running monitor with a key for dev1, and its HTTP
// endpoints.
func authMonitor(t *testing.T, opts MonitorOptions) (*Monitor, *httptest.Server) {
	t.Helper()
	eng, _ := memEngine(t, time.Now())
	opts.Period, opts.Grace, opts.Logger = time.Hour, time.Hour, zerolog.Nop()
	if opts.Keys == nil && !opts.AllowUnauthenticated {
		opts.Keys = Keys{"dev1": []byte(testKey)}
	}
	m, err := NewMonitor(opts)
	if err != nil {
		t.Fatal(err)
	}
	m.Register(eng)
	r := scheduler.Start(eng, clock.Real{})
	t.Cleanup(r.Stop)
	m.Attach(r)
	srv := httptest.NewServer(m.Handler())
	t.Cleanup(srv.Close)
	return m, srv
}

func send(t *testing.T, srv *httptest.Server, path, auth, body string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, srv.URL+path, strings.NewReader(body))
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// Only a ping signed with its host's key, near the monitor's clock and
// later than the host's last one, is taken; every refusal records nothing.
func TestSignedPings(t *testing.T) {
	m, srv := authMonitor(t, MonitorOptions{})
	key := []byte(testKey)
	now := time.Now()
	good := Sign(key, "dev1", "success", now, "")
	cases := []struct {
		name, path, auth, body string
		want                   int
	}{
		{"signed", "/ping/dev1", good, "", 200},
		{"replayed", "/ping/dev1", good, "", 401},
		{"unsigned", "/ping/dev1", "", "", 401},
		{"another key", "/ping/dev1", Sign([]byte(strings.Repeat("x", 32)), "dev1", "success", now.Add(time.Second), ""), "", 401},
		{"another signal", "/ping/dev1/fail", Sign(key, "dev1", "success", now.Add(2*time.Second), ""), "", 401},
		{"another body", "/ping/dev1/fail", Sign(key, "dev1", "fail", now.Add(3*time.Second), "a"), "b", 401},
		{"too old", "/ping/dev1", Sign(key, "dev1", "success", now.Add(-time.Hour), ""), "", 401},
		{"unknown host", "/ping/dev2", Sign(key, "dev2", "success", now.Add(4*time.Second), ""), "", 401},
		{"signed fail", "/ping/dev1/fail", Sign(key, "dev1", "fail", now.Add(5*time.Second), "boom"), "boom", 200},
	}
	for _, tc := range cases {
		if got := send(t, srv, tc.path, tc.auth, tc.body); got != tc.want {
			t.Errorf("%s: HTTP %d, want %d", tc.name, got, tc.want)
		}
	}
	hs := m.Hosts()
	if len(hs) != 1 || hs[0].Host != "dev1" || hs[0].Beacons != 2 {
		t.Fatalf("hosts %+v; want dev1 with the two signed pings", hs)
	}
	if m.Refused() != 7 {
		t.Errorf("refused %d, want 7", m.Refused())
	}
	waitFor(t, "the signed fail's alarm", func() bool { return len(m.Alarms()) == 1 })
}

// A monitor without keys takes no HTTP ping unless told to; an open one
// is bounded by MaxHosts.
func TestOpenMonitorIsExplicitAndBounded(t *testing.T) {
	_, srv := authMonitor(t, MonitorOptions{Keys: Keys{}})
	if got := send(t, srv, "/ping/a", "", ""); got != 401 {
		t.Fatalf("a monitor with an empty key set took an unsigned ping: %d", got)
	}
	m, srv := authMonitor(t, MonitorOptions{AllowUnauthenticated: true, MaxHosts: 3})
	for i, want := range []int{200, 200, 200, 429, 429} {
		if got := send(t, srv, "/ping/h"+string(rune('a'+i)), "", ""); got != want {
			t.Errorf("host %d: HTTP %d, want %d", i+1, got, want)
		}
	}
	if got := send(t, srv, "/ping/ha", "", ""); got != 200 {
		t.Errorf("a known host over the cap: %d", got)
	}
	if len(m.Hosts()) != 3 {
		t.Fatalf("%d hosts kept, want 3", len(m.Hosts()))
	}
}

// A host that sends fail after fail raises one alarm an interval, the
// others counted in the next; all hosts together are held to the rate,
// the excess reported in a summary.
func TestAlarmLimiter(t *testing.T) {
	l := newLimiter(time.Minute, 3)
	t0 := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	sent := 0
	for i := range 50 {
		a := Alarm{Host: "dev1", Reason: "fail", Message: "boom"}
		if l.admit(&a, t0.Add(time.Duration(i)*time.Second)) {
			sent++
		}
	}
	if sent != 1 {
		t.Fatalf("50 fails in 50 s: %d alarms, want 1", sent)
	}
	a := Alarm{Host: "dev1", Reason: "fail", Message: "boom"}
	if !l.admit(&a, t0.Add(61*time.Second)) || !strings.Contains(a.Message, "49 more fail beacons from dev1 coalesced") {
		t.Fatalf("the next interval's alarm: %q", a.Message)
	}
	// absences of many hosts at once: 3 go out (the burst), the rest are
	// counted and reported once a token is back
	l = newLimiter(time.Minute, 3)
	sent = 0
	for i := range 10 {
		a := Alarm{Host: "h" + string(rune('a'+i)), Reason: "absent"}
		if l.admit(&a, t0) {
			sent++
		}
	}
	if sent != 3 || l.dropped != 7 {
		t.Fatalf("10 absences at once, rate 3: %d sent, %d dropped", sent, l.dropped)
	}
	if _, ok := l.summary(t0); ok {
		t.Fatal("a summary with no token left")
	}
	s, ok := l.summary(l.next(t0))
	if !ok || !strings.Contains(s.Message, "7 alarms suppressed by the rate limit of 3 a minute") {
		t.Fatalf("summary %+v %v", s, ok)
	}
}

func TestParseKeys(t *testing.T) {
	keys, err := ParseKeys(strings.NewReader("# hosts\n\ndev1 " + testKey + "\n"))
	if err != nil || string(keys["dev1"]) != testKey {
		t.Fatalf("%v %v", keys, err)
	}
	for _, bad := range []string{"dev1\n", "dev1 short\n", "dev/1 " + testKey + "\n", "a " + testKey + "\na " + testKey + "\n"} {
		if _, err := ParseKeys(strings.NewReader(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	if _, err := verify([]byte(testKey), "a", "success", "Bearer x", "", time.Now(), time.Minute, 0); !errors.Is(err, ErrUnauthenticated) {
		t.Errorf("another scheme: %v", err)
	}
}
