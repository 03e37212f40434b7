package scheduler

import (
	"errors"

	"github.com/wakewheel/wakewheel/deadlines"
)

// Errors of the engine. They are wrapped with detail; match them with
// errors.Is. A bad mutation fails with the deadlines package's errors
// (deadlines.ErrBadKey, ErrBadWindow, ErrBadMutation).
var (
	ErrUnknownKind = errors.New("scheduler: no handler registered for kind")
	ErrStopped     = errors.New("scheduler: runner stopped")
)

// The mutation vocabulary is the deadlines package's: Mutation and Applied
// here are deadlines.Mutation and deadlines.Applied, and the ops are its
// ops, named again for the engine's callers (the same types and values,
// not a second vocabulary).
type (
	Mutation = deadlines.Mutation
	Applied  = deadlines.Applied
)

// The ops of a Mutation (see deadlines.Op).
const (
	OpPush   = deadlines.OpPush
	OpExtend = deadlines.OpExtend
	OpReset  = deadlines.OpReset
	OpCancel = deadlines.OpCancel
)
