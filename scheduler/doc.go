// Package scheduler is the runner: it owns the clock, the timing wheel and
// the store, and fires the actions whose deadlines fall due with a single
// worker.
//
// Two layers:
//
//   - Engine is synchronous and single-threaded: Apply takes a
//     deadlines.Mutation (validated by deadlines; the engine adds only the
//     check that its kind has a handler) and applies it to the wheel first,
//     then to the store's write-behind; ApplyAll applies several in order.
//     The engine has no mutation vocabulary of its own: its callers build
//     deadlines.Mutation values with deadlines' ops. Due moves fallen-due
//     deadlines into the keyed queue, at most maxWaiting (256) queued at
//     once: one worker runs them, so the rest wait in the wheel, pending
//     and overdue, where a deadline costs its entry and not a queued copy,
//     and Wake asks for no wake while the queue is full (the worker's
//     result makes room and wakes the runner). NextJob/Run/Finish run one
//     action and apply its outcome. Simulation tests drive it directly with time as a
//     value; nothing in it sleeps or reads a clock.
//   - Runner wraps an Engine in one goroutine that sleeps until the wheel's
//     Wake() (an idle engine sets no timer at all) and one worker goroutine
//     that runs handlers. Every change from other goroutines enters through
//     Runner.Do, the single entry point. Wake is a deadline's own instant
//     when it is alone in its tick; the deadlines that share a tick share
//     one wake, each at most Options.Slack late and never early (timer
//     slack, deadlines/slack.go: a wake costs about the same CPU whatever
//     it fires). The runner sleeps on its clock's sleeper
//     (internal/clock.Sleeper), which every sender to the loop (a Do, the
//     worker's result, Stop) wakes after putting its message in the
//     loop's inbox, so a request arriving during the sleep is served at
//     once. The daemon's clock is internal/clock.Polled, whose sleeper is a
//     timerfd the loop waits on in the network poller itself: a runtime
//     timer waits in whole milliseconds and behind a collector's idle mark
//     workers, and a timer read by a goroutine of its own wakes a second
//     thread on each expiry to hand it over.
//
// Invariants:
//   - a key is never run twice at once; a key that falls due again while its
//     action runs runs once more afterwards (the dirty/processing sets of a
//     keyed work queue);
//   - a deadline's store record is retired only when its action finishes
//     (Store.CompleteAll), so an action interrupted by a crash runs again on
//     restart, and no in-flight flag is ever persisted; a Runner writes
//     these records off its loop, in the order the runs finished, and a
//     later write of the same key waits for the record that retires it
//     (completer.go); a run starts only when its record finds room with
//     the writer, so a store that throttles its writes never stops the
//     loop answering;
//   - after downtime every overdue deadline fires once, in due order, as
//     the queue makes room: a backlog of a million costs the loop one
//     ordering at the load and then a few hundred at a turn, never a turn
//     that moves them all;
//   - fail-open: a handler's error, panic or timeout becomes an outcome and
//     an alert; it never reaches a caller of Do or of any API built on it.
//   - the kind index (kindindex.go) holds exactly the pending keys of the
//     kinds in Options.Indexed, so OfKind of those visits nothing else;
//   - a reload reads the store's records in one goroutine while this one
//     decodes and checks them and enters them into the wheel (NewEngine,
//     deadlines.Loader); the wheel is complete with the last batch.
//
// Outcomes: done; retry (bounded exponential backoff, then the alert
// "retries_exhausted"); yield (reschedule after a delay, e.g. a live lease);
// conflict (exactly one immediate retry, then an alert — never a loop);
// failure (an alert).
//
// Imports: deadlines, internal/clock, the root records, zerolog. Never
// viper, never cmd, never a concrete store (it declares the Store interface
// it needs).
package scheduler
