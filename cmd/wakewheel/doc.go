// Command wakewheel is the daemon and its command-line client.
//
//	wakewheel daemon              run the engine on the embedded store
//	wakewheel status [--json]     what the daemon is doing
//	wakewheel deadlines [--json]  pending deadlines and their due times
//	wakewheel remind NAME ...     create, move or cancel a reminder
//	wakewheel alerts [--json]     the alert log
//	wakewheel repair              salvage a damaged store, report what was kept and lost
//	wakewheel backup DIR          online snapshot of the store into a new directory
//	wakewheel restore BACKUP      put a backup in place of the store (daemon stopped)
//	(and the obligations, roots, lease, config, doctor and mcp verbs)
//
// This package wires the others: configuration (viper, through configs/),
// logging (zerolog), signals, the store, the runner and the socket API.
// It is the only place besides internal/clock that reads the wall clock.
//
// The daemon is assembled in one function, capabilities (wiring.go), from
// capability values: what each part does at engine setup, at serve, at
// close, on a config reload, and on a metrics scrape. No file registers
// itself from init and no package variable holds state. Every verb that
// prints an answer is built by one constructor (verb.go): its --json flag,
// its client, its output (the command's own), and its exit status (the
// API's error table).
//
// Imports: every package of the module it wires, cobra, zerolog, viper
// only through configs/; nothing imports it. Never fleet/broker or
// nats-server: `wakewheel broker` and fleet.embed run the broker's own
// program, cmd/wakewheel-broker (broker_test.go holds that).
package main
