package store

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/opt"
	"github.com/syndtr/goleveldb/leveldb/storage"

	wakewheel "github.com/wakewheel/wakewheel"
	"github.com/wakewheel/wakewheel/deadlines"
)

// Salvage is what could be read of a damaged store: the newest intact
// version of every record, from every table block and journal batch whose
// checksum holds, and an account of what could not be read. It reads the
// files directly (salvage_table.go, salvage_journal.go): no MANIFEST is
// needed, and one bad block loses that block only.
//
// A table that a compaction had already replaced, still on disk, can bring
// back an older version of a record whose newer version was in a damaged
// block (or, rarely, a record deleted since); that is what salvage means.
type Salvage struct {
	live map[string]entry // by user key, the newest version seen

	// Damage lists, for a human, every damaged stretch: file, what was
	// skipped, and the key range it covered when the index could say.
	Damage []string
	// LostRecords counts records known to be missing from the journals
	// (sequence gaps between intact batches); their keys are unknown.
	LostRecords uint64
	// LostSynced counts acknowledged synced batches missing at the end of
	// the store (the witness names a later one than any found).
	LostSynced uint64
	// Tables and Journals count the files read.
	Tables, Journals int

	lost []keyRange // key ranges of damaged table blocks, when known
}

// DamagedKinds names, through kindOf (a raw key to a kind), the kinds of
// record that damaged table blocks held, judged by the blocks' key ranges.
func (s *Salvage) DamagedKinds(kindOf func(key string) string) []string {
	seen := map[string]bool{}
	var out []string
	add := func(k string) {
		if k != "" && !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	for _, r := range s.lost {
		if r.from != "" {
			add(kindOf(r.from))
		}
		add(kindOf(r.to))
	}
	return out
}

// CopyAside copies the store in dir, byte for byte, into the new directory
// aside, holding dir's lock (no daemon may run on it) while it copies.
func CopyAside(dir, aside string) error {
	st, err := storage.OpenFile(dir, true)
	if err != nil {
		return wrapErr(dir, "copy "+dir, err)
	}
	defer st.Close()
	ents, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("store: copy %s: %w", dir, err)
	}
	if err := os.Mkdir(aside, 0o700); err != nil {
		return fmt.Errorf("store: copy %s aside: %w", dir, err)
	}
	for _, e := range ents {
		if !e.Type().IsRegular() || e.Name() == "LOCK" {
			continue
		}
		if err := copyFile(filepath.Join(dir, e.Name()), filepath.Join(aside, e.Name())); err != nil {
			return fmt.Errorf("store: copy %s aside: %w", dir, err)
		}
	}
	return nil
}

func copyFile(from, to string) error {
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = io.Copy(dst, src)
	return errors.Join(err, dst.Sync(), dst.Close())
}

