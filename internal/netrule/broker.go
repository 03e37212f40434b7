package netrule

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strings"
)

// Loopback reports whether host names this machine only: localhost or a
// loopback address.
func Loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// Broker is what the broker rule reads of a fleet's connection settings
// (the fleet.* keys of the same names).
type Broker struct {
	URL                       string // comma-separated nats:// or tls:// URLs
	CA, Cert, Key, ServerName string // fleet.tls.*
	Creds, NKeySeed           string
}

// CheckBroker: a fleet's obligations and beacons never cross a network in
// clear, and a broker reachable from elsewhere never takes anonymous
// clients. A broker beyond loopback needs TLS (a CA, a client certificate
// or server name, or a tls:// URL) and credentials (fleet.creds or
// fleet.nkey_seed); a client certificate goes with its key. An empty URL
// (no fleet) passes.
func CheckBroker(b Broker) error {
	if b.URL == "" {
		return nil
	}
	remote, secure := false, b.CA != "" || b.Cert != "" || b.ServerName != ""
	for _, raw := range strings.Split(b.URL, ",") {
		u, err := url.Parse(strings.TrimSpace(raw))
		if err != nil || u.Host == "" || (u.Scheme != "nats" && u.Scheme != "tls") {
			return fmt.Errorf("broker URL %q: want nats://host:port or tls://host:port, comma-separated for a cluster", strings.TrimSpace(raw))
		}
		remote = remote || !Loopback(u.Hostname())
		secure = secure || u.Scheme == "tls"
	}
	switch {
	case remote && !secure:
		return errors.New("the broker is not on loopback, so TLS is required: set fleet.tls.ca (and fleet.tls.cert/key for mutual TLS) or use tls:// URLs")
	case remote && b.Creds == "" && b.NKeySeed == "":
		return errors.New("the broker is not on loopback, so credentials are required: set fleet.creds or fleet.nkey_seed")
	case (b.Cert == "") != (b.Key == ""):
		return errors.New("fleet.tls.cert and fleet.tls.key go together: set both or neither")
	}
	return nil
}
