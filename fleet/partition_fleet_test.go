//go:build fleet

package fleet_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nkeys"
	"github.com/wakewheel/wakewheel/api"
	"github.com/wakewheel/wakewheel/fleet"
)

// Partition test addresses: a veth pair between the test's namespace and
// one of its own (wwfA), the rest of the fleet on the root side.
const (
	netns    = "wwfA"
	rootIP   = "10.77.0.1"
	isleIP   = "10.77.0.2"
	vethRoot = "wwf-root"
	vethIsle = "wwf-isle"
)

func ipCmd(t *testing.T, args ...string) error {
	out, err := exec.Command("ip", args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("ip %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return nil
}

// setupNetns makes the namespace and the veth pair, or skips the test.
func setupNetns(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the partition test needs root for ip netns (skipped: not root)")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Skip("the partition test needs the ip command (iproute2); skipped")
	}
	_ = exec.Command("ip", "netns", "del", netns).Run() // left by a killed run
	_ = exec.Command("ip", "link", "del", vethRoot).Run()
	for _, args := range [][]string{
		{"netns", "add", netns},
		{"link", "add", vethRoot, "type", "veth", "peer", "name", vethIsle},
		{"link", "set", vethIsle, "netns", netns},
		{"addr", "add", rootIP + "/24", "dev", vethRoot},
		{"link", "set", vethRoot, "up"},
		{"netns", "exec", netns, "ip", "addr", "add", isleIP + "/24", "dev", vethIsle},
		{"netns", "exec", netns, "ip", "link", "set", vethIsle, "up"},
		{"netns", "exec", netns, "ip", "link", "set", "lo", "up"},
	} {
		if err := ipCmd(t, args...); err != nil {
			_ = exec.Command("ip", "netns", "del", netns).Run()
			t.Skipf("network namespaces are not usable here: %v", err)
		}
	}
	t.Cleanup(func() {
		_ = exec.Command("ip", "link", "del", vethRoot).Run()
		_ = exec.Command("ip", "netns", "del", netns).Run()
	})
}

// fleetTLS writes a CA, a server certificate for both addresses, and an
// nkey user; it returns the nats-server config file and the client's CA
// and seed files.
func fleetTLS(t *testing.T, dir string) (serverConf, ca, seed string) {
	t.Helper()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "wakewheel test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour), IsCA: true,
		KeyUsage: x509.KeyUsageCertSign, BasicConstraintsValid: true}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caCert, _ := x509.ParseCertificate(caDER)
	srvKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	srvTmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "broker"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IPAddresses: []net.IP{net.ParseIP(rootIP), net.ParseIP(isleIP)},
		KeyUsage:    x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}}
	srvDER, err := x509.CreateCertificate(rand.Reader, srvTmpl, caCert, &srvKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	srvKeyDER, _ := x509.MarshalECPrivateKey(srvKey)
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ca = write("ca.pem", pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}))
	cert := write("server.pem", pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srvDER}))
	key := write("server-key.pem", pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: srvKeyDER}))
	user, err := nkeys.CreateUser()
	if err != nil {
		t.Fatal(err)
	}
	pub, _ := user.PublicKey()
	s, _ := user.Seed()
	seed = write("user.nk", s)
	serverConf = write("broker.conf", []byte(fmt.Sprintf(`tls {
  cert_file: %q
  key_file: %q
  ca_file: %q
}
authorization {
  users = [ { nkey: %q } ]
}
`, cert, key, ca, pub)))
	return serverConf, ca, seed
}

