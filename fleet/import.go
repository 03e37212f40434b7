package fleet

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	ob "github.com/wakewheel/wakewheel/obligations"
)

// permanent are the rejections a redelivery cannot cure: such a message is
// terminated (never retried hot) and alerted.
var permanent = []error{ob.ErrUnknownClass, ob.ErrNoLocator, ob.ErrBodyTooLarge, ob.ErrBadLane,
	ob.ErrBadID, ob.ErrBadBody, ob.ErrBadField}

// EnsureHome homes lane here before a first wait on it.
func (m *Member) EnsureHome(ctx context.Context, lane string) error {
	if ob.ValidateLane(lane) != nil || m.isLocal(lane) {
		return nil // the local service reports a bad name
	}
	if err := m.homes.Claim(ctx, lane); err != nil {
		return err
	}
	m.markLocal(lane)
	return nil
}

// importLoop pulls this host's posts from the stream through the durable
// consumer import-<host>, until ctx ends. It pauses while the broker is
// unreachable.
func (m *Member) importLoop(ctx context.Context) {
	var cons jetstream.Consumer
	for ctx.Err() == nil {
		if !m.conn.Up() {
			m.importing.Store(false)
			cons = nil
			m.sleep(ctx, 250*time.Millisecond)
			continue
		}
		if cons == nil {
			var err error
			if cons, err = m.consumer(ctx); err != nil {
				m.log.Warn().Err(err).Msg("fleet: import consumer")
				m.sleep(ctx, time.Second)
				continue
			}
		}
		m.importing.Store(true)
		// Take what is there at once; when nothing is, wait for one
		// message. A batch is never held back waiting to fill: the ack
		// wait runs from delivery.
		batch, err := cons.FetchNoWait(m.opts.FetchBatch)
		var msgs []jetstream.Msg
		if err == nil {
			for msg := range batch.Messages() {
				msgs = append(msgs, msg)
			}
			if len(msgs) == 0 {
				if batch, err = cons.Fetch(1, jetstream.FetchMaxWait(m.conn.opts.FetchWait)); err == nil {
					for msg := range batch.Messages() {
						msgs = append(msgs, msg)
					}
				}
			}
		}
		if err != nil {
			m.log.Debug().Err(err).Msg("fleet: import fetch")
			cons = nil
			m.sleep(ctx, 250*time.Millisecond)
			continue
		}
		if len(msgs) > 0 {
			m.importBatch(ctx, msgs)
		}
	}
}

func (m *Member) consumer(ctx context.Context) (jetstream.Consumer, error) {
	ctx, cancel := context.WithTimeout(ctx, m.conn.opts.RequestTimeout)
	defer cancel()
	return m.conn.JetStream().CreateOrUpdateConsumer(ctx, StreamName, jetstream.ConsumerConfig{
		Durable:       ConsumerName(m.opts.Host),
		Description:   "posts to the lanes homed on " + m.opts.Host,
		FilterSubject: HomeFilter(m.opts.Host),
		DeliverPolicy: jetstream.DeliverAllPolicy,
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       m.opts.AckWait,
		MaxDeliver:    -1,
		MaxAckPending: 4 * m.opts.FetchBatch,
	})
}

// importBatch posts a fetched batch through one grouped commit of the
// local service and acks each message only after its post is durable. A
// crash before the ack redelivers the message, and the lane's id index
// answers it as a duplicate: nothing is lost, nothing is posted twice.
func (m *Member) importBatch(ctx context.Context, msgs []jetstream.Msg) {
	var obs []ob.Obligation
	var keep []jetstream.Msg
	for _, msg := range msgs {
		env, err := decodeEnvelope(msg.Subject(), msg.Data())
		if err == nil && env.Home != m.opts.Host {
			err = fmt.Errorf("%w: %s is for home %s, not %s", ErrMalformed, msg.Subject(), env.Home, m.opts.Host)
		}
		if err != nil {
			m.terminate(msg, err)
			continue
		}
		if md, err := msg.Metadata(); err == nil && md.NumDelivered > 1 {
			m.redelivered.Add(1)
		}
		obs = append(obs, env.Obligation())
		keep = append(keep, msg)
	}
	if len(obs) == 0 {
		return
	}
	t0 := m.opts.Clock.Now()
	_, errs := m.local.PostBatch(ctx, obs, true)
	m.log.Debug().Int("posts", len(obs)).Dur("commit", m.opts.Clock.Now().Sub(t0)).Msg("fleet: import batch")
	for i, msg := range keep {
		switch err := errs[i]; {
		case err == nil:
			m.markLocal(obs[i].Lane)
			m.LaneChanged(obs[i].Lane)
			if err := msg.Ack(); err != nil {
				m.log.Debug().Err(err).Msg("fleet: import ack lost; the redelivery is absorbed")
			}
			m.imported.Add(1)
		case isPermanent(err):
			m.terminate(msg, err)
		default:
			_ = msg.NakWithDelay(time.Second)
			m.log.Warn().Err(err).Str("lane", obs[i].Lane).Msg("fleet: import failed; the broker redelivers it")
		}
	}
}

// terminate stops the broker redelivering msg and alerts.
func (m *Member) terminate(msg jetstream.Msg, cause error) {
	_ = msg.Term()
	m.terminated.Add(1)
	m.opts.Alert("fleet_malformed", "fleet/"+msg.Subject(),
		fmt.Sprintf("a message for this host was dropped and will not be redelivered: %v", cause))
}

func isPermanent(err error) bool {
	for _, p := range permanent {
		if errors.Is(err, p) {
			return true
		}
	}
	return false
}
