package configs

import (
	"errors"
	"os"
	"strings"
	"time"

	"github.com/wakewheel/wakewheel/internal/netrule"
)

// Fleet holds the settings of a daemon's membership of a fleet (keys
// fleet.*): its broker, its name, its credentials, and the numbers of the
// stream, the import consumer, the outbox and the beacon.
type Fleet struct {
	URL        string // fleet.url: empty for no fleet
	Host       string // fleet.host
	Creds      string // fleet.creds
	NKeySeed   string // fleet.nkey_seed
	TLS        FleetTLS
	Replicas   int           // fleet.replicas
	MaxAge     time.Duration // fleet.max_age
	MaxBytes   int           // fleet.max_bytes
	DupWindow  time.Duration // fleet.dup_window
	AckWait    time.Duration // fleet.ack_wait
	FetchBatch int           // fleet.fetch_batch
	OutboxMax  int           // fleet.outbox.max
	Beacon     FleetBeacon
	Lanes      FleetLanes
	Embed      string // fleet.embed: a broker node's store directory, "" for none
	Timings    FleetTimings
}

// FleetTimings are the timings of a member's conversation with the broker
// (keys fleet.request_timeout, fleet.publish_ack_wait, fleet.fetch_wait,
// fleet.retry_max, fleet.ping_interval).
type FleetTimings struct {
	RequestTimeout time.Duration
	PublishAckWait time.Duration
	FetchWait      time.Duration
	RetryMax       time.Duration
	PingInterval   time.Duration
}

// FleetLanes is the publishing of lane state (keys fleet.lanes.*).
type FleetLanes struct {
	Coalesce time.Duration // fleet.lanes.coalesce
}

// FleetTLS is the client side of TLS to the broker (keys fleet.tls.*).
type FleetTLS struct {
	CA, Cert, Key, ServerName string
}

// FleetBeacon is the beacon in the fleet's bucket (keys fleet.beacon.*).
type FleetBeacon struct {
	Period        time.Duration // fleet.beacon.period
	Grace         time.Duration // fleet.beacon.grace
	SafetyEntries int           // fleet.beacon.safety_entries
}

