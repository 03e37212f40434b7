// Package obligations is the wake doctrine as pure state: lanes, classes,
// sequence numbers, the RECEIVED and CONSUMED cursors, digests, park and
// resume, and the ledger and its cut-over report.
//
// Like a raft state machine, it takes inputs and returns effects. Every
// change is a method of State that takes now and returns Effects: records
// to persist, deadline mutations for the runner's wheel, wakes to deliver,
// and ledger entries. The daemon does all the I/O.
//
//	Post(o, now)            a new obligation; wakes its lane with a new wake id
//	Deliver(lane, who, now) a consumer reads its digest; RECEIVED := head
//	Ack(lane, upto, ...)    CONSUMED := upto (cumulative, contiguous prefix)
//	Fire(key, now)          a redeliver/<lane>/<class> deadline fell due
//	Park / Resume           two-phase park: checkpoint CONSUMED, then digest since
//	Restore(p, records, now) rebuild at startup from persisted records
//	Compact(now)            drop consumed obligations past their retention
//
// # Wake rules
//
// A lane wakes only when it holds unconsumed obligations. A post wakes it
// at once with a new wake id. While obligations of class C stay
// unconsumed, the deadline redeliver/<lane>/<C> re-wakes the lane at C's
// cadence after its last wake, so never later than C's SLO after the
// obligation was posted or the lane last woke; every wake restarts the
// cadence of every class still pending. A redelivered wake keeps the wake
// id of the wake it repeats (wake ids are <lane>@<head>). A redeliver
// deadline that fires with nothing of its class unconsumed is dropped: no
// unconsumed work, no wake. Acking the last obligation of a class cancels
// its deadline. Policies.Timetable declares how the redeliver keys are
// timed (the class cadence), for the re-timing of a config reload.
//
// # Invariants
//
//   - Sequence numbers in a lane are 1, 2, 3, ... without gaps; the head is
//     the last one.
//   - CONSUMED <= RECEIVED <= head. CONSUMED never moves backwards: an ack at
//     or below it is a no-op; an ack past RECEIVED is refused.
//   - Idempotency ids are kept as long as the obligations, and then as
//     tombstones until the dedup horizon: a re-posted id, even after a
//     restart or a compaction, returns the original (without its body once
//     compacted) until DedupHorizon after its compaction.
//   - Only consumed obligations are compacted, Retention after the ack
//     that consumed them (retention.go); compaction never touches the
//     ledger, whose entries carry everything the safety report reads.
//   - Human and peer messages are listed one by one, in order, in full;
//     only the machine digest class and alerts (by key) coalesce.
//   - Durability before acknowledgement is the caller's job: persist
//     Effects.Records (fsync when Effects.Sync) before answering the
//     client, applying deadlines or delivering wakes. Obligations, acks and
//     checkpoints are synced; a delivery's cursor may be written behind,
//     since losing it only presents the same wake again.
//   - An error means no change and no effects.
//
// # Registered numbers
//
//	DefaultMaxBody      64 KiB   body limit per class (configs: obligations.max_body)
//	MaxLaneLen          128 B    lane names are key segments
//	MaxIDLen            256 B    ids, coalescing keys, action names
//	MaxFieldLen         512 B    one locator field
//	DefaultMaxNoopRate  5%       no-op wakes a ledger may show and pass
//	DefaultRetention    7 days   consumed obligations kept after their ack (configs: obligations.retention)
//	DefaultDedupHorizon 30 days  a compacted id still absorbs a re-post (configs: obligations.dedup_horizon);
//	                             JetStream's dedup window is 2 minutes, a producer's retries seconds
//	CompactBatch        4096     obligations one compaction step drops (one store batch)
//
// # Imports
//
// Pure: the standard library and the deadlines package only. It must not
// import os, net, os/exec, syscall, log, or any third-party module
// (viper, zerolog, goleveldb), must not start goroutines, and must not read
// the clock (time.Now, time.Since, timers); imports_test.go enforces it.
// State is not safe for concurrent use: its owner in the daemon is
// wakes.Service, which holds it behind one mutex.
package obligations
