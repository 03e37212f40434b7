package detectors

import (
	"cmp"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
)

// ErrAlreadyWatched: Watch was called for a root that already has a watcher
// in notify mode under the same Budget. Close it first, or keep using it.
var ErrAlreadyWatched = errors.New("detectors: root is already watched")

// Budget caps the number of directories watched across roots, so that one
// huge tree cannot take every inotify watch of the user (the kernel limit,
// fs.inotify.max_user_watches, is shared with editors and other tools).
//
// A root that needs more than is free evicts the watches of the least
// recently used other roots (they go to mode "evicted", and their OnFallback
// is called); use is recorded by Touch and by every reported event. If even
// evicting every other root would not make room, nothing is evicted and the
// new root goes to polling with reason ReasonBudget. An evicted root is
// re-armed by its owner calling Watch again on its next use.
//
// A Budget is safe for concurrent use.
type Budget struct {
	max int
	seq atomic.Uint64 // logical clock of uses, for least-recently-used order

	mu    sync.Mutex
	total int                     // sum of charge() over roots
	roots map[string]*budgetEntry // notify-mode watchers by root
}

type budgetEntry struct {
	w        *Watcher
	used     int // directories watched
	reserved int // directories counted before the initial walk, until settled
	lastUse  atomic.Uint64
}

func (e *budgetEntry) charge() int { return max(e.used, e.reserved) }

// NewBudget returns a budget of maxDirs watched directories across roots.
func NewBudget(maxDirs int) *Budget {
	return &Budget{max: maxDirs, roots: make(map[string]*budgetEntry)}
}

// Max is the budget's size in directories.
func (b *Budget) Max() int { return b.max }

// InUse is the number of directories currently charged to watchers.
func (b *Budget) InUse() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.total
}

// Touch records a use of root (an API call, a tool call, a detection), so
// that it is evicted after roots used less recently. Unknown roots are
// ignored.
func (b *Budget) Touch(root string) {
	key, err := rootKey(root)
	if err != nil {
		return
	}
	b.mu.Lock()
	e := b.roots[key]
	b.mu.Unlock()
	if e != nil {
		b.use(e)
	}
}

func (b *Budget) use(e *budgetEntry) { e.lastUse.Store(b.seq.Add(1)) }

// register admits w with n directories about to be watched and sets
// w.entry. It returns ErrAlreadyWatched, or ok=false (with why) when n
// cannot fit even after evicting every other root; otherwise it evicts what
// it must and records the reservation.
func (b *Budget) register(w *Watcher, n int) (ok bool, why string, err error) {
	b.mu.Lock()
	if _, dup := b.roots[w.root]; dup {
		b.mu.Unlock()
		return false, "", fmt.Errorf("%w: %s", ErrAlreadyWatched, w.root)
	}
	victims, ok := b.makeRoomLocked(n, nil)
	if !ok {
		b.mu.Unlock()
		return false, fmt.Sprintf("needs %d watched directories; budget is %d, %d in use by other roots", n, b.max, b.total), nil
	}
	e := &budgetEntry{w: w, reserved: n}
	b.use(e)
	w.entry = e // before another root can see (and evict) it
	b.roots[w.root] = e
	b.total += n
	b.mu.Unlock()
	b.evict(victims, w.root, n)
	return true, "", nil
}

// take charges k more watched directories to e, evicting other roots if it
// must. It reports ok=false if they do not fit, and gone=true if e was
// evicted already (its eviction is under way on another goroutine).
func (b *Budget) take(e *budgetEntry, k int) (ok, gone bool) {
	b.mu.Lock()
	if b.roots[e.w.root] != e {
		b.mu.Unlock()
		return false, true
	}
	delta := max(e.used+k, e.reserved) - e.charge()
	victims, ok := b.makeRoomLocked(delta, e)
	if !ok {
		b.mu.Unlock()
		return false, false
	}
	b.total += delta
	e.used += k
	b.mu.Unlock()
	b.evict(victims, e.w.root, k)
	return true, false
}

// release gives back k watched directories of e.
func (b *Budget) release(e *budgetEntry, k int) {
	b.recharge(e, func() { e.used = max(e.used-k, 0) })
}

// settle ends e's initial reservation: from now on it is charged for what
// it watches.
func (b *Budget) settle(e *budgetEntry) {
	b.recharge(e, func() { e.reserved = 0 })
}

// recharge applies change to e's counts, and the difference in its charge
// to the total, while e is still its root's entry.
func (b *Budget) recharge(e *budgetEntry, change func()) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.roots[e.w.root] != e {
		return
	}
	before := e.charge()
	change()
	b.total -= before - e.charge()
}

// drop removes e (its watcher left notify mode).
func (b *Budget) drop(e *budgetEntry) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.roots[e.w.root] != e {
		return
	}
	b.total -= e.charge()
	delete(b.roots, e.w.root)
}

// makeRoomLocked picks the least recently used roots other than keep whose
// eviction frees enough for need more directories, removes them from the
// budget and returns them. It evicts nothing when even all of them would
// not be enough.
func (b *Budget) makeRoomLocked(need int, keep *budgetEntry) ([]*budgetEntry, bool) {
	free := b.max - b.total
	if need <= free {
		return nil, true
	}
	var others []*budgetEntry
	reclaim := 0
	for _, e := range b.roots {
		if e != keep {
			others = append(others, e)
			reclaim += e.charge()
		}
	}
	if need > free+reclaim {
		return nil, false
	}
	slices.SortFunc(others, func(x, y *budgetEntry) int {
		return cmp.Compare(x.lastUse.Load(), y.lastUse.Load())
	})
	var victims []*budgetEntry
	for _, e := range others {
		if need <= free {
			break
		}
		victims = append(victims, e)
		free += e.charge()
		b.total -= e.charge()
		delete(b.roots, e.w.root)
	}
	return victims, true
}

// evict switches the victims to mode evicted; it runs without b.mu held.
func (b *Budget) evict(victims []*budgetEntry, forRoot string, n int) {
	for _, v := range victims {
		v.w.evict(fmt.Sprintf("evicted (least recently used) to make room for %d directories of %s; budget is %d", n, forRoot, b.max))
	}
}

// rootKey is the identity of a root: its absolute, cleaned path.
func rootKey(root string) (string, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", err
	}
	return filepath.Clean(abs), nil
}
