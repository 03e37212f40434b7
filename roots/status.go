package roots

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/wakewheel/wakewheel/scheduler"
)

// Status is a root's honest state: what is watched and how, what waits,
// what runs, what went wrong. Nothing says notify unless a live watcher
// delivers every event.
type Status struct {
	Path      string   `json:"path"`
	Armed     bool     `json:"armed"`
	Kind      string   `json:"kind"` // git or dir (as of the last detection; "" before)
	Mode      string   `json:"mode"` // notify, polling, evicted, disarmed, resuming
	Reason    string   `json:"reason,omitempty"`
	Detail    string   `json:"detail,omitempty"`
	Ingest    string   `json:"ingest,omitempty"`
	Reconcile string   `json:"reconcile,omitempty"`
	GoIngest  bool     `json:"go_ingest,omitempty"`    // a Go ingest handler is set
	GoRecon   bool     `json:"go_reconcile,omitempty"` // a Go reconcile handler is set
	Skip      []string `json:"skip,omitempty"`
	Candidate bool     `json:"candidate"`
	ByAgent   bool     `json:"by_agent,omitempty"` // registered by an agent: it may unwatch it
	// SelfWritten are the files taken as the root's command's own output
	// (written during its runs, detection after detection): ignored.
	SelfWritten []string `json:"self_written,omitempty"`
	SinceRef    string   `json:"since_ref,omitempty"`
	Windows     Windows  `json:"windows"` // effective: the root's own over the detect.* defaults
	// NextBatch is how many paths the next ingest run gets (batchsize.go).
	NextBatch int `json:"next_batch"`

	WatchedDirs int    `json:"watched_dirs"`
	Events      uint64 `json:"events"`    // events of the current watcher
	Overflows   uint64 `json:"overflows"` // kernel queue overflows over the root's life

	Backlog      int        `json:"backlog"`   // paths waiting, the batch in flight included
	InFlight     int        `json:"in_flight"` // paths handed to the running ingest
	Running      string     `json:"running,omitempty"`
	RunningSince *time.Time `json:"running_since,omitempty"`

	Detections    uint64     `json:"detections"` // since the daemon started
	LastDetection *time.Time `json:"last_detection,omitempty"`
	LastChanged   int        `json:"last_changed"` // paths the last detection added
	LockWaits     uint64     `json:"index_lock_waits"`
	Ingested      uint64     `json:"ingested"` // paths ingested since the daemon started
	Batches       uint64     `json:"batches"`
	LastIngest    *time.Time `json:"last_ingest,omitempty"`

	LastReconcile       *time.Time `json:"last_reconcile,omitempty"`
	LastReconcileResult string     `json:"last_reconcile_result,omitempty"`
	StoreVersion        uint64     `json:"store_version"`

	LastError   string     `json:"last_error,omitempty"`
	LastErrorAt *time.Time `json:"last_error_at,omitempty"`

	Next []Due `json:"next"` // the root's pending deadlines, in due order
}

// Due is a pending deadline of a root.
type Due struct {
	Key  string    `json:"key"`
	Kind string    `json:"kind"`
	At   time.Time `json:"at"`
}

func tp(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// snapshotLocked is r's status without deadlines; m.mu is held.
func (m *Manager) snapshotLocked(r *root) Status {
	s := Status{
		Path: r.rec.Path, Armed: r.rec.Armed, Ingest: r.rec.Ingest, Reconcile: r.rec.Reconcile,
		Skip: r.rec.Skip, Candidate: r.rec.Candidate, ByAgent: r.rec.ByAgent, SinceRef: r.rec.SinceRef,
		GoIngest: m.funcs[r.rec.Path].Ingest != nil, GoRecon: m.funcs[r.rec.Path].Reconcile != nil,
		Overflows: r.rec.Overflows, Backlog: r.q.Len(), InFlight: r.q.inflight,
		Detections: r.st.detections, LastDetection: tp(r.rec.LastDetection), LastChanged: r.st.lastChanged,
		LockWaits: r.st.lockWaits, Ingested: r.st.ingested, Batches: r.st.batches, LastIngest: tp(r.st.lastIngest),
		LastReconcile: tp(r.st.lastReconcile), LastReconcileResult: r.st.lastReconcileResult,
		StoreVersion: r.rec.StoreVersion, LastError: r.rec.LastError, LastErrorAt: tp(r.st.lastErrorAt),
		Windows: m.windows(r), Next: []Due{}, SelfWritten: r.self.mutedPaths(), NextBatch: m.batchSize(r),
	}
	if r.st.detections > 0 {
		s.Kind = "dir"
		if r.isGit {
			s.Kind = "git"
		}
	}
	s.Mode, s.Reason, s.Detail = r.mode()
	if r.w != nil && s.Mode != ModeDisarmed && r.watchFail == "" {
		ws := r.w.Status()
		s.WatchedDirs, s.Events = ws.WatchedDirs, ws.Events
	}
	if j := r.runs.cur; j != nil {
		s.Running = actionName(j.kind)
		s.RunningSince = tp(j.started)
	}
	return s
}

// Statuses returns every root's status, by path.
func (m *Manager) Statuses(ctx context.Context) ([]Status, error) {
	return m.statuses(ctx, "")
}

func (m *Manager) statusOf(ctx context.Context, path string) (Status, error) {
	out, err := m.statuses(ctx, path)
	if len(out) == 0 {
		return Status{}, err
	}
	return out[0], err
}

func (m *Manager) statuses(ctx context.Context, only string) ([]Status, error) {
	m.mu.Lock()
	out := make([]Status, 0, len(m.roots))
	for path, r := range m.roots {
		if only == "" || path == only {
			out = append(out, m.snapshotLocked(r))
		}
	}
	m.mu.Unlock()
	slices.SortFunc(out, func(a, b Status) int { return strings.Compare(a.Path, b.Path) })
	err := m.do(ctx, func(e *scheduler.Engine, now time.Time) {
		for i := range out {
			for _, k := range rootKinds {
				if d, ok := e.Get(Key(k, out[i].Path)); ok {
					out[i].Next = append(out[i].Next, Due{Key: d.Key, Kind: d.Kind, At: d.At})
				}
			}
			slices.SortFunc(out[i].Next, func(a, b Due) int { return a.At.Compare(b.At) })
		}
	})
	return out, err
}

// Backlogs returns the backlog depth of every root (for metrics).
func (m *Manager) Backlogs() map[string]int {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make(map[string]int, len(m.roots))
	for path, r := range m.roots {
		out[path] = r.q.Len()
	}
	return out
}
