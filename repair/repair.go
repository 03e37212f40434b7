package repair

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"time"

	wakewheel "github.com/wakewheel/wakewheel"
	"github.com/wakewheel/wakewheel/store"
	"github.com/wakewheel/wakewheel/wakes"
)

// Report is what a repair kept and lost, for the operator.
type Report struct {
	Store string // the repaired store
	Aside string // where the damaged store was copied, byte for byte
	// Damage lists every damaged stretch the salvage skipped.
	Damage []string
	// Lanes: per lane, its head, how many obligations were kept, and the
	// sequence ranges that were lost.
	Lanes []LaneReport
	// Kept counts the records rebuilt, per kind.
	Kept map[string]int
	// Bad counts records that were read but did not decode (dropped).
	Bad map[string]int
	// Unknown says what was lost without a name: journal records known
	// missing by their sequence numbers, acknowledged synced batches
	// missing from the end.
	LostRecords, LostSynced uint64
	// MayHaveLost names the kinds whose records a damaged block held
	// (its key range says which), beyond the lanes' exact ranges.
	MayHaveLost []string
}

// Kinds in report order.
var kinds = []string{"obligations", "cursors", "checkpoints", "ledger entries", "reminders", "leases", "deadlines", "roots", "backlog paths", "fires", "alerts"}

// Run repairs the store in dir at now: it copies the damaged store aside
// (dir.damaged-<time>), salvages every intact record from the copy, and
// rebuilds dir from them with the lanes made consistent and every loss
// marked (gap markers in the lanes, alerts in the alert log). No daemon may
// run on dir.
func Run(dir string, now time.Time) (*Report, error) {
	aside := fmt.Sprintf("%s.damaged-%s", strings.TrimRight(dir, "/"), now.UTC().Format("20060102T150405Z"))
	if err := store.CopyAside(dir, aside); err != nil {
		return nil, err
	}
	s, err := store.SalvageDir(aside)
	if err != nil {
		return nil, err
	}
	rep := &Report{Store: dir, Aside: aside, Damage: s.Damage, LostRecords: s.LostRecords, LostSynced: s.LostSynced,
		Kept: map[string]int{}, Bad: map[string]int{}}
	lb := buildLanes(s.Generic(wakes.RecordNS), s.Generic(wakes.LedgerNS), now, aside)
	rep.Lanes = lb.reports
	for k, n := range lb.bad {
		rep.Bad[k] += n
	}
	for _, l := range lb.reports {
		rep.Kept["obligations"] += l.Kept
	}
	rep.Kept["cursors"], rep.Kept["checkpoints"] = lb.cursors, lb.parks
	for _, kv := range s.Generic(wakes.LedgerNS) {
		if strings.HasPrefix(kv.Key, "e/") {
			rep.Kept["ledger entries"]++
		}
	}
	dls, bad := s.Deadlines()
	rep.Bad["deadlines"] += bad
	for _, d := range dls {
		rep.Kept[deadlineKind(d.Key)]++
	}
	rep.Kept["roots"] = len(s.Generic("roots"))
	for _, kv := range s.Generic("rootq") { // a record holds NUL-separated paths (roots/backlog.go)
		rep.Kept["backlog paths"] += 1 + bytes.Count(kv.Value, []byte{0})
	}
	rep.Kept["fires"], rep.Kept["alerts"] = s.Logs()
	rep.MayHaveLost = s.DamagedKinds(kindOfKey)

	alerts := rep.alerts(now)
	if err := store.Rebuild(dir, s, []string{wakes.RecordNS}, lb.ops, alerts); err != nil {
		return rep, err
	}
	return rep, nil
}

// prefixKinds names the kind of a key by its prefix: the first row whose
// prefix the key has.
type prefixKinds []struct{ prefix, kind string }

// of is the kind of key, or otherwise when no row's prefix matches.
func (ks prefixKinds) of(key, otherwise string) string {
	for _, k := range ks {
		if strings.HasPrefix(key, k.prefix) {
			return k.kind
		}
	}
	return otherwise
}

// The kinds of an obligations record's key, of a deadline's key, and of the
// store's other raw keys.
var (
	recordKinds   = prefixKinds{{"o/", "obligations"}, {"c/", "cursors"}, {"p/", "checkpoints"}}
	deadlineKinds = prefixKinds{{"reminder/", "reminders"}, {"lease/", "leases"}}
	rawKinds      = prefixKinds{{"n/" + wakes.LedgerNS + "/", "ledger entries"}, {"n/roots/", "roots"},
		{"n/rootq/", "backlog paths"}, {"f/", "fires"}, {"a/", "alerts"}}
)

// kindOfKey names the kind of a raw store key, for damaged key ranges.
func kindOfKey(k string) string {
	if rest, ok := strings.CutPrefix(k, "n/"+wakes.RecordNS+"/"); ok {
		return recordKinds.of(rest, "other records")
	}
	if rest, ok := strings.CutPrefix(k, "d/"); ok {
		return deadlineKind(rest)
	}
	return rawKinds.of(k, "other records")
}

