package liveness

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"
	"github.com/wakewheel/wakewheel"
	"github.com/wakewheel/wakewheel/deadlines"
	"github.com/wakewheel/wakewheel/internal/clock"
	"github.com/wakewheel/wakewheel/scheduler"
)

// Beacon numbers (doc.go says why).
const (
	BeaconKind          = "beacon"
	DefaultBeaconPeriod = time.Minute
	DefaultPingTimeout  = 10 * time.Second
	maxPingBody         = 10 << 10
	pingQueue           = 8
)

// BeaconKey is the deadline that schedules the next beacon of host.
func BeaconKey(host string) string { return BeaconKind + "/" + host }

// Runner is the single entry point of an engine's runner;
// *scheduler.Runner satisfies it.
type Runner interface {
	Do(ctx context.Context, fn func(e *scheduler.Engine, now time.Time)) error
}

// AlertLog is the alert log the beacon watches; *store.DB satisfies it.
type AlertLog interface {
	Alerts(limit int) ([]wakewheel.Alert, error)
}

// BeaconOptions configure the off-host dead-man beacon.
type BeaconOptions struct {
	// URL is the ping URL in the healthchecks.io style: a success is sent
	// to URL, the start of the daemon to URL/start, a failure to URL/fail.
	// `wakewheel monitor` serves http://HOST:PORT/ping/<host>.
	URL string
	// Host names this daemon; the beacon's deadline is beacon/<Host>.
	Host string
	// Period between successes (default DefaultBeaconPeriod).
	Period  time.Duration
	Timeout time.Duration // one ping (default DefaultPingTimeout)
	Client  *http.Client  // default: a client with Timeout
	Logger  zerolog.Logger
	// Key, when set, signs every ping for the monitor (auth.go); Clock
	// then stamps the signatures (required with Key).
	Key   []byte
	Clock clock.Clock
}

// Beacon sends the daemon's liveness off-host. The period is not a
// ticker: each success re-arms the deadline beacon/<host> in the wheel,
// so a wedged runner stops the beacon, which is what the monitor must
// notice. A success becomes a fail when a new alert was recorded since
// the last beacon (Fail sends one at once). Pings go out from their own
// goroutine, one at a time: a slow sink never holds the runner's worker.
type Beacon struct {
	opts   BeaconOptions
	alerts AlertLog

	mu        sync.Mutex
	runner    Runner
	lastAlert uint64

	pings   chan ping
	quit    chan struct{}
	stopped chan struct{}
	started atomic.Bool

	sent, failed atomic.Uint64
}

type ping struct{ kind, body string } // kind: "", "start" or "fail"

// NewBeacon validates opts.
func NewBeacon(opts BeaconOptions, alerts AlertLog) (*Beacon, error) {
	u, err := url.Parse(opts.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("liveness: beacon URL %q: want an http:// or https:// URL such as https://hc-ping.com/<uuid>", opts.URL)
	}
	if opts.Host == "" || strings.ContainsAny(opts.Host, "/ \t\n") {
		return nil, fmt.Errorf("liveness: beacon host %q: want a name without spaces or '/'", opts.Host)
	}
	if opts.Key != nil {
		if err := CheckKey(string(opts.Key)); err != nil {
			return nil, fmt.Errorf("liveness: beacon key: %w", err)
		}
		if opts.Clock == nil {
			return nil, errors.New("liveness: a beacon with a key needs a Clock to stamp its pings")
		}
	}
	if opts.Period < 0 || opts.Timeout < 0 {
		return nil, errors.New("liveness: beacon period and timeout must not be negative")
	}
	if opts.Period == 0 {
		opts.Period = DefaultBeaconPeriod
	}
	if opts.Timeout == 0 {
		opts.Timeout = DefaultPingTimeout
	}
	if opts.Client == nil {
		opts.Client = &http.Client{Timeout: opts.Timeout}
	}
	opts.URL = strings.TrimRight(opts.URL, "/")
	return &Beacon{opts: opts, alerts: alerts, pings: make(chan ping, pingQueue),
		quit: make(chan struct{}), stopped: make(chan struct{})}, nil
}

// Key is the beacon's deadline key.
func (b *Beacon) Key() string { return BeaconKey(b.opts.Host) }

// Period is the time between successes.
func (b *Beacon) Period() time.Duration { return b.opts.Period }

// Start sends the start ping and arms the first success one period from
// now. Alerts recorded before Start do not fail the beacon.
func (b *Beacon) Start(ctx context.Context, r Runner) error {
	var seen uint64
	if b.alerts != nil {
		if as, err := b.alerts.Alerts(1); err == nil && len(as) > 0 {
			seen = as[len(as)-1].Seq
		}
	}
	b.mu.Lock()
	b.runner, b.lastAlert = r, seen
	b.mu.Unlock()
	if b.started.CompareAndSwap(false, true) {
		go b.sender()
	}
	b.queue(ping{kind: "start"})
	return b.rearm(ctx, r)
}