// TestFleetPartitionIsolatesTheHome: A's daemon and one broker node are cut
// off from B and the other two nodes (the link between the namespaces goes
// down); B's posts to A's lanes are forwarded to the majority side; once
// the link is back, A imports each exactly once.
func TestFleetPartitionIsolatesTheHome(t *testing.T) {
	setupNetns(t)
	dir := t.TempDir()
	conf, ca, seed := fleetTLS(t, dir)
	ports := []int{freePort(t), freePort(t), freePort(t)}
	cports := []int{freePort(t), freePort(t), freePort(t)}
	ips := []string{isleIP, rootIP, rootIP}
	routes := func(self int) string {
		var r []string
		for i := range 3 {
			if i != self {
				r = append(r, fmt.Sprintf("nats://%s:%d", ips[i], cports[i]))
			}
		}
		return strings.Join(r, ",")
	}
	var nodes []*proc
	for i := range 3 {
		name := fmt.Sprintf("n%d", i+1)
		args := []string{"broker", "--name", name, "--listen", fmt.Sprintf("%s:%d", ips[i], ports[i]),
			"--cluster", fmt.Sprintf("%s:%d", ips[i], cports[i]), "--routes", routes(i),
			"--store", filepath.Join(dir, name), "--nats-config", conf}
		p := newProc(t, "broker-"+name, dir, []string{"WAKEWHEEL_LOG_FORMAT=json"}, args...)
		if i == 0 {
			p.netns = netns
		}
		p.start()
		nodes = append(nodes, p)
	}
	url := func(idx ...int) string {
		var u []string
		for _, i := range idx {
			u = append(u, fmt.Sprintf("tls://%s:%d", ips[i], ports[i]))
		}
		return strings.Join(u, ",")
	}
	secure := []string{"WAKEWHEEL_FLEET_TLS_CA=" + ca, "WAKEWHEEL_FLEET_NKEY_SEED=" + seed}
	a := startDaemonIn(t, netns, "a", url(0, 1, 2), secure...)
	b := startDaemon(t, "b", url(1, 2), secure...)
	openLanes(t, a, "isle")
	want := map[string]string{}
	res, err := b.client.Post(ctxFor(t, 60*time.Second), api.PostRequest{Lane: "isle", Class: "human", ID: "before", Body: "x", Wait: fleet.Forwarded})
	if err != nil || res.Route != fleet.Forwarded {
		t.Fatalf("post before the partition: %+v %v\n%s", res, err, b.tail())
	}
	want["before"] = "isle"
	waitImported(t, a, []string{"isle"}, 1, 60*time.Second)

	if err := ipCmd(t, "link", "set", vethRoot, "down"); err != nil {
		t.Fatal(err)
	}
	t.Log("partition: a and n1 cut off from b, n2, n3")
	forwarded := 0
	for i := range 30 {
		id := fmt.Sprintf("cut-%d", i)
		res, err := b.client.Post(ctxFor(t, 60*time.Second), api.PostRequest{Lane: "isle", Class: "human", ID: id, Body: "x", Wait: fleet.Forwarded})
		if err != nil {
			t.Fatalf("post %s in the partition: %v", id, err)
		}
		if res.Route == fleet.Forwarded {
			forwarded++
		}
		want[id] = "isle"
	}
	// A's lanes work locally meanwhile.
	if res, err := a.client.Post(ctxFor(t, 10*time.Second), api.PostRequest{Lane: "isle", Class: "human", ID: "local-in-cut", Body: "x"}); err != nil || res.Route != fleet.PostedLocal {
		t.Fatalf("local post on the isolated home: %+v %v", res, err)
	}
	want["local-in-cut"] = "isle"
	time.Sleep(2 * time.Second)
	posts := lanePosts(t, a, "isle")
	if len(posts) != 2 {
		t.Fatalf("the isolated home imported through the partition: %d posts", len(posts))
	}
	if err := ipCmd(t, "link", "set", vethRoot, "up"); err != nil {
		t.Fatal(err)
	}
	t.Log("healed")
	took := waitImported(t, a, []string{"isle"}, len(want), 120*time.Second)
	time.Sleep(4 * time.Second) // past the ack wait: a redelivery would show as a second post
	checkExactlyOnce(t, a, want, []string{"isle"})
	t.Logf("30 posts in the partition (%d answered forwarded by the majority side); imported %s after healing, each once", forwarded, took.Round(time.Millisecond))
	for _, n := range nodes {
		n.kill()
	}
}
