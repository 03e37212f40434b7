package api

import "runtime"

// yieldEvery is how many deadlines of a page are written between yields of
// the processor (about 50 µs of work here).
const yieldEvery = 128

// appendDeadlinePage appends p as json.Encoder writes it (with its
// newline), without reflection; false when encoding/json must write it (a
// time it would refuse). A page of 10,000 is about 1 MB of JSON: every
// yieldEvery deadlines the writer yields (runtime.Gosched), so that the
// engine's loop, woken by a deadline that fell due meanwhile, gets a core
// at once instead of after the page. The Go scheduler preempts a running
// goroutine only after 10 ms; two listings on two cores would otherwise
// hold a due reminder that long.
func appendDeadlinePage(b []byte, p *DeadlinePage) ([]byte, bool) {
	b = append(b, `{"deadlines":`...)
	if p.Deadlines == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i := range p.Deadlines {
			if i > 0 {
				b = append(b, ',')
				if i%yieldEvery == 0 {
					runtime.Gosched()
				}
			}
			d := &p.Deadlines[i]
			b = append(b, `{"key":`...)
			b = appendString(b, d.Key)
			b = append(b, `,"kind":`...)
			b = appendString(b, d.Kind)
			b = append(b, `,"at":`...)
			var ok bool
			if b, ok = appendTime(b, d.At); !ok {
				return b, false
			}
			if d.Since != nil {
				b = append(b, `,"since":`...)
				if b, ok = appendTime(b, *d.Since); !ok {
					return b, false
				}
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if p.Next != "" {
		b = append(b, `,"next":`...)
		b = appendString(b, p.Next)
	}
	return append(b, "}\n"...), true
}
