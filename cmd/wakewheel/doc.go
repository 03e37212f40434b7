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
//
// This package wires the others: configuration (viper, through configs/),
// logging (zerolog), signals, the store, the runner and the socket API.
// It is the only place besides internal/clock that reads the wall clock.
package main
