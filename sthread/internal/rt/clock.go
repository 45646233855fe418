package rt

import (
	"os"
	"sync/atomic"

	"github.com/stdbg/stdbg/internal/rtnames"
	"github.com/stdbg/stdbg/model/syncmodel"
)

// What an execution determines besides its schedule: the virtual clock and
// the random numbers (see rand.go). Both start afresh in each execution, so
// that a schedule replays with the same times and values.
//
// The clock has two parts. The time of timers (Now) moves only when a
// sleeping goroutine or a timer wakes: it is what sleeps and timers wait
// for, and what the model orders (a TimerWait's Arg). The time the program
// reads (Read) is that time plus a count of readings: each reading moves
// it on by ReadStep, as a real monotonic clock moves on between two calls,
// so that two readings in a row differ and a Since from a start is not 0.
//
// The count is a logical clock (Lamport's) rather than one counter of the
// execution: each goroutine counts its own readings and takes the count of
// every goroutine whose operations its own come after (through a channel,
// a lock, a wait group, an atomic, a go statement: see clocksync.go). So a
// reading is later than every reading that happens before it, as on a real
// clock, and its value depends only on which operations happen before it,
// not on how the schedule interleaves independent ones: two schedules that
// the search takes for one (they differ only in the order of independent
// operations) read the same times, and a search that explores one of them
// misses nothing the other would show. Goroutines that nothing orders read
// times told apart by their thread ids (the low digits of the count, thread
// id modulo ReadStep: the readings of up to 25 goroutines always differ,
// beyond that two may read the same time, as on a real clock).
//
// A goroutine of a bubble of testing/synctest reads its bubble's clock
// instead, as Go's synctest has it: a fake clock of the bubble's own, that
// starts at the epoch (midnight UTC, 2000-01-01) when the bubble begins and
// moves only when a sleeper or a timer of the bubble wakes (the model
// decides when: syncmodel's bubble.go). Its readings are that time
// exactly: in a bubble two readings with no sleep between are equal, and
// a Since across a sleep of d is d.
//
// A reading may pass the time of a timer that has not fired yet: that
// timer is late, as a real one is when its goroutine was not scheduled at
// once. It still fires when the model lets time reach it, in the order of
// the times of timers, and the time it delivers is read by its goroutine
// then, later than the reading that made the timer and every reading
// before it.

// ReadStep is how far each reading of the clock moves it on for the
// goroutine that reads it, in nanoseconds: no more than a reading of a
// real clock takes, so that code that only computes and reads the clock
// never sees more time pass than it would in Go. time.Now took 49 ns at
// the fastest on the 2-CPU machine the project is measured on (59 ns under
// the race detector; 1,000 readings in a loop, 2,000 times over), less on
// a machine whose clock is cheaper to read: 1,000 readings take 25 µs
// here. (It was 1 µs, which made 1,000 readings take a millisecond, and
// failed go.uber.org/ratelimit's TestUnlimited, which allows them one, in
// every execution.) Besides the readings, only timers move the clock:
// computation takes no time, and a goroutine stalled between two readings
// (preempted, or on a loaded machine) is explored only where its stall
// lets a sleeper or a timer wake first (the stall bound, syncmodel's
// time.go). A test that times a computation with no timer involved and
// asserts an upper bound on it fails in Go only when the machine stalls
// it; stdbg passes it.
const ReadStep = 25

// Now returns the time of timers of th's clock, in nanoseconds since the
// execution began (th's bubble's, since the bubble began): it moves only
// when a sleeping goroutine or a timer wakes (see package sthread/time).
// Sleeps and timers wait for it; the program reads the clock with Read.
//
//go:norace
func (th *Thread) Now() int64 {
	if th.bubble != 0 {
		return th.ex.bubbleClock(th.bubble).now
	}
	return th.ex.now
}

// Read returns the time that th reads from the clock, in nanoseconds since
// the epoch: the time at which executions start (0, or in a process that
// stdbg runs, after the readings taken before the check: see
// OutsideRead), plus the time of timers, plus ReadStep for each reading
// that happens before this one (th's own, this one included, and those of
// the goroutines whose operations th's come after), plus th's id modulo
// ReadStep. Successive readings of a goroutine grow, and a reading is
// later than every reading that happens before it. A goroutine of a
// bubble reads its bubble's time of timers as it is (a bubble starts at
// the epoch, as in Go).
//
//go:norace
func (th *Thread) Read() int64 {
	if th.bubble != 0 {
		return th.ex.bubbleClock(th.bubble).now
	}
	th.clk++
	return base() + th.ex.now + th.clk*ReadStep + int64(th.tid%ReadStep)
}

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

