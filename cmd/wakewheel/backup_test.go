package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/wakewheel/wakewheel/api"
)

// TestBackupRestore: a backup taken while posts keep arriving holds every
// post acknowledged before it (and none of the later ones torn); after the
// store is lost, restore brings the daemon back with it, and --store opens
// a backup directly.
func TestBackupRestore(t *testing.T) {
	h := newHome(t)
	ctx := context.Background()
	d := h.start()
	c := h.client()
	post := func(i int) api.PostResult {
		res, err := c.Post(ctx, api.PostRequest{Lane: "dev", Class: "human", Create: true, Body: fmt.Sprintf("post %d", i)})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	for i := range 50 {
		post(i)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // writers keep going during the backup
		defer wg.Done()
		for i := 50; i < 150; i++ {
			post(i)
		}
	}()
	backup := filepath.Join(h.dir, "backup")
	out, err := h.run("backup", backup)
	if err != nil || !strings.Contains(out, "written to "+backup) {
		t.Fatalf("backup: %v\n%s", err, out)
	}
	wg.Wait()
	if out, err := h.run("backup", backup); err == nil || !strings.Contains(out, "already exists") {
		t.Errorf("a second backup over the first: %v\n%s", err, out)
	}
	d.stop(t)

	if out, err := h.run("restore", backup); err != nil || !strings.Contains(out, "replaced is kept in") {
		t.Fatalf("restore: %v\n%s", err, out)
	}
	d = h.start()
	lanes, err := h.client().Lanes(ctx)
	if err != nil || len(lanes) != 1 {
		t.Fatalf("lanes after restore: %+v, %v", lanes, err)
	}
	head := lanes[0].Head
	if head < 50 || head > 150 {
		t.Fatalf("restored head %d: the backup lost posts acknowledged before it", head)
	}
	dg, err := h.client().Digest(ctx, "dev", "t")
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range dg.Messages {
		if m.Seq != uint64(i+1) || m.Body != fmt.Sprintf("post %d", i) {
			t.Fatalf("restored message %d: %+v", i, m)
		}
	}
	d.stop(t)
	t.Logf("backup taken during 100 posts holds %d posts; restored and started", head)
}
