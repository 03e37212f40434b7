package deadlines

import "math/bits"

// divider divides unsigned 64-bit numbers by a constant d >= 1 with a
// multiplication and shifts, the way a compiler divides by a constant
// known at build time (the round-up method of Granlund and Montgomery, as
// libdivide writes it). The wheel's tick is known only when it is made,
// and every push and every fired deadline turns an instant into a tick
// number: a 64-bit hardware division takes tens of cycles, this a few.
type divider struct {
	magic uint64 // 0 for a power of two
	shift uint8
	add   bool // the magic number needs a 65th bit: an add step restores it
}

func newDivider(d uint64) divider {
	if d == 0 {
		panic("deadlines: division by zero")
	}
	log := uint8(63 - bits.LeadingZeros64(d)) // floor(log2 d)
	if d&(d-1) == 0 {
		return divider{shift: log}
	}
	// m = 2^(64+log) / d; d is not a power of two, so 2^log < d and the
	// quotient fits in 64 bits.
	m, rem := bits.Div64(1<<log, 0, d)
	if e := d - rem; e < 1<<log {
		return divider{magic: m + 1, shift: log}
	}
	// 2^(65+log) / d, from the quotient and remainder above doubled.
	m += m
	if twice := rem + rem; twice >= d || twice < rem {
		m++
	}
	return divider{magic: m + 1, shift: log, add: true}
}

// div returns n / d.
// (The shifts are masked: shift < 64, and a masked shift is one
// instruction, where Go's semantics for a larger one cost three more.)
func (v divider) div(n uint64) uint64 {
	if v.magic == 0 {
		return n >> (v.shift & 63)
	}
	q, _ := bits.Mul64(v.magic, n)
	if v.add {
		return ((n-q)>>1 + q) >> (v.shift & 63)
	}
	return q >> (v.shift & 63)
}
