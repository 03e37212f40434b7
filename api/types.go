package api

import (
	"time"

	"github.com/wakewheel/wakewheel"
)

// Version of the API, the path prefix of every route.
const Version = "v1"

// Status is the daemon's answer to GET /v1/status.
type Status struct {
	Version   string            `json:"version"`
	PID       int               `json:"pid"`
	Started   time.Time         `json:"started"`
	StoreDir  string            `json:"store_dir"`
	Socket    string            `json:"socket"`
	Pending   int               `json:"pending"`
	Waiting   int               `json:"waiting"`
	NextDue   *time.Time        `json:"next_due,omitempty"`
	Reloaded  int               `json:"reloaded"`
	Fired     uint64            `json:"fired"`
	Runs      uint64            `json:"runs"`
	Outcomes  map[string]uint64 `json:"outcomes"`
	Alerts    uint64            `json:"alerts"`
	ByKind    map[string]int    `json:"pending_by_kind"`
	LastAlert *wakewheel.Alert  `json:"last_alert,omitempty"`
	// State is "loading" while the daemon loads its deadlines (the other
	// counts are then zero) and "ready" once it serves every request; a
	// daemon of an earlier version leaves it empty (ready).
	State   string     `json:"state,omitempty"`
	Loading *LoadState `json:"loading,omitempty"`
}

// LoadState is how far a loading daemon has come: Percent of the store's
// deadline records (by their place in the store's key order, an estimate
// that only grows) and the deadlines Read so far.
type LoadState struct {
	Percent int   `json:"percent"`
	Read    int64 `json:"read"`
}

// Deadline is one pending deadline as the API shows it.
type Deadline struct {
	Key   string     `json:"key"`
	Kind  string     `json:"kind"`
	At    time.Time  `json:"at"`
	Since *time.Time `json:"since,omitempty"`
}

// DeadlinePage answers GET /v1/deadlines?prefix=&after=&limit=: pending
// deadlines in key order. Next, when set, is the cursor of the next page
// (pass it as after); each page is one consistent snapshot. A deadline that
// fell due and whose action is still running is listed until it finishes.
type DeadlinePage struct {
	Deadlines []Deadline `json:"deadlines"`
	Next      string     `json:"next,omitempty"`
}

// ReminderRequest is the body of POST /v1/reminders: create or move the
// deadline "reminder/<Name>". Exactly one of In, At, Window is set:
//   - In or At: push (fire no later than: a pending reminder only ever
//     moves earlier), or with Reset, set the due time whatever it was (to
//     postpone); a time in the past is refused;
//   - Window (with Cap, default Window): extend the sliding window.
//
// Lane makes the fire post an alert to that lane, with Note as its body.
// Sync makes the change durable (fsync) before the answer.
type ReminderRequest struct {
	Name    string `json:"name"`
	In      string `json:"in,omitempty"`     // a Go duration, e.g. "90s"
	At      string `json:"at,omitempty"`     // RFC 3339
	Window  string `json:"window,omitempty"` // a Go duration
	Cap     string `json:"cap,omitempty"`    // a Go duration
	Reset   bool   `json:"reset,omitempty"`  // with In or At: move a pending reminder later too
	Message string `json:"message,omitempty"`
	Lane    string `json:"lane,omitempty"` // post an alert to this lane at fire
	Note    string `json:"note,omitempty"` // the alert's body
	Sync    bool   `json:"sync,omitempty"`
}

// ReminderResult answers a reminder change. Requested is the due time
// asked for by in or at; when it is later than At, the pending reminder
// was kept earlier (ask again with reset to postpone it).
type ReminderResult struct {
	Key       string     `json:"key"`
	Changed   bool       `json:"changed"`
	Pending   bool       `json:"pending"`
	At        *time.Time `json:"at,omitempty"`
	Requested *time.Time `json:"requested,omitempty"`
	Synced    bool       `json:"synced"`
}

// Error is the body of every failed request.
type Error struct {
	Err struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	status int // the HTTP status it came with (client side)
}

func (e *Error) Error() string { return e.Err.Message }