// fleetSettings join the registry after its own table (init below), so
// the fleet's keys sit together in REFERENCE.md.
var fleetSettings = []Setting{
	{Key: "fleet.url", Kind: KindString, Default: "",
		Reason: "empty: the daemon stays on its own host; nats://host:port (comma-separated for a cluster) joins a fleet",
		field:  func(c *Config) any { return &c.Fleet.URL }},
	{Key: "fleet.embed", Kind: KindPath, Default: "",
		Reason: "empty: the broker runs on its own (wakewheel broker); a directory runs a one-node broker inside the daemon at fleet.url, for a fleet of one (a laptop, a test)",
		field:  func(c *Config) any { return &c.Fleet.Embed }},
	{Key: "fleet.host", Kind: KindString, Default: "the hostname",
		Reason: "a host's lanes are homed under its name and its beacon carries it; the hostname is unique in most fleets",
		field:  func(c *Config) any { return &c.Fleet.Host }, derive: deriveFleetHost,
		check: checkFleetHost, rule: "no spaces or '/'"},
	{Key: "fleet.creds", Kind: KindPath, Default: "",
		Reason: "a NATS credentials file (JWT + nkey); required, or fleet.nkey_seed, when the broker is not on loopback",
		field:  func(c *Config) any { return &c.Fleet.Creds }},
	{Key: "fleet.nkey_seed", Kind: KindPath, Default: "",
		Reason: "a file holding an nkey seed, for brokers that authorize by nkey alone",
		field:  func(c *Config) any { return &c.Fleet.NKeySeed }},
	{Key: "fleet.tls.ca", Kind: KindPath, Default: "",
		Reason: "the CA that signed the broker's certificate; required (or a tls:// URL) when the broker is not on loopback",
		field:  func(c *Config) any { return &c.Fleet.TLS.CA }},
	{Key: "fleet.tls.cert", Kind: KindPath, Default: "",
		Reason: "this host's client certificate, for brokers that require mutual TLS",
		field:  func(c *Config) any { return &c.Fleet.TLS.Cert }},
	{Key: "fleet.tls.key", Kind: KindPath, Default: "",
		Reason: "the key of fleet.tls.cert",
		field:  func(c *Config) any { return &c.Fleet.TLS.Key }},
	{Key: "fleet.tls.server_name", Kind: KindString, Default: "",
		Reason: "empty: the broker's certificate is checked against the URL's host",
		field:  func(c *Config) any { return &c.Fleet.TLS.ServerName }},
	{Key: "fleet.replicas", Kind: KindInt, Default: "3", Min: "1", Max: "5",
		Reason: "three copies survive the loss of any one broker node with a quorum left; 1 for a single-node broker",
		field:  func(c *Config) any { return &c.Fleet.Replicas }},
	{Key: "fleet.max_age", Kind: KindDuration, Default: "168h", Min: "1h", Max: "8760h",
		Reason: "a home that is offline for a week still finds its posts waiting; the home's own store keeps them after import",
		field:  func(c *Config) any { return &c.Fleet.MaxAge }},
	{Key: "fleet.max_bytes", Kind: KindInt, Default: "1073741824", Min: "1048576", Max: "1099511627776",
		Reason: "1 GiB holds about a million forwarded posts waiting for their homes; the broker refuses new posts beyond it, it never drops old ones",
		field:  func(c *Config) any { return &c.Fleet.MaxBytes }},
	{Key: "fleet.dup_window", Kind: KindDuration, Default: "2m", Min: "1s", Max: "24h",
		Reason: "the broker's window absorbs a forwarder's quick re-send after a lost ack; the home's id index, not this window, is the guarantee",
		field:  func(c *Config) any { return &c.Fleet.DupWindow }},
	{Key: "fleet.ack_wait", Kind: KindDuration, Default: "30s", Min: "1s", Max: "1h",
		Reason: "well above one grouped synced commit on a loaded disk; an import that dies is redelivered after it, and the id index absorbs the copy",
		field:  func(c *Config) any { return &c.Fleet.AckWait }},
	{Key: "fleet.fetch_batch", Kind: KindInt, Default: "64", Min: "1", Max: "1024",
		Reason: "one import fetch goes through one grouped commit: 64 posts share an fsync without holding the pipeline long",
		field:  func(c *Config) any { return &c.Fleet.FetchBatch }},
	{Key: "fleet.outbox.max", Kind: KindInt, Default: "10000", Min: "1", Max: "10000000",
		Reason: "remote posts queued while the broker is unreachable; past it a post is refused clearly rather than the disk filled",
		field:  func(c *Config) any { return &c.Fleet.OutboxMax }},
	{Key: "fleet.beacon.period", Kind: KindDuration, Default: "30s", Min: "1s", Max: "1h",
		Reason: "a beacon in the fleet's bucket costs one small publish: twice a minute notices a dead host within a minute",
		field:  func(c *Config) any { return &c.Fleet.Beacon.Period }},
	{Key: "fleet.beacon.grace", Kind: KindDuration, Default: "30s", Min: "1s", Max: "1h",
		Reason: "a beacon lives period + grace: a broker leader election (seconds) does not make a live host look absent",
		field:  func(c *Config) any { return &c.Fleet.Beacon.Grace }},
	{Key: "fleet.beacon.safety_entries", Kind: KindInt, Default: "10000", Min: "100", Max: "1000000",
		Reason: "the beacon's safety vector is judged over the latest 10,000 ledger entries (a busy day of one host, about 2 MB kept in memory), read incrementally; the whole ledger is what wakewheel ledger report judges",
		field:  func(c *Config) any { return &c.Fleet.Beacon.SafetyEntries }},
	{Key: "fleet.request_timeout", Kind: KindDuration, Default: "5s", Min: "100ms", Max: "5m",
		Reason: "one request to the broker (a bucket read or put, a stream or consumer info) gives up after 5 s: past a leader election (3-10 s measured here it is retried by its caller, never waited for on the worker)",
		field:  func(c *Config) any { return &c.Fleet.Timings.RequestTimeout }},
	{Key: "fleet.publish_ack_wait", Kind: KindDuration, Default: "10s", Min: "1s", Max: "5m",
		Reason: "a forwarded post waits this long for the broker's ack before it is published again (the id absorbs the copy): above the 7.4 s stall measured when an R3 stream leader is SIGKILLed",
		field:  func(c *Config) any { return &c.Fleet.Timings.PublishAckWait }},
	{Key: "fleet.fetch_wait", Kind: KindDuration, Default: "2s", Min: "100ms", Max: "5m",
		Reason: "an idle home's import fetch waits 2 s for a message, then asks again: one small request every 2 s, and a restarted broker is noticed within it",
		field:  func(c *Config) any { return &c.Fleet.Timings.FetchWait }},
	{Key: "fleet.retry_max", Kind: KindDuration, Default: "2s", Min: "100ms", Max: "10m",
		Reason: "a failed forward's pause doubles from 100 ms up to 2 s: a healed broker gets the outbox within 2 s, a down one costs one try every 2 s",
		field:  func(c *Config) any { return &c.Fleet.Timings.RetryMax }},
	{Key: "fleet.ping_interval", Kind: KindDuration, Default: "2s", Min: "100ms", Max: "10m",
		Reason: "the connection pings the broker every 2 s and drops it after two pings without answer: a broker that went silent (no TCP reset) is left for another node within about 6 s",
		field:  func(c *Config) any { return &c.Fleet.Timings.PingInterval }},
	{Key: "fleet.lanes.coalesce", Kind: KindDuration, Default: "1s", Min: "10ms", Max: "10m",
		Reason: "a home publishes a lane's state this long after its first change: a burst of posts and acks is one publish, and fleet status is at most this far behind",
		field:  func(c *Config) any { return &c.Fleet.Lanes.Coalesce }},
}

