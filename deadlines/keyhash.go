package deadlines

import (
	"encoding/binary"
	"math/bits"
	"math/rand/v2"
	"unsafe"
)

// keyHash is the wheel's string hash: the index's home group and tag, a
// hint's set and check bits and the loader's sort all come from its 32
// bits, so every bit of it must be as good as any other.
//
// It is a multiply-and-fold hash: a key of up to 16 bytes is read as two
// (overlapping) 64-bit words, or two 32-bit ones, or three bytes, each
// xored with a secret and multiplied as one 128-bit product whose halves
// are folded together; the fold is multiplied once more with the length.
// A longer key folds 16 bytes a step into an accumulator first. Every byte
// of a key reaches both halves of a product, so a change in any byte moves
// every output bit (keyhash_test.go checks the bits' balance, avalanche and
// collisions on the engine's kinds of keys).
//
// The secrets are random per wheel, as maphash's seed was, so a set of keys
// that collides in one wheel does not in the next. It is not keyed hashing
// in the cryptographic sense (neither was maphash): a caller who could see
// a wheel's hashes might build colliding keys for it; a wheel's callers are
// its own engine's clients, and a collision costs probe steps, never a
// wrong answer. What it buys is the cost: the engine's keys are mostly 8 to
// 16 bytes, which this hashes in a few instructions without a call, where
// maphash took about 65 (three calls to reach the runtime's AES hash).
type keyHash struct {
	k0, k1, k2 uint64
}

func newKeyHash() keyHash {
	// Odd secrets: a product with an odd factor loses no bit of the other.
	return keyHash{k0: rand.Uint64() | 1, k1: rand.Uint64() | 1, k2: rand.Uint64() | 1}
}

// sum returns key's 32-bit hash.
func (k *keyHash) sum(key string) uint32 {
	n := len(key)
	var a, b uint64
	switch {
	case n > 16:
		return k.long(key)
	case n >= 8:
		return k.words(load64(key), load64(key[n-8:]), n)
	case n >= 4:
		a, b = load32(key), load32(key[n-4:])<<32
	case n > 0:
		a = uint64(key[0]) | uint64(key[n>>1])<<8 | uint64(key[n-1])<<16
	}
	return k.finish(fold(a^k.k0, b^k.k1), n)
}

// long is sum for a key of more than 16 bytes: 16 bytes a step into an
// accumulator, then the last 16 (which may overlap the ones before).
func (k *keyHash) long(key string) uint32 {
	acc := k.k2
	p := key
	for ; len(p) > 16; p = p[16:] {
		acc = fold(load64(p)^k.k0, load64(p[8:])^acc)
	}
	n := len(key)
	return k.finish(fold(load64(key[n-16:])^k.k1, load64(key[n-8:])^acc), n)
}

// words is sum for a key of 8 to 16 bytes, n long, from its first and
// last 8 bytes: small enough to be inlined where a lookup has read them.
func (k *keyHash) words(a, b uint64, n int) uint32 { return k.finish(fold(a^k.k0, b^k.k1), n) }

// finish mixes the length in and folds the 64 bits to 32.
func (k *keyHash) finish(x uint64, n int) uint32 {
	x = fold(x^k.k2, uint64(n)^k.k0)
	return uint32(x ^ x>>32)
}

// fold is the 128-bit product of a and b, its halves xored.
func fold(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}

// load64 is the first 8 bytes of s, little-endian: one load, which the
// inliner prices as one (binary.LittleEndian's loads are known to it).
func load64(s string) uint64 {
	_ = s[7]
	return binary.LittleEndian.Uint64((*[8]byte)(unsafe.Pointer(unsafe.StringData(s)))[:])
}

// load32 is the first 4 bytes of s, little-endian.
func load32(s string) uint64 {
	_ = s[3]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24
}
