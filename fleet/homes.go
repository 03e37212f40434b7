package fleet

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/wakewheel/wakewheel/store"
)

// HomesNS is the store namespace of the local copy of lane homes: a lane's
// home never changes once claimed, so a host that learnt it keeps it, and
// can forward to the lane through a partition or after a restart.
const HomesNS = "fleet-homes"

// Homes tells which host each lane is homed on. The truth is the fleet's
// homes bucket, where the first claim of a lane wins (a KV create); this
// host keeps what it learnt.
type Homes struct {
	conn *Conn
	db   Store
	host string

	mu    sync.Mutex
	known map[string]string // lane → home
}

// OpenHomes loads the homes this host learnt before.
func OpenHomes(conn *Conn, db Store, host string) (*Homes, error) {
	h := &Homes{conn: conn, db: db, host: host, known: map[string]string{}}
	err := db.Scan(HomesNS, "", func(key string, val []byte) error {
		h.known[key] = string(val)
		return nil
	})
	return h, err
}

// Known returns the home of lane if this host has learnt it.
func (h *Homes) Known(lane string) (string, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	home, ok := h.known[lane]
	return home, ok
}

func (h *Homes) learn(lane, home string) {
	h.mu.Lock()
	old, had := h.known[lane]
	h.known[lane] = home
	h.mu.Unlock()
	if !had || old != home {
		// Not synced: a home lost to a power cut is asked again.
		_ = h.db.Write(false, store.PutOp(HomesNS, lane, []byte(home)))
	}
}

// Lookup returns the home of lane, asking the broker when this host does
// not know it; ok is false when the lane is homed nowhere.
func (h *Homes) Lookup(ctx context.Context, lane string) (home string, ok bool, err error) {
	if home, ok := h.Known(lane); ok {
		return home, true, nil
	}
	kv, err := h.bucket(ctx)
	if err != nil {
		return "", false, err
	}
	e, err := kv.Get(ctx, Encode(lane))
	switch {
	case errors.Is(err, jetstream.ErrKeyNotFound):
		return "", false, nil
	case err != nil:
		return "", false, fmt.Errorf("%w: reading the home of lane %s: %v", ErrUnreachable, lane, err)
	}
	home = string(e.Value())
	h.learn(lane, home)
	return home, true, nil
}

// Claim homes lane on this host, unless another host claimed it first:
// then the error names that host.
func (h *Homes) Claim(ctx context.Context, lane string) error {
	if home, ok := h.Known(lane); ok {
		return h.mine(lane, home)
	}
	kv, err := h.bucket(ctx)
	if err != nil {
		return fmt.Errorf("%w, so lane %s cannot be homed here now (its home must be known fleet-wide): retry when it is back", err, lane)
	}
	_, err = kv.Create(ctx, Encode(lane), []byte(h.host))
	if err == nil {
		h.learn(lane, h.host)
		return nil
	}
	if !errors.Is(err, jetstream.ErrKeyExists) {
		return fmt.Errorf("%w: homing lane %s: %v", ErrUnreachable, lane, err)
	}
	home, ok, err := h.Lookup(ctx, lane)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("%w: lane %s: the home claim raced a delete; retry", ErrUnreachable, lane)
	}
	return h.mine(lane, home)
}

func (h *Homes) mine(lane, home string) error {
	if home != h.host {
		return fmt.Errorf("%w: lane %s is homed on %s; open or wait on it there, post to it from anywhere", ErrHomedElsewhere, lane, home)
	}
	return nil
}

func (h *Homes) bucket(ctx context.Context) (jetstream.KeyValue, error) {
	ctx, cancel := context.WithTimeout(ctx, h.conn.opts.RequestTimeout)
	defer cancel()
	return h.conn.KV(ctx, HomesBucket)
}
