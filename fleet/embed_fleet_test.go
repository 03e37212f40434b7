//go:build fleet

package fleet_test

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/rs/zerolog"
	"github.com/wakewheel/wakewheel/fleet"
	"github.com/wakewheel/wakewheel/internal/clock"
	"github.com/wakewheel/wakewheel/internal/supervise"
)

// The embedded node is supervised: killed under the daemon, it is alerted
// and started again, answering under its name; Close stops it.
func TestEmbeddedNodeIsStartedAgainWhenItDies(t *testing.T) {
	prog := filepath.Join(filepath.Dir(wakewheelBin(t)), "wakewheel-broker")
	url := fmt.Sprintf("nats://127.0.0.1:%d", freePort(t))
	alerts := make(chan string, 8)
	e, err := fleet.StartEmbedded(fleet.EmbedOptions{Program: prog, Name: "solo", URL: url, StoreDir: t.TempDir(),
		Output: io.Discard, Alert: func(code, _, msg string) { alerts <- code + ": " + msg }, Clock: clock.Real{}, Log: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	first := e.Pid()
	if err := syscall.Kill(first, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	select {
	case a := <-alerts:
		if !strings.HasPrefix(a, "fleet_broker_exited: ") || !strings.Contains(a, "signal: killed") {
			t.Errorf("alert %q", a)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("no alert for a node that died")
	}
	// Back: a new program (the supervisor took it) answering under its name.
	var name string
	for deadline := time.Now().Add(90 * time.Second); name != "solo" || e.Pid() == first; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the node did not come back at %s (last answer from %q, pid %d)", url, name, e.Pid())
		}
		if nc, err := nats.Connect(url, nats.NoReconnect(), nats.Timeout(time.Second)); err == nil {
			name = nc.ConnectedServerName()
			nc.Close()
		}
	}
	second := e.Pid()
	e.Close()
	if supervise.Alive(second) {
		t.Errorf("node %d still runs after Close", second)
	}
}