// Stop stops sending (pings still queued are dropped).
func (b *Beacon) Stop() {
	if !b.started.Load() {
		return
	}
	select {
	case <-b.quit:
	default:
		close(b.quit)
	}
	<-b.stopped
}

// Fail sends a fail ping now with msg.
func (b *Beacon) Fail(msg string) { b.queue(ping{kind: "fail", body: msg}) }

// Sent returns the pings delivered (2xx) and failed so far.
func (b *Beacon) Sent() (ok, failed uint64) { return b.sent.Load(), b.failed.Load() }

// Handler is the action of kind BeaconKind: send a success (or a fail if
// an alert was recorded since the last beacon) and re-arm the deadline.
func (b *Beacon) Handler() scheduler.Handler {
	return func(ctx context.Context, f scheduler.Firing) scheduler.Outcome {
		b.mu.Lock()
		r := b.runner
		b.mu.Unlock()
		if r == nil || f.Deadline.Key != b.Key() {
			return scheduler.Succeeded() // stale (another host name, or Start re-arms it)
		}
		p := ping{}
		if msg, ok := b.newAlert(); ok {
			p = ping{kind: "fail", body: msg}
		}
		b.queue(p)
		if err := b.rearm(ctx, r); err != nil {
			return scheduler.RetryLater(err)
		}
		return scheduler.Succeeded()
	}
}

// Idle is the handler of kind BeaconKind for a daemon without a beacon: it
// retires a beacon deadline left by an earlier configuration.
func Idle() scheduler.Handler {
	return func(context.Context, scheduler.Firing) scheduler.Outcome { return scheduler.Succeeded() }
}

func (b *Beacon) rearm(ctx context.Context, r Runner) error {
	var applyErr error
	err := r.Do(ctx, func(e *scheduler.Engine, now time.Time) {
		_, applyErr = e.Apply(now, deadlines.Mutation{Op: deadlines.OpReset, Key: b.Key(), Kind: BeaconKind, At: now.Add(b.opts.Period)})
	})
	return errors.Join(err, applyErr)
}

// newAlert reports the newest alert recorded since the last beacon.
func (b *Beacon) newAlert() (string, bool) {
	if b.alerts == nil {
		return "", false
	}
	as, err := b.alerts.Alerts(1)
	if err != nil {
		return "reading the alert log failed: " + err.Error(), true
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(as) == 0 || as[len(as)-1].Seq <= b.lastAlert {
		return "", false
	}
	a := as[len(as)-1]
	n := a.Seq - b.lastAlert
	b.lastAlert = a.Seq
	return fmt.Sprintf("%d new alert(s); latest %s %s: %s", n, a.Code, a.Key, a.Message), true
}

func (b *Beacon) queue(p ping) {
	select {
	case b.pings <- p:
	default:
		b.failed.Add(1)
		b.opts.Logger.Warn().Str("ping", p.kind).Msg("beacon queue full (the sink is slow); ping dropped")
	}
}

func (b *Beacon) sender() {
	defer close(b.stopped)
	for {
		select {
		case p := <-b.pings:
			b.send(p)
		case <-b.quit:
			return
		}
	}
}

func (b *Beacon) send(p ping) {
	target := b.opts.URL
	if p.kind != "" {
		target += "/" + p.kind
	}
	body := p.body
	if len(body) > maxPingBody {
		body = body[:maxPingBody]
	}
	ctx, cancel := context.WithTimeout(context.Background(), b.opts.Timeout)
	defer cancel()
	go func() { // give up at once on Stop
		select {
		case <-b.quit:
			cancel()
		case <-ctx.Done():
		}
	}()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, strings.NewReader(body))
	if err == nil {
		req.Header.Set("Content-Type", "text/plain; charset=utf-8")
		if b.opts.Key != nil {
			signal := p.kind
			if signal == "" {
				signal = "success"
			}
			req.Header.Set("Authorization", Sign(b.opts.Key, b.opts.Host, signal, b.opts.Clock.Now(), body))
		}
		var resp *http.Response
		if resp, err = b.opts.Client.Do(req); err == nil {
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
			resp.Body.Close()
			if resp.StatusCode/100 != 2 {
				err = fmt.Errorf("HTTP %d", resp.StatusCode)
			}
		}
	}
	if err != nil {
		b.failed.Add(1)
		b.opts.Logger.Warn().Err(err).Str("ping", p.kind).Msg("beacon ping failed")
		return
	}
	b.sent.Add(1)
	b.opts.Logger.Debug().Str("ping", p.kind).Msg("beacon sent")
}
