package roots

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// runsIn counts the runs an ingest command logged to file.
func runsIn(t *testing.T, file string) int {
	t.Helper()
	b, err := os.ReadFile(file)
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "\n")
}

func exhausted(s *sim) bool {
	for _, a := range s.alerts() {
		if a.Code == "retries_exhausted" {
			return true
		}
	}
	return false
}

// engine.retry_attempts counts runs of the command: 5 attempts are 5
// failing runs, then retries_exhausted; the backlog keeps its paths and
// no drain is pending. Each way back drains it: a change of the command,
// Retry (wakewheel roots retry), a config reload (RetryStranded), the
// next event.
func TestIngestRetriesCountCommandRunsThenResume(t *testing.T) {
	for _, how := range []string{"command", "retry", "reload", "event"} {
		t.Run(how, func(t *testing.T) {
			s := newSim(t, Options{}) // RetryAttempts 5
			root := newRepo(t, "a")
			log := filepath.Join(t.TempDir(), "runs")
			failing := fmt.Sprintf(`echo run >> '%s'; echo indexer is down >&2; exit 1`, log)
			s.watchRoot(root, Handlers{}, Spec{Ingest: &failing})
			writeFile(t, root, "b", "x")
			s.detect(root)
			s.advance(10 * time.Minute)
			if n := runsIn(t, log); n != 5 {
				t.Fatalf("%d command runs for engine.retry_attempts 5", n)
			}
			if !exhausted(s) {
				t.Fatal("no retries_exhausted alert after the attempts were spent")
			}
			if st := s.status(root); st.Backlog != 1 || !strings.Contains(st.LastError, "indexer is down") {
				t.Fatalf("status after exhaustion: backlog %d, last error %q", st.Backlog, st.LastError)
			}
			if _, ok := s.pending(Key(KindDrain, root)); ok {
				t.Fatal("a drain still pending after exhaustion")
			}

			fixed := fmt.Sprintf(`echo run >> '%s'; cat > /dev/null`, log)
			ctx := context.Background()
			switch how {
			case "command":
				if _, err := s.m.Watch(ctx, Spec{Path: root, Ingest: &fixed}); err != nil {
					t.Fatal(err)
				}
			case "retry", "reload", "event":
				// The command is fixed where it lives (a script, PATH), not in
				// the record.
				s.m.mu.Lock()
				s.m.roots[root].rec.Ingest = fixed
				s.m.mu.Unlock()
				switch how {
				case "retry":
					if _, err := s.m.Retry(ctx, root); err != nil {
						t.Fatal(err)
					}
				case "reload":
					s.m.RetryStranded(ctx)
				case "event":
					writeFile(t, root, "c", "x")
					s.waitEvents(root)
				}
			}
			s.advance(time.Minute)
			if st := s.status(root); st.Backlog != 0 || st.Ingested == 0 {
				t.Fatalf("after %s: backlog %d, ingested %d: not resumed", how, st.Backlog, st.Ingested)
			}
		})
	}
}

func TestRetryRefusesAnUnknownOrDisarmedRoot(t *testing.T) {
	s := newSim(t, Options{})
	root := newRepo(t, "a")
	ctx := context.Background()
	if _, err := s.m.Retry(ctx, root); err == nil || !strings.Contains(err.Error(), "no such root") {
		t.Fatalf("unknown root: %v", err)
	}
	if _, err := s.m.Watch(ctx, Spec{Path: root}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.m.Retry(ctx, root); err == nil || !strings.Contains(err.Error(), "disarmed") {
		t.Fatalf("disarmed root: %v", err)
	}
}
