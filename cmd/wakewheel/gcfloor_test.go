package main

import "testing"

func TestFloorPercentKeepsCollectionsHeapFloorApart(t *testing.T) {
	const mb = 1 << 20
	for _, c := range []struct {
		percent, want int
		live          uint64
	}{
		{50, 50, 200 * mb}, // a million reminders: the wheel's percent, as before
		{50, 50, 64 * mb},  // 32 MB of garbage at 50%: the floor exactly
		{50, 200, 16 * mb}, // a small heap: 32 MB of garbage, not 8
		{50, 1067, 3 * mb}, // rounded up: never under the floor
		{50, 50, 0},        // nothing read: as set
		{-1, -1, 16 * mb},  // off stays off
	} {
		got := floorPercent(c.percent, c.live, 32*mb)
		if got != c.want {
			t.Errorf("floorPercent(%d, %d MB) = %d, want %d", c.percent, c.live/mb, got, c.want)
		}
		if got > 0 && c.live > 0 && c.live*uint64(got)/100 < 32*mb {
			t.Errorf("floorPercent(%d, %d MB) = %d collects after %d MB of garbage, under the floor", c.percent, c.live/mb, got, c.live*uint64(got)/100/mb)
		}
	}
}
