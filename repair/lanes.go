package repair

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	ob "github.com/wakewheel/wakewheel/obligations"
	"github.com/wakewheel/wakewheel/store"
	"github.com/wakewheel/wakewheel/wakes"
)

// Range is a run of sequence numbers, both ends included.
type Range struct{ From, To uint64 }

func (r Range) String() string {
	if r.From == r.To {
		return fmt.Sprintf("%d", r.From)
	}
	return fmt.Sprintf("%d..%d", r.From, r.To)
}

// Len is the number of sequence numbers in r.
func (r Range) Len() uint64 { return r.To - r.From + 1 }

// LaneReport is what the repair kept and lost of one lane.
type LaneReport struct {
	Lane string
	// Head is the lane's head after the repair: the highest sequence
	// number any surviving record or ledger entry knows of.
	Head uint64
	// Kept counts the obligations that survived.
	Kept int
	// Lost are the sequence numbers whose obligations were lost; each is
	// filled with a gap marker (an alert obligation) so the lane stays
	// contiguous and its consumer sees the loss in its digest.
	Lost []Range
	// CursorLost: the cursor record was lost or behind what the ledger
	// proves; it was rebuilt from the ledger and the checkpoint.
	CursorLost bool
}

// GapKey is the coalescing key of the gap markers: a lane's digest shows
// all of them as one alert group.
const GapKey = "store_repair_gap"

// lanes rebuilds the obligation records: it decodes what survived, finds
// every lane's head (from its obligations, cursor, checkpoint and ledger),
// fills each lost range with gap markers, and raises a cursor that the
// ledger proves was further. bad counts records that did not decode.
type laneBuild struct {
	reports []LaneReport
	ops     []store.Op // the rebuilt records of namespace wakes.RecordNS
	bad     map[string]int
	cursors int
	parks   int
}

func buildLanes(records, ledger []store.KV, now time.Time, aside string) laneBuild {
	type lane struct {
		obs    map[uint64]ob.Obligation
		cursor *ob.Cursor
		park   *ob.Checkpoint
		comp   *ob.Compaction // obligations 1..comp.Base were compacted
		tombs  []ob.Tombstone
		head   uint64 // from the ledger
		cons   uint64 // consumed, from the ledger
		recv   uint64 // received, from the ledger
	}
	lanes := map[string]*lane{}
	get := func(name string) *lane {
		l := lanes[name]
		if l == nil {
			l = &lane{obs: map[uint64]ob.Obligation{}}
			lanes[name] = l
		}
		return l
	}
	b := laneBuild{bad: map[string]int{}}
	for _, kv := range records {
		r, err := ob.Decode(kv.Value)
		if err != nil || r.Key() != kv.Key {
			b.bad[recordKinds.of(kv.Key, "obligation records")]++
			continue
		}
		l := get(r.Lane())
		switch r.Kind {
		case ob.RecordObligation:
			l.obs[r.Obligation.Seq] = r.Obligation
		case ob.RecordCursor:
			c := r.Cursor
			l.cursor = &c
		case ob.RecordCheckpoint:
			c := r.Checkpoint
			l.park = &c
		case ob.RecordCompaction:
			c := r.Compaction
			l.comp = &c
		case ob.RecordTombstone:
			l.tombs = append(l.tombs, r.Tombstone)
		}
	}
	for _, kv := range ledger {
		if !strings.HasPrefix(kv.Key, "e/") {
			continue
		}
		var e ob.Entry
		if json.Unmarshal(kv.Value, &e) != nil || ob.ValidateLane(e.Lane) != nil {
			continue
		}
		l := get(e.Lane)
		switch e.Kind {
		case ob.EntryPost:
			l.head = max(l.head, e.Seq)
		case ob.EntryDelivery:
			l.recv = max(l.recv, e.Seq)
		case ob.EntryConsumption, ob.EntryAction:
			l.cons = max(l.cons, e.Seq)
		}
	}
	names := make([]string, 0, len(lanes))
	for n := range lanes {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, name := range names {
		l := lanes[name]
		rep := LaneReport{Lane: name, Kept: len(l.obs)}
		cur := ob.Cursor{Lane: name, At: now}
		if l.cursor != nil {
			cur = *l.cursor
		}
		consumed := max(cur.Consumed, l.cons)
		if l.park != nil {
			consumed = max(consumed, l.park.Consumed)
		}
		received := max(cur.Received, l.recv, consumed)
		head := max(l.head, received)
		if l.park != nil {
			head = max(head, l.park.Head)
		}
		for seq := range l.obs {
			head = max(head, seq)
		}
		var base uint64
		if l.comp != nil {
			// Obligations 1..base were compacted: gone by design, not
			// lost, and consumed before they were.
			base = l.comp.Base
			head = max(head, base)
			consumed, received = max(consumed, base), max(received, base)
		}
		rep.Head = head
		if consumed != cur.Consumed || received != cur.Received {
			rep.CursorLost = l.cursor != nil || consumed > 0 || received > 0
			cur.Consumed, cur.Received = consumed, received
		}
		if l.cursor != nil || rep.CursorLost {
			b.ops = append(b.ops, record(ob.Record{Kind: ob.RecordCursor, Cursor: cur}))
			b.cursors++
		}
		if l.park != nil {
			b.ops = append(b.ops, record(ob.Record{Kind: ob.RecordCheckpoint, Checkpoint: *l.park}))
			b.parks++
		}
		if l.comp != nil {
			b.ops = append(b.ops, record(ob.Record{Kind: ob.RecordCompaction, Compaction: *l.comp}))
		}
		for _, t := range l.tombs {
			b.ops = append(b.ops, record(ob.Record{Kind: ob.RecordTombstone, Tombstone: t}))
		}
		var gap *Range
		for seq := base + 1; seq <= head; seq++ {
			o, ok := l.obs[seq]
			if ok {
				b.ops = append(b.ops, record(ob.Record{Kind: ob.RecordObligation, Obligation: o}))
				gap = nil
				continue
			}
			if gap == nil {
				rep.Lost = append(rep.Lost, Range{seq, seq})
				gap = &rep.Lost[len(rep.Lost)-1]
			} else {
				gap.To = seq
			}
		}
		for _, g := range rep.Lost {
			for seq := g.From; seq <= g.To; seq++ {
				b.ops = append(b.ops, record(ob.Record{Kind: ob.RecordObligation, Obligation: gapMarker(name, seq, g, now, aside)}))
			}
		}
		b.reports = append(b.reports, rep)
	}
	return b
}

// gapMarker stands in for the lost obligation seq of lane, in the range g.
func gapMarker(lane string, seq uint64, g Range, now time.Time, aside string) ob.Obligation {
	return ob.Obligation{
		Lane:  lane,
		Seq:   seq,
		ID:    fmt.Sprintf("store-repair-gap-%d-%d", now.Unix(), seq),
		Class: ob.ClassAlert,
		Key:   GapKey,
		Body: fmt.Sprintf("obligations %s of lane %s were lost to damage of the store, repaired at %s; the damaged copy is kept in %s",
			g, lane, now.UTC().Format(time.RFC3339), aside),
		Locator: ob.Locator{Repo: "wakewheel-store", File: aside},
		Posted:  now,
	}
}

func record(r ob.Record) store.Op { return store.PutOp(wakes.RecordNS, r.Key(), ob.Encode(r)) }
