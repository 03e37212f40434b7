package roots

import (
	"encoding/json"
	"fmt"
	"time"
)

// Durations in the JSON a user reads are strings in Go's syntax ("45s",
// "2m0s"), never nanosecond counts. Decoding also takes a number of
// nanoseconds, the form earlier builds wrote.

type windowsJSON struct {
	BurstSilence   jsonDuration `json:"burst_silence,omitempty"`
	BurstCap       jsonDuration `json:"burst_cap,omitempty"`
	ReconcileQuiet jsonDuration `json:"reconcile_quiet,omitempty"`
	ReconcileCap   jsonDuration `json:"reconcile_cap,omitempty"`
	DrainBudget    int          `json:"drain_budget,omitempty"`
}

// MarshalJSON writes the windows with duration strings.
func (w Windows) MarshalJSON() ([]byte, error) {
	return json.Marshal(windowsJSON{jsonDuration(w.BurstSilence), jsonDuration(w.BurstCap),
		jsonDuration(w.ReconcileQuiet), jsonDuration(w.ReconcileCap), w.DrainBudget})
}

// UnmarshalJSON reads duration strings or nanosecond counts.
func (w *Windows) UnmarshalJSON(b []byte) error {
	var v windowsJSON
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*w = Windows{time.Duration(v.BurstSilence), time.Duration(v.BurstCap), time.Duration(v.ReconcileQuiet),
		time.Duration(v.ReconcileCap), v.DrainBudget}
	return nil
}

type leaseJSON struct {
	Name     string       `json:"name"`
	Acquired time.Time    `json:"acquired"`
	Expires  time.Time    `json:"expires"`
	TTL      jsonDuration `json:"ttl"`
}

// MarshalJSON writes the lease with its TTL as a duration string.
func (l Lease) MarshalJSON() ([]byte, error) {
	return json.Marshal(leaseJSON{l.Name, l.Acquired, l.Expires, jsonDuration(l.TTL)})
}

// UnmarshalJSON reads a lease written by MarshalJSON (or, with ttl_ns, by
// an earlier build).
func (l *Lease) UnmarshalJSON(b []byte) error {
	var v struct {
		leaseJSON
		TTLNanos *int64 `json:"ttl_ns"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*l = Lease{v.Name, v.Acquired, v.Expires, time.Duration(v.TTL)}
	if v.TTLNanos != nil && v.TTL == 0 {
		l.TTL = time.Duration(*v.TTLNanos)
	}
	return nil
}

// jsonDuration is a time.Duration written as a string.
type jsonDuration time.Duration

func (d jsonDuration) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(d).String())
}

func (d *jsonDuration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		var n int64
		if err := json.Unmarshal(b, &n); err != nil {
			return fmt.Errorf("a duration is a string like \"45s\": %s", b)
		}
		*d = jsonDuration(n)
		return nil
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("duration %q: want a string like \"45s\" or \"2m\"", s)
	}
	*d = jsonDuration(v)
	return nil
}
