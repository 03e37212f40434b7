package obligations

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"
)

// EntryKind is the kind of a ledger entry.
type EntryKind string

const (
	// EntryPost: an obligation was posted. Event = At = post time.
	EntryPost EntryKind = "post"
	// EntryDelivery: a wake was delivered to its consumer (once per wake id);
	// Seq is the head it covered.
	EntryDelivery EntryKind = "delivery"
	// EntryConsumption: an obligation was consumed by an ack. Event is its
	// post time, At the ack time.
	EntryConsumption EntryKind = "consumption"
	// EntryAction: an obligation was consumed by an ack that named a
	// consequential action (a qualified action). Written in addition to its
	// consumption entry.
	EntryAction EntryKind = "action"
	// EntryNoop: a consumer was woken and found nothing unconsumed.
	EntryNoop EntryKind = "noop"
	// EntryReconcile: work found by a sweep rather than by a wake (an old
	// mechanism's catch-up, a repaired store). This package never writes
	// one; ledgers imported from other mechanisms may hold them.
	EntryReconcile EntryKind = "reconcile"
	// EntryTurn: an agent turn the product caused (a hook block, a runner
	// start, a pane prompt, an MCP wait that returned), with its Mode and
	// whether it found Work. An imported heartbeat ledger records its
	// fixed-interval wakes as turns of mode heartbeat.
	EntryTurn EntryKind = "turn"
	// EntryClose: a lane was closed (State.Close). Seq is its head then;
	// Action is "forced" when unconsumed obligations were discarded.
	EntryClose EntryKind = "close"
)

var entryKinds = [...]EntryKind{EntryPost, EntryDelivery, EntryConsumption, EntryAction, EntryNoop, EntryReconcile, EntryTurn, EntryClose}

// Entry is one ledger line: a fact about a post, a delivery, a
// consumption, a qualified action, a no-op wake or a reconcile, with its
// times. The same type serves this engine's ledger and an old mechanism's
// ledger imported from JSONL, so two ledgers can be compared.
type Entry struct {
	Kind   EntryKind `json:"kind"`
	Lane   string    `json:"lane"`
	Seq    uint64    `json:"seq,omitempty"`
	ID     string    `json:"id,omitempty"`
	Class  Class     `json:"class,omitempty"`
	WakeID string    `json:"wake_id,omitempty"`
	Action string    `json:"action,omitempty"`
	Canary bool      `json:"canary,omitempty"`
	// Mode and Work describe a turn entry: how the turn was caused and
	// whether it found unconsumed work.
	Mode TurnMode `json:"mode,omitempty"`
	Work bool     `json:"work,omitempty"`
	// Event is when the obligation concerned was posted (the start of the
	// event->CONSUMED and event->action intervals).
	Event time.Time `json:"event,omitzero"`
	// At is when this entry's fact happened.
	At time.Time `json:"at"`
}

func (e *Entry) check() error {
	known := false
	for _, k := range entryKinds {
		known = known || e.Kind == k
	}
	switch {
	case !known:
		return fmt.Errorf("unknown kind %q", e.Kind)
	case e.Lane == "":
		return errors.New("no lane")
	case e.At.IsZero():
		return errors.New("no time (at)")
	case e.Class != "" && !e.Class.Valid():
		return fmt.Errorf("unknown class %q (valid: %s)", e.Class, classList())
	case e.Kind == EntryTurn && !e.Mode.Valid():
		return fmt.Errorf("a turn entry needs a mode (hook, runner, pane, mcp_wait or heartbeat), not %q", e.Mode)
	case (e.Kind == EntryPost || e.Kind == EntryConsumption || e.Kind == EntryAction) && e.ID == "" && e.Seq == 0:
		return fmt.Errorf("a %s entry needs an id or a seq", e.Kind)
	}
	return nil
}

// EncodeJSONL writes entries to w, one JSON object per line.
func EncodeJSONL(w io.Writer, entries []Entry) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	for i := range entries {
		if err := enc.Encode(&entries[i]); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// maxLedgerLine bounds one JSONL line (a body is never in the ledger, so
// lines are short; this only stops a runaway read).
const maxLedgerLine = 1 << 20

// DecodeJSONL reads a ledger written as JSON lines (this engine's, or an old
// mechanism's converted to the Entry fields). Blank lines are skipped;
// unknown fields are ignored. A malformed line gives an error wrapping
// ErrBadLedger that names its line number.
func DecodeJSONL(r io.Reader) ([]Entry, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLedgerLine)
	var out []Entry
	for line := 1; sc.Scan(); line++ {
		text := sc.Bytes()
		if len(bytes.TrimSpace(text)) == 0 {
			continue
		}
		var e Entry
		if err := json.Unmarshal(text, &e); err != nil {
			return nil, fmt.Errorf("%w: line %d: %v", ErrBadLedger, line, err)
		}
		if err := e.check(); err != nil {
			return nil, fmt.Errorf("%w: line %d: %v", ErrBadLedger, line, err)
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadLedger, err)
	}
	return out, nil
}
