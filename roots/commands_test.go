package roots

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// The daemon refuses a command whose program does not exist, whoever
// sends it (the config file, a Go client), before recording anything; a
// relative program counts from the root, where it runs.
func TestWatchRefusesAMissingCommand(t *testing.T) {
	s := newSim(t, Options{})
	root := newRepo(t, "a")
	writeFile(t, root, "index.sh", "#!/bin/sh\n")
	ctx := context.Background()
	missing := "/nonexistent/indexer --all"
	_, err := s.m.Watch(ctx, Spec{Path: root, Ingest: &missing})
	if !errors.Is(err, ErrBadCommand) || !strings.Contains(err.Error(), "/nonexistent/indexer does not exist") {
		t.Fatalf("missing program: %v", err)
	}
	if s.m.lookup(root) != nil {
		t.Fatal("a refused watch registered the root")
	}
	notExec := "./index.sh"
	if _, err := s.m.Watch(ctx, Spec{Path: root, Reconcile: &notExec}); !errors.Is(err, ErrBadCommand) || !strings.Contains(err.Error(), "not executable") {
		t.Fatalf("non-executable program: %v", err)
	}
	ok := "cat > /dev/null"
	if _, err := s.m.Watch(ctx, Spec{Path: root, Ingest: &ok}); err != nil {
		t.Fatal(err)
	}
}
