package obligations

import (
	"strings"
	"time"

	"github.com/wakewheel/wakewheel/deadlines"
)

// RedeliverKind is the deadline kind of the fallback re-wake.
const RedeliverKind = "redeliver"

// RedeliverKey is the deadline key of lane's fallback re-wake for class c:
// redeliver/<lane>/<class>.
func RedeliverKey(lane string, c Class) string {
	return RedeliverKind + "/" + lane + "/" + string(c)
}

// ParseRedeliverKey splits a key made by RedeliverKey.
func ParseRedeliverKey(key string) (lane string, c Class, ok bool) {
	rest, ok := strings.CutPrefix(key, RedeliverKind+"/")
	if !ok {
		return "", "", false
	}
	lane, cls, ok := strings.Cut(rest, "/")
	if !ok || ValidateLane(lane) != nil || !Class(cls).Valid() {
		return "", "", false
	}
	return lane, Class(cls), true
}

// WakeReason says why a wake was emitted.
type WakeReason string

const (
	// WakePost: a new obligation raised the head; the wake id is new.
	WakePost WakeReason = "post"
	// WakeRedeliver: the fallback cadence ran out with obligations still
	// unconsumed; the wake id is the one of the wake being repeated.
	WakeRedeliver WakeReason = "redeliver"
)

// Wake tells the runner to wake the lane's waiters (and run its wake hook).
// A consumer that already holds WakeID may ignore it.
type Wake struct {
	Lane   string     `json:"lane"`
	WakeID string     `json:"wake_id"`
	Reason WakeReason `json:"reason"`
	Class  Class      `json:"class"` // the class that caused it
	Head   uint64     `json:"head"`
	At     time.Time  `json:"at"`
}

// Effects is what a call asks the runner to do, in this order:
//
//  1. persist Records and delete the records keyed Deletes, in one write
//     (with fsync when Sync is set) — before acknowledging the call to its
//     client and before anything below;
//  2. apply Deadlines (mutations of the redeliver/ keys) to the wheel, in
//     order;
//  3. deliver Wakes to the lane's waiters;
//  4. append Ledger entries to the ledger.
//
// A call that returns an error returns no effects: nothing is to be stored.
type Effects struct {
	Records   []Record
	Deletes   []string // record keys (Record.Key) to delete
	Sync      bool
	Deadlines []deadlines.Mutation
	Wakes     []Wake
	Ledger    []Entry
	// Sweeps ask the caller to delete tombstones past the dedup horizon
	// and to report back with State.Swept (retention.go).
	Sweeps []Sweep
}

// Empty reports whether there is nothing to do.
func (e *Effects) Empty() bool {
	return len(e.Records) == 0 && len(e.Deletes) == 0 && len(e.Deadlines) == 0 && len(e.Wakes) == 0 && len(e.Ledger) == 0 &&
		len(e.Sweeps) == 0
}

// Merge appends o to e (Sync if either needs it).
func (e *Effects) Merge(o Effects) {
	e.Records = append(e.Records, o.Records...)
	e.Deletes = append(e.Deletes, o.Deletes...)
	e.Sync = e.Sync || o.Sync
	e.Deadlines = append(e.Deadlines, o.Deadlines...)
	e.Wakes = append(e.Wakes, o.Wakes...)
	e.Ledger = append(e.Ledger, o.Ledger...)
	e.Sweeps = append(e.Sweeps, o.Sweeps...)
}

func (e *Effects) reset(lane string, c Class, at time.Time) {
	e.Deadlines = append(e.Deadlines, deadlines.Mutation{Op: deadlines.OpReset, Key: RedeliverKey(lane, c), Kind: RedeliverKind, At: at})
}

func (e *Effects) push(lane string, c Class, at time.Time) {
	e.Deadlines = append(e.Deadlines, deadlines.Mutation{Op: deadlines.OpPush, Key: RedeliverKey(lane, c), Kind: RedeliverKind, At: at})
}

func (e *Effects) cancel(lane string, c Class) {
	e.Deadlines = append(e.Deadlines, deadlines.Mutation{Op: deadlines.OpCancel, Key: RedeliverKey(lane, c)})
}
