package fleet

import (
	"context"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"
)

// Parity is the source-parity check of one home: every obligation the
// stream still holds for it must be in the home's ledger. A message past
// the import's ack floor may still be on its way (in flight), and a
// malformed one was terminated and alerted; anything else that the ledger
// lacks is a loss.
type Parity struct {
	Home      string   `json:"home"`
	InStream  int      `json:"in_stream"` // messages the stream holds for the home
	Found     int      `json:"found"`     // of them, posted in the home's ledger
	InFlight  int      `json:"in_flight"` // past the ack floor, not imported yet
	Malformed int      `json:"malformed"` // terminated at import
	Missing   []MsgRef `json:"missing"`   // acked (or below the floor) and not in the ledger
	AckFloor  uint64   `json:"ack_floor"` // the import consumer's stream ack floor
}

// MsgRef names one stream message.
type MsgRef struct {
	StreamSeq uint64 `json:"stream_seq"`
	Lane      string `json:"lane"`
	ID        string `json:"id"`
	Origin    string `json:"origin"`
}

// CheckParity reads every message the stream holds for home and checks it
// against posted, the home's ledger (lane → ids posted).
func CheckParity(ctx context.Context, c *Conn, home string, posted map[string]map[string]bool) (Parity, error) {
	p := Parity{Home: home, Missing: []MsgRef{}}
	if !c.Up() {
		return p, ErrUnreachable
	}
	if imp, err := c.js.Consumer(ctx, StreamName, ConsumerName(home)); err == nil {
		if info, err := imp.Info(ctx); err == nil {
			p.AckFloor = info.AckFloor.Stream
		}
	}
	oc, err := c.js.OrderedConsumer(ctx, StreamName, jetstream.OrderedConsumerConfig{
		FilterSubjects: []string{HomeFilter(home)}, DeliverPolicy: jetstream.DeliverAllPolicy})
	if err != nil {
		return p, fmt.Errorf("%w: reading the stream: %v", ErrUnreachable, err)
	}
	info, err := oc.Info(ctx)
	if err != nil {
		return p, fmt.Errorf("%w: reading the stream: %v", ErrUnreachable, err)
	}
	left := info.NumPending
	for left > 0 {
		batch, err := oc.Fetch(int(min(left, 1000)), jetstream.FetchMaxWait(c.opts.RequestTimeout))
		if err != nil {
			return p, fmt.Errorf("%w: reading the stream: %v", ErrUnreachable, err)
		}
		got := 0
		for msg := range batch.Messages() {
			got++
			left--
			md, _ := msg.Metadata()
			var seq uint64
			if md != nil {
				seq = md.Sequence.Stream
			}
			p.InStream++
			env, err := decodeEnvelope(msg.Subject(), msg.Data())
			switch {
			case err != nil:
				p.Malformed++
			case posted[env.Lane][env.ID]:
				p.Found++
			case seq > p.AckFloor:
				p.InFlight++
			default:
				p.Missing = append(p.Missing, MsgRef{StreamSeq: seq, Lane: env.Lane, ID: env.ID, Origin: env.Origin})
			}
		}
		if err := batch.Error(); err != nil && !errors.Is(err, jetstream.ErrNoMessages) {
			return p, fmt.Errorf("%w: reading the stream: %v", ErrUnreachable, err)
		}
		if got == 0 {
			return p, fmt.Errorf("%w: the stream stopped answering with %d messages left to read", ErrUnreachable, left)
		}
	}
	return p, nil
}