// Advance moves the time of timers of th's clock (its bubble's, or the
// one outside bubbles) to at, if it is behind.
//
//go:norace
func (th *Thread) Advance(at int64) {
	now := &th.ex.now
	if th.bubble != 0 {
		now = &th.ex.bubbleClock(th.bubble).now
	}
	if at > *now {
		*now = at
	}
}

// bubbleClock is the clock of a bubble: its time of timers.
type bubbleClock struct {
	bubble uint64 // the bubble's model id
	now    int64
}

// bubbleClock returns the clock of the bubble whose model id is id, which
// starts at 0 the first time it is asked for.
//
//go:norace
func (ex *Execution) bubbleClock(id uint64) *bubbleClock {
	for i := range ex.bubbleClocks {
		if ex.bubbleClocks[i].bubble == id {
			return &ex.bubbleClocks[i]
		}
	}
	ex.bubbleClocks = append(ex.bubbleClocks, bubbleClock{bubble: id})
	return &ex.bubbleClocks[len(ex.bubbleClocks)-1]
}

// The clock outside a check. In a process that stdbg runs (to search, to
// run executions, to replay one), the program reads the clock outside a
// check too: as its packages are initialised (var start = time.Now()), in
// TestMain, in goroutines started there. Those readings must be earlier
// than the readings of the executions that come after them, as they are
// in a real run (a monotonic clock never goes back), and replay with the
// same values. So they are taken on a virtual clock of the process: it
// starts at the epoch, each reading moves it on by ReadStep, and each sleep
// outside a check (a real one) by the time slept, so that a loop that
// polls until a deadline ends after the sleeps it would make in a real
// run. The clock of executions then starts where that clock stood when
// the process's first execution read the clock (clockBase): every
// execution of the process starts at that same time, after every reading
// taken before, and a deadline computed as the package was initialised
// (time.Now().Add(time.Hour)) has not passed in the tests, as in a real
// run. Nothing of it depends on when the process runs, only on the
// readings and sleeps before: the search and a replay of one of its
// executions read the same times (unless goroutines started outside the
// check read the clock while it runs, which no schedule orders). Elsewhere
// (go test without stdbg, a program that calls sthread.Check itself) the
// program reads the real clock outside a check, and executions start at
// the epoch.

// outsideVirtual reports that this process is one that stdbg runs: its
// readings outside a check are virtual (the environment says so from the
// start, and does not change).
var outsideVirtual = Remote() || Searching() || os.Getenv(rtnames.ReplayEnv) != ""

// outsideClock is the time of the clock outside a check, in nanoseconds
// since the epoch.
var outsideClock atomic.Int64

// clockBase is the time at which the clock of every execution of this
// process starts, in nanoseconds since the epoch, once taken (based).
var (
	clockBase atomic.Int64
	based     atomic.Bool
)

// OutsideRead returns what a reading of the clock outside a check reads,
// in nanoseconds since the epoch, and true, in a process that stdbg runs;
// elsewhere it returns false and the program reads the real clock. The
// count is hidden from the race detector, as a real clock is: two
// goroutines that read the clock are not ordered by it.
//
//go:norace
func OutsideRead() (int64, bool) {
	if !outsideVirtual {
		return 0, false
	}
	raceDisable()
	at := outsideClock.Add(ReadStep)
	raceEnable()
	return at, true
}

// OutsideSlept moves the clock outside a check on by d, after a real sleep
// of d outside a check, in a process that stdbg runs.
//
//go:norace
func OutsideSlept(d int64) {
	if !outsideVirtual || d <= 0 {
		return
	}
	raceDisable()
	outsideClock.Add(d)
	raceEnable()
}

// base returns the time at which executions' clocks start, in nanoseconds
// since the epoch: in a process that stdbg runs, where the clock outside a
// check stood when an execution first read the clock; elsewhere 0.
//
//go:norace
func base() int64 {
	if !outsideVirtual {
		return 0
	}
	raceDisable()
	if !based.Load() {
		clockBase.CompareAndSwap(0, outsideClock.Load())
		based.Store(true)
	}
	b := clockBase.Load()
	raceEnable()
	return b
}
