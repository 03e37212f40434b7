package store

import (
	"sync/atomic"

	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/util"
)

// LoadProgress is how far a LoadDeadlinesWatched has come, for a daemon
// that answers while it loads (its status says "loading N%"). It is safe
// to read from any goroutine while the load writes it.
//
// The fraction is an estimate that needs no stored count: LevelDB's
// approximate on-disk size of the deadline records before the last key
// read, over that of all of them (DB.SizeOf, read from the tables' indexes
// at a cost of microseconds). Both sizes are of the same compressed tables,
// so the ratio is right however large records are, and it only grows, as
// the keys are read in order. A store whose records are all still in the
// memtable (a small one) reads 0 until the load ends.
type LoadProgress struct {
	read     atomic.Int64
	permille atomic.Int32
}

// Read is the number of deadlines read so far.
func (p *LoadProgress) Read() int64 { return p.read.Load() }

// Percent is the estimate of the share read, 0..100; 100 only once the
// load is done.
func (p *LoadProgress) Percent() int { return int(p.permille.Load()) / 10 }

// A LoadProgress counts the records read every countEvery records (an
// atomic store) and estimates the share read every estimateEvery (a size
// estimate walks the tables' indexes: about half a millisecond at a
// million records, so 16 of them for a million, not 61). The first
// estimate is made at countEvery records already, for the load's expected
// count (loadMeter.expect).
const (
	countEvery    = 1 << 12
	estimateEvery = 1 << 16
	// minEstimateBytes is the least on-disk size of the records read that
	// an expected count is made from: a few table blocks, so the size is
	// not mostly the rounding of the estimate to a block.
	minEstimateBytes = 64 << 10
)

// loadMeter updates a LoadProgress from inside the load's iteration, and
// estimates how many records the load reads in all.
type loadMeter struct {
	p      *LoadProgress
	ldb    *leveldb.DB
	total  int64 // approximate bytes of every deadline record; 0: unknown
	n      int64
	expect int // the estimate of the load's records; 0: none yet
}

func newLoadMeter(p *LoadProgress, ldb *leveldb.DB) *loadMeter {
	m := &loadMeter{p: p, ldb: ldb}
	if p != nil {
		p.read.Store(0)
		p.permille.Store(0)
	}
	r := util.BytesPrefix([]byte(deadlinePrefix))
	if s, err := ldb.SizeOf([]util.Range{*r}); err == nil {
		m.total = s.Sum()
	}
	return m
}

// saw counts one record stored under the raw key k.
func (m *loadMeter) saw(k []byte) {
	m.n++
	if m.n%countEvery != 0 {
		return
	}
	if m.p != nil {
		m.p.read.Store(m.n)
	}
	if m.total <= 0 || (m.n%estimateEvery != 0 && m.n != countEvery) {
		return
	}
	s, err := m.ldb.SizeOf([]util.Range{{Start: []byte(deadlinePrefix), Limit: k}})
	if err != nil {
		return
	}
	if read := s.Sum(); read >= minEstimateBytes {
		m.expect = int(float64(m.total) * float64(m.n) / float64(read)) // the records read, over their share of the bytes
	}
	if m.p == nil {
		return
	}
	pm := min(s.Sum()*1000/m.total, 999) // 100% is the end, not an estimate
	if int32(pm) > m.p.permille.Load() {
		m.p.permille.Store(int32(pm))
	}
}

// done marks the load complete.
func (m *loadMeter) done() {
	if m.p == nil {
		return
	}
	m.p.read.Store(m.n)
	m.p.permille.Store(1000)
}
