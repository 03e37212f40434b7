package obligations

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// SLOs are the limits a ledger is judged against.
type SLOs struct {
	// Class is the urgency SLO per class: a canary not consumed within its
	// class SLO is a false negative, and the p95 event->CONSUMED and
	// event->qualified-action of a class must not exceed it.
	Class map[Class]time.Duration
	// MaxNoopRate is the largest acceptable share of no-op wakes among all
	// wakes delivered (no-op + delivery).
	MaxNoopRate float64
	// MaxReconciles is the largest acceptable number of reconcile entries.
	MaxReconciles int
}

// DefaultMaxNoopRate is the no-op rate a ledger may show and still pass:
// this engine never emits a wake for an empty lane, so no-ops come only
// from a consumer racing its own ack against a wake; 5% leaves room for
// that race while failing heartbeat-style waking, which mostly finds
// nothing.
const DefaultMaxNoopRate = 0.05

// DefaultSLOs takes the class SLOs from p, DefaultMaxNoopRate, and no
// reconcile allowed.
func DefaultSLOs(p Policies) SLOs {
	s := SLOs{Class: map[Class]time.Duration{}, MaxNoopRate: DefaultMaxNoopRate}
	for _, c := range Classes {
		s.Class[c] = p[c].SLO
	}
	return s
}

// Of returns the SLO of class c; an unknown class (an imported ledger may
// lack it) gets the strictest one. The safety report and the canary's
// verdict both judge lateness by it.
func (s SLOs) Of(c Class) time.Duration {
	if d, ok := s.Class[c]; ok {
		return d
	}
	var strictest time.Duration
	for _, d := range s.Class {
		if strictest == 0 || d < strictest {
			strictest = d
		}
	}
	return strictest
}

// Metric is one component of the cut-over safety vector.
type Metric struct {
	Name  string  `json:"name"`
	Class Class   `json:"class,omitempty"`
	Unit  string  `json:"unit"` // "ratio", "count" or "seconds"
	Value float64 `json:"value"`
	Limit float64 `json:"limit"` // pass when Value <= Limit
	N     int     `json:"n"`     // number of samples behind Value
	Pass  bool    `json:"pass"`
}

// Label is the metric's name with its class, if any.
func (m Metric) Label() string {
	if m.Class != "" {
		return m.Name + "[" + string(m.Class) + "]"
	}
	return m.Name
}

// Short is v in the metric's unit, as the report prints it.
func (m Metric) Short(v float64) string { return m.format(v) }

func (m Metric) format(v float64) string {
	switch m.Unit {
	case "seconds":
		return (time.Duration(v * float64(time.Second))).Round(time.Second).String()
	case "ratio":
		return fmt.Sprintf("%.3f", v)
	}
	return fmt.Sprintf("%d", int64(v))
}

// Report is the cut-over safety vector of one ledger.
type Report struct {
	From       time.Time `json:"from,omitzero"`
	To         time.Time `json:"to,omitzero"`
	Posts      int       `json:"posts"`
	Deliveries int       `json:"deliveries"`
	Noops      int       `json:"noops"`
	Consumed   int       `json:"consumed"`
	Actions    int       `json:"actions"`
	Canaries   int       `json:"canaries"`
	Reconciles int       `json:"reconciles"`
	// Unconsumed counts the posted obligations with no consumption in the
	// ledger; OldestUnconsumed is when the oldest of them was posted.
	Unconsumed       int       `json:"unconsumed"`
	OldestUnconsumed time.Time `json:"oldest_unconsumed,omitzero"`
	// Turns is what agent turns cost, by lane and mode (see TurnStat).
	Turns   []TurnStat `json:"turns,omitempty"`
	Metrics []Metric   `json:"metrics"`
	Pass    bool       `json:"pass"` // every metric passes
	// SourceParityError says why source parity, which a home in a fleet
	// is judged on, could not be checked ("" when it was, or is not due).
	SourceParityError string `json:"source_parity_error,omitempty"`
}

// SourceParityMetric is the name of the source-parity check of a home in
// a fleet: of the inStream obligations the broker holds for it, missing
// are acknowledged (or below its import's ack floor) and not in its
// ledger. Anything missing is a loss: the limit is 0.
const SourceParityMetric = "source_parity_missing"

