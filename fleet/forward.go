package fleet

import (
	"context"
	"encoding/json"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Forwarding numbers.
const (
	forwardBatch = 256                    // posts published before their acks are awaited
	retryMin     = 100 * time.Millisecond // first pause after a failed forward (doubling to fleet.retry_max)
)

// forward drains the outbox into the stream until ctx ends. Each post is
// published with its lane and id as message id and removed from the
// outbox only once the broker acknowledged it (stored on a quorum, synced).
// A failed publish stays queued and is retried with a bounded backoff.
func (m *Member) forward(ctx context.Context) {
	pause := retryMin
	for {
		sent, failed := m.forwardOnce(ctx)
		if ctx.Err() != nil {
			return
		}
		switch {
		case failed:
			if !m.sleep(ctx, pause) {
				return
			}
			pause = min(2*pause, m.conn.opts.RetryMax)
		case sent:
			pause = retryMin // more may be queued: go again at once
		default:
			select {
			case <-ctx.Done():
				return
			case <-m.outbox.kick:
			}
		}
	}
}

// forwardOnce publishes one batch of queued posts and waits for their
// acks. sent: some were forwarded; failed: some were not.
func (m *Member) forwardOnce(ctx context.Context) (sent, failed bool) {
	seqs, envs := m.outbox.peek(forwardBatch)
	if len(seqs) == 0 {
		return false, false
	}
	if !m.conn.Up() {
		return false, true
	}
	js := m.conn.JetStream()
	futures := make([]jetstream.PubAckFuture, 0, len(envs))
	for _, e := range envs {
		data, err := json.Marshal(e)
		if err != nil {
			continue // cannot happen for an Envelope
		}
		msg := nats.NewMsg(e.Subject())
		msg.Data = data
		msg.Header.Set(jetstream.MsgIDHeader, MsgID(e.Lane, e.ID))
		f, err := js.PublishMsgAsync(msg, jetstream.WithExpectStream(StreamName))
		if err != nil {
			failed = true
			break
		}
		futures = append(futures, f)
	}
	var done []uint64
	timeout := m.opts.Clock.NewTimer(m.conn.opts.PublishAckWait)
	defer timeout.Stop()
wait:
	for i, f := range futures {
		select {
		case <-f.Ok():
			done = append(done, seqs[i])
		case err := <-f.Err():
			m.log.Debug().Err(err).Str("lane", envs[i].Lane).Msg("fleet: forward not acknowledged; retrying")
			failed = true
		case <-timeout.C():
			failed = true
			break wait
		case <-ctx.Done():
			failed = true
			break wait
		}
	}
	if err := m.outbox.remove(done); err != nil {
		m.log.Warn().Err(err).Msg("fleet: outbox delete failed; the forwarded posts are sent again and absorbed by their homes")
	}
	m.forwarded.Add(uint64(len(done)))
	return len(done) > 0, failed
}
