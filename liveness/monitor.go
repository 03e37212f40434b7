package liveness

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"
	"github.com/wakewheel/wakewheel/deadlines"
	"github.com/wakewheel/wakewheel/scheduler"
)

// AbsentKind is the deadline kind of the monitor's absence alarm.
const AbsentKind = "absent"

// AbsentKey is the deadline that fires when host has been silent for
// period + grace.
func AbsentKey(host string) string { return AbsentKind + "/" + host }

// maxAlarms is how many recent alarms the monitor keeps for its status.
const maxAlarms = 100

// MonitorOptions configure `wakewheel monitor`.
type MonitorOptions struct {
	Period time.Duration // expected time between beacons
	Grace  time.Duration // extra silence tolerated before the alarm
	// AlarmCmd is run with /bin/sh -c on every alarm (operator-given).
	AlarmCmd string
	// Webhook receives every alarm as a JSON POST (an Alarm).
	Webhook string
	Timeout time.Duration // one command or webhook call (default DefaultAlarmTimeout)
	Client  *http.Client
	Logger  zerolog.Logger
	// Feed, when set, runs beside the HTTP endpoints until the monitor
	// stops, and hands it beacons from another source (the fleet's
	// beacons bucket) through Beacon and Raise.
	Feed func(ctx context.Context, m *Monitor)
	// Sink, when set, is one more sink of every alarm (the fleet's: an
	// alert obligation into an operator's lane), tried once like the others.
	Sink func(Alarm) error
}

// HostStatus is what the monitor knows of one host.
type HostStatus struct {
	Host       string    `json:"host"`
	Beacons    uint64    `json:"beacons"`
	LastSeen   time.Time `json:"last_seen,omitzero"`
	LastSignal string    `json:"last_signal,omitempty"` // success, start or fail
	AbsentAt   time.Time `json:"absent_at"`             // when silence alarms
	Down       bool      `json:"down"`
}

// Monitor is the receiving end of the beacons: each beacon of a host
// extends the deadline absent/<host> to period+grace from now in the
// monitor's own engine; when it fires, the host has been silent that long,
// and the monitor alarms (log, command, webhook). One alarm per absence:
// the next beacon re-arms the deadline and reports the host back. A fail
// beacon alarms at once.
type Monitor struct {
	opts MonitorOptions

	mu     sync.Mutex
	runner Runner
	hosts  map[string]*HostStatus
	alarms []Alarm
	wg     sync.WaitGroup
}

// NewMonitor validates opts.
func NewMonitor(opts MonitorOptions) (*Monitor, error) {
	if opts.Period <= 0 || opts.Grace < 0 {
		return nil, fmt.Errorf("liveness: monitor period %s must be positive and grace %s not negative", opts.Period, opts.Grace)
	}
	if opts.Webhook != "" {
		if u, err := url.Parse(opts.Webhook); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("liveness: webhook %q: want an http:// or https:// URL", opts.Webhook)
		}
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultAlarmTimeout
	}
	if opts.Client == nil {
		opts.Client = &http.Client{Timeout: opts.Timeout}
	}
	return &Monitor{opts: opts, hosts: map[string]*HostStatus{}}, nil
}

// Register adds the absence handler to the monitor's engine.
func (m *Monitor) Register(e *scheduler.Engine) { e.Register(AbsentKind, m.handler()) }

// Attach hands the monitor its running runner.
func (m *Monitor) Attach(r Runner) {
	m.mu.Lock()
	m.runner = r
	m.mu.Unlock()
}

// Wait waits for alarm sinks still running.
func (m *Monitor) Wait() { m.wg.Wait() }

// Expect starts the absence window of hosts that have not beaconed yet, so
// a host that never shows up alarms too.
func (m *Monitor) Expect(ctx context.Context, hosts []string) error {
	for _, h := range hosts {
		if err := checkHost(h); err != nil {
			return err
		}
	}
	return m.do(ctx, func(e *scheduler.Engine, now time.Time) error {
		for _, h := range hosts {
			if _, err := m.extend(e, now, h); err != nil {
				return err
			}
		}
		return nil
	})
}

// Beacon records a beacon of host: signal is "success", "start" or "fail";
// body is the sender's message (for a fail).
func (m *Monitor) Beacon(ctx context.Context, host, signal, body string) error {
	if err := checkHost(host); err != nil {
		return err
	}
	var raise []Alarm
	err := m.do(ctx, func(e *scheduler.Engine, now time.Time) error {
		var err error
		raise, err = m.seen(e, now, host, signal, body)
		return err
	})
	for _, a := range raise {
		m.wg.Add(1)
		go func() {
			defer m.wg.Done()
			m.raise(a)
		}()
	}
	return err
}

func (m *Monitor) do(ctx context.Context, fn func(e *scheduler.Engine, now time.Time) error) error {
	m.mu.Lock()
	r := m.runner
	m.mu.Unlock()
	if r == nil {
		return errors.New("liveness: monitor is not running")
	}
	var fnErr error
	err := r.Do(ctx, func(e *scheduler.Engine, now time.Time) { fnErr = fn(e, now) })
	return errors.Join(err, fnErr)
}

