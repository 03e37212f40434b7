package fleet

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rs/zerolog"
	"github.com/wakewheel/wakewheel/internal/clock"
)

// A node that cannot start is reported with the program's own last words,
// at once, not after the ready-wait.
func TestEmbeddedNodeThatCannotStartSaysWhy(t *testing.T) {
	prog := filepath.Join(t.TempDir(), "wakewheel-broker")
	script := "#!/bin/sh\necho '{\"level\":\"info\",\"message\":\"Starting nats-server\"}' >&2\n" +
		"echo 'wakewheel: broker solo: 127.0.0.1:4222 is in use (another broker node, or another program, listens there)' >&2\nexit 1\n"
	if err := os.WriteFile(prog, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := StartEmbedded(EmbedOptions{Program: prog, Name: "solo", URL: "nats://127.0.0.1:4222", StoreDir: t.TempDir(),
		Clock: clock.Real{}, Log: zerolog.Nop()})
	if err == nil || !strings.Contains(err.Error(), "could not start (exit status 1): broker solo: 127.0.0.1:4222 is in use") {
		t.Fatalf("a node that cannot start: %v", err)
	}
	_, err = StartEmbedded(EmbedOptions{Program: filepath.Join(t.TempDir(), "nowhere"), Name: "solo", URL: "nats://127.0.0.1:4222",
		StoreDir: t.TempDir(), Clock: clock.Real{}, Log: zerolog.Nop()})
	if err == nil || !strings.Contains(err.Error(), "the broker program") {
		t.Fatalf("a missing program: %v", err)
	}
	if _, err := StartEmbedded(EmbedOptions{Program: prog, URL: "127.0.0.1:4222", Clock: clock.Real{}}); err == nil ||
		!strings.Contains(err.Error(), "not a nats://host:port URL") {
		t.Fatalf("a URL without a scheme: %v", err)
	}
}
