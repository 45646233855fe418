package rt

import (
	"math/rand"
	randv2 "math/rand/v2"
	"os"
	"strconv"

	"github.com/stdbg/stdbg/internal/rtnames"
)

// The random numbers of an execution: the generators that stand for the
// shared generator behind the top-level functions of math/rand and
// math/rand/v2 (which sthread's mirrors of those packages draw from), and
// the one that orders the ranges over maps (see package sthread/lang).
// Each starts afresh in each execution, seeded alike (rtnames.RandSeedEnv,
// default 1), so that a schedule replays with the same values.
//
// The goroutines of an execution share them, as a program's goroutines
// share the standard library's generator, which is safe for concurrent
// use. Under stdbg find the checked goroutines hide their hand-overs from
// the race detector (see race.go), which would take two goroutines' draws
// for a race on the generator's state: the state is kept by a quietSource,
// whose functions' names start with quiet, as rtnames.RaceSuppressions
// wants of the runtime's own code (no report with such a frame is made);
// the Rand around it only reads its own fields (a Rand's Read and Seed
// write them: RandRead and RandSeed do their work instead).

// randSeed is the seed of every execution's generators.
var randSeed = func() uint64 {
	if s, err := strconv.ParseUint(os.Getenv(rtnames.RandSeedEnv), 0, 64); err == nil {
		return s
	}
	return 1
}()

// mapStream tells the generator of map orders apart from math/rand/v2's,
// which has the same seed.
const mapStream = 0x6d61706f72646572 // "maporder"

// quietSource is the source of math/rand's Rand of an execution: the
// standard library's, drawn from by these functions only.
type quietSource struct{ src rand.Source64 }

//go:noinline
func (s *quietSource) Int63() int64 { return s.src.Int63() }

//go:noinline
func (s *quietSource) Uint64() uint64 { return s.src.Uint64() }

//go:noinline
func (s *quietSource) Seed(seed int64) { s.src.Seed(seed) }

// quietSource2 is quietSource for math/rand/v2.
type quietSource2 struct{ src *randv2.PCG }

//go:noinline
func (s *quietSource2) Uint64() uint64 { return s.src.Uint64() }

// quietRand returns ex's generator for math/rand, made on first use.
//
//go:noinline
func quietRand(ex *Execution) *rand.Rand {
	if ex.rand == nil {
		ex.rand = rand.New(&quietSource{src: rand.NewSource(int64(randSeed)).(rand.Source64)})
	}
	return ex.rand
}

// quietRand2 returns ex's generator for math/rand/v2 (stream 0) or for the
// order of map ranges (stream mapStream), made on first use.
//
//go:noinline
func quietRand2(ex *Execution, stream uint64) *randv2.Rand {
	g := &ex.rand2
	if stream == mapStream {
		g = &ex.mapOrder
	}
	if *g == nil {
		seq := randSeed
		if stream != 0 {
			seq = stream
		}
		*g = randv2.New(&quietSource2{src: randv2.NewPCG(randSeed, seq)})
	}
	return *g
}

// Rand returns the generator of the calling goroutine's execution that
// stands for math/rand's top-level functions, seeded with the same seed in
// every execution (rtnames.RandSeedEnv, default 1); nil outside a check.
// Its Read and Seed must not be called: RandRead and RandSeed stand for
// them.
//
//go:norace
func Rand() *rand.Rand {
	th, ok := Current()
	if !ok {
		return nil
	}
	return quietRand(th.ex)
}

// Rand2 is Rand for math/rand/v2.
//
//go:norace
func Rand2() *randv2.Rand {
	th, ok := Current()
	if !ok {
		return nil
	}
	return quietRand2(th.ex, 0)
}

// MapOrder returns the generator of the calling goroutine's execution that
// chooses the order of its ranges over maps (see package sthread/lang),
// seeded with the same seed in every execution (rtnames.RandSeedEnv,
// default 1), so that a schedule replays with the same orders; nil outside
// a check.
//
//go:norace
func MapOrder() *randv2.Rand {
	th, ok := Current()
	if !ok {
		return nil
	}
	return quietRand2(th.ex, mapStream)
}

// RandRead returns n bytes drawn from the generator of Rand as math/rand's
// Read draws them (seven bytes of each Int63, lowest first, what is left
// of one kept for the next call), for the caller to copy; ok is false
// outside a check.
//
//go:norace
func RandRead(n int) (p []byte, ok bool) {
	th, ok := Current()
	if !ok {
		return nil, false
	}
	return quietRead(th.ex, n), true
}

//go:noinline
func quietRead(ex *Execution, n int) []byte {
	g := quietRand(ex)
	p := make([]byte, n)
	for i := range p {
		if ex.randPos == 0 {
			ex.randVal = g.Int63()
			ex.randPos = 7
		}
		p[i] = byte(ex.randVal)
		ex.randVal >>= 8
		ex.randPos--
	}
	return p
}

// RandSeed seeds the generator of Rand with seed, as math/rand's Seed
// does, and reports false outside a check.
//
//go:norace
func RandSeed(seed int64) bool {
	th, ok := Current()
	if !ok {
		return false
	}
	quietSeed(th.ex, seed)
	return true
}

//go:noinline
func quietSeed(ex *Execution, seed int64) {
	quietRand(ex).Seed(seed)
	ex.randPos = 0
}
