package fleet

import (
	"context"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/wakewheel/wakewheel/fleet/broker"
	"github.com/wakewheel/wakewheel/internal/clock"
	ob "github.com/wakewheel/wakewheel/obligations"
	"github.com/wakewheel/wakewheel/store"
)

func mustDur(t *testing.T, s string) time.Duration {
	t.Helper()
	d, err := time.ParseDuration(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// freePort returns a loopback port nobody listens on right now.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// startBroker runs a single real nats-server node in the test's process.
// (The failure tests run brokers as processes and kill them: see the
// fleet-test target.)
func startBroker(t *testing.T) *broker.Node {
	t.Helper()
	b, err := broker.Start(broker.Options{Name: "n1", Listen: fmt.Sprintf("127.0.0.1:%d", freePort(t)),
		StoreDir: t.TempDir(), Logger: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	return b
}

func testOptions(url, host string) Options {
	return Options{URL: url, Host: host, Replicas: 1, MaxAge: time.Hour, MaxBytes: 64 << 20,
		DupWindow: time.Minute, AckWait: 2 * time.Second, FetchBatch: 16, OutboxMax: 100,
		BeaconPeriod: time.Second, BeaconGrace: time.Second}
}

// memLocal is a stand-in for the home's obligations service with what the
// fleet relies on: per-lane id index and sequence numbers.
type memLocal struct {
	mu    sync.Mutex
	lanes map[string][]ob.Obligation
	fail  error // when set, every post fails with it
}

func newMemLocal() *memLocal { return &memLocal{lanes: map[string][]ob.Obligation{}} }

func (l *memLocal) Post(_ context.Context, o ob.Obligation, create bool) (ob.Obligation, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.fail != nil {
		return ob.Obligation{}, l.fail
	}
	obs, ok := l.lanes[o.Lane]
	if !ok && !create {
		return ob.Obligation{}, ob.ErrUnknownLane
	}
	for _, x := range obs {
		if x.ID == o.ID {
			x.Duplicate = true
			return x, nil
		}
	}
	if o.Class == "bogus" {
		return ob.Obligation{}, ob.ErrUnknownClass
	}
	o.Seq = uint64(len(obs) + 1)
	l.lanes[o.Lane] = append(obs, o)
	return o, nil
}

func (l *memLocal) PostBatch(ctx context.Context, obs []ob.Obligation, create bool) ([]ob.Obligation, []error) {
	out, errs := make([]ob.Obligation, len(obs)), make([]error, len(obs))
	for i, o := range obs {
		out[i], errs[i] = l.Post(ctx, o, create)
	}
	return out, errs
}

func (l *memLocal) OpenLane(_ context.Context, lane string) (ob.LaneStatus, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.lanes[lane]; !ok {
		l.lanes[lane] = nil
	}
	return ob.LaneStatus{Lane: lane}, nil
}

func (l *memLocal) Lanes(context.Context) ([]ob.LaneStatus, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []ob.LaneStatus
	for name := range l.lanes {
		out = append(out, ob.LaneStatus{Lane: name})
	}
	return out, nil
}

func (l *memLocal) Digest(_ context.Context, lane, _ string) (ob.Digest, error) {
	return ob.Digest{Lane: lane, Messages: l.lane(lane)}, nil
}

func (l *memLocal) lane(name string) []ob.Obligation {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]ob.Obligation(nil), l.lanes[name]...)
}

// member starts a Member on a real LevelDB store in dir.
func member(t *testing.T, opts Options, local Local, dir string, alerts chan<- string) *Member {
	t.Helper()
	db, err := store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewMember(MemberOptions{Options: opts, Clock: clock.Real{}, Log: zerolog.Nop(),
		Alert: func(code, key, msg string) {
			if alerts != nil {
				alerts <- code + " " + msg
			}
		}}, local, db)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Start(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close(); db.Close() })
	return m
}

// eventually polls cond until it holds or d passes.
func eventually(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, d)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
