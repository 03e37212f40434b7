package wakes

import (
	"math/bits"
	"sync/atomic"
	"time"
)

// CommitStats are the grouped commit's counters since Open: how many
// batches it committed and how many items (calls' tickets) they held, and
// the time its goroutine spent in each stage of a batch: the store write
// (with its fsync), the deadline mutations through the runner, the wakes'
// delivery, and handing the answers back. They say how large the commit
// groups are and where a commit cycle goes; a developer measuring the
// posters reads them (the daemon writes them when a debugging variable
// asks it to), nothing decides on them.
type CommitStats struct {
	Batches, Items, Written uint64 // Written: batches with a store write
	Write, Apply, Deliver   time.Duration
	Answer                  time.Duration
	// Sizes counts the batches by their items: Sizes[k] those of 2^k to
	// 2^(k+1)-1 items (the last bucket holds every larger batch).
	Sizes [sizeBuckets]uint64
}

const sizeBuckets = 8

// commitCounters are the pipeline's CommitStats, updated by its goroutine
// and read by anyone.
type commitCounters struct {
	batches, items, written       atomic.Uint64
	write, apply, deliver, answer atomic.Int64 // nanoseconds
	sizes                         [sizeBuckets]atomic.Uint64
}

func (c *commitCounters) add(items int, wrote bool, stages [4]time.Duration) {
	c.batches.Add(1)
	c.items.Add(uint64(items))
	if wrote {
		c.written.Add(1)
	}
	c.write.Add(int64(stages[0]))
	c.apply.Add(int64(stages[1]))
	c.deliver.Add(int64(stages[2]))
	c.answer.Add(int64(stages[3]))
	c.sizes[min(bits.Len(uint(items))-1, sizeBuckets-1)].Add(1)
}

// CommitStats returns the grouped commit's counters.
func (s *Service) CommitStats() CommitStats {
	c := &s.pipe.stats
	st := CommitStats{
		Batches: c.batches.Load(), Items: c.items.Load(), Written: c.written.Load(),
		Write: time.Duration(c.write.Load()), Apply: time.Duration(c.apply.Load()),
		Deliver: time.Duration(c.deliver.Load()), Answer: time.Duration(c.answer.Load()),
	}
	for k := range st.Sizes {
		st.Sizes[k] = c.sizes[k].Load()
	}
	return st
}