// SalvageDir reads what can be read of the store in dir. It locks the
// directory (no daemon may run on it) and changes nothing.
func SalvageDir(dir string) (*Salvage, error) {
	st, err := storage.OpenFile(dir, true)
	if err != nil {
		return nil, wrapErr(dir, "salvage "+dir, err)
	}
	defer st.Close()
	s := &Salvage{live: map[string]entry{}}
	keep := func(e entry) {
		if old, ok := s.live[string(e.key)]; !ok || e.seq >= old.seq {
			s.live[string(e.key)] = e
		}
	}
	tables, journals, err := storeFiles(dir)
	if err != nil {
		return nil, fmt.Errorf("store: salvage %s: %w", dir, err)
	}
	for _, name := range tables {
		data, err := os.ReadFile(name)
		if err != nil {
			return nil, fmt.Errorf("store: salvage %s: %w", dir, err)
		}
		rep := salvageTable(data, keep)
		s.Tables++
		base := filepath.Base(name)
		if rep.walked {
			s.Damage = append(s.Damage, fmt.Sprintf("%s: its index is damaged; read block by block (%d data blocks)", base, rep.blocks))
		}
		if rep.bad > 0 {
			line := fmt.Sprintf("%s: %d of %d data blocks damaged (%d bytes) skipped", base, rep.bad, rep.blocks, rep.badBytes)
			for _, r := range rep.lost {
				line += "; keys " + r.String()
			}
			s.lost = append(s.lost, rep.lost...)
			s.Damage = append(s.Damage, line)
		}
	}
	var lastMark uint64
	for _, name := range journals {
		f, err := os.Open(name)
		if err != nil {
			return nil, fmt.Errorf("store: salvage %s: %w", dir, err)
		}
		rep, err := salvageJournal(f, keep)
		f.Close()
		if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("store: salvage %s: %w", dir, err)
		}
		s.Journals++
		s.LostRecords += rep.lostRecords
		if rep.drops > 0 {
			where := "in the middle"
			if rep.tailDamaged && !rep.midDamaged {
				where = "at its end"
			}
			s.Damage = append(s.Damage, fmt.Sprintf("%s: %d damaged stretches (%d bytes) %s skipped; %d records known lost",
				filepath.Base(name), rep.drops, rep.droppedBytes, where, rep.lostRecords))
		}
	}
	if e, ok := s.live[schemaKey]; ok && !e.del {
		if ver, ok := parseSchema(e.val); ok && ver > SchemaVersion {
			return nil, fmt.Errorf("%w: store %s has schema version %d; this wakewheel cannot repair it", ErrSchemaTooNew, dir, ver)
		}
	}
	if e, ok := s.live[syncMarkKey]; ok && !e.del && len(e.val) == 8 {
		lastMark = binary.BigEndian.Uint64(e.val)
	}
	if w, ok := readWitness(dir); ok && w > lastMark {
		s.LostSynced = w - lastMark
		s.Damage = append(s.Damage, fmt.Sprintf("the store ends at synced batch %d but batch %d was acknowledged: %d acknowledged synced batches are missing from its end",
			lastMark, w, s.LostSynced))
	}
	return s, nil
}

// storeFiles lists dir's tables and journals, oldest first.
func storeFiles(dir string) (tables, journals []string, err error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, err
	}
	type f struct {
		num  uint64
		name string
	}
	var ts, js []f
	for _, e := range ents {
		name := e.Name()
		ext := filepath.Ext(name)
		num, err := strconv.ParseUint(strings.TrimSuffix(name, ext), 10, 64)
		if err != nil {
			continue
		}
		switch ext {
		case ".ldb", ".sst":
			ts = append(ts, f{num, filepath.Join(dir, name)})
		case ".log":
			js = append(js, f{num, filepath.Join(dir, name)})
		}
	}
	byNum := func(a, b f) int { return cmp.Compare(a.num, b.num) }
	slices.SortFunc(ts, byNum)
	slices.SortFunc(js, byNum)
	for _, t := range ts {
		tables = append(tables, t.name)
	}
	for _, j := range js {
		journals = append(journals, j.name)
	}
	return tables, journals, nil
}

// KV is one salvaged generic record.
type KV struct {
	Key   string
	Value []byte
}

// Generic returns the salvaged records of namespace ns, in key order.
func (s *Salvage) Generic(ns string) []KV {
	prefix := string(genericKey(ns, ""))
	var out []KV
	for k, e := range s.live {
		if !e.del && strings.HasPrefix(k, prefix) {
			out = append(out, KV{Key: k[len(prefix):], Value: e.val})
		}
	}
	slices.SortFunc(out, func(a, b KV) int { return strings.Compare(a.Key, b.Key) })
	return out
}

// Deadlines returns the salvaged deadlines that decode, and how many did
// not (they are not rebuilt).
func (s *Salvage) Deadlines() (ok []deadlines.Deadline, bad int) {
	var dec deadlineDecoder
	for k, e := range s.live {
		if e.del || !strings.HasPrefix(k, deadlinePrefix) {
			continue
		}
		d, err := dec.decode([]byte(k), e.val)
		if err != nil {
			bad++
			continue
		}
		ok = append(ok, d)
	}
	slices.SortFunc(ok, func(a, b deadlines.Deadline) int { return strings.Compare(a.Key, b.Key) })
	return ok, bad
}

// Logs counts the salvaged fire history and alert records.
func (s *Salvage) Logs() (fires, alerts int) {
	for k, e := range s.live {
		switch {
		case e.del:
		case strings.HasPrefix(k, firePrefix):
			fires++
		case strings.HasPrefix(k, alertPrefix):
			alerts++
		}
	}
	return fires, alerts
}

