// Package rand is the part of package math/rand of the standard library
// whose functions draw from the shared generator, for programs that stdbg
// checks: under a check (sthread.Check, or stdbg find) they draw from a
// generator of the execution, seeded with the same seed in every execution
// (sthread.RandSeedEnv, default 1), so that a schedule replays with the same
// random values and the values drawn are part of what the schedule
// determines. Outside a check they are math/rand's.
//
// stdbg's instrumentation of plain Go (package goinstr) rewrites the calls
// of these functions into calls of this package's; the rest of math/rand
// (New, NewSource, NewZipf, the Rand type) is the standard library's.
package rand

import (
	"math/rand"

	"github.com/stdbg/stdbg/sthread/internal/rt"
)

// ExpFloat64 is math/rand's ExpFloat64; under a check, it draws from
// the execution's generator.
//
//go:norace
func ExpFloat64() float64 {
	if g := rt.Rand(); g != nil {
		return g.ExpFloat64()
	}
	return rand.ExpFloat64()
}

// Float32 is math/rand's Float32; under a check, it draws from
// the execution's generator.
//
//go:norace
func Float32() float32 {
	if g := rt.Rand(); g != nil {
		return g.Float32()
	}
	return rand.Float32()
}

// Float64 is math/rand's Float64; under a check, it draws from
// the execution's generator.
//
//go:norace
func Float64() float64 {
	if g := rt.Rand(); g != nil {
		return g.Float64()
	}
	return rand.Float64()
}

// Int is math/rand's Int; under a check, it draws from
// the execution's generator.
//
//go:norace
func Int() int {
	if g := rt.Rand(); g != nil {
		return g.Int()
	}
	return rand.Int()
}

// Int31 is math/rand's Int31; under a check, it draws from
// the execution's generator.
//
//go:norace
func Int31() int32 {
	if g := rt.Rand(); g != nil {
		return g.Int31()
	}
	return rand.Int31()
}

// Int31n is math/rand's Int31n; under a check, it draws from
// the execution's generator.
//
//go:norace
func Int31n(n int32) int32 {
	if g := rt.Rand(); g != nil {
		return g.Int31n(n)
	}
	return rand.Int31n(n)
}

// Int63 is math/rand's Int63; under a check, it draws from
// the execution's generator.
//
//go:norace
func Int63() int64 {
	if g := rt.Rand(); g != nil {
		return g.Int63()
	}
	return rand.Int63()
}

// Int63n is math/rand's Int63n; under a check, it draws from
// the execution's generator.
//
//go:norace
func Int63n(n int64) int64 {
	if g := rt.Rand(); g != nil {
		return g.Int63n(n)
	}
	return rand.Int63n(n)
}

// Intn is math/rand's Intn; under a check, it draws from
// the execution's generator.
//
//go:norace
func Intn(n int) int {
	if g := rt.Rand(); g != nil {
		return g.Intn(n)
	}
	return rand.Intn(n)
}

// NormFloat64 is math/rand's NormFloat64; under a check, it draws from
// the execution's generator.
//
//go:norace
func NormFloat64() float64 {
	if g := rt.Rand(); g != nil {
		return g.NormFloat64()
	}
	return rand.NormFloat64()
}

// Perm is math/rand's Perm; under a check, it draws from
// the execution's generator.
//
//go:norace
func Perm(n int) []int {
	if g := rt.Rand(); g != nil {
		return g.Perm(n)
	}
	return rand.Perm(n)
}

// Read is math/rand's Read; under a check, it draws from
// the execution's generator.
//
// Deprecated: as math/rand's Read is.
//
//go:norace
func Read(p []byte) (n int, err error) {
	if b, ok := rt.RandRead(len(p)); ok {
		return copy(p, b), nil
	}
	return rand.Read(p)
}

// Seed is math/rand's Seed; under a check, it draws from
// the execution's generator.
//
// Deprecated: as math/rand's Seed is.
//
//go:norace
func Seed(seed int64) {
	if rt.RandSeed(seed) {
		return
	}
	rand.Seed(seed)
}

// Shuffle is math/rand's Shuffle; under a check, it draws from
// the execution's generator.
//
//go:norace
func Shuffle(n int, swap func(i, j int)) {
	if g := rt.Rand(); g != nil {
		g.Shuffle(n, swap)
		return
	}
	rand.Shuffle(n, swap)
}

// Uint32 is math/rand's Uint32; under a check, it draws from
// the execution's generator.
//
//go:norace
func Uint32() uint32 {
	if g := rt.Rand(); g != nil {
		return g.Uint32()
	}
	return rand.Uint32()
}

// Uint64 is math/rand's Uint64; under a check, it draws from
// the execution's generator.
//
//go:norace
func Uint64() uint64 {
	if g := rt.Rand(); g != nil {
		return g.Uint64()
	}
	return rand.Uint64()
}
