// Package broker is the server side of the fleet: one embedded
// nats-server node with JetStream and SyncAlways, clustered through routes.
// It is linked only by the broker's own program (cmd/wakewheel-broker):
// nats-server starts, from its package init, a once-a-second process
// sampler in every program that links it, so the daemon — which must sleep
// when nothing is due — never imports this package (a test of cmd/wakewheel
// holds that). `wakewheel broker` runs that program in its place, and a
// daemon with fleet.embed runs it as a supervised child (fleet.Embedded).
//
// What it owns:
//
//   - node.go: Start, a node that answers clients before Start returns.
//     Every message it acknowledges is fsynced first (the file store's
//     default syncs every two minutes). Its client and cluster addresses
//     must be free: an address a node that is still going away holds is
//     waited for a little, then refused by name, instead of a silent
//     ready-wait on a port someone else answers.
//
// Invariants: a node listening beyond loopback has TLS and authorization
// from a nats-server config file, or does not start.
//
// Imports: nats-server, zerolog, internal/clock (the wall clock of the
// address wait), internal/netrule (what loopback is). Never the rest of the fleet, so the fleet's own tests
// can run a node in their process.
package broker