// Rebuild writes a consistent store into dir from what s salvaged: every
// record that decodes (records of a generic namespace in drop are left
// out, and replace is written in their place), then the given alerts. The
// damaged store must have been copied aside already: Rebuild builds the new
// store beside dir, then replaces dir with it. The fire history and alerts
// are renumbered from 1.
func Rebuild(dir string, s *Salvage, drop []string, replace []Op, alerts []wakewheel.Alert) error {
	tmp := dir + ".rebuild"
	if err := os.RemoveAll(tmp); err != nil {
		return fmt.Errorf("store: rebuild %s: %w", dir, err)
	}
	db, err := Open(tmp, Options{})
	if err != nil {
		return fmt.Errorf("store: rebuild %s: %w", dir, err)
	}
	err = db.load(s, drop, replace, alerts)
	if err = errors.Join(err, db.Close()); err != nil {
		return fmt.Errorf("store: rebuild %s: %w", dir, err)
	}
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("store: rebuild %s: %w", dir, err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		return fmt.Errorf("store: rebuild %s: the new store is in %s: %w", dir, tmp, err)
	}
	return nil
}

func (db *DB) load(s *Salvage, drop []string, replace []Op, alerts []wakewheel.Alert) error {
	keys := make([]string, 0, len(s.live))
	for k, e := range s.live {
		if !e.del {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	dropped := func(k string) bool {
		for _, ns := range drop {
			if strings.HasPrefix(k, string(genericKey(ns, ""))) {
				return true
			}
		}
		return false
	}
	var dec deadlineDecoder
	b := new(leveldb.Batch)
	var fires, logAlerts [][]byte
	flush := func(force bool) error {
		if b.Len() == 0 || (!force && b.Len() < 1024) {
			return nil
		}
		err := db.ldb.Write(b, &opt.WriteOptions{Sync: force})
		b.Reset()
		return err
	}
	for _, k := range keys {
		e := s.live[k]
		switch {
		case strings.HasPrefix(k, "v/"), dropped(k):
			continue
		case strings.HasPrefix(k, deadlinePrefix):
			if _, err := dec.decode([]byte(k), e.val); err != nil {
				continue
			}
		case strings.HasPrefix(k, firePrefix):
			if jsonLogOK(firePrefix)([]byte(k), e.val) {
				fires = append(fires, e.val)
			}
			continue
		case strings.HasPrefix(k, alertPrefix):
			if jsonLogOK(alertPrefix)([]byte(k), e.val) {
				logAlerts = append(logAlerts, e.val)
			}
			continue
		case strings.HasPrefix(k, genericPrefix):
			if ns, _, ok := strings.Cut(k[len(genericPrefix):], "/"); !ok || checkNamespace(ns) != nil {
				continue
			}
		default:
			continue // not a record of this store
		}
		b.Put([]byte(k), e.val)
		if err := flush(false); err != nil {
			return err
		}
	}
	for _, op := range replace {
		if err := checkNamespace(op.NS); err != nil {
			return err
		}
		b.Put(genericKey(op.NS, op.Key), op.Value)
		if err := flush(false); err != nil {
			return err
		}
	}
	if err := flush(true); err != nil {
		return err
	}
	for i, v := range fires {
		b.Put(seqKey(firePrefix, uint64(i+1)), renumber(v, uint64(i+1)))
	}
	for i, v := range logAlerts {
		b.Put(seqKey(alertPrefix, uint64(i+1)), renumber(v, uint64(i+1)))
	}
	if err := flush(true); err != nil {
		return err
	}
	if err := db.loadSeqs(); err != nil {
		return err
	}
	for _, a := range alerts {
		if _, err := db.AddAlert(a); err != nil {
			return err
		}
	}
	return nil
}

// renumber sets the "seq" field of a JSON log record.
func renumber(v []byte, seq uint64) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(v, &m) != nil {
		return v
	}
	m["seq"] = json.RawMessage(strconv.FormatUint(seq, 10))
	out, err := json.Marshal(m)
	if err != nil {
		return v
	}
	return bytes.Clone(out)
}
