package sthread

import (
	"errors"
	"os"
	"sync"
	"time"

	"github.com/stdbg/stdbg/engine/hunt"
	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/internal/rtnames"
	"github.com/stdbg/stdbg/sthread/internal/rt"
)

// ReplayEnv names the environment variable that makes Check run one
// schedule instead of searching: the schedule printed with a bug, e.g.
//
//	STDBG_REPLAY_SCHEDULE='1;1;2' go test -run '^TestTransfer$' ./bank
//
// A program whose main calls Run replays it the same way. A replay
// publishes each step for a debugger (see stdbg replay --dlv).
const ReplayEnv = rtnames.ReplayEnv

// RandSeedEnv names the environment variable that sets the seed of the
// random numbers of executions under Check (default 1): the top-level
// functions of sthread/math/rand and sthread/math/rand/v2 (those of
// math/rand and math/rand/v2 in plain Go) draw from a generator of the
// execution, seeded with it in every execution, so that a schedule replays
// with the same values.
const RandSeedEnv = rtnames.RandSeedEnv

// Defaults of the options.
const (
	DefaultMaxDepth = 1000
	DefaultTimeout  = 5 * time.Second
)

// An Option tunes Check, Explore, Replay and RunSchedule.
type Option func(*config)

type config struct {
	// req is the hunt the options ask for: its depth bound, All, the
	// execution limit, the budget and the minimisation.
	req         hunt.Request
	timeout     time.Duration
	schedule    string
	hasSchedule bool
	noSave      bool
	strategy    search.Strategy
	noReduction bool

	visited  bool   // stateful search
	livelock bool   // report fair non-progress cycles
	ltl      string // an LTL formula to check

	// maxStall is the stall bound of virtual time (MaxStall); nil: the
	// environment's (MaxStallEnv), else syncmodel.DefaultMaxStall.
	maxStall *time.Duration
}

//go:norace
func newConfig(opts []Option) *config {
	c := &config{req: hunt.Request{MaxDepth: DefaultMaxDepth, Minimise: true}, timeout: DefaultTimeout}
	if s, ok := os.LookupEnv(MaxStallEnv); ok {
		if d, err := rtnames.ParseMaxStall(s); err == nil {
			c.maxStall = &d
		}
	}
	for _, o := range opts {
		if o != nil {
			o(c)
		}
	}
	return c
}

// MaxDepth bounds the number of transitions of one execution (default
// DefaultMaxDepth); an execution that reaches it is cut, which is not a
// bug. n <= 0 removes the bound: the search then only ends if every
// execution does.
//
//go:norace
func MaxDepth(n int) Option { return func(c *config) { c.req.MaxDepth = n } }

// All keeps exploring after the first bug and reports every distinct bug
// (by kind and place) once, with the first schedule that showed it.
//
//go:norace
func All() Option { return func(c *config) { c.req.All = true } }

// Timeout sets the transition timeout (default DefaultTimeout): the longest
// a goroutine may run between two sthread calls. A goroutine that takes
// longer (it spins without Yield, or blocks in something sthread does not
// control) is reported as a transition timeout. It cannot be stopped: it
// keeps running in the background, and its next sthread call unwinds it.
// d <= 0 keeps the default.
//
//go:norace
func Timeout(d time.Duration) Option {
	return func(c *config) {
		if d > 0 {
			c.timeout = d
		}
	}
}

// Schedule makes Check run the given schedule (as printed in a report,
// "1;1;2", or "Path = 1;1;2") once instead of searching, like setting
// ReplayEnv. After the schedule the execution goes on with the default
// policy (the running goroutine keeps going, else the lowest id).
//
//go:norace
func Schedule(s string) Option {
	return func(c *config) { c.schedule, c.hasSchedule = s, true }
}

// MaxStall bounds how long time may pass, on the virtual clock of
// sthread/time, while a goroutine that can run does not: a timer fires
// while a goroutine that could still answer first is kept from running
// only while that goroutine has been able to run for at most d (default
// syncmodel.DefaultMaxStall, 50ms, or what MaxStallEnv says). So a
// timeout that beats a worker delayed by a loaded machine is explored,
// and a one-minute guard around work that is ready to run is not. 0: time
// passes only when every goroutine is blocked or waits for time, as in
// testing/synctest; a negative d: no bound, time may pass at any moment.
// A bug that needs a goroutine delayed says so in its report.
func MaxStall(d time.Duration) Option { return func(c *config) { c.maxStall = &d } }

