package wakes

import "time"

// The grouped commit's convoy, and the short wait that breaks it.
//
// Callers that each wait for their own answer before they post again (64
// agents, a connection each) come back spread out: their answers go out
// one by one, and each poster's next post is read, checked and queued on
// its own. When the pipeline is free again, the first of them may be all
// that is queued: that one item gets a store write and an fsync of its
// own, the rest arrive during it and wait a whole cycle behind it, and
// the next batch is large again — one fsync in three for a single post
// (the 64 posters, BENCHMARKS.md "eighth landing"). So when the queue
// holds at most a quarter of what the previous batch held (a batch of at
// least gatherFrom items), the pipeline waits for half as many, at most
// half the previous store write and never more than maxGather: a post
// pays at most that much for joining the group it belongs to. A lone
// caller, or calls that come one at a time, never wait: their previous
// batch was small.

const (
	// gatherFrom: a previous batch of fewer items says nothing of a
	// group on its way.
	gatherFrom = 8
	// maxGather bounds the wait: it is under the time of an fsync on
	// most disks, and the wait is at most half the previous write anyway.
	maxGather = time.Millisecond
)

// gatherWait is how long the pipeline waits before it commits queued
// items, given the previous batch's items and store write: zero unless
// the previous batch was a group and the queue holds at most a quarter of
// it.
func gatherWait(queued, lastItems int, lastWrite time.Duration) time.Duration {
	if lastItems < gatherFrom || 4*queued > lastItems {
		return 0
	}
	return min(lastWrite/2, maxGather)
}
