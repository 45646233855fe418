package rt

import (
	"math/rand"
	randv2 "math/rand/v2"
	"os"
	"strconv"

	"github.com/stdbg/stdbg/rtnames"
	"github.com/stdbg/stdbg/syncmodel"
)

// What an execution determines besides its schedule: the virtual clock and
// the random numbers. Both start afresh in each execution, so that a
// schedule replays with the same times and values.

// Now returns the virtual clock of th's execution, in nanoseconds since the
// execution began: it moves only when a sleeping goroutine or a timer
// wakes (see package sthread/time).
//
//go:norace
func (th *Thread) Now() int64 { return th.ex.now }

// SleepUntil waits until the virtual clock reaches at, reported at pcs: a
// TimerWait of the model on obj (0, or the channel of the timer waiting),
// enabled once no earlier wait is pending, so that sleepers and timers wake
// in the order of their times while a wake races with everything else.
//
//go:norace
func (th *Thread) SleepUntil(at int64, obj uint64, api syncmodel.API, pcs []uintptr) {
	th.PointAt(syncmodel.Op{Kind: syncmodel.TimerWait, API: api, Obj: obj, Arg: at}, pcs)
	th.Advance(at)
}

// Advance moves the virtual clock to at, if it is behind.
//
//go:norace
func (th *Thread) Advance(at int64) {
	if at > th.ex.now {
		th.ex.now = at
	}
}

// randSeed is the seed of every execution's generators.
var randSeed = func() uint64 {
	if s, err := strconv.ParseUint(os.Getenv(rtnames.RandSeedEnv), 0, 64); err == nil {
		return s
	}
	return 1
}()

// Rand returns the generator of the calling goroutine's execution that
// stands for math/rand's top-level functions, seeded with the same seed in
// every execution (rtnames.RandSeedEnv, default 1); nil outside a check.
//
//go:norace
func Rand() *rand.Rand {
	th, ok := Current()
	if !ok {
		return nil
	}
	ex := th.ex
	if ex.rand == nil {
		ex.rand = rand.New(rand.NewSource(int64(randSeed)))
	}
	return ex.rand
}

// Rand2 is Rand for math/rand/v2.
//
//go:norace
func Rand2() *randv2.Rand {
	th, ok := Current()
	if !ok {
		return nil
	}
	ex := th.ex
	if ex.rand2 == nil {
		ex.rand2 = randv2.New(randv2.NewPCG(randSeed, randSeed))
	}
	return ex.rand2
}

// mapStream tells the generator of map orders apart from math/rand/v2's,
// which has the same seed.
const mapStream = 0x6d61706f72646572 // "maporder"

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
	ex := th.ex
	if ex.mapOrder == nil {
		ex.mapOrder = randv2.New(randv2.NewPCG(randSeed, mapStream))
	}
	return ex.mapOrder
}