// seen extends host's absence window at now and returns the alarms the
// beacon raises (a fail; a host back from absence). It runs on the loop.
func (m *Monitor) seen(e *scheduler.Engine, now time.Time, host, signal, body string) ([]Alarm, error) {
	hs, err := m.extend(e, now, host)
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Alarm
	if hs.Down {
		out = append(out, Alarm{Host: host, Reason: "recovered", LastSeen: hs.LastSeen, At: now,
			Message: fmt.Sprintf("%s is beaconing again after %s of silence", host, now.Sub(hs.LastSeen).Round(time.Millisecond))})
		hs.Down = false
	}
	if signal == "fail" {
		out = append(out, Alarm{Host: host, Reason: "fail", LastSeen: now, At: now, Message: body})
	}
	hs.Beacons++
	hs.LastSeen, hs.LastSignal = now, signal
	return out, nil
}

// extend slides absent/<host> to now+period+grace (the cap is unbounded:
// beacons keep a host alive forever) and returns the host's status.
func (m *Monitor) extend(e *scheduler.Engine, now time.Time, host string) (*HostStatus, error) {
	window := m.opts.Period + m.opts.Grace
	applied, err := e.Apply(now, deadlines.Mutation{Op: deadlines.OpExtend, Key: AbsentKey(host), Kind: AbsentKind,
		Window: window, Cap: time.Duration(math.MaxInt64)})
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	hs := m.hosts[host]
	if hs == nil {
		hs = &HostStatus{Host: host}
		m.hosts[host] = hs
	}
	hs.AbsentAt = applied.At
	return hs, nil
}

func (m *Monitor) handler() scheduler.Handler {
	return func(_ context.Context, f scheduler.Firing) scheduler.Outcome {
		host := strings.TrimPrefix(f.Deadline.Key, AbsentKind+"/")
		m.mu.Lock()
		hs := m.hosts[host]
		if hs == nil { // reloaded from a persisted monitor store
			hs = &HostStatus{Host: host}
			m.hosts[host] = hs
		}
		hs.Down = true
		last := hs.LastSeen
		m.mu.Unlock()
		msg := fmt.Sprintf("no beacon from %s for %s (period %s + grace %s)", host,
			f.Now.Sub(last).Round(time.Millisecond), m.opts.Period, m.opts.Grace)
		if last.IsZero() {
			msg = fmt.Sprintf("no beacon from %s since the monitor started (period %s + grace %s)", host, m.opts.Period, m.opts.Grace)
		}
		m.raise(Alarm{Host: host, Reason: "absent", LastSeen: last, At: f.Now, Message: msg})
		return scheduler.Succeeded()
	}
}

// Hosts returns every host's status, sorted by name.
func (m *Monitor) Hosts() []HostStatus {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]HostStatus, 0, len(m.hosts))
	for _, hs := range m.hosts {
		out = append(out, *hs)
	}
	slices.SortFunc(out, func(a, b HostStatus) int { return strings.Compare(a.Host, b.Host) })
	return out
}

// Alarms returns the most recent alarms, oldest first.
func (m *Monitor) Alarms() []Alarm {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.alarms)
}

// Handler serves the beacon endpoints:
//
//	GET|POST|HEAD /ping/<host>          a success beacon
//	GET|POST|HEAD /ping/<host>/start    the sender started
//	GET|POST|HEAD /ping/<host>/fail     the sender recorded a failure (alarms)
//	GET /status                         hosts and recent alarms (JSON)
func (m *Monitor) Handler() http.Handler {
	mux := http.NewServeMux()
	ping := func(w http.ResponseWriter, r *http.Request) {
		signal := r.PathValue("signal")
		switch signal {
		case "":
			signal = "success"
		case "start", "fail", "success":
		default:
			http.Error(w, "unknown signal "+signal+" (want start or fail)", http.StatusNotFound)
			return
		}
		body, _ := io.ReadAll(io.LimitReader(r.Body, maxPingBody))
		if err := m.Beacon(r.Context(), r.PathValue("host"), signal, string(body)); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		_, _ = io.WriteString(w, "OK")
	}
	mux.HandleFunc("/ping/{host}", ping)
	mux.HandleFunc("/ping/{host}/{signal}", ping)
	mux.HandleFunc("GET /status", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(struct {
			Hosts  []HostStatus `json:"hosts"`
			Alarms []Alarm      `json:"alarms"`
		}{m.Hosts(), m.Alarms()})
	})
	return mux
}

func checkHost(h string) error {
	if h == "" || len(h) > 253 {
		return fmt.Errorf("liveness: host name %q: want 1..253 characters", h)
	}
	for _, c := range h {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_'
		if !ok {
			return fmt.Errorf("liveness: host name %q: character %q is not allowed (use A-Z a-z 0-9 . _ -)", h, c)
		}
	}
	return nil
}