// AddSourceParity adds the source-parity check to r and re-judges it.
func (r *Report) AddSourceParity(inStream, missing int) {
	m := Metric{Name: SourceParityMetric, Unit: "count", Value: float64(missing), Limit: 0, N: inStream, Pass: missing == 0}
	r.Metrics = append(r.Metrics, m)
	r.Pass = r.Pass && m.Pass
}

// Metric returns the metric with the given label (see Metric.Label).
func (r Report) Metric(label string) (Metric, bool) {
	for _, m := range r.Metrics {
		if m.Label() == label {
			return m, true
		}
	}
	return Metric{}, false
}

// entryKey identifies the obligation an entry is about: lane and id, or
// lane and seq for a ledger without ids.
func entryKey(e *Entry) string {
	if e.ID != "" {
		return e.Lane + "\x00i" + e.ID
	}
	return fmt.Sprintf("%s\x00s%d", e.Lane, e.Seq)
}

// ComputeReport computes the safety vector of a ledger: no-op rate, canary
// false negatives (a canary not consumed within its class SLO, by the time
// of the ledger's last entry), p95 event->CONSUMED and p95
// event->qualified action per class, and the reconcile count, each against
// slos. A class without samples passes (N says so).
func ComputeReport(entries []Entry, slos SLOs) Report {
	var r Report
	posted := map[string]*Entry{}
	consumedAt := map[string]time.Time{}
	actedAt := map[string]time.Time{}
	var latency, action [numClasses + 1][]time.Duration // last slot: unknown class
	for i := range entries {
		e := &entries[i]
		if r.From.IsZero() || e.At.Before(r.From) {
			r.From = e.At
		}
		if e.At.After(r.To) {
			r.To = e.At
		}
		switch e.Kind {
		case EntryPost:
			r.Posts++
			if _, ok := posted[entryKey(e)]; !ok {
				posted[entryKey(e)] = e
			}
			if e.Canary {
				r.Canaries++
			}
		case EntryDelivery:
			r.Deliveries++
		case EntryNoop:
			r.Noops++
		case EntryReconcile:
			r.Reconciles++
		}
	}
	for i := range entries {
		e := &entries[i]
		if e.Kind != EntryConsumption && e.Kind != EntryAction {
			continue
		}
		k := entryKey(e)
		seen := consumedAt
		if e.Kind == EntryAction {
			seen = actedAt
		}
		if _, dup := seen[k]; dup {
			continue
		}
		seen[k] = e.At
		event, class := e.Event, e.Class
		if p := posted[k]; p != nil {
			if event.IsZero() {
				event = p.At
			}
			if class == "" {
				class = p.Class
			}
		}
		samples := &latency
		if e.Kind == EntryAction {
			r.Actions++
			samples = &action
		} else {
			r.Consumed++
		}
		if event.IsZero() {
			continue // no post time known: counted, but no latency sample
		}
		ci := class.index()
		if ci < 0 {
			ci = numClasses
		}
		samples[ci] = append(samples[ci], e.At.Sub(event))
	}

	for k, p := range posted {
		if _, ok := consumedAt[k]; !ok {
			r.Unconsumed++
			if r.OldestUnconsumed.IsZero() || p.At.Before(r.OldestUnconsumed) {
				r.OldestUnconsumed = p.At
			}
		}
	}

	rate, n := 0.0, r.Noops+r.Deliveries
	if n > 0 {
		rate = float64(r.Noops) / float64(n)
	}
	r.Metrics = append(r.Metrics, Metric{Name: "noop_rate", Unit: "ratio", Value: rate, Limit: slos.MaxNoopRate, N: n})
	r.Turns = turnStats(entries, r.To.Sub(r.From).Hours())
	total, _ := r.Turn(AllLanes, AllModes)
	r.Metrics = append(r.Metrics, Metric{Name: "noop_turn_share", Unit: "ratio", Value: total.NoopShare,
		Limit: slos.MaxNoopRate, N: total.Turns})

	fn := 0
	for k, p := range posted {
		if !p.Canary {
			continue
		}
		limit := p.At.Add(slos.Of(p.Class))
		if at, ok := consumedAt[k]; ok && !at.After(limit) {
			continue
		} else if !ok && !r.To.After(limit) {
			continue // still inside its SLO when the ledger ends
		}
		fn++
	}
	r.Metrics = append(r.Metrics, Metric{Name: "canary_false_negatives", Unit: "count", Value: float64(fn), N: r.Canaries})

	for i, c := range Classes {
		lim := slos.Of(c).Seconds()
		r.Metrics = append(r.Metrics,
			Metric{Name: "p95_event_to_consumed", Class: c, Unit: "seconds", Value: p95(latency[i]), Limit: lim, N: len(latency[i])},
			Metric{Name: "p95_event_to_action", Class: c, Unit: "seconds", Value: p95(action[i]), Limit: lim, N: len(action[i])})
	}
	r.Metrics = append(r.Metrics, Metric{Name: "reconciles", Unit: "count", Value: float64(r.Reconciles), Limit: float64(slos.MaxReconciles), N: r.Reconciles})

	r.Pass = true
	for i := range r.Metrics {
		m := &r.Metrics[i]
		m.Pass = m.Value <= m.Limit
		r.Pass = r.Pass && m.Pass
	}
	return r
}

