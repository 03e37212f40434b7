package fleet

import (
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/wakewheel/wakewheel/internal/netrule"
)

// Options configure a daemon's membership of a fleet. cmd/ fills them from
// the fleet.* keys; the defaults and their reasons live in configs.
type Options struct {
	// URL is the broker's (comma-separated URLs for a cluster). Empty:
	// no fleet.
	URL string
	// Host names this daemon in the fleet: its lanes' home, its beacon.
	Host string
	// Creds is a NATS credentials file; NKeySeed a file holding an nkey
	// seed. A non-loopback broker needs one of them, and TLS.
	Creds, NKeySeed string
	TLS             TLS

	Replicas  int           // copies of the stream and buckets
	MaxAge    time.Duration // how long an obligation waits in the stream for its home
	MaxBytes  int64         // the stream's size limit
	DupWindow time.Duration // the broker's de-duplication window

	AckWait    time.Duration // a home's import ack deadline
	FetchBatch int           // messages per import fetch (one grouped commit)
	OutboxMax  int           // remote posts queued on this host at most

	BeaconPeriod time.Duration // between two beacons in the fleet bucket
	BeaconGrace  time.Duration // added to the period for the beacon's TTL

	// LanesCoalesce is how long a lane's changes gather before its state
	// is published in the lanes bucket.
	LanesCoalesce time.Duration

	// The timings of the conversation with the broker (fleet.*; zero:
	// the default below, whose reason configs registers).
	RequestTimeout time.Duration // one request: a bucket read or put, a stream or consumer info
	PublishAckWait time.Duration // one forwarded publish's ack, across a leader election
	FetchWait      time.Duration // one import fetch: an idle home asks again this often
	RetryMax       time.Duration // a failed forward's pause doubles up to this
	PingInterval   time.Duration // the connection's ping: a silent broker is dropped after two
}

// Defaults of the broker timings (registered in configs with their reasons).
const (
	DefaultRequestTimeout = 5 * time.Second
	DefaultPublishAckWait = 10 * time.Second
	DefaultFetchWait      = 2 * time.Second
	DefaultRetryMax       = 2 * time.Second
	DefaultPingInterval   = 2 * time.Second
)

// withDefaults fills the timings left zero.
func (o Options) withDefaults() Options {
	for _, d := range []struct {
		v   *time.Duration
		def time.Duration
	}{{&o.RequestTimeout, DefaultRequestTimeout}, {&o.PublishAckWait, DefaultPublishAckWait},
		{&o.FetchWait, DefaultFetchWait}, {&o.RetryMax, DefaultRetryMax}, {&o.PingInterval, DefaultPingInterval}} {
		if *d.v <= 0 {
			*d.v = d.def
		}
	}
	return o
}

// TLS is the client side of a TLS connection to the broker.
type TLS struct {
	CA, Cert, Key, ServerName string
}

// Enabled reports whether any TLS setting is given.
func (t TLS) Enabled() bool { return t.CA != "" || t.Cert != "" || t.ServerName != "" }

// Validate checks the host name and the broker rule (netrule.CheckBroker,
// the one configs applies to the fleet.* keys): the URLs, and that a
// broker off this host is reached with TLS and credentials. Options that
// did not come through configs (tests, tools) meet the same rule.
func (o Options) Validate() error {
	if o.URL == "" {
		return nil
	}
	if err := CheckHost(o.Host); err != nil {
		return err
	}
	err := netrule.CheckBroker(netrule.Broker{URL: o.URL, CA: o.TLS.CA, Cert: o.TLS.Cert, Key: o.TLS.Key,
		ServerName: o.TLS.ServerName, Creds: o.Creds, NKeySeed: o.NKeySeed})
	if err != nil {
		return fmt.Errorf("fleet: %w", err)
	}
	return nil
}

// CheckHost checks a host name of the fleet.
func CheckHost(h string) error {
	if h == "" || len(h) > 128 || strings.ContainsAny(h, "/ \t\r\n") {
		return fmt.Errorf("fleet: host name %q: want 1 to 128 bytes without spaces or '/'", h)
	}
	return nil
}

// Loopback reports whether host names this machine only (netrule's
// rule, named here for the broker's listen check).
func Loopback(host string) bool { return netrule.Loopback(host) }

// loopbackAddr reports whether a host:port listens on loopback only.
func loopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	return err == nil && Loopback(host)
}

// BeaconTTL is the TTL of one beacon: period + grace, rounded up to whole
// seconds (the broker's TTLs are whole seconds, at least one).
func (o Options) BeaconTTL() time.Duration {
	return max(time.Second, (o.BeaconPeriod + o.BeaconGrace + time.Second - 1).Truncate(time.Second))
}
