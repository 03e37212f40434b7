package broker

import (
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/wakewheel/wakewheel/internal/importrules"
)

// The node is the fleet's server side alone: nothing of the rest of the
// fleet, so the fleet's own tests can run one in their process.
func TestImportRules(t *testing.T) {
	importrules.Check(t, ".", importrules.Rules{NoClock: true, StdOnly: true, Allowed: []string{
		"github.com/nats-io/nats-server/v2", "github.com/rs/zerolog", "github.com/wakewheel/wakewheel/internal/clock",
		"github.com/wakewheel/wakewheel/internal/netrule"}})
}

func TestStartRefusesWhatCannotRun(t *testing.T) {
	store := t.TempDir()
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{Name: "a.b", Listen: "127.0.0.1:0", StoreDir: store}, "want a word without spaces"},
		{Options{Name: "a", Listen: "127.0.0.1:0"}, "needs --store DIR"},
		{Options{Name: "a", Listen: "127.0.0.1", StoreDir: store}, "--listen \"127.0.0.1\": want host:port"},
		{Options{Name: "a", Listen: "127.0.0.1:0", StoreDir: store, Routes: []string{"nats://127.0.0.1:1"}}, "--routes needs --cluster"},
		{Options{Name: "a", Listen: "0.0.0.0:0", StoreDir: store}, "beyond loopback needs TLS and authorization"},
	} {
		c.o.Logger = zerolog.Nop()
		if n, err := Start(c.o); err == nil || !strings.Contains(err.Error(), c.want) {
			if n != nil {
				n.Close()
			}
			t.Errorf("Start(%+v): %v, want an error saying %q", c.o, err, c.want)
		}
	}
}

// A port someone else holds is refused by name within the address wait,
// not after the server's whole ready-wait.
func TestStartNamesAPortInUse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	start := time.Now()
	_, err = Start(Options{Name: "a", Listen: ln.Addr().String(), StoreDir: t.TempDir(), Logger: zerolog.Nop()})
	if err == nil || !strings.Contains(err.Error(), ln.Addr().String()+" is in use") {
		t.Fatalf("a port in use: %v", err)
	}
	if took := time.Since(start); took > readyWait/2 {
		t.Errorf("refused after %s, want about the address wait %s", took, addrWait)
	}
}

func TestANodeAnswersAndStops(t *testing.T) {
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close()
	n, err := Start(Options{Name: "solo", Listen: addr, StoreDir: filepath.Join(t.TempDir(), "js"), Logger: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(n.URL(), addr) {
		t.Errorf("URL %s, want one at %s", n.URL(), addr)
	}
	n.Close()
	if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		c.Close()
		t.Errorf("%s still answers after Close", addr)
	}
}
