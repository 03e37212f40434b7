package main

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/wakewheel/wakewheel/api"
	"github.com/wakewheel/wakewheel/deadlines"
	"github.com/wakewheel/wakewheel/reminders"
	"github.com/wakewheel/wakewheel/store"
)

// loadingN is the store's size in the loading test: enough deadlines that
// a load takes a good fraction of a second, so the socket is seen loading.
const loadingN = 400_000

// TestRestartAnswersWhileLoading starts a real daemon on a real store of
// 400,000 deadlines and queries its socket while it loads:
//   - status answers at once with state loading and a percent that grows,
//     then ready with every deadline pending;
//   - a reminder sent while loading is refused with code loading (exit 75)
//     and not applied;
//   - deadlines overdue at the restart fire after the load, once each, in
//     due order;
//   - a SIGKILL during the load loses nothing: the next start has every
//     deadline, and the overdue ones fire once; a SIGTERM during the load
//     is a clean exit.
func TestRestartAnswersWhileLoading(t *testing.T) {
	if testing.Short() {
		t.Skip("loads 400,000 deadlines: not short")
	}
	h := newHome(t)
	dir := filepath.Join(h.dir, "store")
	overdue := fillStore(t, dir, "a", time.Now())

	// First start: watch the load, then the catch-up.
	started := time.Now()
	d := h.startLoading()
	seen := h.watchLoad(t, d)
	if len(seen) < 2 {
		t.Fatalf("saw the load at %v: want at least two different percents", seen)
	}
	for i := 1; i < len(seen); i++ {
		if seen[i] < seen[i-1] {
			t.Fatalf("loading percents went back: %v", seen)
		}
	}
	t.Logf("loading percents seen: %v", seen)
	c := h.client()
	var lastSeq uint64
	lastSeq = awaitCatchUp(t, c, lastSeq, started, overdue)
	if ds, err := c.Deadlines(context.Background(), api.ReminderPrefix+"while-loading"); err != nil || len(ds) != 0 {
		t.Fatalf("a reminder refused while loading: pending as %v (%v)", ds, err)
	}
	d.stop(t)

	// Second start, SIGKILLed in the middle of its load.
	overdue = fillStore(t, dir, "b", time.Now())
	d = h.startLoading()
	for giveUp := time.Now().Add(2 * time.Minute); ; {
		if time.Now().After(giveUp) {
			d.kill()
			t.Fatal("the daemon never said how far its load had come")
		}
		st, err := statusNow(c)
		if err != nil {
			continue
		}
		if st.State == api.StateReady {
			d.kill()
			t.Fatal("the daemon was ready before it could be killed during its load")
		}
		if st.Loading.Percent > 0 {
			break
		}
	}
	d.kill()

	// Third start, SIGTERMed during its load: a clean exit, nothing fired.
	d = h.startLoading()
	if st, err := statusNow(c); err == nil && st.State == api.StateLoading {
		d.stop(t) // exit 0 within 15 s, or the test fails
		t.Logf("stopped during the load at %d%%", st.Loading.Percent)
	} else {
		d.kill() // ready already: this start proves nothing about a stop while loading
	}

	started = time.Now()
	d = h.startLoading()
	defer d.stop(t)
	h.watchLoad(t, d)
	awaitCatchUp(t, c, lastSeq, started, overdue)
}

