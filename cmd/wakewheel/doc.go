// Command wakewheel is the daemon and its command-line client.
//
//	wakewheel daemon              run the engine on the embedded store
//	wakewheel status [--json]     what the daemon is doing
//	wakewheel deadlines [--json]  pending deadlines and their due times
//	wakewheel remind NAME ...     create, move or cancel a reminder
//	wakewheel alerts [--json]     the alert log
//	wakewheel repair              recover a corrupt store
//
// This package wires the others: configuration (viper, through configs/),
// logging (zerolog), signals, the store, the runner and the socket API.
// It is the only place besides internal/clock that reads the wall clock.
package main
