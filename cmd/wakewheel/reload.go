package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/wakewheel/wakewheel/configs"
	"github.com/wakewheel/wakewheel/deadlines"
	"github.com/wakewheel/wakewheel/scheduler"
)

// Live reload. The daemon watches its config file (configs.WatchWith) and,
// on every change, loads flags > environment > file > defaults again:
//
//   - an invalid change (a bad value, an unknown key, a file that does not
//     parse) is rejected: the error is logged and reported by GET
//     /v1/config (`wakewheel config show --daemon`), and the previous
//     config stays in force;
//   - a valid change becomes the config in force, is logged key by key,
//     is handed to the reload hooks of other capabilities, and re-times the
//     pending deadlines of every window it shortened, by the rule below.
//
// Re-timing. The owner of each key declares how its deadlines are timed
// under a config (capability.timetable, a deadlines.Timetable: the roots'
// burst and reconcile windows, each root's own over the detect.* keys; the
// lanes' class cadences). For every pending deadline an owner claims,
// deadlines.Retime compares its timing under the old and the new config;
// each span that got SHORTER pulls it in:
//
//	silence, quiet and cadence windows:  At' = min(At, now + new window)
//	caps of sliding windows:             At' = min(At, max(now, Since + new cap))
//
// and it is otherwise left alone. A deadline never moves later: a longer
// window applies from the next event that extends the deadline (or the
// next wake, for a cadence), never to one already pending. A moved deadline
// is reset with its Since kept, so its cap still counts from the window's
// first event. A root with its own window is re-timed by its own, not by
// the detect.* default. Settings no owner times (engine.*, log.*,
// metrics.*, obligations.max_body, the SLOs, budgets) are read at start; a
// change to one is logged as a warning with applies="at the next daemon
// start" unless a capability reads it live (capability.live).
//
// Reminders (reminder/<name>) are never re-timed: their windows are the
// caller's, not the config's, and no owner claims them.
//
// Re-timing covers the deadlines already pending. The capability that
// creates the next ones (the detectors' extends, the lanes' cadences) takes
// the new value in its reload (capability.reload); until it does, it keeps
// the value it started with.
//
// GET /v1/config answers ConfigView: the config in force, key by key with
// its source, and the reload's state (the file watched, or why reload is
// off; the last rejected change and when).
func reloadCapability(d *daemon, caps []capability) capability {
	return capability{name: "reload", serve: newReloader(d, caps).serve}
}

// newReloader is the reload of d, calling the reloads of caps.
func newReloader(d *daemon, caps []capability) *reloader {
	r := &reloader{d: d, cfg: d.cfg, entries: []ConfigEntry{}, live: map[string]bool{}, owners: timetablesOf(caps)}
	for _, c := range caps {
		for _, k := range c.live {
			r.live[k] = true
		}
		if c.reload != nil {
			r.hooks = append(r.hooks, namedHook{c.name, c.reload})
		}
	}
	return r
}

// timetable is one owner's declaration of how its deadlines are timed,
// and of their kinds.
type timetable struct {
	owner string
	of    func(c *configs.Config) deadlines.Timetable
	kinds []string
}

// timetablesOf are the timetables the capabilities declare.
func timetablesOf(caps []capability) []timetable {
	var out []timetable
	for _, c := range caps {
		if c.timetable != nil {
			out = append(out, timetable{c.name, c.timetable, c.timedKinds})
		}
	}
	return out
}

// retime moves the pending deadlines of every shortened window (see the
// rule above) and returns how many moved per owner. It knows no deadline
// key: each owner claims its own. It runs on the loop and visits only the
// deadlines of the owners' kinds (Engine.OfKind: the engine indexes them),
// a few per root and lane, never the reminders: O(owned), not O(pending).
func retime(e *scheduler.Engine, now time.Time, old, cur *configs.Config, owners []timetable) (map[string]int, error) {
	moved := map[string]int{}
	var errs []error
	for _, t := range owners {
		// the mutations are collected first: the engine must not change
		// while OfKind visits it
		for _, m := range deadlines.RetimeAll(e.OfKind(t.kinds...), now, t.of(old), t.of(cur)) {
			if _, err := e.Apply(now, m); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", m.Key, err))
				continue
			}
			moved[t.owner]++
		}
	}
	return moved, errors.Join(errs...)
}

// reloader holds the config in force and the outcome of the last change.
type reloader struct {
	d *daemon
	// live are the keys read while the daemon runs (the capabilities' live
	// keys); every other change waits for a restart.
	live map[string]bool
	// owners are the capabilities' timetables, for re-timing.
	owners []timetable
	// hooks are the capabilities' reloads, called in order with each
	// valid change.
	hooks []namedHook

	mu      sync.Mutex // guards the fields below
	cfg     configs.Config
	entries []ConfigEntry
	state   ReloadState
}

// ConfigView is the answer of GET /v1/config: the config in force, each
// key with its value and where it came from, and the state of the reload.
type ConfigView struct {
	Entries []ConfigEntry `json:"entries"`
	Reload  ReloadState   `json:"reload"`
}

// ConfigEntry is one key of the config in force.
type ConfigEntry struct {
	Key    string `json:"key"`
	Value  string `json:"value"`
	Source string `json:"source"`
}

