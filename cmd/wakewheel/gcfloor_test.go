package main

import "testing"

func TestFloorPercentPacesByTheScannableHeap(t *testing.T) {
	const mb = 1 << 20
	for _, c := range []struct {
		name          string
		percent, want int
		live, scan    uint64
	}{
		{"a million reminders: the wheel is not scanned, so the floor", 50, 37, 87 * mb, 1 * mb},
		{"a large heap that is scanned: the percent, as GOGC", 50, 50, 200 * mb, 200 * mb},
		{"half of it scanned: half the garbage", 50, 25, 256 * mb, 128 * mb},
		{"32 MB of garbage at 50%: the floor exactly", 50, 50, 64 * mb, 64 * mb},
		{"a small heap: 32 MB of garbage, not 8", 50, 200, 16 * mb, 12 * mb},
		{"rounded up: never under the floor", 50, 1067, 3 * mb, 3 * mb},
		{"no scan read: the whole heap counts", 50, 50, 200 * mb, 0},
		{"nothing read: as set", 50, 50, 0, 0},
		{"off stays off", -1, -1, 16 * mb, 8 * mb},
	} {
		got := floorPercent(c.percent, c.live, c.scan, 32*mb)
		if got != c.want {
			t.Errorf("%s: floorPercent(%d, %d MB, %d MB) = %d, want %d", c.name, c.percent, c.live/mb, c.scan/mb, got, c.want)
		}
		if got > 0 && c.live > 0 && c.live*uint64(got)/100 < 32*mb {
			t.Errorf("%s: floorPercent(%d, %d MB, %d MB) = %d collects after %d MB of garbage, under the floor", c.name, c.percent, c.live/mb, c.scan/mb, got, c.live*uint64(got)/100/mb)
		}
	}
}
