// Package deadlines is the engine's timing wheel and the deadline rules.
//
// It is pure: no goroutines, no clock reads, no I/O, no logging. Time enters
// as a value (the now argument of Extend and Advance); the runner in
// scheduler/ is the only place that turns it into real time.
//
// The rules, written once:
//
//   - Push(key, at): fire no later than at. Creates the deadline, or pulls a
//     pending one earlier; never moves it later.
//   - Extend(key, now, window, cap): a sliding window with a cap:
//     At = min(now+window, Since+cap), where Since is kept from the first
//     extend of the window. Debounce with a max-wait.
//   - Reset(d): set unconditionally (reload, reschedule, re-timing).
//   - Cancel(key): remove; reports whether it was pending.
//
// A deadline is due at its due tick: At rounded up to a multiple of the base
// tick. Advance(now) returns every deadline whose due tick is <= now, in
// (At, Key) order, and removes them. So a deadline never fires early, and
// when the caller advances to Next() it fires less than one tick late,
// however far out it was set.
//
// Must not import: os, net, os/exec, time.Now users, zerolog, viper,
// goleveldb.
package deadlines
