package fleet

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"
	"github.com/wakewheel/wakewheel/internal/clock"
	ob "github.com/wakewheel/wakewheel/obligations"
	"github.com/wakewheel/wakewheel/scheduler"
)

// Local is the home's obligations service as the fleet uses it;
// *wakes.Service satisfies it.
type Local interface {
	Post(ctx context.Context, o ob.Obligation, create bool) (ob.Obligation, error)
	PostBatch(ctx context.Context, obs []ob.Obligation, create bool) ([]ob.Obligation, []error)
	OpenLane(ctx context.Context, lane string) (ob.LaneStatus, error)
	Lanes(ctx context.Context) ([]ob.LaneStatus, error)
	Digest(ctx context.Context, lane, who string) (ob.Digest, error)
}

// How a post was answered.
const (
	PostedLocal = "local"     // the lane is homed here: posted and durable
	Queued      = "queued"    // durable in this host's outbox
	Forwarded   = "forwarded" // the broker acknowledged it: on its way home
)

// MemberOptions configure a Member.
type MemberOptions struct {
	Options
	Version string
	// Alert records an alert (code, key, message) in the daemon.
	Alert func(code, key, msg string)
	Clock clock.Clock // required
	Log   zerolog.Logger
	// Deliveries, when set, reports the local wakes and no-op wakes by
	// lane (for the beacon's safety figures).
	Deliveries func() (wakes, noops map[string]uint64)
	// SLO, when set, is the urgency SLO of a class (for fleet status).
	SLO func(ob.Class) time.Duration
	// Ledger, when set, reads the local ledger: the beacon then carries
	// the safety vector (judged against SLOs) of its latest SafetyEntries
	// entries (safety.go).
	Ledger        LedgerPage
	SLOs          ob.SLOs
	SafetyEntries int
	// Check, when set, applies the local post rules to a post bound for
	// another home before it is queued (a rejected post is refused here,
	// not terminated there).
	Check func(ob.Obligation) error
}

// Member is a daemon's part in a fleet: it routes posts to lanes homed
// elsewhere through the outbox, imports the posts to its own lanes, and
// beacons. Local lanes never depend on the broker: wait, digest, ack and
// park stay in the local service, and so does CONSUMED.
type Member struct {
	opts   MemberOptions
	log    zerolog.Logger
	conn   *Conn
	local  Local
	db     Store
	homes  *Homes
	outbox *Outbox

	// localLanes are lanes that exist in the local service: homed here,
	// whatever the broker says (they are claimed when it is reachable).
	lanesMu    sync.Mutex
	localLanes map[string]bool
	unclaimed  map[string]bool
	dirty      map[string]bool // lanes changed since their state was published

	forwarded, imported, terminated, redelivered atomic.Uint64
	importing                                    atomic.Bool
	beaconsSent                                  atomic.Uint64
	boot                                         string // this run, in the beacons
	beaconSeq                                    atomic.Uint64
	safety                                       *safetyTail // nil: no ledger
	lastSafety                                   atomic.Pointer[ob.Report]

	runner     atomic.Pointer[Runner]
	beacons    chan struct{}
	lanesKick  chan struct{}
	lanesArmed atomic.Bool

	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// NewMember opens the outbox and the homes this host learnt, and dials the
// broker (retrying in the background if it is down). Start it once the
// local service runs.
func NewMember(opts MemberOptions, local Local, db Store) (*Member, error) {
	if opts.Clock == nil {
		return nil, errors.New("fleet: MemberOptions.Clock is required")
	}
	if opts.Alert == nil {
		opts.Alert = func(string, string, string) {}
	}
	conn, err := Dial(opts.Options, "wakewheel "+opts.Host, true, opts.Log)
	if err != nil {
		return nil, err
	}
	m := &Member{opts: opts, log: opts.Log, conn: conn, local: local, db: db,
		localLanes: map[string]bool{}, unclaimed: map[string]bool{}, dirty: map[string]bool{},
		beacons: make(chan struct{}, 1), lanesKick: make(chan struct{}, 1), boot: randomID()}
	if opts.Ledger != nil {
		m.safety = newSafetyTail(opts.Ledger, opts.SLOs, opts.SafetyEntries)
	}
	if m.homes, err = OpenHomes(conn, db, opts.Host); err != nil {
		conn.Close()
		return nil, err
	}
	if m.outbox, err = OpenOutbox(db, opts.OutboxMax); err != nil {
		conn.Close()
		return nil, err
	}
	return m, nil
}

// Register adds the beacon's handler to the engine (before the runner
// starts).
func (m *Member) Register(e *scheduler.Engine) {
	e.Register(BeaconKind, m.BeaconHandler())
	e.Register(LanesKind, m.LanesHandler())
}

// Start runs the forwarder, the importer and the beacon until Close; r is
// the running runner (nil: no beacon).
func (m *Member) Start(ctx context.Context, r Runner) error {
	lanes, err := m.local.Lanes(ctx)
	if err != nil {
		return err
	}
	m.lanesMu.Lock()
	for _, l := range lanes {
		m.localLanes[l.Lane] = true
		m.unclaimed[l.Lane] = true
		m.dirty[l.Lane] = true // published once the member runs
	}
	m.lanesMu.Unlock()
	ctx, m.cancel = context.WithCancel(context.WithoutCancel(ctx))
	for _, run := range []func(context.Context){m.maintain, m.forward, m.importLoop, m.sendBeacons, m.publishLanes} {
		m.wg.Add(1)
		go func() { defer m.wg.Done(); run(ctx) }()
	}
	if r != nil && m.opts.BeaconPeriod > 0 {
		m.runner.Store(&r)
		if err := m.armBeacon(ctx, r, 0); err != nil {
			return err
		}
		m.pushLanes(m.opts.LanesCoalesce)
	}
	return nil
}

// Close stops the member's work and its connection.
func (m *Member) Close() {
	if m.cancel != nil {
		m.cancel()
	}
	m.wg.Wait()
	m.conn.Close()
}

// Host is this member's name.
func (m *Member) Host() string { return m.opts.Host }

// maintain creates the stream and buckets once the broker is reachable,
// and claims the homes of lanes that exist here but were never claimed.
func (m *Member) maintain(ctx context.Context) {
	for {
		if m.conn.Up() {
			if !m.conn.ready.Load() {
				cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
				t0 := m.opts.Clock.Now()
				if err := m.conn.Ensure(cctx); err != nil {
					m.log.Warn().Err(err).Msg("fleet: setting up the stream and buckets")
				} else {
					m.log.Info().Dur("took", m.opts.Clock.Now().Sub(t0)).Msg("fleet: stream and buckets set up")
				}
				cancel()
			}
			if m.conn.ready.Load() {
				m.claimUnclaimed(ctx)
			}
		}
		if !m.sleep(ctx, time.Second) {
			return
		}
	}
}

// sleep waits d, or less when ctx ends first; false when it ended.
func (m *Member) sleep(ctx context.Context, d time.Duration) bool {
	t := m.opts.Clock.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C():
		return true
	}
}

