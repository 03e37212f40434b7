package api_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/wakewheel/wakewheel/api"
	"github.com/wakewheel/wakewheel/scheduler"
)

// Deadline pages come in key order with a cursor that neither skips nor
// repeats a key, whatever the prefix and page size; status counts them by
// kind.
func TestDeadlinePages(t *testing.T) {
	srv := newServer(t, func(context.Context, scheduler.Firing) scheduler.Outcome { return scheduler.Succeeded() })
	var want []string
	for i := range 250 {
		name := fmt.Sprintf("r%03d", (i*37)%250) // not in key order
		if code, out := request(t, srv, "POST", "/v1/reminders", `{"name":"`+name+`","in":"1h"}`); code != http.StatusOK {
			t.Fatalf("remind %s: %d %v", name, code, out)
		}
		want = append(want, "reminder/"+name)
	}
	slices.Sort(want)
	for _, c := range []struct {
		prefix string
		limit  int
		want   []string
	}{
		{"", 100, want},
		{"reminder/", 7, want},
		{"reminder/r1", 30, want[100:200]},
		{"reminder/r24", 1, want[240:250]},
		{"nothing/", 10, nil},
	} {
		var got []string
		after := ""
		for pages := 1; ; pages++ {
			code, out := request(t, srv, "GET", fmt.Sprintf("/v1/deadlines?prefix=%s&limit=%d&after=%s", c.prefix, c.limit, after), "")
			if code != http.StatusOK {
				t.Fatalf("page: %d %v", code, out)
			}
			ds := out["deadlines"].([]any)
			if len(ds) > c.limit {
				t.Fatalf("prefix %q: a page of %d for limit %d", c.prefix, len(ds), c.limit)
			}
			for _, d := range ds {
				got = append(got, d.(map[string]any)["key"].(string))
			}
			next, _ := out["next"].(string)
			if next == "" {
				break
			}
			after = next
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("prefix %q limit %d: %d keys, want %d (first %v)", c.prefix, c.limit, len(got), len(c.want), got[:min(3, len(got))])
		}
	}
	code, st := request(t, srv, "GET", "/v1/status", "")
	if byKind := st["pending_by_kind"].(map[string]any); code != http.StatusOK || byKind["reminder"] != float64(250) {
		t.Fatalf("status: %d %v", code, st)
	}
	for _, bad := range []string{"limit=0", "limit=10001", "limit=x"} {
		code, out := request(t, srv, "GET", "/v1/deadlines?"+bad, "")
		if msg := fmt.Sprint(out["error"]); code != http.StatusBadRequest || !strings.Contains(msg, "limit") {
			t.Errorf("%s: %d %v, want a 400 naming limit", bad, code, out)
		}
	}
}

// Readers take turns, and once their burst is spent a reader starts only
// when what the readers before it spent is paid back at ReaderShare of the
// place's time: readers get at most that share, while each answer comes as
// soon as it is written.
func TestReadersTakeTheirShareOfTheirPlaces(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2)) // a gate of one place
	srv := api.NewServer(nil, nil, api.Info{Version: "test"}, zerolog.Nop())
	const work = 40 * time.Millisecond // each costs 160 ms of the place's time, past the burst
	var mu sync.Mutex
	var starts, ends []time.Time
	srv.HandleListing("GET /v1/slow", "status", func(w http.ResponseWriter, r *http.Request) error {
		mu.Lock()
		starts = append(starts, time.Now())
		mu.Unlock()
		time.Sleep(work)
		mu.Lock()
		ends = append(ends, time.Now())
		mu.Unlock()
		_, err := w.Write([]byte("{}"))
		return err
	})
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	var wg sync.WaitGroup
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t0 := time.Now()
			resp, err := http.Get(hs.URL + "/v1/slow")
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Errorf("status %d", resp.StatusCode)
			}
			if d := time.Since(t0); d < work {
				t.Errorf("answered in %v, before its own work", d)
			}
		}()
	}
	wg.Wait()
	slices.SortFunc(starts, time.Time.Compare)
	slices.SortFunc(ends, time.Time.Compare)
	// Reader i starts no sooner than its predecessors' cost (each held the
	// place >= work) less the burst after the first began.
	share := api.ReaderShare // a variable: the constant quotient need not be a whole number of nanoseconds
	rest := time.Duration(float64(work)/share) - work - api.ReaderBurst
	for i := 1; i < len(starts); i++ {
		if gap := starts[i].Sub(ends[i-1]); gap < rest-5*time.Millisecond {
			t.Errorf("reader %d started %v after the previous one ended, want >= %v", i, gap, rest)
		}
	}
}
