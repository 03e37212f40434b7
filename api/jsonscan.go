package api

import (
	"bytes"
	"time"
	"unicode/utf8"

	"github.com/wakewheel/wakewheel/internal/jsonw"
)

// The post route is the API's hot path: 64 agents posting at once pay its
// cost per post on the daemon's cores and their own. encoding/json spends
// most of that on reflection and allocation, so the post's request and
// answer are read and written here by hand (postjson.go), for the plain
// shapes real clients send. Anything else — an escape this reader does not
// take, a key in another case, a null, a number where a string goes, a
// duplicate object — makes it give up, and encoding/json reads the same
// bytes and has the last word: same values, same errors. The tests hold the
// two to that, byte for byte on the way out.

// scan reads JSON from b. ok goes false at the first thing it does not
// take, and every method is then a no-op.
type scan struct {
	b  []byte
	i  int
	ok bool
}

func newScan(b []byte) *scan { return &scan{b: b, ok: true} }

func (s *scan) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// next consumes c after optional whitespace.
func (s *scan) next(c byte) bool {
	s.ws()
	if !s.ok || s.i >= len(s.b) || s.b[s.i] != c {
		s.ok = false
		return false
	}
	s.i++
	return true
}

// end checks that only whitespace follows.
func (s *scan) end() bool {
	s.ws()
	if s.i != len(s.b) {
		s.ok = false
	}
	return s.ok
}

// object reads one object, calling field for each key with the scanner at
// its value; field reads the value or sets ok false (an unknown key).
func (s *scan) object(field func(key []byte)) {
	if !s.next('{') {
		return
	}
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
		return
	}
	for s.ok {
		key := s.key()
		if !s.next(':') {
			return
		}
		s.ws()
		field(key)
		s.ws()
		if !s.ok || s.i >= len(s.b) {
			s.ok = false
			return
		}
		switch s.b[s.i] {
		case ',':
			s.i++
			s.ws()
		case '}':
			s.i++
			return
		default:
			s.ok = false
		}
	}
}

// key reads an object key without escapes (one with escapes is left to
// encoding/json).
func (s *scan) key() []byte {
	if !s.ok || s.i >= len(s.b) || s.b[s.i] != '"' {
		s.ok = false
		return nil
	}
	start := s.i + 1
	for j := start; j < len(s.b); j++ {
		switch c := s.b[j]; {
		case c == '"':
			s.i = j + 1
			return s.b[start:j]
		case c == '\\' || c < 0x20 || c >= utf8.RuneSelf:
			s.ok = false
			return nil
		}
	}
	s.ok = false
	return nil
}

// str reads a string: plain bytes, the short escapes and \u escapes
// outside the surrogate range; valid UTF-8 only.
func (s *scan) str() string { return string(s.strBytes()) }

// strLike is str, but for a string whose bytes are like's it returns like
// itself, without a copy: an answer echoes what its request sent (the
// client's lane, id, class and body).
func (s *scan) strLike(like string) string {
	b := s.strBytes()
	if string(b) == like {
		return like
	}
	return string(b)
}

// strBytes reads a string as str does: its bytes, s.b's own when it has no
// escape (valid until s.b changes).
func (s *scan) strBytes() []byte {
	if !s.ok || s.i >= len(s.b) || s.b[s.i] != '"' {
		s.ok = false
		return nil
	}
	s.i++
	start := s.i
	var buf []byte // only once an escape is seen
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			raw := s.b[start:s.i]
			s.i++
			if !utf8.Valid(raw) {
				s.ok = false
				return nil
			}
			if buf == nil {
				return raw
			}
			return append(buf, raw...)
		case c < 0x20:
			s.ok = false
			return nil
		case c == '\\':
			if !utf8.Valid(s.b[start:s.i]) || s.i+1 >= len(s.b) {
				s.ok = false
				return nil
			}
			buf = append(buf, s.b[start:s.i]...)
			var r rune
			switch e := s.b[s.i+1]; e {
			case '"', '\\', '/':
				r = rune(e)
			case 'b':
				r = '\b'
			case 'f':
				r = '\f'
			case 'n':
				r = '\n'
			case 'r':
				r = '\r'
			case 't':
				r = '\t'
			case 'u':
				r = s.hex4(s.i + 2)
				if r < 0 || utf8.RuneLen(r) < 0 || (r >= 0xD800 && r < 0xE000) {
					s.ok = false
					return nil
				}
				s.i += 4
			default:
				s.ok = false
				return nil
			}
			buf = utf8.AppendRune(buf, r)
			s.i += 2
			start = s.i
		default:
			s.i++
		}
	}
	s.ok = false
	return nil
}

func (s *scan) hex4(at int) rune {
	if at+4 > len(s.b) {
		return -1
	}
	var r rune
	for _, c := range s.b[at : at+4] {
		switch {
		case '0' <= c && c <= '9':
			r = r<<4 | rune(c-'0')
		case 'a' <= c && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case 'A' <= c && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return -1
		}
	}
	return r
}

// boolean reads true or false (a null is left to encoding/json).
func (s *scan) boolean() bool {
	switch {
	case !s.ok:
	case hasAt(s.b, s.i, "true"):
		s.i += 4
		return true
	case hasAt(s.b, s.i, "false"):
		s.i += 5
		return false
	}
	s.ok = false
	return false
}

// uint reads a plain unsigned integer (no fraction, no exponent).
func (s *scan) uint() uint64 {
	if !s.ok || s.i >= len(s.b) || s.b[s.i] < '0' || s.b[s.i] > '9' {
		s.ok = false
		return 0
	}
	if s.b[s.i] == '0' {
		s.i++
		s.digitEnd()
		return 0
	}
	var n uint64
	for s.i < len(s.b) && '0' <= s.b[s.i] && s.b[s.i] <= '9' {
		d := uint64(s.b[s.i] - '0')
		if n > (1<<64-1-d)/10 {
			s.ok = false
			return 0
		}
		n = n*10 + d
		s.i++
	}
	s.digitEnd()
	return n
}

// digitEnd refuses a number that goes on (a fraction, an exponent, a
// leading zero).
func (s *scan) digitEnd() {
	if s.i < len(s.b) {
		switch s.b[s.i] {
		case '.', 'e', 'E', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
			s.ok = false
		}
	}
}

// timestamp reads a time as encoding/json does: time.Time's UnmarshalJSON
// of the string as it stands (one with escapes is left to encoding/json).
func (s *scan) timestamp() time.Time {
	start := s.i
	s.strBytes()
	var t time.Time
	if s.ok && (bytes.IndexByte(s.b[start:s.i], '\\') >= 0 || t.UnmarshalJSON(s.b[start:s.i]) != nil) {
		s.ok = false
	}
	return t
}

func hasAt(b []byte, i int, lit string) bool {
	return len(b)-i >= len(lit) && string(b[i:i+len(lit)]) == lit
}

// appendString appends s as a JSON string exactly as encoding/json writes
// it (jsonw.AppendString).
func appendString(b []byte, s string) []byte { return jsonw.AppendString(b, s) }

// appendTime appends t as time.Time's MarshalJSON does; false when that
// would fail (jsonw.AppendTime).
func appendTime(b []byte, t time.Time) ([]byte, bool) { return jsonw.AppendTime(b, t) }
