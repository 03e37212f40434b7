package roots

import (
	"strings"
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
// defaults. Safe from any goroutine.
func (m *Manager) windows(r *root) Windows {
	w := Windows{}
	if own := r.win.Load(); own != nil {
		w = *own
	}
	return w.over(m.opts)
}

// over returns w with every unset field taken from o (o's defaults
// applied), and each cap at least its window.
func (w Windows) over(o Options) Windows {
	pick := func(own *time.Duration, def time.Duration) {
		if *own <= 0 {
			*own = def
		}
	}
	pick(&w.BurstSilence, o.BurstSilence)
	pick(&w.BurstCap, o.BurstCap)
	pick(&w.ReconcileQuiet, o.ReconcileQuiet)
	pick(&w.ReconcileCap, o.ReconcileCap)
	if w.DrainBudget <= 0 {
		w.DrainBudget = o.DrainBudget
	}
	w.BurstCap = deadlines.CapOf(w.BurstSilence, w.BurstCap)
	w.ReconcileCap = deadlines.CapOf(w.ReconcileQuiet, w.ReconcileCap)
	return w
}

// Timetable declares how the root deadlines are timed under one
// configuration (see deadlines.Retime): burst/<root> by its burst silence
// and cap, reconcile/<root> by its reconcile quiet and cap, each root's own
// Windows (own, by the root's clean path) over the defaults of opts. The
// other root keys (detect, drain) and the leases are not timed by
// configuration: Timetable does not claim them.
func Timetable(opts Options, own map[string]Windows) deadlines.Timetable {
	opts = opts.withDefaults()
	return func(key string) (deadlines.Timing, bool) {
		if path, ok := rootOfTimedKey(KindBurst, key); ok {
			w := own[path].over(opts)
			return deadlines.Timing{Window: w.BurstSilence, Cap: w.BurstCap}, true
		}
		if path, ok := rootOfTimedKey(KindReconcile, key); ok {
			w := own[path].over(opts)
			return deadlines.Timing{Window: w.ReconcileQuiet, Cap: w.ReconcileCap}, true
		}
		return deadlines.Timing{}, false
	}
}

// rootOfTimedKey returns the root of a key made by Key(kind, root).
func rootOfTimedKey(kind, key string) (string, bool) {
	root, ok := strings.CutPrefix(key, kind)
	return root, ok && strings.HasPrefix(root, "/")
}
