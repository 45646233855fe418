// Package mutate drives a parser's checks over inputs made by mutating
// seeds, for a bounded number of inputs and with a fixed random seed, so
// that the ordinary test suite exercises each Go fuzz target a little, the
// same way on every machine (go test -fuzz explores further).
package mutate

import (
	"math/rand/v2"
)

// Inputs calls check with n inputs: the seeds themselves, then mutations
// of them (bytes flipped, replaced by interesting values, inserted,
// deleted, duplicated, and slices spliced from another seed), drawn from a
// generator with a fixed seed.
func Inputs(seeds [][]byte, n int, check func([]byte)) {
	for _, s := range seeds {
		check(s)
	}
	if len(seeds) == 0 {
		return
	}
	r := rand.New(rand.NewPCG(1, 2))
	for i := len(seeds); i < n; i++ {
		in := append([]byte(nil), seeds[r.IntN(len(seeds))]...)
		for k := 1 + r.IntN(4); k > 0; k-- {
			in = mutate(r, in, seeds)
		}
		check(in)
	}
}

// interesting are byte values that often sit on a parser's edges.
var interesting = []byte{0, 1, 0x7f, 0x80, 0xff, '(', ')', ';', ':', '"', '\\', '{', '}', '[', ']', '-', '9', ' ', '\n'}

func mutate(r *rand.Rand, in []byte, seeds [][]byte) []byte {
	switch op := r.IntN(6); {
	case len(in) == 0 || op == 0: // insert
		at := r.IntN(len(in) + 1)
		b := interesting[r.IntN(len(interesting))]
		return append(in[:at], append([]byte{b}, in[at:]...)...)
	case op == 1: // flip a bit
		in[r.IntN(len(in))] ^= 1 << r.IntN(8)
	case op == 2: // replace by an interesting byte
		in[r.IntN(len(in))] = interesting[r.IntN(len(interesting))]
	case op == 3: // delete a range
		a := r.IntN(len(in))
		b := a + r.IntN(len(in)-a) + 1
		return append(in[:a], in[b:]...)
	case op == 4: // duplicate a range
		a := r.IntN(len(in))
		b := a + r.IntN(min(len(in)-a, 64)) + 1
		at := r.IntN(len(in) + 1)
		dup := append([]byte(nil), in[a:b]...)
		return append(in[:at], append(dup, in[at:]...)...)
	default: // splice from another seed
		o := seeds[r.IntN(len(seeds))]
		if len(o) == 0 {
			return in
		}
		a := r.IntN(len(o))
		b := a + r.IntN(len(o)-a) + 1
		at := r.IntN(len(in) + 1)
		return append(in[:at], append(append([]byte(nil), o[a:b]...), in[at:]...)...)
	}
	return in
}