func (m *Member) claimUnclaimed(ctx context.Context) {
	m.lanesMu.Lock()
	var todo []string
	for l := range m.unclaimed {
		todo = append(todo, l)
	}
	m.lanesMu.Unlock()
	for _, l := range todo {
		err := m.homes.Claim(ctx, l)
		switch {
		case err == nil:
		case errors.Is(err, ErrHomedElsewhere):
			home, _ := m.homes.Known(l)
			m.opts.Alert("fleet_home_conflict", "lane/"+l, fmt.Sprintf("lane %s exists here but is homed on %s: posts to it from other hosts go there", l, home))
		default:
			return // unreachable: next round
		}
		m.lanesMu.Lock()
		delete(m.unclaimed, l)
		m.lanesMu.Unlock()
	}
}

func (m *Member) isLocal(lane string) bool {
	m.lanesMu.Lock()
	defer m.lanesMu.Unlock()
	return m.localLanes[lane]
}

func (m *Member) markLocal(lane string) {
	m.lanesMu.Lock()
	m.localLanes[lane] = true
	m.lanesMu.Unlock()
}

// OpenLane homes lane here (refused, naming the home, when another host
// has it) and opens it in the local service.
func (m *Member) OpenLane(ctx context.Context, lane string) (ob.LaneStatus, error) {
	if err := ob.ValidateLane(lane); err != nil {
		return ob.LaneStatus{}, err
	}
	if !m.isLocal(lane) {
		if err := m.homes.Claim(ctx, lane); err != nil {
			return ob.LaneStatus{}, err
		}
	}
	st, err := m.local.OpenLane(ctx, lane)
	if err == nil {
		m.markLocal(lane)
		m.LaneChanged(lane)
	}
	return st, err
}

// Post routes o: to the local service when its lane is homed here, to the
// outbox when it is homed elsewhere. A lane homed nowhere is refused
// unless create is set: then it is homed here. With wait "forwarded" a
// remote post returns only once the broker acknowledged it.
func (m *Member) Post(ctx context.Context, o ob.Obligation, create bool, wait string) (ob.Obligation, string, error) {
	if err := ob.ValidateLane(o.Lane); err != nil || m.isLocal(o.Lane) {
		got, err := m.local.Post(ctx, o, create)
		if err == nil {
			m.LaneChanged(o.Lane)
		}
		return got, PostedLocal, err
	}
	home, ok, err := m.homes.Lookup(ctx, o.Lane)
	if err != nil {
		return ob.Obligation{}, "", fmt.Errorf("%w; lane %s is not known here, so its home cannot be found now", err, o.Lane)
	}
	if !ok {
		if !create {
			return ob.Obligation{}, "", fmt.Errorf("%w %q: no host of the fleet opened it (open it with `wakewheel lanes --open %s` on the host of its consumer, or post with create to home it here)",
				ob.ErrUnknownLane, o.Lane, o.Lane)
		}
		if err := m.homes.Claim(ctx, o.Lane); err != nil && !errors.Is(err, ErrHomedElsewhere) {
			return ob.Obligation{}, "", err
		}
		home, _ = m.homes.Known(o.Lane)
	}
	if home == m.opts.Host {
		got, err := m.local.Post(ctx, o, true)
		if err == nil {
			m.markLocal(o.Lane)
			m.LaneChanged(o.Lane)
		}
		return got, PostedLocal, err
	}
	if o.ID == "" {
		o.ID = newID()
	}
	if m.opts.Check != nil {
		if err := m.opts.Check(o); err != nil {
			return ob.Obligation{}, "", err
		}
	}
	now := m.opts.Clock.Now()
	seq, err := m.outbox.Add(envelopeOf(o, home, m.opts.Host, now))
	if err != nil {
		return ob.Obligation{}, "", err
	}
	o.Posted = now
	if wait != Forwarded {
		return o, Queued, nil
	}
	if err := m.outbox.Wait(ctx, seq); err != nil {
		return o, Queued, nil // durable in the outbox; the caller stopped waiting
	}
	return o, Forwarded, nil
}

func newID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return "auto-" + hex.EncodeToString(b[:])
}

// randomID names one run of a daemon or monitor.
func randomID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