// p95 is the nearest-rank 95th percentile, in seconds (0 without samples).
func p95(ds []time.Duration) float64 {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(math.Ceil(0.95*float64(len(s)))) - 1
	return s[max(i, 0)].Seconds()
}

// String renders the report as an aligned table.
func (r Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "ledger from %s to %s: %d posts, %d deliveries, %d no-op wakes, %d consumed, %d actions, %d canaries\n",
		stamp(r.From), stamp(r.To), r.Posts, r.Deliveries, r.Noops, r.Consumed, r.Actions, r.Canaries)
	if r.Unconsumed > 0 {
		fmt.Fprintf(&b, "not consumed yet: %d posted obligations (the oldest posted %s)\n", r.Unconsumed, stamp(r.OldestUnconsumed))
	}
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "check\tvalue\tlimit\tfrom\tresult")
	unjudged := 0
	for _, m := range r.Metrics {
		value, result := m.format(m.Value), verdict(m.Pass)
		if m.N == 0 && m.Unit == "seconds" {
			value, result = "-", "not judged (none yet)"
			unjudged++
		}
		fmt.Fprintf(tw, "%s\t%s\tat most %s\t%s\t%s\n", m.Words(), value, m.format(m.Limit), m.samples(), result)
	}
	tw.Flush()
	turnTable(&b, r.Turns)
	if r.SourceParityError != "" {
		fmt.Fprintf(&b, "source parity: not judged (%s)\n", r.SourceParityError)
	}
	fmt.Fprintf(&b, "overall: %s", verdict(r.Pass))
	if unjudged > 0 {
		fmt.Fprintf(&b, " (%d timing checks not judged: nothing of their class was consumed or acted on yet)", unjudged)
	}
	b.WriteString("\n")
	return b.String()
}

// Words is the metric in plain words (the report's text); Label is its
// name for programs.
func (m Metric) Words() string {
	class := string(m.Class)
	switch m.Name {
	case "noop_rate":
		return "wakes that found nothing to do"
	case "noop_turn_share":
		return "agent turns that found nothing to do"
	case "canary_false_negatives":
		return "canaries not consumed within their SLO"
	case "p95_event_to_consumed":
		return "time from post to consumed, " + class + " (95th percentile)"
	case "p95_event_to_action":
		return "time from post to action, " + class + " (95th percentile)"
	case "reconciles":
		return "consumers that rebuilt their state from scratch (not the roots' reconcile commands)"
	case SourceParityMetric:
		return "obligations the broker acknowledged for this home, missing from its ledger (source parity)"
	}
	return m.Label()
}

// samples says what a metric's value was computed from.
func (m Metric) samples() string {
	switch m.Name {
	case "noop_rate":
		return fmt.Sprintf("%d wakes", m.N)
	case "noop_turn_share":
		return fmt.Sprintf("%d turns", m.N)
	case "canary_false_negatives":
		return fmt.Sprintf("%d canaries", m.N)
	case "reconciles":
		return fmt.Sprintf("%d entries", m.N)
	case SourceParityMetric:
		return fmt.Sprintf("%d in the stream", m.N)
	}
	return fmt.Sprintf("%d obligations", m.N)
}

func verdict(ok bool) string {
	if ok {
		return "pass"
	}
	return "FAIL"
}
