package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wakewheel/wakewheel/api"
	"github.com/wakewheel/wakewheel/roots"
)

// The watch limit reached (a low detect.watch_budget from the
// environment): the root that does not fit is polled, says so clearly in
// `wakewheel roots` and in an alert, and its changes are still found on
// traffic; the other root keeps its watcher and the daemon serves both.
func TestWatchLimitPollsWithAClearMessageAndServesOtherRoots(t *testing.T) {
	small, _, _ := checkoutRepo(t, 100, 0) // root, .git, d000, e00: 4 directories
	big, _, _ := checkoutRepo(t, 2000, 0)  // 24 directories
	h := newHome(t)
	h.env = append(h.env, "WAKEWHEEL_DETECT_WATCH_BUDGET=10")
	d := h.start()
	defer d.stop(t)
	c := h.client()
	ctx := context.Background()
	outSmall, outBig := filepath.Join(t.TempDir(), "small"), filepath.Join(t.TempDir(), "big")
	ingSmall, ingBig := ingestScript(t, outSmall), ingestScript(t, outBig)
	s1, err := c.Watch(ctx, api.WatchRequest{Path: small, Ingest: &ingSmall, Arm: true})
	if err != nil {
		t.Fatal(err)
	}
	s2, err := c.Watch(ctx, api.WatchRequest{Path: big, Ingest: &ingBig, Arm: true})
	if err != nil {
		t.Fatal(err)
	}
	stSmall := waitRoot(t, c, s1.Path, 10*time.Second, "small watched", func(s roots.Status) bool { return s.Mode == roots.ModeNotify })
	stBig := waitRoot(t, c, s2.Path, 10*time.Second, "big polled", func(s roots.Status) bool { return s.Mode == roots.ModePolling })
	if stBig.Reason != "watch budget" || !strings.Contains(stBig.Detail, "budget is 10") {
		t.Fatalf("big: %s / %s", stBig.Reason, stBig.Detail)
	}
	text, err := h.run("roots", big)
	if err != nil || !strings.Contains(text, "polling (watch budget)") || !strings.Contains(text, "needs") {
		t.Fatalf("wakewheel roots: %v\n%s", err, text)
	}
	alerts, err := h.run("alerts")
	if err != nil || !strings.Contains(alerts, "root_polling") {
		t.Fatalf("wakewheel alerts: %v\n%s", err, alerts)
	}
	t.Logf("small: %s, %d dirs; big: %s (%s)", stSmall.Mode, stSmall.WatchedDirs, stBig.Mode, stBig.Detail)

	// Both roots keep working: the watched one by its events, the polled
	// one on traffic (any request that is not a read of status).
	for i, root := range []string{small, big} {
		if err := os.WriteFile(filepath.Join(root, "d000", "e00", "f00001.txt"), []byte(fmt.Sprint("edit ", i)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(100 * time.Millisecond)
	if _, err := c.Remind(ctx, api.ReminderRequest{Name: "traffic", In: "1h"}); err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{outSmall, outBig} {
		deadline := time.Now().Add(15 * time.Second)
		for readIngested(t, out)["d000/e00/f00001.txt"] == 0 {
			if time.Now().After(deadline) {
				t.Fatalf("%s: the edit was not ingested", out)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	if st := rootStatus(t, c, s1.Path); st.Mode != roots.ModeNotify {
		t.Fatalf("small root lost its watcher: %+v", st)
	}
}
