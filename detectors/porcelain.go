package detectors

import (
	"bytes"
	"errors"
	"fmt"
)

// ErrPorcelain is wrapped by every error about malformed
// `git status --porcelain=v2 -z` output.
var ErrPorcelain = errors.New("detectors: malformed porcelain v2 output")

// Number of space-separated fields before the path, counting the record
// type itself, for the record types of `git status --porcelain=v2`:
//
//	1 <XY> <sub> <mH> <mI> <mW> <hH> <hI> <path>
//	2 <XY> <sub> <mH> <mI> <mW> <hH> <hI> <X><score> <path>NUL<origPath>
//	u <XY> <sub> <m1> <m2> <m3> <mW> <h1> <h2> <h3> <path>
//	? <path>
//	! <path>
//
// A path is the rest of its record and may hold any byte but NUL (spaces,
// newlines, tabs, quotes, backslashes, bytes that are not UTF-8): with -z,
// git neither quotes nor escapes it.
const (
	fieldsOrdinary = 8
	fieldsRenamed  = 9
	fieldsUnmerged = 10
)

// ParsePorcelainV2Z returns every path named by the output of
// `git status --porcelain=v2 -z`, in the order git printed them: the path of
// ordinary ("1"), unmerged ("u"), untracked ("?") and ignored ("!") entries,
// and both the path and the original path of renamed or copied ("2")
// entries. Header lines ("# branch.oid ...") are skipped. Paths are relative
// to the repository's top level, exactly as git wrote them.
//
// Malformed input (an unknown record type, a missing field, an empty path,
// a last record without its terminating NUL) gives an error wrapping
// ErrPorcelain and no paths; it never panics.
func ParsePorcelainV2Z(data []byte) ([]string, error) {
	var out []string
	err := scanPorcelainV2Z(data, nil, func(p string) { out = append(out, p) })
	if err != nil {
		return nil, err
	}
	return out, nil
}

// scanPorcelainV2Z walks the records of data, calling onHeader with the text
// of each header record (without "# ") and onPath with each path. onHeader
// may be nil. It stops at the first malformed record.
func scanPorcelainV2Z(data []byte, onHeader func(string), onPath func(string)) error {
	for off := 0; off < len(data); {
		rec, next, err := nextRecord(data, off)
		if err != nil {
			return err
		}
		switch rec[0] {
		case '#':
			if len(rec) < 2 || rec[1] != ' ' {
				return malformed(data, off, "header without a space")
			}
			if onHeader != nil {
				onHeader(string(rec[2:]))
			}
		case '1', 'u':
			n := fieldsOrdinary
			if rec[0] == 'u' {
				n = fieldsUnmerged
			}
			p, ok := pathAfterFields(rec, n)
			if !ok {
				return malformed(data, off, "too few fields or an empty path")
			}
			onPath(string(p))
		case '2':
			p, ok := pathAfterFields(rec, fieldsRenamed)
			if !ok {
				return malformed(data, off, "too few fields or an empty path")
			}
			if next >= len(data) {
				return malformed(data, off, "renamed entry without its original path")
			}
			orig, after, err := nextRecord(data, next)
			if err != nil {
				return err
			}
			onPath(string(p))
			onPath(string(orig))
			next = after
		case '?', '!':
			if len(rec) < 3 || rec[1] != ' ' {
				return malformed(data, off, "untracked or ignored entry without a path")
			}
			onPath(string(rec[2:]))
		default:
			return malformed(data, off, "unknown record type")
		}
		off = next
	}
	return nil
}

// nextRecord returns the non-empty record starting at off and the offset
// just past its terminating NUL.
func nextRecord(data []byte, off int) (rec []byte, next int, err error) {
	end := bytes.IndexByte(data[off:], 0)
	if end < 0 {
		return nil, 0, malformed(data, off, "record not NUL-terminated (truncated output?)")
	}
	if end == 0 {
		return nil, 0, malformed(data, off, "empty record")
	}
	return data[off : off+end], off + end + 1, nil
}

// pathAfterFields skips n non-empty, single-space-separated fields of rec
// (the first being the one-byte record type, the second the two-byte XY
// status) and returns the rest, which must not be empty.
func pathAfterFields(rec []byte, n int) ([]byte, bool) {
	pos := 0
	for k := 0; k < n; k++ {
		sp := bytes.IndexByte(rec[pos:], ' ')
		if sp <= 0 {
			return nil, false
		}
		switch {
		case k == 0 && sp != 1, k == 1 && sp != 2:
			return nil, false
		}
		pos += sp + 1
	}
	if pos >= len(rec) {
		return nil, false
	}
	return rec[pos:], true
}

func malformed(data []byte, off int, why string) error {
	const show = 40
	snippet := data[off:]
	if len(snippet) > show {
		snippet = snippet[:show]
	}
	return fmt.Errorf("%w: %s at byte %d: %q", ErrPorcelain, why, off, snippet)
}