func deadlineKind(key string) string { return deadlineKinds.of(key, "deadlines") }

// Lost reports whether the repair lost anything it knows of.
func (r *Report) Lost() bool {
	if r.LostRecords > 0 || r.LostSynced > 0 || len(r.MayHaveLost) > 0 {
		return true
	}
	for _, n := range r.Bad {
		if n > 0 {
			return true
		}
	}
	for _, l := range r.Lanes {
		if len(l.Lost) > 0 || l.CursorLost {
			return true
		}
	}
	return false
}

// alerts are the alert log entries the rebuilt store starts with.
func (r *Report) alerts(now time.Time) []wakewheel.Alert {
	var out []wakewheel.Alert
	for _, l := range r.Lanes {
		if len(l.Lost) == 0 {
			continue
		}
		out = append(out, wakewheel.Alert{Time: now, Code: "store_repair_lost", Key: "lane/" + l.Lane,
			Message: fmt.Sprintf("lane %s lost obligations %s in a store repair (gap markers hold their places); the damaged copy is %s",
				l.Lane, rangesString(l.Lost), r.Aside)})
	}
	msg := "store repaired; nothing known lost"
	if r.Lost() {
		msg = "store repaired with losses: " + r.summary()
	}
	out = append(out, wakewheel.Alert{Time: now, Code: "store_repaired", Message: msg + "; the damaged copy is " + r.Aside})
	return out
}

func rangesString(rs []Range) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = r.String()
	}
	return strings.Join(parts, ", ")
}

// summary is the losses in one line.
func (r *Report) summary() string {
	var parts []string
	for _, l := range r.Lanes {
		if len(l.Lost) > 0 {
			parts = append(parts, fmt.Sprintf("lane %s seq %s", l.Lane, rangesString(l.Lost)))
		}
		if l.CursorLost {
			parts = append(parts, fmt.Sprintf("lane %s cursor rebuilt", l.Lane))
		}
	}
	for _, k := range kinds {
		if r.Bad[k] > 0 {
			parts = append(parts, fmt.Sprintf("%d undecodable %s", r.Bad[k], k))
		}
	}
	if r.LostRecords > 0 {
		parts = append(parts, fmt.Sprintf("%d journal records", r.LostRecords))
	}
	if r.LostSynced > 0 {
		parts = append(parts, fmt.Sprintf("%d acknowledged synced batches at the end", r.LostSynced))
	}
	if len(r.MayHaveLost) > 0 {
		parts = append(parts, "damaged blocks held "+strings.Join(r.MayHaveLost, ", "))
	}
	return strings.Join(parts, "; ")
}

// Print writes the report for a human.
func (r *Report) Print(w io.Writer) {
	fmt.Fprintf(w, "repaired store %s\nthe damaged store was copied to %s\n", r.Store, r.Aside)
	if len(r.Damage) == 0 {
		fmt.Fprintln(w, "damage: none found (every checksum holds)")
	}
	for _, d := range r.Damage {
		fmt.Fprintf(w, "damage: %s\n", d)
	}
	fmt.Fprintln(w, "kept:")
	for _, k := range kinds {
		fmt.Fprintf(w, "  %-15s %d", k, r.Kept[k])
		if r.Bad[k] > 0 {
			fmt.Fprintf(w, " (%d more did not decode and were dropped)", r.Bad[k])
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, "lanes:")
	if len(r.Lanes) == 0 {
		fmt.Fprintln(w, "  (none)")
	}
	for _, l := range r.Lanes {
		lost := "none"
		if len(l.Lost) > 0 {
			lost = rangesString(l.Lost) + " (filled with gap markers)"
		}
		fmt.Fprintf(w, "  %s: head %d, kept %d, lost %s", l.Lane, l.Head, l.Kept, lost)
		if l.CursorLost {
			fmt.Fprint(w, ", cursor rebuilt from the ledger")
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, "not kept:")
	if !r.Lost() {
		fmt.Fprintln(w, "  nothing known")
	}
	if r.LostRecords > 0 {
		fmt.Fprintf(w, "  %d journal records (known by their sequence numbers; their keys are unreadable)\n", r.LostRecords)
	}
	if r.LostSynced > 0 {
		fmt.Fprintf(w, "  %d acknowledged synced batches missing from the end of the journal (the sync witness names them)\n", r.LostSynced)
	}
	for _, k := range r.MayHaveLost {
		fmt.Fprintf(w, "  %s: a damaged block held some (count unknown)\n", k)
	}
	for _, l := range r.Lanes {
		if len(l.Lost) > 0 {
			fmt.Fprintf(w, "  lane %s: obligations %s\n", l.Lane, rangesString(l.Lost))
		}
	}
}
