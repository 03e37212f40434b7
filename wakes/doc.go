// Package wakes is the daemon side of the wake doctrine. The obligations
// package decides (pure state in, effects out); this package does the I/O
// those effects ask for:
//
//   - Service owns one obligations.State behind a mutex. Every call (post,
//     deliver, ack, park, resume, a redeliver firing, a read) goes through
//     one change helper (Service.change): it takes the mutex, computes the
//     call's Effects at now, hands them to an ordered commit pipeline
//     (commit.go) or takes a barrier when there is nothing to write, and
//     waits outside the mutex for the pipeline to finish them: records and ledger entries are written as
//     one store batch (fsynced when Effects.Sync), deadline mutations are
//     applied through the runner, wakes are handed to long-poll waiters
//     (waiters.go), to the lane's wake hook (hook.go) and to
//     Options.OnWake (the daemon's lane runners and panes). Only then does
//     the caller get its answer.
//   - PostBatch and PostEach (batch.go) post many in one change: each post
//     is checked, deduplicated and numbered on its own, in the order given
//     (one post's error fails no other), and the accepted posts' effects
//     are merged into one pipeline item, so they share one enqueue, one
//     ticket and one store write; all are answered once that item is
//     done. Post and they share one home of a post's rules (postLocked).
//   - Turn records an agent turn the product caused (mode, wake id, found
//     work) as a ledger entry; Deliver hands a digest without waiting (a
//     runner's or a pane's delivery). Both live in turns.go.
//   - The pipeline is a grouped commit: while one batch is being fsynced,
//     everything enqueued by concurrent callers waits, and goes out as the
//     next single batch, in enqueue order. Concurrent posters therefore
//     share fsyncs, and a record is never durable before a record that was
//     produced before it (no sequence gap after a crash, an ack is never
//     durable before the obligations it consumes). Callers that each wait
//     for their answer before posting again come back spread out; when
//     the queue holds at most a quarter of the previous batch (of at least
//     gatherFrom items), the pipeline waits for half as many, at most half
//     the previous store write and maxGather (gather.go), so that the
//     first of a group does not take an fsync of its own while the rest
//     wait a whole cycle behind it. On a test clock it never waits.
//     CommitStats (commitstats.go) counts the batches, their sizes and
//     the time of each stage, for a developer measuring the posters.
//   - Reads (a digest, a wait that finds work) go through the same
//     pipeline, so nothing that is not yet durable is ever presented to a
//     consumer.
//   - The redeliver handler (kind "redeliver") fires the fallback
//     re-wakes. (The off-host dead-man beacon and its monitor are the
//     liveness package: they never touch obligations.)
//   - The ledger (ledger.go) is stored in the same batches as the records
//     it describes, so a crash can never keep a consumption without its
//     cursor, or the reverse. Its entries are written by hand, byte for
//     byte as encoding/json writes them (ledgerjson.go), and read by
//     encoding/json.
//   - Retention (retention.go) is the I/O of obligations' compaction: the
//     compact/obligations deadline's action commits one compaction step
//     and sweeps tombstones past the dedup horizon; a post whose id is not
//     live reads its tombstone (ob/t/<lane>/<id>) before the state decides.
//     Tombstones are never loaded at start, so memory follows what the
//     lanes still keep, not how much was ever posted.
//   - SetPolicies puts a reloaded class table in force by rebuilding the
//     state from its own records (the obligations package keeps its
//     policies fixed per State).
//
// # Durability
//
// A post, an ack and a park are answered only once their records are
// fsynced. A delivery's cursor is written without fsync: losing it (power
// loss only) presents the same wake again. A process crash (SIGKILL)
// loses nothing that was answered; the idempotency-id index comes back
// with the obligations, so a producer's retry after a restart is still a
// duplicate. If a store write fails, the state is reloaded from the store
// (what is durable is the truth), every caller of the failed batch and of
// everything queued behind it gets an error, and the failure is alerted.
//
// # Registered numbers
//
//	DefaultHookTimeout   2 m   a wake hook only has to nudge an agent; one
//	                           stuck for minutes is killed and alerted.
//	MaxBatch          1024     items in one grouped commit (as the store's
//	                           own sync group).
//	gatherFrom           8     items of a previous batch that make it a
//	                           group worth waiting for (gather.go).
//	maxGather           1 ms   the longest wait for a group's stragglers:
//	                           under an fsync on most disks.
//	MaxWait             25 s   one long-poll request, under the API's 30 s
//	                           request limit; clients loop for longer waits.
//	sweepBatch        4096     tombstones one sweep write deletes.
//
// # Imports
//
// wakes uses obligations, deadlines (the mutations its effects carry),
// scheduler (its Engine and Handler types), store (the Op type; the Store
// interface is declared here and satisfied by *store.DB), internal/clock,
// internal/jsonw (the ledger entry's strings and times), zerolog, and internal/supervise for the wake hook (never os/exec
// directly: the hook's process group dies at its timeout). It never
// imports viper, configs, cmd or liveness: the daemon hands it plain option
// structs. Time comes from the Clock in Options; timeouts of external work
// use contexts. imports_test.go enforces both.
package wakes
