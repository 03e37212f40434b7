// Package reminders owns the rules of the deadlines anyone with the socket
// may set: "reminder/<name>" (kind "reminder").
//
// A reminder has a name, a due time, and optionally a message, a lane and
// a note. One that names a lane posts, when it fires, an alert-class
// obligation to that lane (Obligation): this is how an agent schedules its
// own wake-up. The alert's key is the reminder's deadline key, so repeated
// fires of one reminder coalesce in the lane's digest; its id names the
// due time, so a fire that runs again after a crash posts nothing twice.
//
// Invariants:
//   - a name is 1..MaxNameLen bytes of UTF-8 with no '/', no "..", no
//     control character (ValidateName);
//   - a due time in the past is refused (CheckDue); moving a pending
//     reminder later is done only when the caller asks (Reset), never by a
//     plain --in/--at, which only ever brings it earlier;
//   - the payload is versioned (Encode/Decode): a payload written before
//     lanes existed (plain message text) still decodes.
//
// The package is pure: no I/O, no clock (now is a value), no logging. It
// imports deadlines (the name rule) and the obligations package for the
// obligation it builds.
package reminders
