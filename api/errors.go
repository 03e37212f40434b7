package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/wakewheel/wakewheel/deadlines"
	"github.com/wakewheel/wakewheel/fleet"
	"github.com/wakewheel/wakewheel/lanerun"
	ob "github.com/wakewheel/wakewheel/obligations"
	"github.com/wakewheel/wakewheel/roots"
	"github.com/wakewheel/wakewheel/scheduler"
)

// The one error table. A handler returns its error; the server finds the
// first row whose sentinel the error wraps and answers that row's HTTP
// status and code, with the error's own message (or the row's, when it has
// one). The client turns the code back into the CLI's exit status. An
// error no row matches is internal (500, exit 1) and is logged.
//
// Exit statuses: 2 for a request the daemon rejected (the caller's input,
// a name it does not know, a lease someone else holds); 75 (EX_TEMPFAIL)
// for a daemon that is stopping or still loading its deadlines (call again
// once it is back, or ready); 1 for any
// other failure the caller cannot fix by changing the request (a timeout,
// an internal error, no daemon at all).
const (
	ExitFailure  = 1
	ExitRejected = 2
	ExitStopping = 75
)

type errorRow struct {
	err    error
	status int
	code   string
	msg    string // when set, answered instead of the error's own text
	exit   int    // when set, the exit status; else by the status's class
}

var errorTable = []errorRow{
	{errBadRequest, http.StatusBadRequest, "bad_request", "", 0},
	{deadlines.ErrBadKey, http.StatusBadRequest, "bad_request", "", 0},
	{deadlines.ErrBadWindow, http.StatusBadRequest, "bad_request", "", 0},
	{deadlines.ErrBadMutation, http.StatusBadRequest, "bad_request", "", 0},
	{deadlines.ErrFull, http.StatusInsufficientStorage, "wheel_full", "", 0},
	{scheduler.ErrUnknownKind, http.StatusBadRequest, "bad_request", "", 0},
	{roots.ErrBadPath, http.StatusBadRequest, "bad_request", "", 0},
	{roots.ErrBadSkip, http.StatusBadRequest, "bad_request", "", 0},
	{roots.ErrBadLease, http.StatusBadRequest, "bad_request", "", 0},
	{lanerun.ErrBadReport, http.StatusBadRequest, "bad_request", "", 0},
	{errTooLarge, http.StatusRequestEntityTooLarge, "too_large", "", 0},
	{errNotFound, http.StatusNotFound, "not_found", "", 0},
	{roots.ErrUnknownRoot, http.StatusNotFound, "not_found", "", 0},
	{roots.ErrNoLease, http.StatusNotFound, "not_held", "", 0},
	{roots.ErrLeaseHeld, http.StatusConflict, "lease_held", "", 0},
	{roots.ErrDisarmed, http.StatusConflict, "disarmed", "", 0},
	{roots.ErrBadCommand, http.StatusBadRequest, "bad_command", "", 0},
	{roots.ErrOperators, http.StatusForbidden, "operators_root", "", 0},
	{roots.ErrOverlap, http.StatusConflict, "overlapping_root", "", 0},
	{ob.ErrUnknownLane, http.StatusNotFound, "unknown_lane", "", 0},
	{ob.ErrUnknownClass, http.StatusBadRequest, "unknown_class", "", 0},
	{ob.ErrNoLocator, http.StatusBadRequest, "missing_locator", "", 0},
	{ob.ErrBodyTooLarge, http.StatusRequestEntityTooLarge, "body_too_large", "", 0},
	{ob.ErrBadLane, http.StatusBadRequest, "bad_lane", "", 0},
	{ob.ErrBadID, http.StatusBadRequest, "bad_id", "", 0},
	{ob.ErrBadBody, http.StatusBadRequest, "bad_body", "", 0},
	{ob.ErrBadField, http.StatusBadRequest, "bad_field", "", 0},
	{ob.ErrAckPastReceived, http.StatusConflict, "ack_past_received", "", 0},
	{ob.ErrBadCheckpoint, http.StatusConflict, "bad_checkpoint", "", 0},
	{ob.ErrTooManyLanes, http.StatusConflict, "too_many_lanes", "", 0},
	{ob.ErrLaneBusy, http.StatusConflict, "lane_busy", "", 0},
	// A fleet member's routing (a lane homed on another host).
	{fleet.ErrHomedElsewhere, http.StatusConflict, "lane_homed_elsewhere", "", 0},
	{fleet.ErrOutboxFull, http.StatusServiceUnavailable, "outbox_full", "", 0},
	{fleet.ErrUnreachable, http.StatusServiceUnavailable, "fleet_unreachable", "", 0},
	{errStopping, http.StatusServiceUnavailable, "stopping", "the daemon is stopping: call again once it is back", ExitStopping},
	{scheduler.ErrStopped, http.StatusServiceUnavailable, "stopping", "the daemon is shutting down", ExitStopping},
	{errLoading, http.StatusServiceUnavailable, "loading", "", ExitStopping},
	{context.DeadlineExceeded, http.StatusGatewayTimeout, "timeout", "the request timed out", 0},
}

