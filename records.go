package wakewheel

import "time"

// Alert is a recorded problem that an operator should see: a failed or
// panicking action, a retry budget spent, a conflict that survived its one
// retry, a watcher that fell back to polling. Alerts are persisted in a
// bounded log and listed by `wakewheel alerts`.
type Alert struct {
	Seq     uint64    `json:"seq"`     // assigned by the store, increasing
	Time    time.Time `json:"time"`    // when it was raised
	Code    string    `json:"code"`    // stable machine name, e.g. "action_failed", "auto_reconcile_conflict"
	Key     string    `json:"key"`     // the deadline key involved, if any
	Kind    string    `json:"kind"`    // the deadline kind involved, if any
	Message string    `json:"message"` // what happened, for a human
}

// Fire records one completed action: a deadline that fell due and whose
// handler finished (whatever the outcome). The store writes it in the same
// batch that retires the deadline, so a crash can never leave a fired
// record without its deadline retired, or the reverse.
type Fire struct {
	Seq     uint64    `json:"seq"`     // assigned by the store, increasing
	Key     string    `json:"key"`     // deadline key
	Kind    string    `json:"kind"`    // deadline kind
	At      time.Time `json:"at"`      // when it was due
	Fired   time.Time `json:"fired"`   // when the runner handed it to the worker
	Outcome string    `json:"outcome"` // done, retry, yield, conflict, failure
}

// Finished is a finished run's record as the scheduler hands it to the
// store: its Fire, the Key whose deadline it retires, and Keep when that
// deadline stays (pushed again meanwhile, or rescheduled).
type Finished struct {
	Key  string
	Keep bool
	Fire Fire
}
