package deadlines

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
)

// The hash's quality, on the kinds of keys the engine makes: every bit the
// index, the hints and the loader take from it balanced, a flipped input
// bit flipping each output bit half the time, and no more 32-bit
// collisions than chance. Each check runs with fixed secrets and with
// three wheels' random ones; the bounds are many standard deviations wide,
// so a good hash never fails them and a weak one (a fold of the bytes, a
// product without its high half) does.

// hashSets are key sets shaped like the engine's, n distinct keys each:
// sequential names (the last bytes differ), short ones, ones just over 16
// bytes, long paths, and keys of mixed lengths.
var hashSets = sync.OnceValue(func() map[string][]string { return makeHashSets(hashSetSize) })

const hashSetSize = 1 << 17

func makeHashSets(n int) map[string][]string {
	sets := map[string][]string{}
	add := func(name string, f func(i int) string) {
		ks := make([]string, 0, n)
		seen := make(map[string]bool, n)
		for i := 0; len(ks) < n; i++ {
			if k := f(i); !seen[k] {
				seen[k] = true
				ks = append(ks, k)
			}
		}
		sets[name] = ks
	}
	add("reminder", func(i int) string { return fmt.Sprintf("reminder/%d", i) })
	add("lease", func(i int) string { return fmt.Sprintf("lease/host-%06d", i) })
	add("short", func(i int) string { return string([]byte{byte(i), byte(i >> 8)})[:1+i%2] + fmt.Sprint(i>>9) })
	add("seventeen", func(i int) string { return fmt.Sprintf("redeliver/%07d", i) })
	add("path", func(i int) string { return fmt.Sprintf("burst//home/user/src/project-%d/internal/pkg", i) })
	r := rand.New(rand.NewPCG(7, 8))
	add("mixed", func(i int) string {
		b := make([]byte, 1+r.IntN(48))
		for j := range b {
			b[j] = 'a' + byte(r.IntN(26))
		}
		return string(b)
	})
	return sets
}

func testHashes() map[string]keyHash {
	hs := map[string]keyHash{"fixed": {k0: 0x9e3779b97f4a7c15, k1: 0xbf58476d1ce4e5b9, k2: 0x94d049bb133111eb}}
	for i := range 3 {
		hs[fmt.Sprint("random", i)] = newKeyHash()
	}
	return hs
}

func TestKeyHashBitsBalanced(t *testing.T) {
	const n = hashSetSize
	sets := hashSets()
	for hname, k := range testHashes() {
		for sname, keys := range sets {
			var ones [32]int
			tags := make([]int, 128)   // the index's tag: the low 7 bits
			homes := make([]int, 1024) // a home group: the top 10 bits
			loader := make([]int, 256) // the loader's second sort digit: bits 16 to 23
			for _, key := range keys {
				h := k.sum(key)
				for b := range ones {
					ones[b] += int(h >> b & 1)
				}
				tags[h&0x7f]++
				homes[h>>22]++
				loader[uint8(h>>16)]++
			}
			for b, c := range ones {
				// The standard deviation is 181 at n = 2^17: the bound is 17 of them.
				if p := float64(c) / n; math.Abs(p-0.5) > 0.0234 {
					t.Errorf("%s/%s: bit %d is set in %.3f of the hashes, want 0.5", hname, sname, b, p)
				}
			}
			for what, counts := range map[string][]int{"tags": tags, "home groups": homes, "loader digits": loader} {
				if chi, df := chiSquare(counts, n), float64(len(counts)-1); chi > df+8*math.Sqrt(2*df) {
					t.Errorf("%s/%s: the %s are uneven: chi-square %.0f over %.0f degrees of freedom", hname, sname, what, chi, df)
				}
			}
		}
	}
}

func chiSquare(counts []int, n int) float64 {
	want := float64(n) / float64(len(counts))
	chi := 0.0
	for _, c := range counts {
		chi += (float64(c) - want) * (float64(c) - want) / want
	}
	return chi
}

func TestKeyHashAvalanche(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for hname, k := range testHashes() {
		var flips [32]int
		trials, unmoved := 0, 0
		for range 2000 {
			b := make([]byte, 1+r.IntN(40))
			for j := range b {
				b[j] = byte(r.Uint32())
			}
			h := k.sum(string(b))
			for bit := range len(b) * 8 {
				b[bit/8] ^= 1 << (bit % 8)
				d := h ^ k.sum(string(b))
				b[bit/8] ^= 1 << (bit % 8)
				if d == 0 { // by chance once in 2^32 trials
					unmoved++
				}
				for o := range flips {
					flips[o] += int(d >> o & 1)
				}
				trials++
			}
		}
		if unmoved > 2 {
			t.Errorf("%s: %d single-bit input changes of %d left the hash as it was", hname, unmoved, trials)
		}
		for o, c := range flips {
			if p := float64(c) / float64(trials); math.Abs(p-0.5) > 0.02 {
				t.Errorf("%s: output bit %d flips in %.3f of single-bit input changes, want 0.5 (%d trials)", hname, o, p, trials)
			}
		}
	}
}

func TestKeyHashCollisions(t *testing.T) {
	const n = hashSetSize
	// The expected number of colliding pairs among n random 32-bit values.
	want := float64(n) * float64(n-1) / 2 / math.Exp2(32)
	sets := hashSets()
	hs := make([]uint32, n)
	for _, hname := range []string{"fixed", "random0"} {
		k := testHashes()[hname]
		for sname, keys := range sets {
			for i, key := range keys {
				hs[i] = k.sum(key)
			}
			slices.Sort(hs)
			pairs := 0
			for i := 1; i < len(hs); i++ {
				if hs[i] == hs[i-1] {
					pairs++
				}
			}
			if float64(pairs) > 4*want+10 {
				t.Errorf("%s/%s: %d colliding pairs among %d keys, chance gives %.0f", hname, sname, pairs, n, want)
			}
		}
	}
}

// TestKeyHashLengthsAndSeeds: keys that differ only in length (runs of
// one byte) hash apart, every length path (0, 1..3, 4..7, 8..16, longer)
// is reached, and two wheels' secrets give different hashes.
func TestKeyHashLengthsAndSeeds(t *testing.T) {
	k := testHashes()["fixed"]
	for _, c := range []string{"\x00", "a", "\xff"} {
		seen := map[uint32]int{}
		for n := range 80 {
			h := k.sum(strings.Repeat(c, n))
			if m, ok := seen[h]; ok {
				t.Errorf("%q repeated %d and %d times hash alike", c, m, n)
			}
			seen[h] = n
		}
	}
	a, b := newKeyHash(), newKeyHash()
	same := 0
	for i := range 100 {
		key := fmt.Sprintf("reminder/%d", i)
		if a.sum(key) == b.sum(key) {
			same++
		}
	}
	if same > 2 {
		t.Errorf("two wheels' hashes agree on %d of 100 keys: the secrets do not reach the hash", same)
	}
	if bits.OnesCount64(a.k0&a.k1&a.k2&1) != 1 {
		t.Errorf("secrets %x %x %x: want every one odd", a.k0, a.k1, a.k2)
	}
}
