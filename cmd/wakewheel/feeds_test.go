package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A root declared in the config file is watched and armed at start, with
// its own windows, and a lane subscribed to it is woken by a machine digest
// that names the changed file, the repository and its HEAD.
func TestConfigRootFeedsSubscribedLane(t *testing.T) {
	h := newHome(t)
	repo := t.TempDir()
	gitT(t, repo, "init", "-q")
	os.WriteFile(filepath.Join(repo, "README"), []byte("hello\n"), 0o644)
	gitT(t, repo, "add", "-A")
	gitT(t, repo, "commit", "-qm", "A")
	head := strings.TrimSpace(string(gitT(t, repo, "rev-parse", "HEAD")))
	ingested := filepath.Join(t.TempDir(), "ingested")
	h.writeConfig(t, "roots:\n  - path: "+repo+"\n    armed: true\n    reconcile_quiet: 2m\n    ingest: "+ingestScript(t, ingested)+
		"\nlanes:\n  watcher:\n    roots: ["+repo+"]\n")
	d := h.start()
	defer d.stop(t)

	out, err := h.run("roots", "--json")
	if err != nil || !strings.Contains(out, `"reconcile_quiet": "2m0s"`) || !strings.Contains(out, `"armed": true`) {
		t.Fatalf("roots --json: the config's root, armed, with its own 2m quiet window: %v\n%s", err, out)
	}
	time.Sleep(500 * time.Millisecond) // the root's first detection inventories it
	if err := os.WriteFile(filepath.Join(repo, "new file.go"), []byte("package x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err = h.run("wait", "--lane", "watcher", "--timeout", "20s", "--json")
	if err != nil {
		t.Fatalf("wait: %v\n%s", err, out)
	}
	var digest map[string]any
	if err := json.Unmarshal([]byte(out), &digest); err != nil {
		t.Fatalf("wait --json is not JSON: %v\n%s", err, out)
	}
	if !strings.Contains(out, "new file.go") || !strings.Contains(out, repo) || !strings.Contains(out, head[:12]) {
		t.Fatalf("the lane's digest does not name the file, the repository and HEAD %s:\n%s", head[:12], out)
	}
	eventually(t, "the ingest command to get the new file", func() bool { return readIngested(t, ingested)["new file.go"] > 0 })
}
