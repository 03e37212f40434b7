package scheduler

import (
	"errors"

	"github.com/wakewheel/wakewheel/deadlines"
)

// Errors of the engine. They are wrapped with detail; match them with
// errors.Is.
var (
	ErrUnknownKind = errors.New("scheduler: no handler registered for kind")
	ErrStopped     = errors.New("scheduler: runner stopped")
)

// The mutation vocabulary is the deadlines package's (deadlines.Mutation,
// its Op, its validation and its errors). These names forward to it for
// the engine's callers, so that Engine.Apply reads as one call; they are
// the same types and values, not a second vocabulary.
type (
	Mutation = deadlines.Mutation
	Op       = deadlines.Op
	Applied  = deadlines.Applied
)

// The ops, and the errors of a bad mutation (see deadlines).
const (
	OpPush   = deadlines.OpPush
	OpExtend = deadlines.OpExtend
	OpReset  = deadlines.OpReset
	OpCancel = deadlines.OpCancel

	MaxKeyLen = deadlines.MaxKeyLen
)

var (
	ErrBadKey    = deadlines.ErrBadKey
	ErrBadWindow = deadlines.ErrBadWindow
)
