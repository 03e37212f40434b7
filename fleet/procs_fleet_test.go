//go:build fleet

package fleet_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/wakewheel/wakewheel/api"
)

// The multi-process tests (build tag fleet, `make fleet-test`) run the
// real binary: broker nodes and daemons as child processes on 127.0.0.1,
// killed with SIGKILL, never stopped politely in place of a crash.

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// wakewheelBin builds the binary once per test run, and the broker's
// program beside it, where wakewheel looks for it first.
func wakewheelBin(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "wwbin")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "wakewheel")
		out, err := exec.Command("go", "build", "-o", dir+"/", "github.com/wakewheel/wakewheel/cmd/wakewheel",
			"github.com/wakewheel/wakewheel/cmd/wakewheel-broker").CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// proc is a child process that can be killed and started again with the
// same arguments.
type proc struct {
	t     *testing.T
	name  string
	args  []string
	netns string // run inside this network namespace (ip netns exec)
	env   []string
	log   string

	mu  sync.Mutex
	cmd *exec.Cmd
	// exited is closed when the current run ends.
	exited chan struct{}
}

func newProc(t *testing.T, name, logDir string, env []string, args ...string) *proc {
	p := &proc{t: t, name: name, args: args, env: env, log: filepath.Join(logDir, name+".log")}
	t.Cleanup(func() { p.kill() })
	return p
}

func (p *proc) start() {
	p.t.Helper()
	f, err := os.OpenFile(p.log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		p.t.Fatal(err)
	}
	cmd := exec.Command(wakewheelBin(p.t), p.args...)
	if p.netns != "" {
		cmd = exec.Command("ip", append([]string{"netns", "exec", p.netns, wakewheelBin(p.t)}, p.args...)...)
	}
	cmd.Env = append(os.Environ(), p.env...)
	cmd.Stdout, cmd.Stderr = f, f
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		f.Close()
		p.t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); f.Close(); close(done) }()
	p.mu.Lock()
	p.cmd, p.exited = cmd, done
	p.mu.Unlock()
}

// kill SIGKILLs the process (if it runs) and waits for it to be gone.
func (p *proc) kill() {
	p.mu.Lock()
	cmd, done := p.cmd, p.exited
	p.cmd = nil
	p.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	<-done
}

// stop sends SIGTERM and waits.
func (p *proc) stop() {
	p.mu.Lock()
	cmd, done := p.cmd, p.exited
	p.cmd = nil
	p.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
	}
}

func (p *proc) tail() string {
	b, _ := os.ReadFile(p.log)
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if !strings.Contains(l, "request failed") {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines[max(0, len(lines)-15):], "\n")
}

// cluster is N broker nodes as processes.
type cluster struct {
	t      *testing.T
	nodes  []*proc
	client []int // client ports
	names  []string
}

func newCluster(t *testing.T, n int, dir string) *cluster {
	c := &cluster{t: t}
	var routes []string
	clusterPorts := make([]int, n)
	for i := range n {
		c.client = append(c.client, freePort(t))
		clusterPorts[i] = freePort(t)
		routes = append(routes, fmt.Sprintf("nats://127.0.0.1:%d", clusterPorts[i]))
	}
	for i := range n {
		name := fmt.Sprintf("n%d", i+1)
		args := []string{"broker", "--name", name, "--listen", fmt.Sprintf("127.0.0.1:%d", c.client[i]),
			"--store", filepath.Join(dir, name)}
		if n > 1 {
			var others []string
			for j, r := range routes {
				if j != i {
					others = append(others, r)
				}
			}
			args = append(args, "--cluster", fmt.Sprintf("127.0.0.1:%d", clusterPorts[i]), "--routes", strings.Join(others, ","))
		}
		c.names = append(c.names, name)
		c.nodes = append(c.nodes, newProc(t, "broker-"+name, dir, []string{"WAKEWHEEL_LOG_FORMAT=json"}, args...))
	}
	for _, p := range c.nodes {
		p.start()
	}
	c.waitMeta()
	return c
}

