package main

import (
	"context"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wakewheel/wakewheel/api"
	ob "github.com/wakewheel/wakewheel/obligations"
	"github.com/wakewheel/wakewheel/repair"
	"github.com/wakewheel/wakewheel/store"
	"github.com/wakewheel/wakewheel/wakes"
)

var corruptionTrials = flag.Int("corruption-trials", 2, "damaged stores per position class in TestCorruptionClasses (make bench: 20)")

// acked is what the daemon acknowledged: seq -> obligation.
type acked map[uint64]ob.Obligation

// corruptionBase builds a store with a real daemon: 120 posts of 1 KiB
// acknowledged, a restart (their journal becomes a table), 60 more posts, a
// reminder and an ack, then SIGKILL (those stay in the journal).
func corruptionBase(t *testing.T) (string, acked) {
	h := newHome(t)
	ctx := context.Background()
	got := acked{}
	post := func(c *api.Client, i int) {
		res, err := c.Post(ctx, api.PostRequest{Lane: "dev", Class: "human", Create: true,
			Body: fmt.Sprintf("post %d %s", i, strings.Repeat("b", 1024))})
		if err != nil {
			t.Fatal(err)
		}
		got[res.Obligation.Seq] = res.Obligation
	}
	d := h.start()
	for i := range 120 {
		post(h.client(), i)
	}
	d.kill()
	d = h.start()
	c := h.client()
	for i := 120; i < 180; i++ {
		post(c, i)
	}
	if _, err := c.Remind(ctx, api.ReminderRequest{Name: "later", In: "1h", Sync: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.WaitOnce(ctx, "dev", "agent", "", time.Second); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Ack(ctx, "dev", 10, ""); err != nil {
		t.Fatal(err)
	}
	d.kill()
	return filepath.Join(h.dir, "store"), got
}

// positionClasses maps each class to the file and byte span it damages.
func positionClasses(t *testing.T, dir string) map[string]struct {
	file     string
	from, to int64
} {
	t.Helper()
	newest := func(pattern string, biggest bool) string {
		names, _ := filepath.Glob(filepath.Join(dir, pattern))
		if len(names) == 0 {
			t.Fatalf("no %s in %s", pattern, dir)
		}
		slices.SortFunc(names, func(a, b string) int {
			if biggest {
				return int(size(t, a) - size(t, b))
			}
			return strings.Compare(a, b)
		})
		return names[len(names)-1]
	}
	out := map[string]struct {
		file     string
		from, to int64
	}{}
	j := newest("*.log", false)
	n := size(t, j)
	out["journal head"] = struct {
		file     string
		from, to int64
	}{j, 0, n / 10}
	out["journal middle"] = struct {
		file     string
		from, to int64
	}{j, n * 4 / 10, n * 6 / 10}
	out["journal tail"] = struct {
		file     string
		from, to int64
	}{j, n - n/10, n}
	out["journal truncated"] = struct {
		file     string
		from, to int64
	}{j, 1, n / 2} // bytes cut from the end
	tb := newest("*.ldb", true)
	data, err := os.ReadFile(tb)
	if err != nil {
		t.Fatal(err)
	}
	footer := data[len(data)-48:]
	metaOff, n1 := binary.Uvarint(footer)
	_, n2 := binary.Uvarint(footer[n1:])
	indexOff, n3 := binary.Uvarint(footer[n1+n2:])
	indexLen, _ := binary.Uvarint(footer[n1+n2+n3:])
	out["table data block"] = struct {
		file     string
		from, to int64
	}{tb, 0, int64(metaOff)}
	out["table index"] = struct {
		file     string
		from, to int64
	}{tb, int64(indexOff), int64(indexOff + indexLen + 5)}
	m := newest("MANIFEST-*", false)
	out["MANIFEST"] = struct {
		file     string
		from, to int64
	}{m, 0, size(t, m)}
	return out
}

func size(t *testing.T, name string) int64 {
	st, err := os.Stat(name)
	if err != nil {
		t.Fatal(err)
	}
	return st.Size()
}

// outcome of one damaged store.
type outcome struct {
	refused, harmless, silentLoss      int // at the first start
	repairFailed, startedAfter         int // after `wakewheel repair`
	present, listedLost, tailLost, odd int // acknowledged posts, after repair
}

// TestCorruptionClasses damages copies of a real daemon's store, one byte
// (or a cut of the journal's end) at a time, in every class of position,
// and runs the real daemon on each: it must refuse (exit 3, naming repair)
// or start with every acknowledged post; after `wakewheel repair` it must
// start, and every acknowledged post must be there or inside a range the
// repair reported lost.
func TestCorruptionClasses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts daemons")
	}
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 2))
	base, want := corruptionBase(t)
	classes := positionClasses(t, base)
	names := []string{"journal head", "journal middle", "journal tail", "table data block", "table index", "MANIFEST", "journal truncated"}
	results := map[string]*outcome{}
	for _, class := range names {
		span := classes[class]
		o := &outcome{}
		results[class] = o
		for range *corruptionTrials {
			h := newHome(t)
			dir := filepath.Join(h.dir, "store")
			if err := os.CopyFS(dir, os.DirFS(base)); err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(dir, filepath.Base(span.file))
			pos := span.from + rng.Int64N(span.to-span.from)
			if class == "journal truncated" {
				if err := os.Truncate(file, size(t, file)-pos); err != nil {
					t.Fatal(err)
				}
			} else {
				flipByte(t, file, pos, byte(1+rng.IntN(255)))
			}
			what := fmt.Sprintf("%s at %d", class, pos)
			code, log := h.tryStart(t)
			switch code {
			case -1:
				if lost := missing(t, dir, want); len(lost) > 0 {
					o.silentLoss++
					t.Errorf("%s: the daemon started with %d acknowledged posts missing: %v", what, len(lost), lost)
				} else {
					o.harmless++
				}
				continue
			case exitCorrupt:
				o.refused++
				if !strings.Contains(log, "wakewheel repair") {
					t.Errorf("%s: exit 3 without naming the repair: %s", what, log)
				}
			default:
				t.Errorf("%s: the daemon exited %d, want 3:\n%s", what, code, log)
				continue
			}
			out, err := h.run("repair", "--store", dir)
			if err != nil {
				o.repairFailed++
				t.Errorf("%s: repair: %v\n%s", what, err, out)
				continue
			}
			if code, log := h.tryStart(t); code != -1 {
				t.Errorf("%s: after repair the daemon exited %d:\n%s\nrepair said:\n%s", what, code, log, out)
				continue
			}
			o.startedAfter++
			p, l, tl, odd := account(t, dir, want, out)
			o.present += p
			o.listedLost += l
			o.tailLost += tl
			o.odd += odd
			if odd > 0 {
				t.Errorf("%s: %d acknowledged posts are neither present nor reported lost; repair said:\n%s", what, odd, out)
			}
		}
	}
	t.Logf("| class | damaged stores | refused (exit 3) | started, nothing lost | started with a loss | repaired and started | posts present after | posts in a reported lost range | posts lost with the journal's end (counted) | unaccounted |")
	t.Logf("|---|---|---|---|---|---|---|---|---|---|")
	for _, class := range names {
		o := results[class]
		t.Logf("| %s | %d | %d | %d | %d | %d | %d | %d | %d | %d |", class, *corruptionTrials, o.refused, o.harmless, o.silentLoss,
			o.startedAfter, o.present, o.listedLost, o.tailLost, o.odd)
	}
}

