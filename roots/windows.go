package roots

import (
	"time"

	"github.com/wakewheel/wakewheel/deadlines"
)

// Windows are a root's own timing: the config file's per-root keys. A zero
// field takes the manager's Options (the detect.* settings), so a root
// overrides only what it names.
type Windows struct {
	BurstSilence   time.Duration `json:"burst_silence,omitempty"`
	BurstCap       time.Duration `json:"burst_cap,omitempty"`
	ReconcileQuiet time.Duration `json:"reconcile_quiet,omitempty"`
	ReconcileCap   time.Duration `json:"reconcile_cap,omitempty"`
	DrainBudget    int           `json:"drain_budget,omitempty"`
}

// windows returns r's effective windows: its overrides over the manager's
// defaults, with each cap at least its window. Safe from any goroutine.
func (m *Manager) windows(r *root) Windows {
	w := Windows{}
	if own := r.win.Load(); own != nil {
		w = *own
	}
	pick := func(own *time.Duration, def time.Duration) {
		if *own <= 0 {
			*own = def
		}
	}
	pick(&w.BurstSilence, m.opts.BurstSilence)
	pick(&w.BurstCap, m.opts.BurstCap)
	pick(&w.ReconcileQuiet, m.opts.ReconcileQuiet)
	pick(&w.ReconcileCap, m.opts.ReconcileCap)
	if w.DrainBudget <= 0 {
		w.DrainBudget = m.opts.DrainBudget
	}
	w.BurstCap = deadlines.CapOf(w.BurstSilence, w.BurstCap)
	w.ReconcileCap = deadlines.CapOf(w.ReconcileQuiet, w.ReconcileCap)
	return w
}
