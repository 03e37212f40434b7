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
	oc, err := c.js.OrderedConsumer(ctx, StreamName, cfg)
	if err != nil {
		return nil, fmt.Errorf("%w: reading the stream: %v", ErrUnreachable, err)
	}
	info, err := oc.Info(ctx)
	if err != nil {
		return nil, fmt.Errorf("%w: reading the stream: %v", ErrUnreachable, err)
	}
	out := map[string]uint64{}
	for left := info.NumPending; left > 0; {
		batch, err := oc.Fetch(int(min(left, 1000)), jetstream.FetchMaxWait(c.opts.RequestTimeout))
		if err != nil {
			return nil, fmt.Errorf("%w: reading the stream: %v", ErrUnreachable, err)
		}
		got := 0
		for msg := range batch.Messages() {
			got++
			left--
			if _, lane, _, err := ParseSubject(msg.Subject()); err == nil {
				out[lane]++
			}
		}
		if err := batch.Error(); err != nil && !errors.Is(err, jetstream.ErrNoMessages) {
			return nil, fmt.Errorf("%w: reading the stream: %v", ErrUnreachable, err)
		}
		if got == 0 {
			return nil, fmt.Errorf("%w: the stream stopped answering with %d messages left to read", ErrUnreachable, left)
		}
	}
	return out, nil
}
