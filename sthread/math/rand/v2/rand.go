// Package rand is the part of package math/rand/v2 of the standard
// library whose functions draw from the shared generator, for programs that
// stdbg checks: under a check (sthread.Check, or stdbg find) they draw from
// a generator of the execution, seeded with the same seed in every execution
// (sthread.RandSeedEnv, default 1), so that a schedule replays with the same
// random values and the values drawn are part of what the schedule
// determines. Outside a check they are math/rand/v2's.
//
// stdbg's instrumentation of plain Go (package goinstr) rewrites the calls
// of these functions into calls of this package's; the rest of
// math/rand/v2 (New, the sources, the Rand type) is the standard library's.
package rand

import (
	"math/rand/v2"

	"github.com/stdbg/stdbg/sthread/internal/rt"
)

// intType is the constraint of N, math/rand/v2's.
type intType interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr
}

// N is math/rand/v2's N, on the execution's generator under a check: a
// value in [0, n). It panics if n <= 0.
//
//go:norace
func N[Int intType](n Int) Int {
	if g := rt.Rand2(); g != nil {
		if n <= 0 {
			panic("invalid argument to N")
		}
		return Int(g.Uint64N(uint64(n)))
	}
	return rand.N(n)
}

// ExpFloat64 is math/rand/v2's ExpFloat64; under a check, it draws from
// the execution's generator.
//
//go:norace
func ExpFloat64() float64 {
	if g := rt.Rand2(); g != nil {
		return g.ExpFloat64()
	}
	return rand.ExpFloat64()
}

// Float32 is math/rand/v2's Float32; under a check, it draws from
// the execution's generator.
//
//go:norace
func Float32() float32 {
	if g := rt.Rand2(); g != nil {
		return g.Float32()
	}
	return rand.Float32()
}

// Float64 is math/rand/v2's Float64; under a check, it draws from
// the execution's generator.
//
//go:norace
func Float64() float64 {
	if g := rt.Rand2(); g != nil {
		return g.Float64()
	}
	return rand.Float64()
}

// Int is math/rand/v2's Int; under a check, it draws from
// the execution's generator.
//
//go:norace
func Int() int {
	if g := rt.Rand2(); g != nil {
		return g.Int()
	}
	return rand.Int()
}

// Int32 is math/rand/v2's Int32; under a check, it draws from
// the execution's generator.
//
//go:norace
func Int32() int32 {
	if g := rt.Rand2(); g != nil {
		return g.Int32()
	}
	return rand.Int32()
}

// Int32N is math/rand/v2's Int32N; under a check, it draws from
// the execution's generator.
//
//go:norace
func Int32N(n int32) int32 {
	if g := rt.Rand2(); g != nil {
		return g.Int32N(n)
	}
	return rand.Int32N(n)
}

// Int64 is math/rand/v2's Int64; under a check, it draws from
// the execution's generator.
//
//go:norace
func Int64() int64 {
	if g := rt.Rand2(); g != nil {
		return g.Int64()
	}
	return rand.Int64()
}

// Int64N is math/rand/v2's Int64N; under a check, it draws from
// the execution's generator.
//
//go:norace
func Int64N(n int64) int64 {
	if g := rt.Rand2(); g != nil {
		return g.Int64N(n)
	}
	return rand.Int64N(n)
}

// IntN is math/rand/v2's IntN; under a check, it draws from
// the execution's generator.
//
//go:norace
func IntN(n int) int {
	if g := rt.Rand2(); g != nil {
		return g.IntN(n)
	}
	return rand.IntN(n)
}

// NormFloat64 is math/rand/v2's NormFloat64; under a check, it draws from
// the execution's generator.
//
//go:norace
func NormFloat64() float64 {
	if g := rt.Rand2(); g != nil {
		return g.NormFloat64()
	}
	return rand.NormFloat64()
}

// Perm is math/rand/v2's Perm; under a check, it draws from
// the execution's generator.
//
//go:norace
func Perm(n int) []int {
	if g := rt.Rand2(); g != nil {
		return g.Perm(n)
	}
	return rand.Perm(n)
}

// Shuffle is math/rand/v2's Shuffle; under a check, it draws from
// the execution's generator.
//
//go:norace
func Shuffle(n int, swap func(i, j int)) {
	if g := rt.Rand2(); g != nil {
		g.Shuffle(n, swap)
		return
	}
	rand.Shuffle(n, swap)
}

// Uint is math/rand/v2's Uint; under a check, it draws from
// the execution's generator.
//
//go:norace
func Uint() uint {
	if g := rt.Rand2(); g != nil {
		return g.Uint()
	}
	return rand.Uint()
}

// Uint32 is math/rand/v2's Uint32; under a check, it draws from
// the execution's generator.
//
//go:norace
func Uint32() uint32 {
	if g := rt.Rand2(); g != nil {
		return g.Uint32()
	}
	return rand.Uint32()
}

// Uint32N is math/rand/v2's Uint32N; under a check, it draws from
// the execution's generator.
//
//go:norace
func Uint32N(n uint32) uint32 {
	if g := rt.Rand2(); g != nil {
		return g.Uint32N(n)
	}
	return rand.Uint32N(n)
}

// Uint64 is math/rand/v2's Uint64; under a check, it draws from
// the execution's generator.
//
//go:norace
func Uint64() uint64 {
	if g := rt.Rand2(); g != nil {
		return g.Uint64()
	}
	return rand.Uint64()
}

// Uint64N is math/rand/v2's Uint64N; under a check, it draws from
// the execution's generator.
//
//go:norace
func Uint64N(n uint64) uint64 {
	if g := rt.Rand2(); g != nil {
		return g.Uint64N(n)
	}
	return rand.Uint64N(n)
}

// UintN is math/rand/v2's UintN; under a check, it draws from
// the execution's generator.
//
//go:norace
func UintN(n uint) uint {
	if g := rt.Rand2(); g != nil {
		return g.UintN(n)
	}
	return rand.UintN(n)
}
