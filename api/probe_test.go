package api_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/wakewheel/wakewheel/api"
)

// The timer probe waits its delay, never less, and refuses a delay it
// would not wait.
func TestTimerProbe(t *testing.T) {
	sock := fakeSocket(t)
	srv := serveFake(t, sock, &laneFake{})
	defer srv.Shutdown(context.Background())
	c := api.NewClient(sock)
	start := time.Now()
	p, err := c.TimerProbe(context.Background(), 5*time.Millisecond)
	if err != nil || p.In != 5*time.Millisecond || p.Late < 0 || time.Since(start) < 5*time.Millisecond {
		t.Fatalf("probe: %+v %v", p, err)
	}
	if _, err := c.TimerProbe(context.Background(), time.Minute); err == nil || !strings.Contains(err.Error(), "want a duration from 0 to 1s") {
		t.Fatalf("a probe of a minute: %v", err)
	}
}
