// Command wakewheel-broker is one node of the fleet's broker: an embedded
// nats-server with JetStream, every message fsynced before it is
// acknowledged (package fleet/broker). It is a program of its own so that
// the daemon's binary never links nats-server, whose package init starts
// a sampler that wakes its process every second.
//
// Operators run it through `wakewheel broker` (the same flags, the same
// help, the same errors; that verb replaces itself with this program,
// found beside the wakewheel binary or on PATH), and a daemon with
// fleet.embed runs it as a supervised child. Run directly it takes the
// flags of `wakewheel broker` plus --log-level and --log-format, which
// that verb fills from the configuration (log.level, log.format).
//
// Exit status: 0 after SIGTERM or SIGINT, 1 when the node cannot start or
// stops by itself, 2 for a command line it cannot take. Errors read as
// the wakewheel verb's do ("wakewheel: ...").
//
// Imports: fleet/broker, api (for the plain wording of errors), pflag,
// internal/logs (the logger both programs make); never configs or viper
// (the verb reads the configuration).
package main
