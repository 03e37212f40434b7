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
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"
	"github.com/wakewheel/wakewheel/deadlines"
	"github.com/wakewheel/wakewheel/scheduler"
)

// AbsentKind is the deadline kind of the monitor's absence alarm;
// SummaryKind the kind (and key) of the report of suppressed alarms.
const (
	AbsentKind  = "absent"
	SummaryKind = "alarm-summary"
)

// ErrTooManyHosts: a new host beyond MonitorOptions.MaxHosts.
var ErrTooManyHosts = errors.New("liveness: too many hosts")

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

	// Keys are the hosts' beacon keys (auth.go): a ping over HTTP must be
	// signed with its host's key, or it is refused before anything is
	// recorded. With no keys, every HTTP ping is refused unless
	// AllowUnauthenticated (the open monitor of old: anyone who reaches
	// the port can fake a host's liveness).
	Keys                 Keys
	AllowUnauthenticated bool
	// MaxSkew bounds the distance between a signed ping's time and the
	// monitor's clock (default DefaultMaxSkew).
	MaxSkew time.Duration
	// MaxHosts bounds the hosts the monitor keeps (default
	// DefaultMaxHosts); a new host beyond it is refused.
	MaxHosts int
	// AlarmInterval is the least time between two fail alarms of one host
	// (default DefaultAlarmInterval); AlarmRate the alarms a minute over
	// all hosts (default DefaultAlarmRate). See limiter.go.
	AlarmInterval time.Duration
	AlarmRate     int
	// SinkQueue is how many alarms may wait for one sink (default
	// DefaultSinkQueue); beyond it a sink drops and counts them.
	SinkQueue int
}

// HostStatus is what the monitor knows of one host.
type HostStatus struct {
	Host       string    `json:"host"`
	Beacons    uint64    `json:"beacons"`
	LastSeen   time.Time `json:"last_seen,omitzero"`
	LastSignal string    `json:"last_signal,omitempty"` // success, start or fail
	AbsentAt   time.Time `json:"absent_at"`             // when silence alarms
	Down       bool      `json:"down"`
	Via        string    `json:"via,omitempty"`  // ViaHTTP or ViaFeed: where the last beacon came from
	Held       bool      `json:"held,omitempty"` // its absence fell due while the feed was blind (blind.go)
}

// Monitor is the receiving end of the beacons: each beacon of a host
// extends the deadline absent/<host> to period+grace from now in the
// monitor's own engine; when it fires, the host has been silent that long,
// and the monitor alarms (log, command, webhook). One alarm per absence:
// the next beacon re-arms the deadline and reports the host back. A fail
// beacon alarms at once.
type Monitor struct {
	opts MonitorOptions

	mu       sync.Mutex
	runner   Runner
	hosts    map[string]*HostStatus
	alarms   []Alarm
	lastAuth map[string]int64 // host → time (unix ms) of its last signed ping accepted
	limit    *limiter
	summary  bool // a summary deadline is pending
	sinks    sinks

	// The feed's sight (blind.go): blind since blindSince (zero: it sees).
	blindSince    time.Time
	blindEpisodes int
	blindTotal    time.Duration
	gated         bool      // the feed confirms its sight (Seeing)
	lastSight     time.Time // the latest time it confirmed

	refused atomic.Uint64 // pings refused (unauthenticated, unknown host, over the host cap)
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
	if opts.MaxSkew <= 0 {
		opts.MaxSkew = DefaultMaxSkew
	}
	if opts.MaxHosts <= 0 {
		opts.MaxHosts = DefaultMaxHosts
	}
	if opts.AlarmInterval <= 0 {
		opts.AlarmInterval = DefaultAlarmInterval
	}
	if opts.AlarmRate <= 0 {
		opts.AlarmRate = DefaultAlarmRate
	}
	if opts.SinkQueue <= 0 {
		opts.SinkQueue = DefaultSinkQueue
	}
	m := &Monitor{opts: opts, hosts: map[string]*HostStatus{}, lastAuth: map[string]int64{},
		limit: newLimiter(opts.AlarmInterval, opts.AlarmRate)}
	m.newSinks()
	return m, nil
}

// Register adds the absence and alarm-summary handlers to the monitor's
// engine.
func (m *Monitor) Register(e *scheduler.Engine) {
	e.Register(AbsentKind, m.handler())
	e.Register(SummaryKind, m.summaryHandler())
}

// Attach hands the monitor its running runner.
func (m *Monitor) Attach(r Runner) {
	m.mu.Lock()
	m.runner = r
	m.mu.Unlock()
}

