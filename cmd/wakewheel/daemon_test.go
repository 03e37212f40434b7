package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wakewheel/wakewheel/api"
)

// SIGTERM flushes written-behind deadlines: an unsynced reminder survives a
// graceful restart long before the flush interval would have written it.
func TestGracefulShutdownFlushes(t *testing.T) {
	h := newHome(t)
	h.env = append(h.env, "WAKEWHEEL_ENGINE_FLUSH_INTERVAL=10s")
	d := h.start()
	if out, err := h.run("remind", "later", "--in", "1h"); err != nil {
		t.Fatalf("remind: %v\n%s", err, out)
	}
	d.stop(t)
	d = h.start()
	defer d.stop(t)
	out, err := h.run("deadlines", "--json")
	if err != nil {
		t.Fatalf("deadlines: %v\n%s", err, out)
	}
	var ds []api.Deadline
	if err := json.Unmarshal([]byte(out), &ds); err != nil {
		t.Fatalf("deadlines --json is not JSON: %v\n%s", err, out)
	}
	if len(ds) != 1 || ds[0].Key != "reminder/later" {
		t.Fatalf("after a graceful restart: %+v, want reminder/later", ds)
	}
	out, err = h.run("status", "--json")
	if err != nil || !strings.Contains(out, `"pending": 1`) {
		t.Fatalf("status --json: %v\n%s", err, out)
	}
}

// A corrupt store stops the daemon with a message that names the store and
// the repair command; repair recovers it.
func TestCorruptStoreHasARepairPath(t *testing.T) {
	h := newHome(t)
	d := h.start()
	if out, err := h.run("remind", "kept", "--in", "1h", "--sync"); err != nil {
		t.Fatalf("remind: %v\n%s", err, out)
	}
	d.stop(t)
	storeDir := filepath.Join(h.dir, "store")
	manifests, _ := filepath.Glob(filepath.Join(storeDir, "MANIFEST-*"))
	if len(manifests) == 0 {
		t.Fatal("no MANIFEST in the store")
	}
	for _, m := range manifests {
		if err := os.WriteFile(m, []byte("this is not a manifest"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	out, err := h.run("daemon")
	if err == nil {
		t.Fatalf("daemon started on a corrupt store:\n%s", out)
	}
	if !strings.Contains(out, "corrupt") || !strings.Contains(out, "wakewheel repair") || strings.Contains(out, "panic") {
		t.Fatalf("want a clear corruption error naming the repair command, got:\n%s", out)
	}
	if out, err := h.run("repair", "--store", storeDir); err != nil {
		t.Fatalf("repair: %v\n%s", err, out)
	}
	d = h.start()
	defer d.stop(t)
	ds, err := h.client().Deadlines(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != 1 || ds[0].Key != "reminder/kept" {
		t.Fatalf("after repair: %+v, want reminder/kept", ds)
	}
}

// A bad configuration value is refused with the key, the value and the
// allowed range; the client verbs say plainly when no daemon runs.
func TestCLIErrorsAreClear(t *testing.T) {
	h := newHome(t)
	cmd := h.command("daemon")
	cmd.Env = append(cmd.Env, "WAKEWHEEL_ENGINE_TICK=5s")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "engine.tick") || !strings.Contains(string(out), "5s") ||
		!strings.Contains(string(out), "between") {
		t.Fatalf("bad tick: %v\n%s", err, out)
	}
	if out, err := h.run("status"); err == nil || !strings.Contains(out, "not running") {
		t.Fatalf("status with no daemon: %v\n%s", err, out)
	}
}

// A second daemon on the same store says plainly that the store is in use.
func TestSecondDaemonOnOneStoreIsRefusedClearly(t *testing.T) {
	h := newHome(t)
	d := h.start()
	defer d.stop(t)
	cmd := h.command("daemon")
	cmd.Env = append(cmd.Env, "WAKEWHEEL_ENGINE_SOCKET_PATH="+h.socket+".2")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "LOCK is held by another process") {
		t.Fatalf("second daemon: %v\n%s", err, out)
	}
}
