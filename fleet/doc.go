// Package fleet carries wakewheel across hosts on NATS JetStream. The
// local store stays the source of truth for everything an agent consumes;
// the broker only carries obligations to their lanes' homes, and beacons.
//
// What it owns:
//
//   - embed.go: the broker node of a fleet of one (fleet.embed), run as a
//     supervised child: the broker's program (cmd/wakewheel-broker, the
//     server side in fleet/broker), in its own process group with
//     Pdeathsig, ready once it answers under its own name, started again
//     (alerted) if it ends by itself, stopped with SIGTERM on Close.
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
//   - beacon.go: the host's beacon, sent when the deadline
//     fleet-beacon/<host> fires (re-armed one period on, never a ticker),
//     two ways: a plain publish on the core subject wakewheel.beacon.<host>,
//     then a put in the bucket wakewheel_beacons with a per-message TTL of
//     period + grace (the put on a goroutine of its own, so a put waiting
//     out a bucket election never holds the next publish). It carries the
//     version, a run id and sequence (Boot, Seq), outbox depth, import
//     state, counters, wakes and no-op wakes, and the safety vector.
//   - safety.go: the beacon's safety vector: the ledger report (the same
//     metrics as `wakewheel ledger report`) over the latest
//     fleet.beacon.safety_entries entries, read incrementally after each
//     beacon is on its way.
//   - lanes.go: each lane's state (counts, the oldest unconsumed against its
//     SLO) in the bucket wakewheel_lanes, published by its home on change,
//     coalesced by the deadline fleet-lanes/<host> (never by a ticker).
//   - watch.go, sight.go: the fleet feed of `wakewheel monitor --fleet`:
//     each beacon seen (on the core subject or in the bucket, counted once)
//     extends the monitor's own absent/<host> deadline (liveness); the
//     bucket's TTL markers only feed the log, since a marker can be late or
//     missing when the bucket's leader dies.
//   - status.go, waiting.go: the member's own state (GET /v1/fleet) and
//     the fleet's as the broker shows it (`wakewheel fleet status`): per
//     host its last beacon, per lane what the stream holds beyond its
//     home's import ack floor (read headers only, from the floor on).
//   - parity.go: source parity, every id the stream holds for a home
//     against its ledger (`fleet parity`, and `ledger report` in a fleet).
//   - alarm.go: the monitor's sink that posts each alarm into an operator's
//     lane, retried through an election until monitor.alert_timeout.
//   - options.go: the member's options; the broker timings
//     (fleet.request_timeout, publish_ack_wait, fetch_wait, retry_max,
//     ping_interval) default to the registered numbers.
//
// Invariants: a post answered "queued" or "forwarded" is in its home's
// lane exactly once after import, whatever crashes in between: the
// broker's de-duplication window is only an optimisation, the home's id
// index is the guarantee. Lane sequences are gap-free because only the
// home assigns them. CONSUMED never leaves the home: wait, digest, ack and
// park are local calls. While the broker is unreachable, local lanes work
// unchanged, remote posts queue, and import pauses.
//
// # Why beacons also go on a core subject (the decision)
//
// With only the bucket, a SIGKILL of the bucket's stream leader silenced
// every host for the election (seconds; 7.4 s measured for a stream), so live hosts were alarmed
// absent with the dead one. A core NATS publish needs no stream leader: it
// reaches every subscriber through any live node as soon as the
// publisher's and the monitor's connections are up (a client of the killed
// node reconnects to another in well under a second). The bucket stays
// for what needs state: `fleet status` and a monitor that starts later
// (the hosts' last beacons, within their TTL).
//
// The monitor also proves its own sight: every monitor.probe_every it
// publishes a probe on wakewheel.monitor.probe.<id> and waits for it. An
// absence alarms only once a probe sent after its due time has come back
// (so a silence in the moment before the monitor notices its own
// blindness is never taken for an absence: at most one probe interval
// later than period + grace); a probe not back within monitor.probe_late, or
// a dropped connection, makes the monitor blind from its last confirmed
// sight: the absences falling due are held, and when it sees again every
// pending absence moves on by the blind time, so a host is absent after
// period + grace of silence the monitor could observe. The really dead
// host is then alarmed period + grace + the blind time after its last
// beacon (the monitor's /status reports the blind spells and their
// total). A spell longer than period + grace also raises monitor_blind.
// Permissions: a daemon publishes on wakewheel.beacon.<host>; a monitor
// subscribes to wakewheel.beacon.* and publishes and subscribes on
// wakewheel.monitor.probe.>. A monitor denied its probe never sees its
// own sight: it holds every absence and says monitor_blind, loudly,
// rather than alarm on what it cannot see.
// Left as it is: a monitor whose node is cut from the other nodes (its
// own probe still comes back) sees the hosts beyond the cut as absent;
// run the monitor beside a node of the majority, or two monitors.
//
// Imports: nats.go (the client only), obligations, store (ops), scheduler
// (the beacon's deadline), liveness (the monitor it feeds),
// internal/supervise (the embedded node), internal/clock,
// internal/netrule (the broker rule, shared with configs), zerolog.
// Never nats-server or fleet/broker (the daemon links this package, and
// nats-server's package init wakes its process every second), viper,
// configs or cmd; the clock only through internal/clock.
package fleet
