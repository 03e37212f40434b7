// Package jsonw writes the JSON of the hot paths' plain values by hand,
// exactly as encoding/json writes them: strings (HTML-safe, invalid UTF-8
// as U+FFFD, U+2028 and U+2029 escaped) and times (time.Time's
// MarshalJSON). The API's post codec and the obligations ledger use it
// where encoding/json's reflection cost more than the value's bytes; the
// callers' tests compare what they write with encoding/json, byte for
// byte.
//
// Invariants: AppendString never fails; AppendTime reports the times
// encoding/json refuses (the caller falls back to encoding/json for its
// error) and then appends nothing.
//
// Imports: the standard library only.
package jsonw
