package wakes

import (
	"testing"
	"time"
)

func TestGatherWaitOnlyBehindAGroup(t *testing.T) {
	ms := time.Millisecond
	for _, c := range []struct {
		queued, last int
		write, want  time.Duration
	}{
		{1, 1, 2 * ms, 0},              // one caller at a time: never waits
		{1, gatherFrom - 1, 2 * ms, 0}, // a small batch says nothing of a group
		{1, 40, 2 * ms, ms},            // the first of a group: half the write, at most maxGather
		{10, 40, 800 * time.Microsecond, 400 * time.Microsecond},
		{11, 40, 2 * ms, 0}, // over a quarter of the last batch is a group already
		{1, 40, 0, 0},       // the last batch wrote nothing (reads only)
	} {
		if got := gatherWait(c.queued, c.last, c.write); got != c.want {
			t.Errorf("gatherWait(%d queued, last %d items, write %v) = %v, want %v", c.queued, c.last, c.write, got, c.want)
		}
	}
}
