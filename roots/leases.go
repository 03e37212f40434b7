package roots

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/wakewheel/wakewheel/deadlines"
	"github.com/wakewheel/wakewheel/scheduler"
)

// Leases are named, advisory, and expire: each is the deadline
// lease/<name>, due when its TTL runs out; its firing expires it. Nothing
// stops anyone: automatic actions on a root a live lease covers (its
// reconcile) yield to it. A lease covers a root when its name is the
// root's path, a directory above it, or a path inside it.
//
// Acquire, renew and release are synced before they are answered: a
// person's lease survives a crash.

// Lease bounds.
const (
	MinLeaseTTL  = time.Second
	MaxLeaseTTL  = 24 * time.Hour
	MaxLeaseName = 256 // bytes; a name is a key segment (deadlines.CheckName)
)

// Lease is a live lease.
type Lease struct {
	Name     string        `json:"name"`
	Acquired time.Time     `json:"acquired"`
	Expires  time.Time     `json:"expires"`
	TTL      time.Duration `json:"ttl"` // a duration string in JSON (json.go)
}

type leasePayload struct {
	Acquired time.Time     `json:"acquired"`
	TTL      time.Duration `json:"ttl"`
}

func leaseFromDeadline(d deadlines.Deadline) Lease {
	l := Lease{Name: strings.TrimPrefix(d.Key, KindLease+"/"), Expires: d.At}
	var p leasePayload
	if json.Unmarshal(d.Payload, &p) == nil {
		l.Acquired, l.TTL = p.Acquired, p.TTL
	}
	return l
}

func checkLease(name string, ttl time.Duration, needTTL bool) error {
	if err := deadlines.CheckName("name", name, MaxLeaseName); err != nil {
		return fmt.Errorf("%w: %v", ErrBadLease, err)
	}
	if needTTL && (ttl < MinLeaseTTL || ttl > MaxLeaseTTL) {
		return fmt.Errorf("%w: ttl %s: want %s..%s", ErrBadLease, ttl, MinLeaseTTL, MaxLeaseTTL)
	}
	return nil
}

// AcquireLease takes the lease name for ttl. A live lease of that name is
// ErrLeaseHeld (renew it instead, or wait).
func (m *Manager) AcquireLease(ctx context.Context, name string, ttl time.Duration) (Lease, error) {
	return m.setLease(ctx, name, ttl, true)
}

// RenewLease moves the expiry of the live lease name to ttl from now
// (shorter or longer). A lease that is not live is ErrNoLease.
func (m *Manager) RenewLease(ctx context.Context, name string, ttl time.Duration) (Lease, error) {
	return m.setLease(ctx, name, ttl, false)
}

func (m *Manager) setLease(ctx context.Context, name string, ttl time.Duration, acquire bool) (Lease, error) {
	if err := checkLease(name, ttl, true); err != nil {
		return Lease{}, err
	}
	var out Lease
	var opErr error
	err := m.do(ctx, func(e *scheduler.Engine, now time.Time) {
		m.mu.Lock()
		defer m.mu.Unlock()
		cur, live := m.leases[name]
		live = live && cur.Expires.After(now)
		switch {
		case acquire && live:
			opErr = fmt.Errorf("%w: %q until %s (renew it, or wait)", ErrLeaseHeld, name, cur.Expires.Format(time.RFC3339))
			return
		case !acquire && !live:
			opErr = fmt.Errorf("%w: %q is not held (acquire it)", ErrNoLease, name)
			return
		}
		l := Lease{Name: name, Acquired: now, Expires: now.Add(ttl), TTL: ttl}
		if !acquire {
			l.Acquired = cur.Acquired
		}
		payload, _ := json.Marshal(leasePayload{Acquired: l.Acquired, TTL: ttl})
		if _, err := e.Apply(now, deadlines.Mutation{Op: deadlines.OpReset, Key: LeaseKey(name), Kind: KindLease, At: l.Expires, Payload: payload}); err != nil {
			opErr = err
			return
		}
		m.leases[name] = l
		out = l
	})
	if err == nil {
		err = opErr
	}
	if err != nil {
		return Lease{}, err
	}
	return out, m.db.Sync()
}

// ReleaseLease gives the lease back; it reports whether it was live. A
// reconcile that yielded to it runs at once if no other lease holds it.
func (m *Manager) ReleaseLease(ctx context.Context, name string) (bool, error) {
	if err := checkLease(name, 0, false); err != nil {
		return false, err
	}
	var released bool
	err := m.do(ctx, func(e *scheduler.Engine, now time.Time) {
		m.mu.Lock()
		cur, ok := m.leases[name]
		released = ok && cur.Expires.After(now)
		delete(m.leases, name)
		var wake []string
		for path := range m.roots {
			if covers(name, path) {
				if _, other := m.liveLeaseLocked(path, now); other == 0 {
					wake = append(wake, path)
				}
			}
		}
		m.mu.Unlock()
		e.Apply(now, deadlines.Mutation{Op: deadlines.OpCancel, Key: LeaseKey(name)})
		for _, path := range wake {
			if d, pending := e.Get(Key(KindReconcile, path)); pending && d.At.After(now) {
				e.Apply(now, deadlines.Mutation{Op: deadlines.OpPush, Key: d.Key, Kind: KindReconcile, At: now})
			}
		}
	})
	if err != nil {
		return false, err
	}
	return released, m.db.Sync()
}

// Leases lists the live leases by name.
func (m *Manager) Leases(ctx context.Context) ([]Lease, error) {
	var out []Lease
	err := m.do(ctx, func(e *scheduler.Engine, now time.Time) {
		m.mu.Lock()
		defer m.mu.Unlock()
		for _, l := range m.leases {
			if l.Expires.After(now) {
				out = append(out, l)
			}
		}
	})
	slices.SortFunc(out, func(a, b Lease) int { return strings.Compare(a.Name, b.Name) })
	if out == nil {
		out = []Lease{}
	}
	return out, err
}

// leaseHandler expires a lease whose deadline fell due.
func (m *Manager) leaseHandler(_ context.Context, f scheduler.Firing) scheduler.Outcome {
	name := strings.TrimPrefix(f.Deadline.Key, KindLease+"/")
	m.mu.Lock()
	if l, ok := m.leases[name]; ok && !l.Expires.After(f.Now) {
		delete(m.leases, name)
	}
	m.mu.Unlock()
	return scheduler.Succeeded()
}

// liveLeaseLocked returns the live lease covering root that lasts longest,
// and how long it has left (0: none). m.mu is held.
func (m *Manager) liveLeaseLocked(root string, now time.Time) (string, time.Duration) {
	var name string
	var left time.Duration
	for n, l := range m.leases {
		if d := l.Expires.Sub(now); d > left && covers(n, root) {
			name, left = n, d
		}
	}
	return name, left
}

// covers reports whether the lease name covers root: the root itself, a
// directory above it, or a path inside it.
func covers(name, root string) bool {
	name = strings.TrimRight(name, "/")
	if name == "" {
		return strings.HasPrefix(root, "/") // "/" covers every root
	}
	return name == root || strings.HasPrefix(root, name+"/") || strings.HasPrefix(name, root+"/")
}
