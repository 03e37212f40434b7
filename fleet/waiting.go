package fleet

import (
	"context"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"
)

// waitingByLane counts, per lane, the obligations the stream holds for
// home beyond its import consumer's ack floor: posted by another host,
// not imported (nor acked) by the home yet. It reads the headers only,
// from the ack floor on, so what it costs is what waits, not what the
// stream keeps. A home that never imported has everything waiting.
func waitingByLane(ctx context.Context, c *Conn, home string) (map[string]uint64, error) {
	var floor uint64
	if imp, err := c.js.Consumer(ctx, StreamName, ConsumerName(home)); err == nil {
		info, err := imp.Info(ctx)
		if err != nil {
			return nil, fmt.Errorf("%w: the import consumer of %s: %v", ErrUnreachable, home, err)
		}
		floor = info.AckFloor.Stream
	} else if !errors.Is(err, jetstream.ErrConsumerNotFound) {
		return nil, fmt.Errorf("%w: the import consumer of %s: %v", ErrUnreachable, home, err)
	}
	cfg := jetstream.OrderedConsumerConfig{FilterSubjects: []string{HomeFilter(home)}, HeadersOnly: true,
		DeliverPolicy: jetstream.DeliverAllPolicy}
	if floor > 0 {
		cfg.DeliverPolicy, cfg.OptStartSeq = jetstream.DeliverByStartSequencePolicy, floor+1
	}
	out := map[string]uint64{}
	err := c.readStream(ctx, cfg, func(msg jetstream.Msg) {
		if _, lane, _, err := ParseSubject(msg.Subject()); err == nil {
			out[lane]++
		}
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