// MaxStallEnv names the environment variable that sets the stall bound
// (MaxStall) of the checks of a process that set none: a duration ("50ms",
// "0") or "none". stdbg sets it from its max-stall setting, and records it
// in the corpus entries of the bugs it finds, which replay with it.
const MaxStallEnv = rtnames.MaxStallEnv

// MaxExecutions stops the search after n executions (0, the default: no
// limit).
//
//go:norace
func MaxExecutions(n int64) Option { return func(c *config) { c.req.MaxExecutions = max(n, 0) } }

// Strategy makes Check and Explore search with st instead of the
// exhaustive depth-first search: search.NewRandom, search.NewPCT or
// search.NewPreemptionBounding, for functions with too many schedules to
// explore them all. Sampling strategies never run out: bound them with
// MaxExecutions or Budget. A strategy value serves one search at a time.
// A portfolio that shares its search in time (search.Portfolio.Timed, as
// search.Spec's New makes it) takes its turns in the CPU time of this
// process, where its executions run, whatever clock it was given
// (search.InProcess): what else the machine runs does not change which
// member runs when.
func Strategy(st search.Strategy) Option { return func(c *config) { c.strategy = st } }

// Budget bounds the wall time of Check and Explore (0, the default: no
// limit): the search gets four fifths of it (all of it with NoMinimise),
// the minimisation of the bugs found up to nine tenths, and the replays
// that explain them for their reports end with it. A step still running
// when its phase ends is cut there. A bug whose replay is cut is
// reported as the search found it (its kind, message and schedule,
// without trace nor stacks), its report saying what was cut. A search
// stopped by its budget is not an error: Check passes if it found no bug,
// and Explore's Result is not Complete. Check's budget begins before the
// replays of the bugs stored in the test's corpus, which take their part
// of it: a stored bug whose replay it cuts fails the test, as not known
// to be fixed.
func Budget(d time.Duration) Option { return func(c *config) { c.req.Budget = max(d, 0) } }

// NoMinimise reports each bug with the schedule the search found, instead
// of shrinking it first to the shortest schedule of the bug, with the
// fewest preemptions (stdbg find's --no-minimise).
func NoMinimise() Option { return func(c *config) { c.req.Minimise = false } }

// NoReduction makes the search run every schedule (stdbg find's
// --reduction none). By default it runs one schedule per class of
// schedules that differ only in the order of independent operations
// (dynamic partial-order reduction), which finds the same bugs in far
// fewer executions.
func NoReduction() Option { return func(c *config) { c.noReduction = true } }

// search returns the search strategy the options select: the one given
// with Strategy, else DPOR, or the plain depth-first search with
// NoReduction or a stateful search (a visited set or a state graph needs
// every schedule: DPOR's reduction is not sound with them). A stateful
// search with a Strategy of the caller's is refused: with DPOR, a visited
// set would miss bugs (see search.Spec.CheckOptions).
func (c *config) search() (search.Strategy, error) {
	switch {
	case c.strategy != nil && c.stateful():
		return nil, errors.New("sthread: Visited, Livelock and LTL search every schedule with a visited set, and cannot take a Strategy: with DPOR's reduction, a visited set would miss bugs")
	case c.strategy != nil:
		return c.strategy, nil
	case c.noReduction || c.stateful():
		return search.NewDFS(), nil
	}
	return search.NewDPOR(), nil
}

// reduction names the reduction the options select, as stdbg find does.
func (c *config) reduction() string {
	if c.strategy != nil || c.noReduction || c.stateful() {
		return "none"
	}
	return "dpor"
}

// runtime is the configuration of a runner of a check with cfg, recording
// depth frames per scheduling point and, with state, the program's state
// with every hand-over.
//
//go:norace
func (c *config) runtime(depth int, state bool) rt.Config {
	return rt.Config{Depth: depth, Timeout: c.timeout, State: state, MaxStall: c.maxStall, CheckThreads: checkThreads}
}

// checkThreads turns on the executor's check of its thread list after
// every step (executor.Options.CheckThreads): set by this package's tests
// (export_test.go), off in every other build.
var checkThreads bool

// checkMu serialises the checks of the process: a process checks one
// program at a time, with one runner at a time.
var checkMu sync.Mutex
