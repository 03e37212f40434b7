package deadlines

import (
	"fmt"
	"syscall"
	"testing"
	"time"
)

// BenchmarkLoad1M: a Loader filled with 1M deadlines in key order, as a
// store's load hands them over (an estimate of the count from the first
// batch on), and its wheel taken. Besides the wall time it reports the
// process's CPU time per load (cpu-ms/op), which a loaded machine moves
// less:
//
//	go test -run '^$' -bench Load1M -benchtime 5x -count 3 ./deadlines/
func BenchmarkLoad1M(b *testing.B) {
	const n = 1_000_000
	start := time.Unix(1_700_000_000, 0)
	ds := make([]Deadline, n)
	for i := range ds {
		ds[i] = Deadline{Key: fmt.Sprintf("reminder/load-%07d", i), Kind: "reminder",
			At: start.Add(30*24*time.Hour + time.Duration(i)*time.Microsecond)}
	}
	cpu := processCPU()
	for b.Loop() {
		l := NewLoader(time.Millisecond, start)
		for i, d := range ds {
			if i > 0 && i%4096 == 0 {
				l.Expect(n)
			}
			l.Add(d)
		}
		if w := l.Wheel(); w.Len() != n {
			b.Fatalf("loaded %d, want %d", w.Len(), n)
		}
	}
	b.ReportMetric(float64(processCPU()-cpu)/float64(b.N)/1e6, "cpu-ms/op")
}

func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
