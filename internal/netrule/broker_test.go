package netrule

import (
	"strings"
	"testing"
)

func TestLoopback(t *testing.T) {
	for host, want := range map[string]bool{
		"localhost": true, "127.0.0.1": true, "127.3.4.5": true, "::1": true,
		"10.0.0.5": false, "broker.example": false, "": false, "0.0.0.0": false,
	} {
		if got := Loopback(host); got != want {
			t.Errorf("Loopback(%q) = %v, want %v", host, got, want)
		}
	}
}

func TestBrokerBeyondLoopbackNeedsTLSAndCredentials(t *testing.T) {
	for _, tc := range []struct {
		name string
		b    Broker
		want string
	}{
		{"no fleet", Broker{}, ""},
		{"loopback in clear", Broker{URL: "nats://127.0.0.1:4222, nats://localhost:4223"}, ""},
		{"remote in clear", Broker{URL: "nats://10.0.0.5:4222", Creds: "c"}, "TLS is required"},
		{"remote, one URL in clear among loopback", Broker{URL: "nats://127.0.0.1:4222,nats://10.0.0.5:4222", Creds: "c"}, "TLS is required"},
		{"remote without credentials", Broker{URL: "tls://broker.example:4222"}, "credentials are required"},
		{"remote with a CA and creds", Broker{URL: "nats://broker.example:4222", CA: "ca.pem", Creds: "c"}, ""},
		{"remote with a server name and a seed", Broker{URL: "nats://broker.example:4222", ServerName: "b", NKeySeed: "s"}, ""},
		{"cert without key", Broker{URL: "nats://127.0.0.1:4222", Cert: "c.pem"}, "go together"},
		{"bad scheme", Broker{URL: "http://127.0.0.1:4222"}, `broker URL "http://127.0.0.1:4222": want nats://`},
		{"no host", Broker{URL: "nats://"}, "want nats://"},
	} {
		err := CheckBroker(tc.b)
		if tc.want == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}
