package api

import (
	"context"
	"net/http"
	"time"
)

// TimerProbe answers GET /v1/debug/timer?in=D: how late a plain runtime
// timer (time.NewTimer) armed by the daemon for D fired, measured in the
// daemon: the Go scheduler's and the OS's part under the same load at the
// same moment. It is not the engine loop's timer, which on Linux is a
// timerfd woken through the poller (internal/clock.Polled): a runtime timer
// due just after the loop woke waits for the poller's next whole
// millisecond, so the probe can read later than the reminders beside it.
// The machine's own part is a quiet process's timer (scalebench's sampler).
type TimerProbe struct {
	In   time.Duration `json:"in"`
	Late time.Duration `json:"late"`
}

// MaxTimerProbe bounds one probe's delay.
const MaxTimerProbe = time.Second

func (s *Server) timerProbe(w http.ResponseWriter, r *http.Request) error {
	in, err := time.ParseDuration(r.URL.Query().Get("in"))
	if err != nil || in < 0 || in > MaxTimerProbe {
		return badf("in=%q: want a duration from 0 to %s, like 1ms", r.URL.Query().Get("in"), MaxTimerProbe)
	}
	start := time.Now()
	t := time.NewTimer(in)
	defer t.Stop()
	select {
	case <-t.C:
		// When the goroutine ran again, as the engine's loop reads its
		// clock once woken.
		return writeJSON(w, http.StatusOK, TimerProbe{In: in, Late: time.Since(start) - in})
	case <-r.Context().Done():
		return r.Context().Err()
	}
}

// TimerProbe asks the daemon how late a plain runtime timer of in fires in
// it now.
func (c *Client) TimerProbe(ctx context.Context, in time.Duration) (TimerProbe, error) {
	var out TimerProbe
	return out, c.Do(ctx, http.MethodGet, "/v1/debug/timer?in="+in.String(), nil, &out)
}