// fleetRules tie the broker's address to its protection.
var fleetRules = []rule{{
	key:  "fleet.embed",
	deps: []string{"fleet.url", "fleet.replicas"},
	doc:  "needs fleet.url (one loopback URL, where the node listens) and fleet.replicas 1",
	check: func(c *Config) string {
		f := c.Fleet
		switch {
		case f.Embed == "":
			return ""
		case f.URL == "" || strings.Contains(f.URL, ","):
			return "an embedded broker listens at fleet.url: set it to one URL such as nats://127.0.0.1:4222"
		case f.Replicas != 1:
			return "an embedded broker is a single node: set fleet.replicas to 1"
		}
		return ""
	},
}, {
	key:   "fleet.url",
	deps:  []string{"fleet.creds", "fleet.nkey_seed", "fleet.tls.ca", "fleet.tls.cert", "fleet.tls.key"},
	doc:   "empty, nats:// or tls:// URLs; beyond loopback only with TLS and credentials",
	check: checkFleetURL,
}}

// checkFleetURL applies the broker rule (netrule.CheckBroker: beyond
// loopback only with TLS and credentials) to the fleet.* keys.
func checkFleetURL(c *Config) string {
	f := c.Fleet
	err := netrule.CheckBroker(netrule.Broker{URL: f.URL, CA: f.TLS.CA, Cert: f.TLS.Cert, Key: f.TLS.Key,
		ServerName: f.TLS.ServerName, Creds: f.Creds, NKeySeed: f.NKeySeed})
	if err != nil {
		return err.Error()
	}
	return ""
}

func deriveFleetHost(_ lookup, _ *Config) (string, error) {
	h, err := os.Hostname()
	if err != nil || h == "" {
		return "", errors.New("has no default: the hostname is unknown; set fleet.host")
	}
	return h, nil
}

func checkFleetHost(c *Config) string {
	h := c.Fleet.Host
	if h == "" || len(h) > 128 {
		return "must be 1 to 128 bytes"
	}
	for _, r := range h {
		if r == '/' || r == ' ' || r < 0x20 {
			return "must not hold spaces, control characters or '/'"
		}
	}
	return ""
}