// waitMeta waits until JetStream answers: the nodes found each other and
// elected a meta leader.
func (c *cluster) waitMeta() {
	c.t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		nc, err := nats.Connect(c.urls(), nats.Timeout(2*time.Second))
		if err == nil {
			js, _ := jetstream.New(nc)
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			_, err = js.AccountInfo(ctx)
			cancel()
			nc.Close()
			if err == nil {
				return
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	c.t.Fatalf("the broker cluster never answered JetStream requests:\n%s", c.nodes[0].tail())
}

// urls is the cluster's client URLs, comma-separated.
func (c *cluster) urls() string {
	var u []string
	for _, p := range c.client {
		u = append(u, fmt.Sprintf("nats://127.0.0.1:%d", p))
	}
	return strings.Join(u, ",")
}

func (c *cluster) node(name string) *proc {
	for i, n := range c.names {
		if n == name {
			return c.nodes[i]
		}
	}
	c.t.Fatalf("no broker node %q", name)
	return nil
}

// connectedNode is the node p (a wakewheel process logging JSON) is
// connected to now, from its last "connected" or "connection back" line.
func (c *cluster) connectedNode(p *proc) string {
	c.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		b, _ := os.ReadFile(p.log)
		url := ""
		for _, l := range strings.Split(string(b), "\n") {
			var e struct {
				Message string `json:"message"`
				URL     string `json:"url"`
			}
			if json.Unmarshal([]byte(l), &e) == nil && e.URL != "" &&
				(strings.Contains(e.Message, "connected to the broker") || strings.Contains(e.Message, "connection back")) {
				url = e.URL
			}
		}
		for i, port := range c.client {
			if url != "" && strings.HasSuffix(url, fmt.Sprintf(":%d", port)) {
				return c.names[i]
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	c.t.Fatalf("%s never logged the node it is connected to:\n%s", p.name, p.tail())
	return ""
}

// leader is the name of the node leading the stream (or a bucket's
// stream, KV_<bucket>).
func (c *cluster) leader(stream string) string {
	c.t.Helper()
	nc, err := nats.Connect(c.urls(), nats.Timeout(2*time.Second))
	if err != nil {
		c.t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		s, err := js.Stream(ctx, stream)
		if err == nil {
			info, err := s.Info(ctx)
			if err == nil && info.Cluster != nil && info.Cluster.Leader != "" {
				cancel()
				return info.Cluster.Leader
			}
		}
		cancel()
		time.Sleep(200 * time.Millisecond)
	}
	c.t.Fatalf("stream %s has no leader", stream)
	return ""
}

// daemon is one host's daemon process and its client.
type daemon struct {
	*proc
	host   string
	socket string
	client *api.Client
}

// startDaemon runs a daemon for host against urls, with short import and
// beacon numbers for tests; extra adds or overrides settings (KEY=value).
func startDaemon(t *testing.T, host, urls string, extra ...string) *daemon {
	t.Helper()
	return startDaemonIn(t, "", host, urls, extra...)
}

// startDaemonIn is startDaemon inside a network namespace ("" for none).
func startDaemonIn(t *testing.T, ns, host, urls string, extra ...string) *daemon {
	t.Helper()
	dir, err := os.MkdirTemp("", "wwf-"+host+"-") // short: a socket path has < 108 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	socket := filepath.Join(dir, "s.sock")
	env := []string{
		"WAKEWHEEL_FLEET_URL=" + urls, "WAKEWHEEL_FLEET_HOST=" + host,
		"WAKEWHEEL_ENGINE_STORE_DIR=" + filepath.Join(dir, "store"), "WAKEWHEEL_ENGINE_SOCKET_PATH=" + socket,
		"WAKEWHEEL_FLEET_ACK_WAIT=3s", "WAKEWHEEL_FLEET_BEACON_PERIOD=1s", "WAKEWHEEL_FLEET_BEACON_GRACE=2s",
		"WAKEWHEEL_LOG_FORMAT=json", "XDG_CONFIG_HOME=" + dir,
	}
	env = append(env, extra...)
	d := &daemon{proc: newProc(t, "daemon-"+host, t.TempDir(), env, "daemon"), host: host, socket: socket,
		client: api.NewClient(socket)}
	d.netns = ns
	d.start()
	return d
}

func (d *daemon) start() {
	d.proc.start()
	d.waitReady()
}

func (d *daemon) waitReady() {
	d.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_, err := d.client.Lanes(ctx)
		cancel()
		if err == nil {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	d.t.Fatalf("daemon %s not ready:\n%s", d.host, d.tail())
}

func ctxFor(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// freePort returns a loopback port nobody listens on right now.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}
