package broker

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/rs/zerolog"
	"github.com/wakewheel/wakewheel/internal/clock"
	"github.com/wakewheel/wakewheel/internal/netrule"
)

// Options configure one node of the fleet's broker, normally one per
// host, run by `wakewheel broker` (or by a daemon's fleet.embed).
type Options struct {
	Name     string   // the node's server name, unique in the cluster
	Listen   string   // client host:port
	Cluster  string   // cluster host:port; empty for a single node
	Routes   []string // nats://host:port of the other nodes' cluster ports
	StoreDir string   // JetStream's file store
	// ConfigFile is a nats-server configuration file read first (TLS,
	// accounts, authorization); the flags above override its listeners.
	ConfigFile string
	Logger     zerolog.Logger
}

// ClusterName is the cluster every wakewheel broker node joins.
const ClusterName = "wakewheel"

// readyWait bounds how long a starting node may take to accept clients.
const readyWait = 30 * time.Second

// addrWait is how long a starting node waits for its addresses to be
// free: a node of the same host that was just killed (its daemon died,
// taking its embedded node with it) lets go of them within moments.
const addrWait = 3 * time.Second

// Node is a running embedded node.
type Node struct {
	srv *server.Server
}

// Start starts a node with JetStream and SyncAlways: every message the
// node acknowledges is fsynced first (the file store's default syncs
// every two minutes, so an acknowledged publish could be lost to a power
// cut). A node listening off loopback must get TLS and authorization from
// a ConfigFile.
func Start(o Options) (*Node, error) {
	opts := &server.Options{}
	if o.ConfigFile != "" {
		var err error
		if opts, err = server.ProcessConfigFile(o.ConfigFile); err != nil {
			return nil, fmt.Errorf("fleet: broker config %s: %w", o.ConfigFile, err)
		}
	}
	if o.Name == "" || strings.ContainsAny(o.Name, " \t\n.*>") {
		return nil, fmt.Errorf("fleet: broker name %q: want a word without spaces, '.', '*' or '>'", o.Name)
	}
	if o.StoreDir == "" {
		return nil, errors.New("fleet: the broker needs --store DIR for its JetStream files")
	}
	host, port, err := splitAddr("--listen", o.Listen)
	if err != nil {
		return nil, err
	}
	remote := !netrule.Loopback(host)
	opts.ServerName, opts.Host, opts.Port = o.Name, host, port
	opts.JetStream, opts.StoreDir = true, o.StoreDir
	opts.SyncAlways = true
	opts.NoSigs = true
	addrs := []string{o.Listen}
	if o.Cluster != "" {
		ch, cp, err := splitAddr("--cluster", o.Cluster)
		if err != nil {
			return nil, err
		}
		remote = remote || !netrule.Loopback(ch)
		opts.Cluster.Name, opts.Cluster.Host, opts.Cluster.Port = ClusterName, ch, cp
		opts.Routes = server.RoutesFromStr(strings.Join(o.Routes, ","))
		addrs = append(addrs, o.Cluster)
	} else if len(o.Routes) > 0 {
		return nil, errors.New("fleet: --routes needs --cluster host:port for this node's own cluster port")
	}
	if remote && (opts.TLSConfig == nil || !hasAuth(opts)) {
		return nil, errors.New("fleet: a broker listening beyond loopback needs TLS and authorization: give them in a nats-server config file (--nats-config)")
	}
	for _, a := range addrs {
		if err := awaitFree(a); err != nil {
			return nil, fmt.Errorf("fleet: broker %s: %w", o.Name, err)
		}
	}
	srv, err := server.NewServer(opts)
	if err != nil {
		return nil, fmt.Errorf("fleet: broker: %w", err)
	}
	srv.SetLoggerV2(natsLogger{o.Logger}, false, false, false)
	go srv.Start()
	if !srv.ReadyForConnections(readyWait) {
		srv.Shutdown()
		return nil, fmt.Errorf("fleet: broker %s did not accept clients on %s within %s (is the port taken?)", o.Name, o.Listen, readyWait)
	}
	return &Node{srv: srv}, nil
}

// awaitFree waits up to addrWait for addr to be free to listen on: the
// server's own listen error would otherwise only show as a ready-wait
// that runs out.
func awaitFree(addr string) error {
	clk := clock.Real{}
	end := clk.Now().Add(addrWait)
	pause := clk.NewTimer(0)
	defer pause.Stop()
	for {
		ln, err := net.Listen("tcp", addr)
		if err == nil {
			return ln.Close()
		}
		if !errors.Is(err, syscall.EADDRINUSE) {
			return fmt.Errorf("cannot listen on %s: %w", addr, err)
		}
		if clk.Now().After(end) {
			return fmt.Errorf("%s is in use (another broker node, or another program, listens there): stop it or choose another port", addr)
		}
		<-pause.C()
		pause.Reset(50 * time.Millisecond)
	}
}

func hasAuth(o *server.Options) bool {
	return len(o.Users) > 0 || len(o.Nkeys) > 0 || o.TrustedOperators != nil || o.Authorization != "" || o.AuthCallout != nil
}

// URL is the node's client URL.
func (n *Node) URL() string { return n.srv.ClientURL() }

// Run serves until ctx ends, then shuts the node down.
func (n *Node) Run(ctx context.Context) error {
	done := make(chan struct{})
	go func() { n.srv.WaitForShutdown(); close(done) }()
	select {
	case <-ctx.Done():
		n.srv.Shutdown()
		<-done
		return nil
	case <-done:
		return errors.New("fleet: the broker stopped by itself (see its log)")
	}
}

// Close stops the node.
func (n *Node) Close() { n.srv.Shutdown(); n.srv.WaitForShutdown() }

func splitAddr(flag, addr string) (string, int, error) {
	host, p, err := net.SplitHostPort(addr)
	n, perr := strconv.Atoi(p)
	if err != nil || perr != nil || n < 0 || n > 65535 {
		return "", 0, fmt.Errorf("fleet: %s %q: want host:port such as 127.0.0.1:4222", flag, addr)
	}
	return host, n, nil
}

// natsLogger hands the server's log lines to zerolog.
type natsLogger struct{ log zerolog.Logger }

func (l natsLogger) Noticef(f string, v ...any) { l.log.Info().Msgf(f, v...) }
func (l natsLogger) Warnf(f string, v ...any)   { l.log.Warn().Msgf(f, v...) }
func (l natsLogger) Fatalf(f string, v ...any)  { l.log.Error().Msgf(f, v...) }
func (l natsLogger) Errorf(f string, v ...any)  { l.log.Error().Msgf(f, v...) }
func (l natsLogger) Debugf(f string, v ...any)  { l.log.Debug().Msgf(f, v...) }
func (l natsLogger) Tracef(f string, v ...any)  { l.log.Trace().Msgf(f, v...) }
