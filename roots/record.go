package roots

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/wakewheel/wakewheel/deadlines"
)

// Store namespaces (store.DB generic records, "n/<ns>/<key>").
const (
	// nsRoots holds one Record per root, keyed by the root's absolute path.
	nsRoots = "roots"
	// nsQueue holds the backlogs: key "<id:016x>/<seq:016x>", value the
	// root-relative paths of the entries from seq on, bytes as they are on
	// disk, NUL-separated (backlog.go).
	nsQueue = "rootq"
	// nsMemory holds a git root's tracker memory (the last captured set
	// with each path's state on disk, detectors.Tracker.Memory), keyed by
	// the root's path and written with the capture: a restart does not
	// hand the dirty and untracked files to ingest again.
	nsMemory = "rootmem"
)

// recordVersion is the version this build writes in Record.V. Older
// records (V absent or lower) still load: decodeRecord fills what they
// lack.
const recordVersion = 1

// Record is a root as persisted. Only durable facts live here; the
// watcher's mode, the running command and the in-flight batch are runtime
// state and are derived again after a restart.
type Record struct {
	V         int       `json:"v"`
	ID        uint64    `json:"id"` // names the root's backlog keys
	Path      string    `json:"path"`
	Armed     bool      `json:"armed"`
	Ingest    string    `json:"ingest,omitempty"`    // operator's command line, run with /bin/sh -c
	Reconcile string    `json:"reconcile,omitempty"` // operator's command line, run with /bin/sh -c
	Skip      []string  `json:"skip,omitempty"`      // SkipPolicy entries beside the defaults
	Candidate bool      `json:"candidate,omitempty"` // reconcile skips a candidate root
	SinceRef  string    `json:"since_ref,omitempty"` // git: HEAD of the last durable capture
	Created   time.Time `json:"created,omitzero"`
	// ByAgent: registered by an agent (through MCP) and not adopted since
	// by the operator (a watch from the CLI or the config file). Only such
	// a root may be unwatched by an agent. Older records: the operator's.
	ByAgent bool `json:"by_agent,omitempty"`

	// StoreVersion is the version handed to the last reconcile run; every
	// run gets a larger one, written synced before the run starts.
	StoreVersion uint64 `json:"store_version,omitempty"`

	LastDetection time.Time `json:"last_detection,omitzero"`
	LastError     string    `json:"last_error,omitempty"`
	Overflows     uint64    `json:"overflows,omitempty"` // kernel queue overflows seen, over the root's life
}

func encodeRecord(r Record) []byte {
	r.V = recordVersion
	b, err := json.Marshal(r)
	if err != nil {
		panic("roots: encode record: " + err.Error()) // plain data: cannot fail
	}
	return b
}

// decodeRecord reads a root record of any version written so far. A
// record without a path takes it from its key; one without an ID gets one
// from the caller.
func decodeRecord(key string, val []byte) (Record, error) {
	var r Record
	if err := json.Unmarshal(val, &r); err != nil {
		return Record{}, fmt.Errorf("roots: record %q: %w", key, err)
	}
	if r.V > recordVersion {
		return Record{}, fmt.Errorf("roots: record %q has version %d; this build reads up to %d", key, r.V, recordVersion)
	}
	if r.Path == "" {
		r.Path = key
	}
	return r, nil
}

// queueKey is "%016x/%016x" of id and seq, without fmt: a capture makes
// one per changed path.
func queueKey(id, seq uint64) string {
	var b [33]byte
	putHex16(b[:16], id)
	b[16] = '/'
	putHex16(b[17:], seq)
	return string(b[:])
}

func putHex16(b []byte, v uint64) {
	const digits = "0123456789abcdef"
	for i := 15; i >= 0; i-- {
		b[i] = digits[v&0xf]
		v >>= 4
	}
}

func queuePrefix(id uint64) string { return fmt.Sprintf("%016x/", id) }

func parseQueueKey(key string) (id, seq uint64, ok bool) {
	if len(key) != 33 || key[16] != '/' {
		return 0, 0, false
	}
	if _, err := fmt.Sscanf(key, "%016x/%016x", &id, &seq); err != nil {
		return 0, 0, false
	}
	return id, seq, true
}

// Deadline kinds registered by the manager, and the key of each: the kind
// followed by the root's absolute path ("burst/home/dev/repo") or, for a
// lease, "lease/" and its name.
const (
	KindBurst     = "burst"     // extended by every fs event; fire: detection
	KindDetect    = "detect"    // pushed by traffic, resume, fallbacks; fire: detection
	KindDrain     = "drain"     // hand the next batch to the ingest handler
	KindReconcile = "reconcile" // run the reconcile handler after quiet
	KindLease     = "lease"     // fire: the lease expires
)

var rootKinds = [...]string{KindBurst, KindDetect, KindDrain, KindReconcile}

// Key is the deadline key of kind for root (an absolute path).
func Key(kind, root string) string { return kind + root }

// LeaseKey is the deadline key of the lease name.
func LeaseKey(name string) string { return KindLease + "/" + name }

// rootOfKey returns the root path of a root deadline key of kind.
func rootOfKey(kind, key string) string { return strings.TrimPrefix(key, kind) }

// Errors of the manager. The API maps them to codes.
var (
	ErrBadPath     = errors.New("roots: bad root path")
	ErrUnknownRoot = errors.New("roots: no such root")
	ErrBadSkip     = errors.New("roots: bad skip entry")
	ErrBadLease    = errors.New("roots: bad lease")
	ErrLeaseHeld   = errors.New("roots: lease is held")
	ErrNoLease     = errors.New("roots: no such lease")
	ErrClosed      = errors.New("roots: manager closed")
	ErrDisarmed    = errors.New("roots: root is disarmed")
	ErrBadCommand  = errors.New("roots: bad command")
	ErrOperators   = errors.New("roots: the operator's root")
	ErrOverlap     = errors.New("roots: overlapping roots")
	// ErrConflict is returned by a Go reconcile handler (wrapped or as is)
	// for an optimistic-concurrency conflict: the counterpart of exit code
	// 75 of a reconcile command.
	ErrConflict = errors.New("roots: reconcile conflict")
)

// CleanPath turns p into the form roots are known by: absolute, cleaned,
// with symbolic links resolved when the path exists. It checks that the
// path can be part of a deadline key (UTF-8, no control characters).
func CleanPath(p string) (string, error) {
	if p == "" {
		return "", fmt.Errorf("%w: empty", ErrBadPath)
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", fmt.Errorf("%w: %q: %w", ErrBadPath, p, err)
	}
	abs = filepath.Clean(abs)
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	if err := deadlines.CheckName("a root's path", abs, deadlines.MaxKeyLen-len(KindReconcile)); err != nil {
		return "", fmt.Errorf("%w: %v: it is part of the root's deadline keys (paths inside it may be anything)", ErrBadPath, err)
	}
	return abs, nil
}

// sortedCopy returns a sorted, de-duplicated copy of s (nil for empty).
func sortedCopy(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	out := slices.Clone(s)
	slices.Sort(out)
	return slices.Compact(out)
}
