package store

import (
	"errors"
	"fmt"
	"strings"
	"syscall"

	"github.com/syndtr/goleveldb/leveldb"
	lderrors "github.com/syndtr/goleveldb/leveldb/errors"
)

// Sentinels. Callers test them with errors.Is; the adapters map them to codes.
var (
	// ErrCorrupt: the store cannot be read as it is. The error's message
	// names the store and the repair command.
	ErrCorrupt = errors.New("store: corrupt")
	// ErrSchemaTooNew: the store was written by a newer wakewheel.
	ErrSchemaTooNew = errors.New("store: schema version too new")
	// ErrClosed: the DB was closed (or abandoned).
	ErrClosed = errors.New("store: closed")
	// ErrLocked: another process holds the store's LOCK file. (A child
	// that a crashed daemon was starting can hold it for a moment after
	// the daemon's death, until its exec closes the descriptor.)
	ErrLocked = errors.New("store: locked")
)

// corruptError says which store is corrupt, why, and how to repair it. It
// matches both ErrCorrupt and its cause under errors.Is / errors.As.
type corruptError struct {
	name  string
	cause error
}

func (e *corruptError) Error() string {
	return fmt.Sprintf("store %s is corrupt: %v; run \"wakewheel repair --store %s\" to recover what can be read",
		e.name, e.cause, e.name)
}

func (e *corruptError) Unwrap() []error { return []error{ErrCorrupt, e.cause} }

// CorruptError returns the error for a store dir whose records contradict
// each other (cause says how): it wraps ErrCorrupt and cause, and names the
// repair command.
func CorruptError(dir string, cause error) error { return &corruptError{name: dir, cause: cause} }

// isLevelDBCorrupt reports goleveldb's own corruption errors, including a
// MANIFEST that names table files which are gone (also fixed by recovery).
func isLevelDBCorrupt(err error) bool {
	if lderrors.IsCorrupted(err) {
		return true
	}
	var missing *lderrors.ErrMissingFiles
	return errors.As(err, &missing)
}

// wrap maps an error of goleveldb (or of a record decoder, already marked
// with errBadRecord) to the package's vocabulary. op names what failed.
func (db *DB) wrap(op string, err error) error {
	return wrapErr(db.name, op, err)
}

func wrapErr(name, op string, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, leveldb.ErrClosed), errors.Is(err, ErrClosed):
		return ErrClosed
	case errors.Is(err, ErrCorrupt), errors.Is(err, ErrSchemaTooNew), errors.Is(err, ErrUnwritable):
		return err
	case errors.Is(err, syscall.EWOULDBLOCK):
		return fmt.Errorf("%w: store %s: its LOCK is held by another process (is a daemon already running on it?)", ErrLocked, name)
	case isLevelDBCorrupt(err):
		return &corruptError{name: name, cause: err}
	case errors.Is(err, errBadRecord):
		return &corruptError{name: name, cause: err}
	}
	return fmt.Errorf("store: %s: %w", op, err)
}

// errBadRecord marks a record that does not decode; wrap turns it into a
// corruptError that names the store.
var errBadRecord = errors.New("undecodable record")

// badRecord describes an undecodable record by its key.
func badRecord(key []byte, why string) error {
	return fmt.Errorf("%w %q: %s", errBadRecord, key, why)
}

// catchLevelDBPanic, deferred by the read paths, turns a panic that
// goleveldb raises on damaged data (it asserts on malformed internal keys)
// into a corrupt error, so a damaged store cannot become a panic loop at
// every start. Other panics propagate.
func catchLevelDBPanic(name string, err *error) {
	r := recover()
	if r == nil {
		return
	}
	msg := fmt.Sprint(r)
	if !strings.HasPrefix(msg, "leveldb") {
		panic(r)
	}
	*err = &corruptError{name: name, cause: fmt.Errorf("goleveldb panicked: %s", msg)}
}