// fillStore writes loadingN reminders due in a day and 20 overdue ones
// (the tag names them), closes the store and returns the overdue keys in
// due order.
func fillStore(t *testing.T, dir, tag string, now time.Time) []string {
	t.Helper()
	db, err := store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	payload := reminders.Encode(reminders.Payload{Message: "later"})
	if tag == "a" {
		for i := range loadingN {
			db.PutDeadline(deadlines.Deadline{Key: fmt.Sprintf("%sr-%07d", api.ReminderPrefix, i), Kind: api.ReminderKind,
				At: now.Add(24*time.Hour + time.Duration(i)*time.Millisecond), Payload: payload})
		}
	}
	var keys []string
	for i := range 20 {
		// due in an order the keys do not sort in
		k := fmt.Sprintf("%soverdue-%s-%02d", api.ReminderPrefix, tag, 19-i)
		db.PutDeadline(deadlines.Deadline{Key: k, Kind: api.ReminderKind, At: now.Add(-time.Hour + time.Duration(i)*time.Second)})
		keys = append(keys, k)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	return keys
}

// startLoading starts a daemon and returns once its socket answers, which
// is while it still loads.
func (h *home) startLoading() *child {
	h.t.Helper()
	return h.startUntil(func(api.Status) bool { return true })
}

// statusNow is one status call with a short timeout.
func statusNow(c *api.Client) (api.Status, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	return c.Status(ctx)
}

// watchLoad polls status until the daemon is ready and returns the
// distinct percents it said while loading. Once, while loading, it sends a
// reminder that must be refused.
func (h *home) watchLoad(t *testing.T, d *child) []int {
	t.Helper()
	c := h.client()
	var seen []int
	refused := false
	unanswered := false // a reminder sent with no answer in time, which a daemon ready by then applied
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		st, err := statusNow(c)
		if err != nil {
			t.Fatalf("status during the load: %v", err)
		}
		if st.State == api.StateReady {
			if st.Pending < loadingN {
				t.Fatalf("ready with %d pending, want at least %d", st.Pending, loadingN)
			}
			if unanswered {
				if _, err := c.CancelReminder(context.Background(), "while-loading", true); err != nil {
					t.Fatal(err)
				}
			}
			return seen
		}
		if st.State != api.StateLoading || st.Loading == nil {
			t.Fatalf("status while starting: state %q, loading %v", st.State, st.Loading)
		}
		if len(seen) == 0 || seen[len(seen)-1] != st.Loading.Percent {
			seen = append(seen, st.Loading.Percent)
		}
		if !refused {
			refused = true
			ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
			_, err := c.Remind(ctx, api.ReminderRequest{Name: "while-loading", In: "1h", Sync: true})
			cancel()
			var ae *api.Error
			if errors.Is(err, context.DeadlineExceeded) {
				refused = false // no answer in time on a busy box: ask again
				unanswered = true
			} else if err == nil {
				refused = false // the load ended meanwhile: try again next time, if any
				if _, err := c.CancelReminder(context.Background(), "while-loading", true); err != nil {
					t.Fatal(err)
				}
			} else if !errors.As(err, &ae) || ae.Err.Code != "loading" || api.ExitCode(err) != api.ExitStopping {
				t.Fatalf("a reminder while loading: %v (exit %d); want code loading, exit 75", err, api.ExitCode(err))
			}
		}
	}
	d.kill()
	t.Fatal("the daemon was not ready within 2 minutes")
	return nil
}

// awaitCatchUp waits until the overdue keys have fired, then checks they
// fired once each, after the load (not before started), in due order.
func awaitCatchUp(t *testing.T, c *api.Client, after uint64, started time.Time, overdue []string) uint64 {
	t.Helper()
	ctx := context.Background()
	want := map[string]bool{}
	for _, k := range overdue {
		want[k] = true
	}
	var got []string
	deadline := time.Now().Add(time.Minute)
	for len(got) < len(overdue) && time.Now().Before(deadline) {
		fires, err := c.Fires(ctx, after, 1000)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range fires {
			after = max(after, f.Seq)
			if !want[f.Key] {
				t.Errorf("%s fired: it was due in a day", f.Key)
				continue
			}
			if f.Fired.Before(started) {
				t.Errorf("%s fired at %s, before the restart", f.Key, f.Fired)
			}
			got = append(got, f.Key)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if fmt.Sprint(got) != fmt.Sprint(overdue) {
		t.Fatalf("overdue deadlines fired as\n%v\nwant, once each in due order,\n%v", got, overdue)
	}
	st, err := c.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Pending != loadingN {
		t.Fatalf("%d pending after the catch-up, want %d", st.Pending, loadingN)
	}
	return after
}

// The CLI's status against a daemon that is loading: it says so with the
// percent and exits 0 (alive); with --ready it exits 75 (not ready yet).
func TestStatusVerbWhileLoading(t *testing.T) {
	h := newHome(t)
	front, err := api.ListenFront(h.socket, api.Info{Version: "test", Socket: h.socket}, func() api.LoadState {
		return api.LoadState{Percent: 42, Read: 420_000}
	}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	defer front.Shutdown(context.Background())
	out, err := h.run("status")
	if err != nil || !strings.Contains(out, "loading 42% (420000 deadlines read)") {
		t.Fatalf("status while loading: %v\n%s", err, out)
	}
	out, err = h.run("status", "--ready")
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != api.ExitStopping || !strings.Contains(out, "not ready") {
		t.Fatalf("status --ready while loading: %v (want exit 75)\n%s", err, out)
	}
}
