package fleet

import (
	"context"

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
	cfg := jetstream.OrderedConsumerConfig{FilterSubjects: []string{HomeFilter(home)}, DeliverPolicy: jetstream.DeliverAllPolicy}
	err := c.readStream(ctx, cfg, func(msg jetstream.Msg) {
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
	})
	return p, err
}
