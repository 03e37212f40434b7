package roots

import "time"

// The drain budget is time, not paths. A root's first batch gets
// Options.DrainBudget paths (detect.drain_budget, 32); every successful
// batch measures the root's cost per path (its run's duration over its
// paths, averaged with the previous measure), and the next batch gets as
// many paths as fit in Options.DrainTarget (detect.drain_target, 1s) at
// that cost, at least one and at most Options.DrainMaxBatch
// (detect.drain_max_batch, 4096). A cheap command drains a 10,000-path
// checkout in a few runs; a slow one keeps its ticks near the target. A
// root whose own drain_budget is set (the config file) is pinned to it.

// batchSize is the number of paths r's next batch gets; m.mu is held.
func (m *Manager) batchSize(r *root) int {
	if own := r.win.Load(); own != nil && own.DrainBudget > 0 {
		return own.DrainBudget // pinned by the operator
	}
	if r.costPerPath <= 0 {
		return m.opts.DrainBudget
	}
	n := int(m.opts.DrainTarget / r.costPerPath)
	return min(max(n, 1), m.opts.DrainMaxBatch)
}

// measure folds a successful batch of n paths that took took into r's
// cost per path; m.mu is held.
func (r *root) measure(n int, took time.Duration) {
	if n <= 0 || took <= 0 {
		return
	}
	sample := max(took/time.Duration(n), 1)
	if r.costPerPath <= 0 {
		r.costPerPath = sample
		return
	}
	r.costPerPath = (r.costPerPath + sample) / 2
}
