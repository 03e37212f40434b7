package api

import "time"

// pageTimes writes a page's times as encoding/json writes a time.Time
// (RFC 3339 with the nanoseconds, trailing zeros cut, quoted), by hand:
// time.Time.AppendFormat parses its layout and looks the zone up for every
// time, most of a page's writing. The zone's offset is looked up once for
// each run of times inside the span it holds (time.Time.ZoneBounds), and
// the date is computed from the day number. A time it does not take (a
// zone whose offset is not whole minutes, a year outside 0-9999, a
// location other than the one seen last) goes through appendTime, which
// has the last word.
type pageTimes struct {
	loc        *time.Location
	start, end int64 // the span of Unix seconds [start, end) in which off holds
	off        int64 // the zone's offset east of UTC, seconds
	set        bool
	day        int64    // the day (since 1970-01-01, in the zone) whose date is in date
	date       [11]byte // "2006-01-02T" of day; date[0] == 0 when none
}

// append appends t as appendTime does; false when encoding/json would
// refuse it.
func (z *pageTimes) append(b []byte, t time.Time) ([]byte, bool) {
	sec := t.Unix()
	if !z.set || t.Location() != z.loc || sec < z.start || sec >= z.end {
		if !z.look(t) {
			return appendTime(b, t)
		}
	}
	local := sec + z.off
	days := local / 86400
	rem := local % 86400
	if rem < 0 {
		days--
		rem += 86400
	}
	if days != z.day || z.date[0] == 0 {
		y, m, d := civil(days)
		if y < 0 || y > 9999 {
			return appendTime(b, t)
		}
		z.day = days
		append4(z.date[:0], int(y))
		z.date[4] = '-'
		append2(z.date[5:5], m)
		z.date[7] = '-'
		append2(z.date[8:8], d)
		z.date[10] = 'T'
	}
	b = append(b, '"')
	b = append(b, z.date[:]...)
	b = append2(b, int(rem/3600))
	b = append(b, ':')
	b = append2(b, int(rem/60%60))
	b = append(b, ':')
	b = append2(b, int(rem%60))
	if ns := t.Nanosecond(); ns != 0 {
		var frac [10]byte
		frac[0] = '.'
		for i := 9; i >= 1; i-- {
			frac[i] = byte('0' + ns%10)
			ns /= 10
		}
		n := 10
		for frac[n-1] == '0' {
			n--
		}
		b = append(b, frac[:n]...)
	}
	if z.off == 0 {
		b = append(b, 'Z')
	} else {
		mins := z.off / 60
		sign := byte('+')
		if mins < 0 {
			sign, mins = '-', -mins
		}
		b = append(b, sign)
		b = append2(b, int(mins/60))
		b = append(b, ':')
		b = append2(b, int(mins%60))
	}
	return append(b, '"'), true
}

// look takes t's zone: its offset and the span it holds in; false when the
// hand-written path does not take it (an offset of a part of a minute, or
// of a day or more, which encoding/json refuses).
func (z *pageTimes) look(t time.Time) bool {
	_, off := t.Zone()
	if off%60 != 0 || off <= -24*3600 || off >= 24*3600 {
		z.set = false
		return false
	}
	start, end := t.ZoneBounds()
	z.loc, z.off, z.set = t.Location(), int64(off), true
	z.date[0] = 0 // a day of another offset
	z.start, z.end = -1<<63, 1<<63-1
	if !start.IsZero() {
		z.start = start.Unix()
	}
	if !end.IsZero() {
		z.end = end.Unix()
	}
	return true
}

// civil is the proleptic Gregorian year, month and day of the day days
// after 1970-01-01 (H. Hinnant's days_from_civil, inverted).
func civil(days int64) (y int64, m, d int) {
	z := days + 719468
	era := z / 146097
	if z < 0 && z%146097 != 0 {
		era--
	}
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y = yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = int(doy - (153*mp+2)/5 + 1)
	if mp < 10 {
		m = int(mp + 3)
	} else {
		m = int(mp - 9)
	}
	if m <= 2 {
		y++
	}
	return y, m, d
}

func append2(b []byte, v int) []byte { return append(b, byte('0'+v/10), byte('0'+v%10)) }

func append4(b []byte, v int) []byte {
	return append(b, byte('0'+v/1000), byte('0'+v/100%10), byte('0'+v/10%10), byte('0'+v%10))
}
