package fleet

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/rs/zerolog"
)

// Sentinel errors of the fleet.
var (
	// ErrUnreachable: the broker cannot be reached now.
	ErrUnreachable = errors.New("fleet: the broker is unreachable")
	// ErrHomedElsewhere: a lane opened here is homed on another host.
	ErrHomedElsewhere = errors.New("fleet: lane is homed on another host")
	// ErrOutboxFull: too many remote posts wait for the broker.
	ErrOutboxFull = errors.New("fleet: the outbox is full")
	// ErrMalformed: a message on the stream that no wakewheel wrote.
	ErrMalformed = errors.New("fleet: malformed message")
)

// Conn is a daemon's (or a CLI's) connection to the fleet's broker. It
// reconnects for ever; while it is down, Up is false and calls fail with
// ErrUnreachable instead of waiting.
type Conn struct {
	opts Options
	log  zerolog.Logger
	nc   *nats.Conn
	js   jetstream.JetStream
	up   atomic.Bool
	// ready is set once the stream and the buckets exist (ensure).
	ready atomic.Bool

	mu      sync.Mutex
	buckets map[string]jetstream.KeyValue
}

// Dial connects to the broker named by o.URL. With retry set, a broker
// that is down at the start is retried in the background (a daemon must
// start and serve its local lanes in a partition); without it, Dial fails.
func Dial(o Options, name string, retry bool, log zerolog.Logger) (*Conn, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	o = o.withDefaults()
	c := &Conn{opts: o, log: log, buckets: map[string]jetstream.KeyValue{}}
	nopts := []nats.Option{
		nats.Name(name),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(250 * time.Millisecond),
		nats.ReconnectJitter(100*time.Millisecond, time.Second),
		// No reconnect buffer: a publish while disconnected fails at
		// once and stays in the outbox, rather than sit in a buffer that
		// a crash loses without telling anyone.
		nats.ReconnectBufSize(-1),
		nats.Timeout(2 * time.Second),
		nats.PingInterval(o.PingInterval),
		nats.MaxPingsOutstanding(2),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			if c.up.Swap(false) {
				log.Warn().Err(err).Msg("fleet: broker connection lost; remote posts queue in the outbox, import pauses")
			}
		}),
		nats.ReconnectHandler(func(nc *nats.Conn) {
			c.up.Store(true)
			log.Info().Str("url", nc.ConnectedUrlRedacted()).Msg("fleet: broker connection back")
		}),
		nats.ConnectHandler(func(nc *nats.Conn) {
			c.up.Store(true)
			log.Info().Str("url", nc.ConnectedUrlRedacted()).Msg("fleet: connected to the broker")
		}),
	}
	if retry {
		nopts = append(nopts, nats.RetryOnFailedConnect(true))
	}
	if o.Creds != "" {
		nopts = append(nopts, nats.UserCredentials(o.Creds))
	}
	if o.NKeySeed != "" {
		opt, err := nats.NkeyOptionFromSeed(o.NKeySeed)
		if err != nil {
			return nil, fmt.Errorf("fleet: fleet.nkey_seed %s: %w", o.NKeySeed, err)
		}
		nopts = append(nopts, opt)
	}
	if o.TLS.CA != "" {
		nopts = append(nopts, nats.RootCAs(o.TLS.CA))
	}
	if o.TLS.Cert != "" {
		nopts = append(nopts, nats.ClientCert(o.TLS.Cert, o.TLS.Key))
	}
	if o.TLS.ServerName != "" {
		nopts = append(nopts, nats.Secure(), func(no *nats.Options) error {
			if no.TLSConfig != nil {
				no.TLSConfig.ServerName = o.TLS.ServerName
			}
			return nil
		})
	}
	nc, err := nats.Connect(o.URL, nopts...)
	if err != nil {
		return nil, fmt.Errorf("%w at %s: %v", ErrUnreachable, o.URL, err)
	}
	c.nc = nc
	if nc.IsConnected() {
		c.up.Store(true)
	}
	if c.js, err = jetstream.New(nc, jetstream.WithPublishAsyncTimeout(o.PublishAckWait)); err != nil {
		nc.Close()
		return nil, fmt.Errorf("fleet: jetstream: %w", err)
	}
	return c, nil
}

// Up reports whether the connection to the broker is up now.
func (c *Conn) Up() bool { return c.up.Load() && c.nc.IsConnected() }

// Close closes the connection.
func (c *Conn) Close() { c.nc.Close() }