// ReloadState says whether the file is watched and what its last change did.
type ReloadState struct {
	File        string     `json:"file,omitempty"`
	Off         string     `json:"off,omitempty"` // why live reload is off
	Reloads     int        `json:"reloads"`
	LastReload  *time.Time `json:"last_reload,omitempty"`
	LastError   string     `json:"last_error,omitempty"`
	LastErrorAt *time.Time `json:"last_error_at,omitempty"`
}

func entriesOf(eff *configs.Effective) []ConfigEntry {
	out := []ConfigEntry{}
	for _, en := range eff.Entries() {
		out = append(out, ConfigEntry{Key: en.Key, Value: en.Value, Source: en.Origin()})
	}
	return out
}

// namedHook is one capability's reload.
type namedHook struct {
	name string
	fn   func(old, cur configs.Config)
}

// serve answers GET /v1/config and watches the config file. The layers
// are those the daemon's config was loaded from: its flags, its --config
// file, the environment. A reload reads them all again, so a flag or an
// environment variable stays above the file.
func (r *reloader) serve(ctx context.Context) error {
	d := r.d
	d.srv.Handle("GET /v1/config", "config", r.serveHTTP)
	opts := d.loadOpts
	cfg, eff, err := configs.Load(opts)
	switch {
	case err != nil:
		r.state.Off = "the config does not load again: " + err.Error()
	case !reflect.DeepEqual(cfg, d.cfg):
		r.state.Off = "the config file changed while the daemon started; restart it to apply file changes"
	}
	if r.state.Off != "" {
		d.log.Warn().Str("reason", r.state.Off).Msg("live config reload is off")
		return nil
	}
	r.entries = entriesOf(eff)
	stop, err := configs.WatchWith(opts, r.apply, r.reject)
	if err != nil {
		r.state.Off = err.Error()
		d.log.Info().Err(err).Msg("live config reload is off (no config file to watch; create one and restart)")
		return nil
	}
	for _, en := range eff.Entries() {
		if strings.HasPrefix(en.Source, "file ") {
			r.state.File = strings.TrimPrefix(en.Source, "file ")
			break
		}
	}
	d.log.Info().Str("file", r.state.File).Msg("watching the config file for live reload")
	go func() { <-ctx.Done(); stop() }()
	return nil
}

// apply makes a valid change the config in force.
func (r *reloader) apply(cur configs.Config, eff *configs.Effective) {
	now := r.d.clock.Now()
	r.mu.Lock()
	old := r.cfg
	before := r.entries
	r.cfg, r.entries = cur, entriesOf(eff)
	r.state.Reloads++
	r.state.LastReload = &now
	r.state.LastError, r.state.LastErrorAt = "", nil
	r.mu.Unlock()

	log := r.d.log
	for i, en := range r.entries {
		if i < len(before) && before[i].Value == en.Value {
			continue
		}
		ev := log.Info()
		if !r.live[en.Key] {
			ev = log.Warn().Str("applies", "at the next daemon start")
		}
		from := ""
		if i < len(before) {
			from = before[i].Value
		}
		ev.Str("key", en.Key).Str("from", from).Str("to", en.Value).Str("source", en.Source).Msg("config changed")
	}
	for section, changed := range map[string]bool{
		"roots": !reflect.DeepEqual(old.Roots, cur.Roots),
		"lanes": !reflect.DeepEqual(old.Lanes, cur.Lanes),
	} {
		if changed {
			ev := log.Info()
			if !r.live[section] {
				ev = log.Warn().Str("applies", "at the next daemon start")
			}
			ev.Str("section", section).Msg("config changed")
		}
	}
	var moved map[string]int
	var retimeErr error
	err := r.d.runner.Do(context.Background(), func(e *scheduler.Engine, now time.Time) {
		moved, retimeErr = retime(e, now, &old, &cur, r.owners)
	})
	if err = errors.Join(err, retimeErr); err != nil {
		log.Error().Err(err).Msg("re-timing pending deadlines after a config change")
	}
	for key, n := range moved {
		log.Info().Str("owner", key).Int("deadlines", n).Msg("re-timed pending deadlines to the shorter window")
	}
	for _, h := range r.hooks {
		r.callHook(h, old, cur)
	}
}

// callHook runs one capability's reload, fail-open.
func (r *reloader) callHook(h namedHook, old, cur configs.Config) {
	defer func() {
		if p := recover(); p != nil {
			r.d.log.Error().Interface("panic", p).Str("capability", h.name).
				Msg("a config reload hook panicked; the new config stays in force")
		}
	}()
	h.fn(old, cur)
}

// reject records an invalid change; the config in force stays. A nil err
// is a file fixed back to the config in force: the rejection is over.
func (r *reloader) reject(err error) {
	if err == nil {
		r.mu.Lock()
		r.state.LastError, r.state.LastErrorAt = "", nil
		r.mu.Unlock()
		r.d.log.Info().Msg("the config file is valid again; the config in force is unchanged")
		return
	}
	now := r.d.clock.Now()
	r.mu.Lock()
	r.state.LastError, r.state.LastErrorAt = err.Error(), &now
	r.mu.Unlock()
	r.d.log.Error().Err(err).Msg("config change rejected; the previous config stays in force")
}

func (r *reloader) serveHTTP(w http.ResponseWriter, _ *http.Request) error {
	r.mu.Lock()
	view := ConfigView{Entries: append([]ConfigEntry{}, r.entries...), Reload: r.state}
	r.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	return json.NewEncoder(w).Encode(view)
}
