package deadlines

import (
	"fmt"
	"testing"
	"time"
)

// Overdue counts what a reload found past due, and only that.
func TestOverdueCountsWhatIsPastDue(t *testing.T) {
	start := time.Unix(1_000_000, 0)
	var ds []Deadline
	for i := range 30 {
		ds = append(ds, Deadline{Key: fmt.Sprint("k", i), Kind: "reminder", At: start.Add(time.Duration(i-10) * time.Second)})
	}
	w := Load(time.Millisecond, start, func(yield func(Deadline) bool) {
		for _, d := range ds {
			yield(d)
		}
	})
	if got := w.Overdue(); got != 11 { // -10s .. 0s
		t.Fatalf("Overdue() = %d, want 11", got)
	}
	w.Advance(start, nil)
	if got := w.Overdue(); got != 0 {
		t.Fatalf("after Advance: Overdue() = %d, want 0", got)
	}
}