// codeInternal answers an error no row matches.
const codeInternal = "internal"

// Errors of the API's own making, rows of the table like the others'.
var (
	errBadRequest = errors.New("api: bad request")
	errTooLarge   = errors.New("api: request too large")
	errNotFound   = errors.New("api: not found")
	errStopping   = errors.New("api: the daemon is stopping")
)

// apiError is an error of the API's own making: kind is its row's
// sentinel, msg the whole message.
type apiError struct {
	kind error
	msg  string
}

func (e apiError) Error() string        { return e.msg }
func (e apiError) Is(target error) bool { return target == e.kind }

// badf is a caller's mistake, in words that say how to fix it.
func badf(format string, args ...any) error {
	return apiError{errBadRequest, fmt.Sprintf(format, args...)}
}

// packagePrefixes are the prefixes of the sentinels' texts ("roots: bad
// root path"): a Go convention for logs, noise in what a user reads.
var packagePrefixes = []string{"api: ", "config: ", "roots: ", "obligations: ", "scheduler: ", "deadlines: ",
	"wakes: ", "store: ", "lanerun: ", "fleet: ", "liveness: ", "detectors: "}

// Plain is an error's text as a user reads it: without package prefixes.
func Plain(msg string) string {
	for _, p := range packagePrefixes {
		msg = strings.TrimPrefix(msg, p)
		msg = strings.ReplaceAll(msg, ": "+p, ": ")
		msg = strings.ReplaceAll(msg, "("+p, "(")
	}
	return msg
}

// answer is the status, code and message of err: its row's, or internal.
func answer(err error) (status int, code, msg string, known bool) {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		err = apiError{errTooLarge, fmt.Sprintf("request body exceeds %d bytes", mbe.Limit)}
	}
	for _, row := range errorTable {
		if errors.Is(err, row.err) {
			msg = Plain(err.Error())
			if row.msg != "" {
				msg = row.msg
			}
			return row.status, row.code, msg, true
		}
	}
	return http.StatusInternalServerError, codeInternal, err.Error(), false
}

// fail answers err by the table.
func (s *Server) fail(w http.ResponseWriter, err error) {
	status, code, msg := s.failure(err)
	writeError(w, status, code, msg)
}

// failure is how a request that failed with err is answered (answer),
// logged first when no row of the table knows err.
func (s *Server) failure(err error) (status int, code, msg string) {
	status, code, msg, known := answer(err)
	if !known {
		s.log.Error().Err(err).Msg("request failed")
	}
	return status, code, msg
}

// recovered logs the panic p of route's handler and is its answer.
func (s *Server) recovered(p any, route string) (status int, code, msg string) {
	s.log.Error().Interface("panic", p).Str("route", route).Msg("request handler panicked")
	return http.StatusInternalServerError, codeInternal, "internal error; see the daemon log"
}

// exitByCode is the table read from the client's side.
var exitByCode = func() map[string]int {
	m := map[string]int{codeInternal: ExitFailure}
	for _, row := range errorTable {
		exit := ExitFailure
		switch {
		case row.exit != 0:
			exit = row.exit
		case row.status/100 == 4:
			exit = ExitRejected
		}
		m[row.code] = exit
	}
	return m
}()

// ExitCode is the CLI's exit status for an error a client call returned:
// the table's for an error answer of the daemon, 1 for anything else
// (no daemon, a broken connection, an error of the caller's own).
func ExitCode(err error) int {
	var e *Error
	if errors.As(err, &e) {
		if exit, ok := exitByCode[e.Err.Code]; ok {
			return exit
		}
		if e.status/100 == 4 {
			return ExitRejected
		}
	}
	return ExitFailure
}

// Codes lists every code the table answers, with its HTTP status and exit
// status, in table order (for documentation and tests).
func Codes() []CodeInfo {
	var out []CodeInfo
	seen := map[string]bool{}
	for _, row := range errorTable {
		if seen[row.code] {
			continue
		}
		seen[row.code] = true
		out = append(out, CodeInfo{Code: row.code, Status: row.status, Exit: exitByCode[row.code]})
	}
	return append(out, CodeInfo{Code: codeInternal, Status: http.StatusInternalServerError, Exit: ExitFailure})
}

// CodeInfo is one row of the table as Codes shows it.
type CodeInfo struct {
	Code   string
	Status int
	Exit   int
}
