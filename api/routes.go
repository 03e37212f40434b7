package api

import (
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/wakewheel/wakewheel"
	"github.com/wakewheel/wakewheel/deadlines"
	"github.com/wakewheel/wakewheel/reminders"
	"github.com/wakewheel/wakewheel/scheduler"
)

// ReminderKind is the kind of every deadline created through the API, and
// ReminderPrefix the namespace of their keys (the reminders package owns
// their rules).
const (
	ReminderKind   = reminders.Kind
	ReminderPrefix = reminders.Prefix
)

func (s *Server) status(w http.ResponseWriter, r *http.Request) error {
	st := Status{Version: s.info.Version, PID: os.Getpid(), Started: s.info.Started,
		StoreDir: s.info.StoreDir, Socket: s.info.Socket, State: StateReady, ByKind: map[string]int{}}
	err := s.runner.Do(r.Context(), func(e *scheduler.Engine, now time.Time) {
		stats := e.Stats()
		st.Pending, st.Waiting, st.Reloaded = e.Len(), e.Waiting(), stats.Reloaded
		st.Fired, st.Runs, st.Outcomes, st.Alerts = stats.Fired, stats.Runs, stats.Outcomes, stats.Alerts
		st.ByKind = e.PendingByKind()
		// The earliest pending deadline, not the wheel's next wake-up (a
		// slot boundary of a coarse level that may come long before it).
		if d, ok := e.Earliest(); ok {
			st.NextDue = &d.At
		}
	})
	if err != nil {
		return err
	}
	if alerts, err := s.records.Alerts(1); err == nil && len(alerts) > 0 {
		st.LastAlert = &alerts[len(alerts)-1]
	}
	return writeJSON(w, http.StatusOK, st)
}

// Pages of GET /v1/deadlines: DefaultDeadlinePage when the caller gives no
// limit, at most MaxDeadlinePage (a page of 10,000 is about 1 MB of JSON;
// a million pending deadlines were 87 MB in one answer before paging).
const (
	DefaultDeadlinePage = 1000
	MaxDeadlinePage     = 10000
)

// deadlines answers one page of the pending deadlines, in key order, from
// the store's consistent snapshot: the loop is never asked, so a listing of
// any size cannot delay a deadline that falls due meanwhile. The page is
// written as the store reads it (pageWriter), decoding and copying nothing
// the answer does not print.
func (s *Server) deadlines(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	limit, err := queryInt(r, "limit", DefaultDeadlinePage, MaxDeadlinePage)
	if err != nil {
		return err
	}
	if limit == 0 {
		return badf("query parameter limit=0: want 1..%d deadlines a page", MaxDeadlinePage)
	}
	prefix, after := q.Get("prefix"), q.Get("after")
	p := getPageWriter(limit)
	defer putPageWriter(p)
	more, err := s.records.VisitDeadlinePage(prefix, after, limit, p.add)
	if err != nil {
		return err
	}
	if b, ok := p.end(more); ok {
		return writeBody(w, http.StatusOK, b)
	}
	// A time encoding/json refuses: it writes the page, and says what.
	page, more, err := s.records.AppendDeadlinePage(nil, prefix, after, limit)
	if err != nil {
		return err
	}
	next := ""
	if more && len(page) > 0 {
		next = page[len(page)-1].Key
	}
	return writeJSON(w, http.StatusOK, pageOf(page, next))
}

func toAPI(d deadlines.Deadline) Deadline {
	out := Deadline{Key: d.Key, Kind: d.Kind, At: d.At}
	if !d.Since.IsZero() {
		since := d.Since
		out.Since = &since
	}
	return out
}

func (s *Server) remind(w http.ResponseWriter, r *http.Request) error {
	var req ReminderRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	m, in, err := req.mutation()
	if err != nil {
		return err
	}
	return s.applyReminder(w, r, m, in, req.Sync)
}

func (s *Server) cancelReminder(w http.ResponseWriter, r *http.Request) error {
	name := r.PathValue("name")
	if err := validName(name); err != nil {
		return err
	}
	sync := r.URL.Query().Get("sync") == "true"
	return s.applyReminder(w, r, deadlines.Mutation{Op: deadlines.OpCancel, Key: ReminderPrefix + name}, 0, sync)
}

