package sthread

import (
	"math/rand"
	randv2 "math/rand/v2"
	"os"
	"strconv"

	"github.com/stdbg/stdbg/rtnames"
)

// Randomness under Check. The top-level functions of math/rand and
// math/rand/v2 draw from a generator of the execution, seeded with the same
// seed in every execution (RandSeedEnv, default 1): a schedule then replays
// with the same random values, and the values drawn are part of what the
// schedule determines. Outside Check they are the packages' own functions.

// RandSeedEnv names the environment variable that sets the seed of the
// generators of executions under Check.
const RandSeedEnv = rtnames.RandSeedEnv

// randSeed is the seed of every execution's generators.
var randSeed = func() uint64 {
	if s, err := strconv.ParseUint(os.Getenv(RandSeedEnv), 0, 64); err == nil {
		return s
	}
	return 1
}()

// MathRand is the generator with the methods of math/rand's top-level
// functions: the execution's under Check, math/rand's own elsewhere.
type MathRand interface {
	ExpFloat64() float64
	Float32() float32
	Float64() float64
	Int() int
	Int31() int32
	Int31n(n int32) int32
	Int63() int64
	Int63n(n int64) int64
	Intn(n int) int
	NormFloat64() float64
	Perm(n int) []int
	Read(p []byte) (int, error)
	Seed(seed int64)
	Shuffle(n int, swap func(i, j int))
	Uint32() uint32
	Uint64() uint64
}

// Rand returns the generator that math/rand's top-level functions use.
//
//go:norace
func Rand() MathRand {
	if th, ok := checkedThread(); ok {
		ex := th.ex
		if ex.rand == nil {
			ex.rand = rand.New(rand.NewSource(int64(randSeed)))
		}
		return ex.rand
	}
	return globalRand{}
}

// globalRand is math/rand's top-level functions.
type globalRand struct{}

//go:norace
func (globalRand) ExpFloat64() float64 { return rand.ExpFloat64() }

//go:norace
func (globalRand) Float32() float32 { return rand.Float32() }

//go:norace
func (globalRand) Float64() float64 { return rand.Float64() }

//go:norace
func (globalRand) Int() int { return rand.Int() }

//go:norace
func (globalRand) Int31() int32 { return rand.Int31() }

//go:norace
func (globalRand) Int31n(n int32) int32 { return rand.Int31n(n) }

//go:norace
func (globalRand) Int63() int64 { return rand.Int63() }

//go:norace
func (globalRand) Int63n(n int64) int64 { return rand.Int63n(n) }

//go:norace
func (globalRand) Intn(n int) int { return rand.Intn(n) }

//go:norace
func (globalRand) NormFloat64() float64 { return rand.NormFloat64() }

//go:norace
func (globalRand) Perm(n int) []int { return rand.Perm(n) }

//
//lint:ignore SA1019 it stands for the deprecated function
//go:norace
func (globalRand) Read(p []byte) (int, error) { return rand.Read(p) }

//
//lint:ignore SA1019 it stands for the deprecated function
//go:norace
func (globalRand) Seed(seed int64) { rand.Seed(seed) }

//go:norace
func (globalRand) Shuffle(n int, swap func(i, j int)) { rand.Shuffle(n, swap) }

//go:norace
func (globalRand) Uint32() uint32 { return rand.Uint32() }

//go:norace
func (globalRand) Uint64() uint64 { return rand.Uint64() }

// Rand2 returns the generator that math/rand/v2's top-level functions use:
// the execution's under Check, one that calls them elsewhere.
//
//go:norace
func Rand2() *randv2.Rand {
	if th, ok := checkedThread(); ok {
		ex := th.ex
		if ex.rand2 == nil {
			ex.rand2 = randv2.New(randv2.NewPCG(randSeed, randSeed))
		}
		return ex.rand2
	}
	return globalRand2
}

// globalRand2 draws from math/rand/v2's top-level generator.
var globalRand2 = randv2.New(globalSource2{})

type globalSource2 struct{}

//go:norace
func (globalSource2) Uint64() uint64 { return randv2.Uint64() }

// RandN is math/rand/v2's N.
//
//go:norace
func RandN[Int ~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr](n Int) Int {
	if n <= 0 {
		panic("invalid argument to N")
	}
	return Int(Rand2().Uint64N(uint64(n)))
}
