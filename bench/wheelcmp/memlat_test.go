package wheelcmp

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

var sink uint64

// BenchmarkRandomRead is the machine's price of a random read that the
// next one depends on, in tables of 256 KiB to 64 MiB: what a wheel's
// lookup pays for each cache line it needs from a table of that size (at
// 1M pending the key index is 8 MiB, the hints 1 MiB, the entries 48 MiB)
// and the runtime's in-order walk does not. Each read's address comes from
// the value read before it, so no two overlap.
func BenchmarkRandomRead(b *testing.B) {
	for _, size := range []int{256 << 10, 1 << 20, 2 << 20, 4 << 20, 8 << 20, 64 << 20} {
		b.Run(fmt.Sprintf("%dKiB", size>>10), func(b *testing.B) {
			a := make([]uint64, size/8)
			r := rand.New(rand.NewPCG(1, 2))
			for i := range a {
				a[i] = r.Uint64()
			}
			mask := uint64(len(a) - 1)
			x := uint64(1)
			for b.Loop() {
				x += a[(x*0x9e3779b97f4a7c15>>20)&mask]
			}
			sink = x
		})
	}
}
