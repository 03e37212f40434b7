package metrics

import (
	"context"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// Snapshot is the engine's state at one scrape. Maps may be nil.
type Snapshot struct {
	PendingByKind map[string]int
	Waiting       int
	Fired         uint64            // since the process started
	RunsByOutcome map[string]uint64 // since the process started
	AlertsByCode  map[string]uint64 // since the process started
	// Lateness holds the lateness of each fire recorded since the previous
	// snapshot; the collector adds them to the histogram exactly once.
	Lateness   []time.Duration
	Backlog    map[string]int    // root → paths waiting
	Unconsumed map[LaneClass]int // lane and class → obligations not consumed
	Wakes      map[string]uint64 // lane → wakes since the process started
	NoopWakes  map[string]uint64 // lane → no-op wakes since the process started
	Fleet      *FleetSnapshot    // nil outside a fleet
}

// LaneClass keys unconsumed obligations.
type LaneClass struct{ Lane, Class string }

// Source returns the current snapshot. It is called once per scrape, one
// call at a time.
type Source func(ctx context.Context) (Snapshot, error)

// ScrapeTimeout bounds one call of the Source.
const ScrapeTimeout = 5 * time.Second

// LatenessBuckets are the upper bounds, in seconds, of the lateness
// histogram: a healthy engine fires within a tick or two (1 ms), a busy
// worker delays fires by its actions' run time (seconds), and a restart
// after downtime fires overdue deadlines late by the downtime (hours).
var LatenessBuckets = []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 300, 3600}

// Metrics is the registry and its collectors.
type Metrics struct {
	reg *prometheus.Registry
	c   *engineCollector
}

// New returns a registry with the engine's series (read from src at each
// scrape), the Go runtime's and the process's.
func New(src Source, version string) *Metrics {
	c := newEngineCollector(src)
	reg := prometheus.NewRegistry()
	reg.MustRegister(c,
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "wakewheel_build_info", Help: "Always 1; the version label says which build runs.",
			ConstLabels: prometheus.Labels{"version": version},
		}, func() float64 { return 1 }),
	)
	return &Metrics{reg: reg, c: c}
}

// Registry is the registry the handler serves (for tests and embedding).
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// engineCollector turns a Snapshot into series at each scrape.
type engineCollector struct {
	src      Source
	mu       sync.Mutex // one scrape at a time: lateness is observed once, in order
	lateness prometheus.Histogram

	pending, waiting, fired, runs, alerts *prometheus.Desc
	backlog, unconsumed, wakes, noop, up  *prometheus.Desc
	fleet                                 fleetDescs
}

func newEngineCollector(src Source) *engineCollector {
	d := func(name, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc("wakewheel_"+name, help, labels, nil)
	}
	return &engineCollector{
		src: src,
		lateness: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "wakewheel_fire_lateness_seconds",
			Help:    "How long after its due time each fire was recorded.",
			Buckets: LatenessBuckets,
		}),
		pending:    d("deadlines_pending", "Pending deadlines, by kind.", "kind"),
		waiting:    d("jobs_waiting", "Fired deadlines queued for the worker."),
		fired:      d("deadlines_fired_total", "Deadlines that fell due since the daemon started."),
		runs:       d("action_runs_total", "Action runs since the daemon started, by outcome.", "outcome"),
		alerts:     d("alerts_total", "Alerts raised since the daemon started, by code.", "code"),
		backlog:    d("backlog_paths", "Changed paths waiting to be ingested, by root.", "root"),
		unconsumed: d("obligations_unconsumed", "Posted obligations not yet consumed, by lane and class.", "lane", "class"),
		wakes:      d("wakes_total", "Wakes delivered since the daemon started, by lane.", "lane"),
		noop:       d("noop_wakes_total", "Wakes whose digest was a no-op, by lane.", "lane"),
		up:         d("engine_up", "1 when this scrape reached the engine, 0 when it did not answer."),
		fleet:      newFleetDescs(),
	}
}

func (c *engineCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.pending, c.waiting, c.fired, c.runs, c.alerts,
		c.backlog, c.unconsumed, c.wakes, c.noop, c.up} {
		ch <- d
	}
	c.lateness.Describe(ch)
	c.fleet.describe(ch)
}

func (c *engineCollector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), ScrapeTimeout)
	defer cancel()
	s, err := c.src(ctx)
	if err != nil {
		ch <- prometheus.MustNewConstMetric(c.up, prometheus.GaugeValue, 0)
		c.lateness.Collect(ch)
		return
	}
	ch <- prometheus.MustNewConstMetric(c.up, prometheus.GaugeValue, 1)
	for _, l := range s.Lateness {
		c.lateness.Observe(max(l, 0).Seconds())
	}
	c.lateness.Collect(ch)
	ch <- prometheus.MustNewConstMetric(c.waiting, prometheus.GaugeValue, float64(s.Waiting))
	ch <- prometheus.MustNewConstMetric(c.fired, prometheus.CounterValue, float64(s.Fired))
	emit(ch, c.pending, prometheus.GaugeValue, s.PendingByKind)
	emit(ch, c.runs, prometheus.CounterValue, s.RunsByOutcome)
	emit(ch, c.alerts, prometheus.CounterValue, s.AlertsByCode)
	emit(ch, c.backlog, prometheus.GaugeValue, s.Backlog)
	emit(ch, c.wakes, prometheus.CounterValue, s.Wakes)
	emit(ch, c.noop, prometheus.CounterValue, s.NoopWakes)
	for lc, n := range s.Unconsumed {
		ch <- prometheus.MustNewConstMetric(c.unconsumed, prometheus.GaugeValue, float64(n), lc.Lane, lc.Class)
	}
	c.fleet.collect(ch, s.Fleet)
}

// emit sends one series per map entry, labelled by its key.
func emit[N int | uint64](ch chan<- prometheus.Metric, d *prometheus.Desc, t prometheus.ValueType, m map[string]N) {
	for label, v := range m {
		ch <- prometheus.MustNewConstMetric(d, t, float64(v), label)
	}
}
