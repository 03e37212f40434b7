package roots

import (
	"time"

	"github.com/wakewheel/wakewheel/detectors"
)

// Detections computed ahead (detectors/ahead.go). A git root whose burst
// is large (aheadMinEvents events since its last detection) and has been
// quiet for aheadQuiet gets its changed set computed during the rest of
// the silence, off the engine's worker; the detection at the burst's end
// takes that answer when no event came since it started, and otherwise
// computes afresh. An event cancels a computation running ahead. A big
// checkout's `git status` then runs while the silence does, not after it.
// Only a watched root (notify mode) is computed ahead: a polled root has
// no events to tell that its answer went stale.

// aheadQuiet is how long a burst is quiet before its detection is
// computed ahead: a checkout writes HEAD just after its index, and a
// status run before that would be cancelled.
const aheadQuiet = 30 * time.Millisecond

// aheadMinEvents is the burst size that is computed ahead: a small edit's
// detection is cheap enough after the silence, and a stream of small
// bursts never pays for a status that an event then cancels.
const aheadMinEvents = 1000

// aheadSoon is the pump's note that r's burst was extended at now: a
// computation running ahead is stale, and a new one may start once the
// burst is quiet. m.mu is held.
func (m *Manager) aheadSoon(r *root, now time.Time, due map[*root]time.Time) {
	r.track.Unahead()
	if r.isGit && r.sig.seen.Load()-r.sig.detected.Load() >= aheadMinEvents {
		due[r] = now.Add(aheadQuiet)
	}
}

// startAheads starts the computations ahead that are due at now, each on
// a goroutine of its own, and returns when the next one is due (zero when
// none waits). It runs on the pump's goroutine.
func (m *Manager) startAheads(now time.Time, due map[*root]time.Time) (next time.Time) {
	for r, at := range due {
		if at.After(now) {
			if next.IsZero() || at.Before(next) {
				next = at
			}
			continue
		}
		delete(due, r)
		m.mu.Lock()
		ok := !r.gone && r.rec.Armed && r.isGit && r.w != nil && r.w.Mode() == detectors.ModeNotify
		track, since := r.track, r.rec.SinceRef
		m.mu.Unlock()
		if !ok {
			continue
		}
		mark := r.sig.seen.Load() // before git starts: a later event changes it
		if mark-r.sig.detected.Load() < aheadMinEvents {
			continue // a detection started since (a burst cap): it covers the burst
		}
		m.wg.Add(1)
		go func() {
			defer m.wg.Done()
			track.Ahead(m.ctx, since, mark)
		}()
	}
	return next
}
