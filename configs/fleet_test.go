package configs

import (
	"strings"
	"testing"
)

func TestFleetURLNeedsTLSAndCredsBeyondLoopback(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  func(*Config)
		want string
	}{
		{"none", func(c *Config) {}, ""},
		{"loopback", func(c *Config) { c.Fleet.URL = "nats://127.0.0.1:4222,nats://localhost:4223" }, ""},
		{"remote in clear", func(c *Config) { c.Fleet.URL = "nats://10.0.0.5:4222" }, "TLS is required"},
		{"remote without creds", func(c *Config) { c.Fleet.URL = "tls://broker.example:4222" }, "credentials are required"},
		{"remote ok", func(c *Config) {
			c.Fleet.URL, c.Fleet.TLS.CA, c.Fleet.Creds = "nats://broker.example:4222", "/etc/ca.pem", "/etc/fleet.creds"
		}, ""},
		{"bad scheme", func(c *Config) { c.Fleet.URL = "http://127.0.0.1:4222" }, "want nats://"},
	} {
		c := Config{}
		tc.set(&c)
		got := checkFleetURL(&c)
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