// JetStream is the connection's JetStream context.
func (c *Conn) JetStream() jetstream.JetStream { return c.js }

// Options are the connection's options (with the default timings filled
// in).
func (c *Conn) Options() Options { return c.opts }

// Ensure creates the stream and the buckets, or updates their settings.
// It is idempotent; every member of the fleet calls it when it connects.
func (c *Conn) Ensure(ctx context.Context) error {
	if !c.Up() {
		return ErrUnreachable
	}
	o := c.opts
	_, err := c.js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name:        StreamName,
		Description: "wakewheel obligations on their way to their lanes' homes",
		Subjects:    StreamSubjects(),
		Storage:     jetstream.FileStorage,
		Replicas:    o.Replicas,
		Retention:   jetstream.LimitsPolicy,
		MaxAge:      o.MaxAge,
		MaxBytes:    o.MaxBytes,
		Discard:     jetstream.DiscardNew,
		Duplicates:  o.DupWindow,
	})
	if err != nil {
		return fmt.Errorf("fleet: stream %s: %w", StreamName, err)
	}
	c.log.Info().Str("stream", StreamName).Int("replicas", o.Replicas).Msg("fleet: stream ready")
	for _, kv := range []jetstream.KeyValueConfig{
		{Bucket: HomesBucket, Description: "the host each lane is homed on", Replicas: o.Replicas, Storage: jetstream.FileStorage},
		{Bucket: BeaconsBucket, Description: "each host's last beacon, with a per-message TTL", Replicas: o.Replicas,
			Storage: jetstream.FileStorage, LimitMarkerTTL: o.BeaconTTL()},
		{Bucket: LanesBucket, Description: "each lane's state, published by its home on change", Replicas: o.Replicas, Storage: jetstream.FileStorage},
	} {
		if _, err := c.js.CreateOrUpdateKeyValue(ctx, kv); err != nil {
			return fmt.Errorf("fleet: bucket %s: %w", kv.Bucket, err)
		}
	}
	c.ready.Store(true)
	return nil
}

// KV opens a bucket (once: the handle is kept). A bucket that is not
// found makes the member set the stream and buckets up again.
func (c *Conn) KV(ctx context.Context, bucket string) (jetstream.KeyValue, error) {
	if !c.Up() {
		return nil, ErrUnreachable
	}
	c.mu.Lock()
	kv := c.buckets[bucket]
	c.mu.Unlock()
	if kv != nil {
		return kv, nil
	}
	kv, err := c.js.KeyValue(ctx, bucket)
	if err != nil {
		if errors.Is(err, jetstream.ErrBucketNotFound) {
			c.ready.Store(false)
		}
		return nil, fmt.Errorf("%w: bucket %s: %v", ErrUnreachable, bucket, err)
	}
	c.mu.Lock()
	c.buckets[bucket] = kv
	c.mu.Unlock()
	return kv, nil
}

// ConsumerName is the durable import consumer of host.
func ConsumerName(host string) string { return "import-" + Encode(host) }

// readStream hands fn, in stream order, every message an ordered consumer
// of cfg finds pending when it starts, in batches of up to 1000. A stream
// that fails, or stops answering before all of them came, is ErrUnreachable.
func (c *Conn) readStream(ctx context.Context, cfg jetstream.OrderedConsumerConfig, fn func(jetstream.Msg)) error {
	oc, err := c.js.OrderedConsumer(ctx, StreamName, cfg)
	if err != nil {
		return fmt.Errorf("%w: reading the stream: %v", ErrUnreachable, err)
	}
	info, err := oc.Info(ctx)
	if err != nil {
		return fmt.Errorf("%w: reading the stream: %v", ErrUnreachable, err)
	}
	for left := info.NumPending; left > 0; {
		batch, err := oc.Fetch(int(min(left, 1000)), jetstream.FetchMaxWait(c.opts.RequestTimeout))
		if err != nil {
			return fmt.Errorf("%w: reading the stream: %v", ErrUnreachable, err)
		}
		got := 0
		for msg := range batch.Messages() {
			got++
			left--
			fn(msg)
		}
		if err := batch.Error(); err != nil && !errors.Is(err, jetstream.ErrNoMessages) {
			return fmt.Errorf("%w: reading the stream: %v", ErrUnreachable, err)
		}
		if got == 0 {
			return fmt.Errorf("%w: the stream stopped answering with %d messages left to read", ErrUnreachable, left)
		}
	}
	return nil
}
