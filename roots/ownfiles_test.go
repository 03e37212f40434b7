package roots

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// The daemon's own files (here its log file, in the watched root) are
// never evented nor captured: writing them starts no burst.
func TestDaemonsOwnFilesNeverTriggerADetection(t *testing.T) {
	root := newRepo(t, "a")
	logFile := filepath.Join(root, "logs", "daemon.log")
	writeFile(t, root, "logs/daemon.log", "start\n")
	s := newSim(t, Options{OwnFiles: []string{logFile, filepath.Join(root, "state")}})
	log := &ingestLog{}
	s.watchRoot(root, Handlers{Ingest: log.ingest}, Spec{})
	for i := range 5 {
		writeFile(t, root, "logs/daemon.log", fmt.Sprintf("line %d\n", i))
		writeFile(t, root, "state/000001.log", "store write")
	}
	time.Sleep(300 * time.Millisecond)
	if _, ok := s.pending(Key(KindBurst, root)); ok {
		t.Fatal("the daemon's own files started a burst")
	}
	writeFile(t, root, "b", "a real change")
	s.waitEvents(root)
	s.advance(time.Second)
	if got := log.paths(); !slices.Equal(got, []string{"b"}) {
		t.Fatalf("ingested %q, want only b", got)
	}
}

// An ingest command that writes a file in its own root at every run: the
// loop stops after selfWriteStrikes detections, the file is named in the
// status, and a real change is still delivered.
func TestAnIngestCommandsOwnOutputStopsTriggering(t *testing.T) {
	s := newSim(t, Options{})
	root := newRepo(t, "a")
	cmd := fmt.Sprintf("cat > /dev/null; date +%%s%%N >> '%s'", filepath.Join(root, "ingest.log"))
	s.watchRoot(root, Handlers{}, Spec{Ingest: &cmd})
	writeFile(t, root, "b", "x")
	s.detect(root)
	for range 10 { // each round: the command's write, its burst, a detection
		time.Sleep(100 * time.Millisecond)
		s.advance(time.Second)
	}
	st := s.status(root)
	if !slices.Equal(st.SelfWritten, []string{"ingest.log"}) {
		t.Fatalf("self-written %q after %d detections, want ingest.log", st.SelfWritten, st.Detections)
	}
	before := st.Detections
	for range 3 {
		time.Sleep(100 * time.Millisecond)
		s.advance(time.Second)
	}
	if st := s.status(root); st.Detections != before {
		t.Fatalf("detections went on: %d -> %d", before, st.Detections)
	}
	ingested := s.status(root).Ingested
	writeFile(t, root, "c", "a real change")
	deadline := time.Now().Add(10 * time.Second)
	for s.status(root).Ingested != ingested+1 {
		if time.Now().After(deadline) {
			t.Fatalf("a real change after the mute was not ingested: %+v", s.status(root))
		}
		time.Sleep(50 * time.Millisecond)
		s.advance(time.Second)
	}
}

// Nested or overlapping roots are refused, saying which root is in the way.
func TestOverlappingRootsAreRefused(t *testing.T) {
	s := newSim(t, Options{})
	root := newRepo(t, "sub/a")
	ctx := context.Background()
	if _, err := s.m.Watch(ctx, Spec{Path: root}); err != nil {
		t.Fatal(err)
	}
	_, err := s.m.Watch(ctx, Spec{Path: filepath.Join(root, "sub")})
	if !errors.Is(err, ErrOverlap) || !strings.Contains(err.Error(), "is inside the root "+root) {
		t.Fatalf("a root inside a root: %v", err)
	}
	_, err = s.m.Watch(ctx, Spec{Path: filepath.Dir(root)})
	if !errors.Is(err, ErrOverlap) || !strings.Contains(err.Error(), "holds the root "+root) {
		t.Fatalf("a root holding a root: %v", err)
	}
	if _, err := s.m.Watch(ctx, Spec{Path: root}); err != nil {
		t.Fatalf("watching the same root again: %v", err)
	}
}
