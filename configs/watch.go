package configs

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/spf13/viper"
)

// reloadSettle is how long a reload waits after the file's last change
// event. An editor that truncates and then writes produces several events;
// reading between them would see a partial file (an empty one is valid and
// means "all defaults"), so the reload runs once the events stop.
const reloadSettle = 100 * time.Millisecond

// Watch reloads the config file at path whenever it changes, with the
// process environment and no flags; see WatchWith.
func Watch(path string, onChange func(Config, *Effective), onError func(error)) (stop func(), err error) {
	return WatchWith(LoadOptions{File: path}, onChange, onError)
}

// WatchWith watches the config file that opts resolves to (opts.File, or
// the one found by the search) and, on each change, runs Load(opts) again,
// so flags and environment keep their precedence over the edited file.
//
// A change that loads and validates, and differs from the last good config,
// is passed to onChange. A change that fails is passed to onError, and the
// last good config stays in force: onChange is not called. When the file
// is then fixed back to the config in force (no change to pass on),
// onError is called with nil: the error it reported is over. Callbacks run one
// at a time on a goroutine of the watcher. Either may be nil.
//
// stop ends the callbacks: once it returns, none is running and none will
// start. It must not be called from inside a callback. viper v1.21 offers
// no way to end its watch goroutine, so that goroutine and its inotify
// instance stay until the process exits or the file is deleted; call Watch
// once per process. Deleting the file ends viper's watch for good; editors
// that save by renaming a new file over the old one are fine.
func WatchWith(opts LoadOptions, onChange func(Config, *Effective), onError func(error)) (stop func(), err error) {
	path, err := opts.configFile(opts.lookup())
	if err != nil {
		return nil, err
	}
	if path == "" {
		return nil, fmt.Errorf("%w: no config file to watch", ErrFile)
	}
	opts.File = path // a file created later elsewhere on the search path is not picked up
	current, _, err := Load(opts)
	if err != nil {
		return nil, err
	}
	// viper's watch goroutine exits the process if it cannot create an
	// inotify instance; probing first turns the likely causes into an error.
	probe, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("config: watching %s: %w", path, err)
	}
	if err := probe.Add(filepath.Dir(path)); err != nil {
		_ = probe.Close()
		return nil, fmt.Errorf("config: watching %s: %w", path, err)
	}
	_ = probe.Close()

	w := &watcher{opts: opts, onChange: onChange, onError: onError, last: current}
	v := viper.New()
	v.SetConfigFile(path)
	v.SetConfigType(strings.TrimPrefix(filepath.Ext(path), "."))
	v.OnConfigChange(func(fsnotify.Event) { w.changed() })
	v.WatchConfig()
	return w.stop, nil
}

// watcher turns viper's change events into validated reloads.
type watcher struct {
	opts     LoadOptions
	onChange func(Config, *Effective)
	onError  func(error)

	mu      sync.Mutex // guards timer and stopped
	timer   *time.Timer
	stopped bool

	reloading sync.Mutex // held while a reload runs; guards last
	last      Config     // the config last loaded without error
	failed    bool       // the last load failed; guarded by reloading
}

// changed (re)starts the settle timer; the reload runs when it fires.
func (w *watcher) changed() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped {
		return
	}
	if w.timer == nil {
		w.timer = time.AfterFunc(reloadSettle, w.reload)
		return
	}
	w.timer.Reset(reloadSettle)
}

func (w *watcher) reload() {
	w.reloading.Lock()
	defer w.reloading.Unlock()
	if w.isStopped() {
		return
	}
	c, eff, err := Load(w.opts)
	switch {
	case err != nil:
		w.failed = true
		if w.onError != nil {
			w.onError(err)
		}
	case !reflect.DeepEqual(c, w.last):
		w.last, w.failed = c, false
		if w.onChange != nil {
			w.onChange(c, eff)
		}
	case w.failed:
		// The file was put back as it was: the error reported is over.
		w.failed = false
		if w.onError != nil {
			w.onError(nil)
		}
	}
}

func (w *watcher) isStopped() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.stopped
}

func (w *watcher) stop() {
	w.mu.Lock()
	w.stopped = true
	if w.timer != nil {
		w.timer.Stop()
	}
	w.mu.Unlock()
	// Wait out a reload that is already running.
	w.reloading.Lock()
	defer w.reloading.Unlock()
}
