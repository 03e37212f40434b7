package roots

import (
	"fmt"
	"testing"
)

// A backlog record's key is "%016x/%016x" of the root's id and the seq,
// written without fmt; it parses back.
func TestQueueKeyIsFixedWidthHex(t *testing.T) {
	for _, v := range [][2]uint64{{0, 0}, {1, 2}, {0xdeadbeef, 1<<64 - 1}, {12345, 67890}} {
		key := queueKey(v[0], v[1])
		if want := fmt.Sprintf("%016x/%016x", v[0], v[1]); key != want {
			t.Fatalf("queueKey(%d, %d) = %s, want %s", v[0], v[1], key, want)
		}
		if id, seq, ok := parseQueueKey(key); !ok || id != v[0] || seq != v[1] {
			t.Fatalf("parseQueueKey(%s) = %d, %d, %v", key, id, seq, ok)
		}
	}
}

// A capture's plan skips paths already waiting and repeated ones.
func TestPlanSkipsWaitingAndRepeatedPaths(t *testing.T) {
	q := newBacklog(7)
	_, add := q.plan([]string{"a", "b"})
	q.commit(add)
	ops, add := q.plan([]string{"b", "c", "c", "d"})
	if len(ops) != 2 || len(add) != 2 || add[0].path != "c" || add[1].path != "d" {
		t.Fatalf("plan: %d ops, %+v", len(ops), add)
	}
}