// applyReminder applies m on the loop; a push or reset "in" a delay is
// resolved against the daemon's clock there, and a due time in the past
// refused.
func (s *Server) applyReminder(w http.ResponseWriter, r *http.Request, m deadlines.Mutation, in time.Duration, sync bool) error {
	var applied deadlines.Applied
	var applyErr error
	timed := m.Op == deadlines.OpPush || m.Op == deadlines.OpReset
	err := s.runner.Do(r.Context(), func(e *scheduler.Engine, now time.Time) {
		if timed && m.At.IsZero() {
			m.At = now.Add(in)
		}
		if timed {
			if err := reminders.CheckDue(m.At, now); err != nil {
				applyErr = badf("reminder %q: %v", strings.TrimPrefix(m.Key, ReminderPrefix), err)
				return
			}
		}
		applied, applyErr = e.Apply(now, m)
	})
	if err != nil {
		return err
	}
	if applyErr != nil {
		return applyErr
	}
	res := ReminderResult{Key: m.Key, Changed: applied.Changed, Pending: applied.Pending}
	if applied.Pending {
		res.At = &applied.At
	}
	if timed {
		res.Requested = &m.At
	}
	if sync {
		if err := s.records.Sync(); err != nil {
			return err
		}
		res.Synced = true
	}
	return writeJSON(w, http.StatusOK, res)
}

// mutation turns a reminder request into an engine mutation, and the delay
// of a push relative to now ("in").
func (req ReminderRequest) mutation() (m deadlines.Mutation, in time.Duration, err error) {
	if err := validName(req.Name); err != nil {
		return m, 0, err
	}
	m = deadlines.Mutation{Key: ReminderPrefix + req.Name, Kind: ReminderKind}
	p := reminders.Payload{Message: req.Message, Lane: req.Lane, Note: req.Note}
	if err := p.Validate(); err != nil {
		return m, 0, badf("reminder %q: %v", req.Name, err)
	}
	m.Payload = reminders.Encode(p)
	if req.Reset && req.In == "" && req.At == "" {
		return m, 0, badf("reminder %q: reset goes with in or at (the due time to move it to)", req.Name)
	}
	push := deadlines.OpPush
	if req.Reset {
		push = deadlines.OpReset
	}
	set := 0
	for _, v := range []string{req.In, req.At, req.Window} {
		if v != "" {
			set++
		}
	}
	if set != 1 {
		return m, 0, badf("reminder %q: give exactly one of in, at, window", req.Name)
	}
	switch {
	case req.In != "":
		d, err := time.ParseDuration(req.In)
		if err != nil || d < 0 {
			return m, 0, badf("reminder %q: in=%q is not a non-negative duration like 90s or 2h", req.Name, req.In)
		}
		m.Op, in = push, d
	case req.At != "":
		t, err := time.Parse(time.RFC3339Nano, req.At)
		if err != nil {
			return m, 0, badf("reminder %q: at=%q is not an RFC 3339 time like 2026-12-01T09:00:00Z", req.Name, req.At)
		}
		m.Op, m.At = push, t
	default:
		d, err := time.ParseDuration(req.Window)
		if err != nil || d <= 0 {
			return m, 0, badf("reminder %q: window=%q is not a positive duration", req.Name, req.Window)
		}
		m.Op, m.Window, m.Cap = deadlines.OpExtend, d, d
		if req.Cap != "" {
			c, err := time.ParseDuration(req.Cap)
			if err == nil {
				err = deadlines.CheckWindow(d, c)
			}
			if err != nil {
				return m, 0, badf("reminder %q: cap=%q must be a duration at least the window %s", req.Name, req.Cap, d)
			}
			m.Cap = c
		}
	}
	return m, in, nil
}

// validName checks a reminder's name (reminders.ValidateName).
func validName(name string) error {
	if err := reminders.ValidateName(name); err != nil {
		return badf("%s", err)
	}
	return nil
}

func (s *Server) alerts(w http.ResponseWriter, r *http.Request) error {
	limit, err := queryInt(r, "limit", 100, 10000)
	if err != nil {
		return err
	}
	alerts, err := s.records.Alerts(limit)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, alerts)
}

func (s *Server) fires(w http.ResponseWriter, r *http.Request) error {
	after, limit, err := seqPage(r, 100, 100000)
	if err != nil {
		return err
	}
	last, err := queryInt(r, "last", 0, 100000)
	if err != nil {
		return err
	}
	var fires []wakewheel.Fire
	if last > 0 { // the newest, oldest first
		fires, err = s.records.LastFires(last)
	} else {
		fires, err = s.records.Fires(after, limit)
	}
	if err != nil {
		return err
	}
	if fires == nil {
		fires = []wakewheel.Fire{}
	}
	return writeJSON(w, http.StatusOK, fires)
}
