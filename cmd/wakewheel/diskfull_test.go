package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wakewheel/wakewheel/api"
)

// tmpfsStore mounts a tmpfs of size (mount's syntax, "2m") on h's store
// directory and unmounts it when the test ends. It skips the test, saying
// why, when not root or when the mount fails.
func tmpfsStore(t *testing.T, h *home, size string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to mount a size-limited tmpfs for the store")
	}
	dir := filepath.Join(h.dir, "store")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size+",mode=0700", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs on the store (%v): %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
	return dir
}

// TestDiskFullHealsWithoutRestart: a real daemon with its store on a 2 MiB
// tmpfs. Posts fill it until they fail clearly; /healthz and the alerts
// say so; the filesystem is grown and posts succeed again within 10 s with
// no restart; the episode's alerts are in the log; and every acknowledged
// post is in the lane's digest, before and after a restart.
func TestDiskFullHealsWithoutRestart(t *testing.T) {
	h := newHome(t)
	dir := tmpfsStore(t, h, "2m")
	addr := freePort(t)
	h.env = append(h.env, "WAKEWHEEL_METRICS_LISTEN="+addr)
	d := h.start()
	t.Cleanup(d.kill) // before the unmount (cleanups run last-first)
	c := h.client()
	ctx := context.Background()

	acked := map[uint64]string{}
	post := func(i int) error {
		pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		body := fmt.Sprintf("post %d %s", i, strings.Repeat("x", 4096))
		res, err := c.Post(pctx, api.PostRequest{Lane: "dev", Class: "human", Create: true, Body: body})
		if err == nil {
			acked[res.Obligation.Seq] = body
		}
		return err
	}
	var failed error
	n := 0
	for ; n < 5000 && failed == nil; n++ {
		failed = post(n)
	}
	if failed == nil {
		t.Fatalf("%d posts of 4 KiB fit on a 2 MiB store", n)
	}
	msg := failed.Error()
	t.Logf("after %d acked posts, post %d failed: %s", len(acked), n-1, msg)
	if !strings.Contains(msg, "no space left") || !strings.Contains(msg, "nothing of this call was stored") {
		t.Errorf("the failed post does not say the disk is full and nothing was stored: %s", msg)
	}
	if code, body := get(t, "http://"+addr+"/healthz"); code != 503 || !strings.Contains(body, "cannot write") {
		t.Errorf("/healthz on a full disk: %d %q, want 503 saying the store cannot write", code, body)
	}
	if !hasAlert(t, c, "store_write_failed", false) {
		t.Error("no store_write_failed alert while the disk is full")
	}
	if err := post(n); err == nil {
		t.Error("a post succeeded on the full disk")
	}
	n++

	if out, err := exec.Command("mount", "-o", "remount,size=64m", dir).CombinedOutput(); err != nil {
		t.Fatalf("growing the tmpfs: %v: %s", err, out)
	}
	grown := time.Now()
	for {
		err := post(n)
		n++
		if err == nil {
			break
		}
		if time.Since(grown) > 10*time.Second {
			t.Fatalf("posts still fail 10s after the disk was grown: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("posts succeed again %s after the disk was grown, without a restart", time.Since(grown).Round(time.Millisecond))
	for range 20 {
		if err := post(n); err != nil {
			t.Fatalf("a post after healing: %v", err)
		}
		n++
	}
	if code, body := get(t, "http://"+addr+"/healthz"); code != 200 {
		t.Errorf("/healthz after healing: %d %q", code, body)
	}
	for _, code := range []string{"store_write_failed", "obligations_store_failed", "store_healed"} {
		if !hasAlert(t, c, code, true) {
			t.Errorf("alert %s is not in the alert log after healing", code)
		}
	}

	checkDigest(t, c, acked, "before the restart")
	d.stop(t)
	d = h.start()
	t.Cleanup(d.kill)
	checkDigest(t, h.client(), acked, "after a restart")
}

// hasAlert reports whether the newest alerts hold code; persisted demands
// it be in the log (a Seq), not only held in memory.
func hasAlert(t *testing.T, c *api.Client, code string, persisted bool) bool {
	t.Helper()
	alerts, err := c.Alerts(context.Background(), 100)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range alerts {
		if a.Code == code && (!persisted || a.Seq > 0) {
			return true
		}
	}
	return false
}

// checkDigest fails unless the lane's digest holds every acked post.
func checkDigest(t *testing.T, c *api.Client, acked map[uint64]string, when string) {
	t.Helper()
	dg, err := c.Digest(context.Background(), "dev", "test")
	if err != nil {
		t.Fatal(err)
	}
	got := map[uint64]string{}
	for _, m := range dg.Messages {
		got[m.Seq] = m.Body
	}
	lost := 0
	for seq, body := range acked {
		if got[seq] != body {
			lost++
		}
	}
	if lost > 0 {
		t.Errorf("%s: %d of %d acknowledged posts are not in the digest", when, lost, len(acked))
	}
	t.Logf("%s: all %d acknowledged posts are in the digest (%d messages)", when, len(acked), len(dg.Messages))
}
