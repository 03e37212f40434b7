package supervise

import "sync"

// DefaultOutputCap is how much of a command's output a run keeps when the
// Command does not say: enough for the error lines of a failing script,
// small enough to put in an alert.
const DefaultOutputCap = 4 << 10

// Tail is an io.Writer that keeps the last Max bytes written to it, and
// counts what it dropped. Safe for concurrent writers.
type Tail struct {
	Max int

	mu      sync.Mutex
	buf     []byte
	dropped int64
}

// Write keeps the end of p and never fails.
func (t *Tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	max := t.Max
	if max <= 0 {
		max = DefaultOutputCap
	}
	n := len(p)
	if n >= max {
		t.dropped += int64(len(t.buf) + n - max)
		t.buf = append(t.buf[:0], p[n-max:]...)
		return n, nil
	}
	if over := len(t.buf) + n - max; over > 0 {
		t.dropped += int64(over)
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	t.buf = append(t.buf, p...)
	return n, nil
}

// String returns the bytes kept.
func (t *Tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

// Dropped is how many bytes were written but not kept.
func (t *Tail) Dropped() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.dropped
}