// Wait delivers the alarms still queued for the sinks, for at most two
// alarm timeouts, and ends the sinks: the monitor raises no more alarms to
// them afterwards. What a hanging sink still held is logged as lost.
func (m *Monitor) Wait() {
	if left := m.sinks.close(2 * m.opts.Timeout); left > 0 {
		m.opts.Logger.Error().Int("alarms", left).Msg("monitor stopping: alarms still queued for a hanging sink were not delivered")
	}
}

// Sinks reports each alarm sink's deliveries, failures and drops.
func (m *Monitor) Sinks() []SinkStatus { return m.sinks.status() }

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

// Beacon records a beacon of host that came through the feed: signal is
// "success", "start" or "fail"; body is the sender's message (for a fail).
func (m *Monitor) Beacon(ctx context.Context, host, signal, body string) error {
	if err := checkHost(host); err != nil {
		return err
	}
	var raise []Alarm
	err := m.do(ctx, func(e *scheduler.Engine, now time.Time) error {
		var err error
		raise, err = m.seen(e, now, host, ViaFeed, signal, body)
		return err
	})
	m.raiseAll(raise)
	return err
}

// raiseAll sends alarms the limiter let through.
func (m *Monitor) raiseAll(alarms []Alarm) {
	for _, a := range alarms {
		m.raise(a)
	}
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
func (m *Monitor) seen(e *scheduler.Engine, now time.Time, host, via, signal, body string) ([]Alarm, error) {
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
	hs.LastSeen, hs.LastSignal, hs.Via, hs.Held = now, signal, via, false
	return m.admitLocked(e, now, out), nil
}

// admitLocked keeps the alarms the limiter lets through at now, and, with
// e (on the loop), arms the summary deadline when it suppressed some (m.mu
// is held).
func (m *Monitor) admitLocked(e *scheduler.Engine, now time.Time, alarms []Alarm) []Alarm {
	var out []Alarm
	for _, a := range alarms {
		if m.limit.admit(&a, now) {
			out = append(out, a)
		}
	}
	if e != nil && m.limit.dropped > 0 && !m.summary {
		if _, err := e.Apply(now, deadlines.Mutation{Op: deadlines.OpPush, Key: SummaryKind, Kind: SummaryKind, At: m.limit.next(now)}); err == nil {
			m.summary = true
		}
	}
	return out
}

// extend slides absent/<host> to now+period+grace (the cap is unbounded:
// beacons keep a host alive forever) and returns the host's status.
func (m *Monitor) extend(e *scheduler.Engine, now time.Time, host string) (*HostStatus, error) {
	m.mu.Lock()
	err := m.roomLocked(host)
	m.mu.Unlock()
	if err != nil {
		return nil, err
	}
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

// room refuses a host the monitor does not know yet once it keeps
// MaxHosts (m.mu is held).
func (m *Monitor) roomLocked(host string) error {
	if _, ok := m.hosts[host]; ok || len(m.hosts) < m.opts.MaxHosts {
		return nil
	}
	return fmt.Errorf("%w: host %s would be host %d, and the monitor keeps at most %d", ErrTooManyHosts, host, len(m.hosts)+1, m.opts.MaxHosts)
}

func (m *Monitor) handler() scheduler.Handler {
	return func(ctx context.Context, f scheduler.Firing) scheduler.Outcome {
		host := strings.TrimPrefix(f.Deadline.Key, AbsentKind+"/")
		m.mu.Lock()
		hs := m.hosts[host]
		if hs == nil { // reloaded from a persisted monitor store
			hs = &HostStatus{Host: host, AbsentAt: f.Deadline.At}
			m.hosts[host] = hs
		}
		// A firing taken before a beacon or Sighted moved the deadline is
		// stale; one due while the feed is blind is held (blind.go).
		if hs.AbsentAt.After(f.Deadline.At) || m.holdLocked(hs, f.Deadline.At) {
			m.mu.Unlock()
			return scheduler.Succeeded()
		}
		out := m.admitLocked(nil, f.Now, []Alarm{m.absentLocked(hs, f.Now)})
		arm := m.limit.dropped > 0 && !m.summary
		m.mu.Unlock()
		if arm { // best effort: a suppressed alarm is also reported by the next one sent
			_ = m.do(ctx, func(e *scheduler.Engine, now time.Time) error {
				m.mu.Lock()
				defer m.mu.Unlock()
				m.admitLocked(e, now, nil)
				return nil
			})
		}
		for _, a := range out {
			m.raise(a)
		}
		return scheduler.Succeeded()
	}
}

// absentLocked marks hs down and returns its absence alarm at now (m.mu
// is held).
func (m *Monitor) absentLocked(hs *HostStatus, now time.Time) Alarm {
	hs.Down = true
	msg := fmt.Sprintf("no beacon from %s for %s (period %s + grace %s)", hs.Host,
		now.Sub(hs.LastSeen).Round(time.Millisecond), m.opts.Period, m.opts.Grace)
	if hs.LastSeen.IsZero() {
		msg = fmt.Sprintf("no beacon from %s since the monitor started (period %s + grace %s)", hs.Host, m.opts.Period, m.opts.Grace)
	}
	return Alarm{Host: hs.Host, Reason: "absent", LastSeen: hs.LastSeen, At: now, Message: msg}
}

// sortedLocked is the hosts in name order (m.mu is held).
func (m *Monitor) sortedLocked() []*HostStatus {
	out := make([]*HostStatus, 0, len(m.hosts))
	for _, hs := range m.hosts {
		out = append(out, hs)
	}
	slices.SortFunc(out, func(a, b *HostStatus) int { return strings.Compare(a.Host, b.Host) })
	return out
}

// summaryHandler sends the report of the alarms the rate limit suppressed
// once the bucket allows it, and tries again later while it does not.
func (m *Monitor) summaryHandler() scheduler.Handler {
	return func(ctx context.Context, f scheduler.Firing) scheduler.Outcome {
		var out []Alarm
		err := m.do(ctx, func(e *scheduler.Engine, now time.Time) error {
			m.mu.Lock()
			defer m.mu.Unlock()
			m.summary = false
			if a, ok := m.limit.summary(now); ok {
				out = append(out, a)
			}
			out = append(out, m.admitLocked(e, now, nil)...) // re-arms while some wait
			return nil
		})
		if err != nil {
			return scheduler.RetryLater(err)
		}
		for _, a := range out {
			m.raise(a)
		}
		return scheduler.Succeeded()
	}
}

// ping is a beacon that came over HTTP. Before anything is recorded, it
// must name a host the monitor has a key for and be signed with that key
// at a time close to the monitor's own and later than the host's last
// ping (auth.go); an open monitor (AllowUnauthenticated) takes any.
func (m *Monitor) ping(ctx context.Context, host, signal, auth, body string) error {
	err := checkHost(host)
	var key []byte
	switch {
	case err != nil:
	case m.opts.Keys != nil:
		if key = m.opts.Keys[host]; key == nil {
			err = fmt.Errorf("%w: the monitor has no key for host %s", ErrUnauthenticated, host)
		}
	case !m.opts.AllowUnauthenticated:
		err = fmt.Errorf("%w: this monitor takes signed pings only and has no keys (start it with --keys FILE)", ErrUnauthenticated)
	}
	if err != nil {
		return m.refuse(err)
	}
	var raise []Alarm
	err = m.do(ctx, func(e *scheduler.Engine, now time.Time) error {
		if key != nil {
			m.mu.Lock()
			last := m.lastAuth[host]
			m.mu.Unlock()
			ms, err := verify(key, host, signal, auth, body, now, m.opts.MaxSkew, last)
			if err != nil {
				return err
			}
			m.mu.Lock()
			m.lastAuth[host] = ms
			m.mu.Unlock()
		}
		var err error
		raise, err = m.seen(e, now, host, ViaHTTP, signal, body)
		return err
	})
	if errors.Is(err, ErrUnauthenticated) || errors.Is(err, ErrTooManyHosts) {
		return m.refuse(err)
	}
	m.raiseAll(raise)
	return err
}

// refuse counts a refused ping and logs the first, tenth, hundredth...
// (a flood must not flood the log too).
func (m *Monitor) refuse(err error) error {
	n := m.refused.Add(1)
	for p := uint64(1); p <= n; p *= 10 {
		if p == n {
			m.opts.Logger.Warn().Err(err).Uint64("refused", n).Msg("ping refused")
			break
		}
	}
	return err
}

// Refused is the number of pings refused so far.
func (m *Monitor) Refused() uint64 { return m.refused.Load() }

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
		if err := m.ping(r.Context(), r.PathValue("host"), signal, r.Header.Get("Authorization"), string(body)); err != nil {
			status := http.StatusBadRequest
			switch {
			case errors.Is(err, ErrUnauthenticated):
				status = http.StatusUnauthorized
			case errors.Is(err, ErrTooManyHosts):
				status = http.StatusTooManyRequests
			}
			http.Error(w, err.Error(), status)
			return
		}
		_, _ = io.WriteString(w, "OK")
	}
	mux.HandleFunc("/ping/{host}", ping)
	mux.HandleFunc("/ping/{host}/{signal}", ping)
	mux.HandleFunc("GET /status", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(struct {
			Hosts   []HostStatus `json:"hosts"`
			Alarms  []Alarm      `json:"alarms"`
			Refused uint64       `json:"refused"`
			Sinks   []SinkStatus `json:"sinks"`
			Sight   SightStatus  `json:"sight"`
		}{m.Hosts(), m.Alarms(), m.Refused(), m.Sinks(), m.Sight()})
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