func flipByte(t *testing.T, name string, pos int64, mask byte) {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	b[pos] ^= mask
	if err := os.WriteFile(name, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// tryStart starts a daemon: -1 when it answered (it is then stopped), else
// its exit status, with its log.
func (h *home) tryStart(t *testing.T) (int, string) {
	t.Helper()
	logf, err := os.CreateTemp(h.dir, "daemon-*.log")
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	cmd := h.command("daemon")
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	c := h.client()
	deadline := time.Now().Add(15 * time.Second)
	for {
		select {
		case err := <-exited:
			log, _ := os.ReadFile(logf.Name())
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				return ee.ExitCode(), string(log)
			}
			return 0, string(log)
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_, err := c.Status(ctx)
		cancel()
		if err == nil {
			d := &child{cmd: cmd, log: logf}
			d.cmd.Process.Signal(os.Interrupt)
			<-exited
			return -1, ""
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			<-exited
			t.Fatalf("the daemon neither answered nor exited")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// obligationsIn reads the lane dev of the store in dir.
func obligationsIn(t *testing.T, dir string) map[uint64]ob.Obligation {
	t.Helper()
	db, err := store.Open(dir, store.Options{})
	if err != nil {
		t.Fatalf("open %s after the daemon: %v", dir, err)
	}
	defer db.Close()
	got := map[uint64]ob.Obligation{}
	if err := db.Scan(wakes.RecordNS, "o/dev/", func(_ string, v []byte) error {
		r, err := ob.Decode(v)
		if err == nil {
			got[r.Obligation.Seq] = r.Obligation
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return got
}

// missing lists the acknowledged posts not in the store (or changed).
func missing(t *testing.T, dir string, want acked) []uint64 {
	got := obligationsIn(t, dir)
	var out []uint64
	for seq, o := range want {
		if g, ok := got[seq]; !ok || g.ID != o.ID || g.Body != o.Body {
			out = append(out, seq)
		}
	}
	slices.Sort(out)
	return out
}

// account sorts the acknowledged posts after a repair: present unchanged;
// in a range the report lists as lost (a gap marker holds the place); lost
// with the journal's end, which the report counts as missing synced
// batches; or none of these.
func account(t *testing.T, dir string, want acked, report string) (present, listed, tail, odd int) {
	got := obligationsIn(t, dir)
	head := uint64(0)
	for seq := range got {
		head = max(head, seq)
	}
	tailReported := strings.Contains(report, "acknowledged synced batches missing")
	for seq, o := range want {
		g, ok := got[seq]
		switch {
		case ok && g.ID == o.ID && g.Body == o.Body:
			present++
		case ok && g.Key == repair.GapKey && strings.Contains(report, "lost "):
			listed++
		case !ok && seq > head && tailReported:
			tail++
		default:
			odd++
		}
	}
	return present, listed, tail, odd
}
