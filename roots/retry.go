package roots

import (
	"context"
	"fmt"
)

// Resuming a stranded backlog. A failing ingest is retried with the
// engine's bounded backoff, each attempt one run of the command (a run
// that starts yields; only its failing result counts). When the attempts
// are spent the engine raises retries_exhausted and the drain deadline is
// retired, but the paths stay in the backlog. Any of these drains it
// again, from the front:
//
//   - the root's next event (a detection with a non-empty backlog pushes
//     a drain);
//   - a change of the root's commands (watch --ingest, the config file);
//   - a config reload (RetryStranded);
//   - `wakewheel roots retry PATH` (Retry).

// Retry drains the root's backlog again now, and looks for changes: a
// detection and a drain due at once (a drain waiting out its backoff is
// pulled to now). The root must be armed.
func (m *Manager) Retry(ctx context.Context, p string) (Status, error) {
	path, r, err := m.lockRoot(p)
	if err != nil {
		return Status{}, err
	}
	armed := r.rec.Armed
	m.mu.Unlock()
	if !armed {
		return Status{}, fmt.Errorf("%w: %s is disarmed; arm it (wakewheel arm %s) and it drains by itself", ErrDisarmed, path, path)
	}
	m.log.Info().Str("root", path).Msg("retry asked: draining the backlog and detecting now")
	m.apply(ctx, pushNow(KindDetect, path), pushNow(KindDrain, path))
	return m.statusOf(ctx, path)
}

// RetryStranded drains again every armed root whose backlog is not empty
// (the daemon calls it after a config reload): a backlog whose retries
// were spent before the fix resumes with the new configuration.
func (m *Manager) RetryStranded(ctx context.Context) {
	m.mu.Lock()
	var paths []string
	for path, r := range m.roots {
		if r.rec.Armed && r.q.Len() > 0 && !r.runs.busy() {
			paths = append(paths, path)
		}
	}
	m.mu.Unlock()
	for _, path := range paths {
		m.apply(ctx, pushNow(KindDrain, path))
	}
}
