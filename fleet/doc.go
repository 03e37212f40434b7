// Package fleet carries wakewheel across hosts on NATS JetStream. The
// local store stays the source of truth for everything an agent consumes;
// the broker only carries obligations to their lanes' homes, and beacons.
//
// What it owns:
//
//   - broker.go: an embedded nats-server node (`wakewheel broker`) with
//     JetStream and SyncAlways, clustered through routes. A node that
//     listens beyond loopback needs TLS and authorization.
//   - conn.go: a member's connection (reconnecting for ever, no reconnect
//     buffer), the stream WAKEWHEEL_OBLIGATIONS and the buckets it creates.
//   - subjects.go: names. A post to lane L homed on H from origin O is
//     published on wakewheel.ob.<H>.<L>.<O>, each name encoded (Encode) so
//     a '.' never splits a subject; the message id is <L>:<id>.
//   - homes.go: lane homes in the bucket wakewheel_homes. The first claim
//     wins (a KV create); a host keeps the homes it learnt in its store
//     (namespace fleet-homes), since a home never moves.
//   - outbox.go, forward.go: a post to a lane homed elsewhere is written,
//     synced, to the local outbox (namespace fleet-outbox) and answered
//     "queued"; the forwarder publishes it and deletes it only after the
//     broker's ack ("forwarded"). The outbox is bounded (ErrOutboxFull).
//   - import.go: the home's durable pull consumer import-<host>. A fetched
//     batch goes through one grouped synced commit of the local service
//     (wakes.Service.PostBatch), which assigns the lane sequence numbers;
//     only then is each message acked. A message no wakewheel wrote is
//     terminated and alerted, never retried hot.
//   - member.go: the routing of post, open and first wait.
//   - beacon.go: the host's beacon, put in the bucket wakewheel_beacons with
//     a per-message TTL of period + grace, sent when the deadline
//     fleet-beacon/<host> fires (re-armed one period on, never a ticker). It
//     carries the version, outbox depth, import state, counters, wakes and
//     no-op wakes.
//   - lanes.go: each lane's state (counts, the oldest unconsumed against its
//     SLO) in the bucket wakewheel_lanes, published by its home on change,
//     coalesced by the deadline fleet-lanes/<host> (never by a ticker).
//   - watch.go: the fleet feed of `wakewheel monitor --fleet`: each beacon
//     seen extends the monitor's own absent/<host> deadline (liveness); the
//     bucket's TTL markers only feed the log, since a marker can be late or
//     missing when the bucket's leader dies. An unreachable broker raises
//     monitor_blind.
//   - status.go: the member's own state (GET /v1/fleet) and the fleet's as
//     the broker shows it (`wakewheel fleet status`).
//
// Invariants: a post answered "queued" or "forwarded" is in its home's
// lane exactly once after import, whatever crashes in between: the
// broker's de-duplication window is only an optimisation, the home's id
// index is the guarantee. Lane sequences are gap-free because only the
// home assigns them. CONSUMED never leaves the home: wait, digest, ack and
// park are local calls. While the broker is unreachable, local lanes work
// unchanged, remote posts queue, and import pauses.
//
// Imports: nats-server, nats.go, obligations, store (ops), scheduler (the
// beacon's deadline), liveness (the monitor it feeds), internal/clock,
// internal/netrule (the broker rule, shared with configs), zerolog.
// Never viper, configs or cmd; the clock only through internal/clock.
package fleet
