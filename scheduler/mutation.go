package scheduler

import "errors"

// Errors of the engine. They are wrapped with detail; match them with
// errors.Is. A bad mutation fails with the deadlines package's errors
// (deadlines.ErrBadKey, ErrBadWindow, ErrBadMutation).
var (
	ErrUnknownKind = errors.New("scheduler: no handler registered for kind")
	ErrStopped     = errors.New("scheduler: runner stopped")
)
