package ctarget_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stdbg/stdbg/engine/executor"
	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/model/wire"
	"github.com/stdbg/stdbg/target/ctarget"
	"github.com/stdbg/stdbg/target/targetproc"
)

// examplesDir holds the example programs, relative to this package.
const examplesDir = "../../examples/c"

// exampleClean is the expected outcome of a correct program: no bug, and the
// search exhausted every schedule, each execution running to its end.
const exampleClean = search.Exited

// example is one example program and what stdbg must find in it.
type example struct {
	file string
	// depth is the exploration's MaxDepth.
	depth int
	// want is the kind of the bug, or exampleClean.
	want search.Kind
	// alsoOK is another acceptable kind, exampleClean for none (the ABA
	// example may crash or fail a check, depending on the schedule found
	// first).
	alsoOK search.Kind
	// message and where are substrings the bug's Outcome.Message and
	// Outcome.Where must contain ("" for no check).
	message, where string
	// minExecutions is the least number of executions a clean
	// exploration must take: it shows that the threads did interleave.
	minExecutions int64
	// reduced: a clean example is exhausted with DPOR, not by running
	// every schedule (which target/ctarget/dporcheck compares on every example,
	// within a bound).
	reduced bool
}

var exampleTable = []example{
	// Bugs.
	{file: "deadly-embrace.c", depth: 1000, want: search.Deadlock, message: "threads 1, 2 are blocked", where: "pthread_mutex_lock@"},
	{file: "abba-three.c", depth: 1000, want: search.Deadlock, message: "are blocked", where: "pthread_mutex_lock@"},
	{file: "leader-election.c", depth: 1000, want: search.AssertionFailure, message: "at most one leader", where: "leader-election.c:"},
	{file: "priority-inversion.c", depth: 1000, want: search.AssertionFailure, message: "priority inversion", where: "priority-inversion.c:"},
	{file: "aba-stack.c", depth: 1000, want: search.AssertionFailure, alsoOK: search.Crash},
	{file: "producer-consumer-if.c", depth: 1000, want: search.AssertionFailure, message: "take from an empty buffer", where: "producer-consumer-if.c:"},
	// Depth-first search reaches the circular wait only after exhausting
	// the schedules where the first philosopher eats undisturbed (about
	// 18000 executions at full depth); a bound finds it at once.
	{file: "dining-philosophers.c", depth: 10, want: search.Deadlock, message: "threads 1, 2, 3, 4 are blocked", where: "pthread_mutex_lock@"},
	{file: "cxx-bank.cpp", depth: 1000, want: search.Deadlock, message: "are blocked", where: "pthread_mutex_lock@"},
	// Checked without the race detector (executor.Options.Races), the
	// race lets an update be lost.
	{file: "lost-update.c", depth: 1000, want: search.AssertionFailure, message: "no hit is lost", where: "lost-update.c:"},
	// The worker's start is a scheduling point: main reads the mark first.
	{file: "start-order.c", depth: 1000, want: search.AssertionFailure, message: "main read the mark before the worker set it", where: "start-order.c:"},
	{file: "c11-counter.c", depth: 1000, want: search.AssertionFailure, message: "no hit is lost", where: "c11-counter.c:"},
	{file: "cond-timedwait.c", depth: 1000, want: search.AssertionFailure, message: "did not answer in time", where: "cond-timedwait.c:"},
	{file: "misuse-unlock.c", depth: 1000, want: search.Misuse, message: "held by thread 1", where: "pthread_mutex_unlock@"},
	{file: "misuse-join-twice.c", depth: 1000, want: search.Misuse, message: "already joined", where: "pthread_join@"},
	{file: "leak.c", depth: 1000, want: search.Leak, message: "thread 2 was blocked forever", where: "pthread_cond_wait@"},
	{file: "crash-null.c", depth: 1000, want: search.Crash, message: "signal 11"},
	// Forks before the first thread and beside a worker: the children
	// run free, the parent's deadlock is found.
	{file: "fork-deadlock.c", depth: 1000, want: search.Deadlock, message: "threads 1, 2 are blocked", where: "pthread_mutex_lock@"},
	// A bounded retry gives up only if its thread yields three times in
	// a row while main could run: no fairness may hide it.
	{file: "retry-gives-up.c", depth: 1000, want: search.AssertionFailure, message: "gave up before the job was posted", where: "retry-gives-up.c:"},

	// Correct programs.
	{file: "correct-counter.c", depth: 1000, want: exampleClean, minExecutions: 10, reduced: true},
	{file: "sem-pingpong.c", depth: 1000, want: exampleClean, minExecutions: 10},
	{file: "rwlock-readers.c", depth: 1000, want: exampleClean, minExecutions: 10, reduced: true},
	{file: "barrier-phases.c", depth: 1000, want: exampleClean, minExecutions: 100, reduced: true},
	{file: "once-init.c", depth: 1000, want: exampleClean, minExecutions: 10, reduced: true},
	{file: "spin-count.c", depth: 1000, want: exampleClean, minExecutions: 10},
	{file: "recursive-mutex.c", depth: 1000, want: exampleClean, minExecutions: 5, reduced: true},
	{file: "cxx-condvar.cpp", depth: 1000, want: exampleClean, minExecutions: 10},
	{file: "cxx-once.cpp", depth: 1000, want: exampleClean, minExecutions: 10, reduced: true},
	// Ends with exec: the end of the checked program, not a crash.
	{file: "exec-end.c", depth: 1000, want: exampleClean, minExecutions: 2},
}

// useExampleCache points stdbg at the package's test cache (created by
// TestMain, so that the interposition library is compiled once per run)
// and fails the test when a compiler is missing: the examples cannot be
// checked without one.
func useExampleCache(t *testing.T) {
	t.Helper()
	dir := os.Getenv("STDBG_CACHE")
	if dir == "" {
		t.Fatal("STDBG_CACHE is not set: TestMain must create the package's test cache")
	}
	t.Setenv("STDBG_CACHE", dir)
	if _, err := ctarget.Compiler(false); err != nil {
		t.Fatalf("the examples need a C compiler: %v", err)
	}
	if _, err := ctarget.Compiler(true); err != nil {
		t.Fatalf("the C++ examples need a C++ compiler: %v", err)
	}
	if _, err := ctarget.Library(); err != nil {
		t.Fatalf("building the stdbg library: %v", err)
	}
}

// buildExampleFiles compiles every example, a few at a time.
func buildExampleFiles(t *testing.T, files []string) map[string]string {
	t.Helper()
	var (
		mu   sync.Mutex
		wg   sync.WaitGroup
		exes = make(map[string]string)
		errs []string
		sem  = make(chan struct{}, runtime.NumCPU())
	)
	for _, f := range files {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			exe, err := ctarget.Build(filepath.Join(examplesDir, f))
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err.Error())
				return
			}
			exes[f] = exe
		}()
	}
	wg.Wait()
	if len(errs) > 0 {
		t.Fatalf("building the examples:\n%s", strings.Join(errs, "\n"))
	}
	return exes
}

// startExample starts exe under stdbg and returns its checker, which
// checks the thread list it keeps against the model's after every step
// (executor.Options.CheckThreads).
func startExample(t *testing.T, exe string) *executor.Executor {
	t.Helper()
	p, err := ctarget.Start(targetproc.Config{Binary: exe, Flags: wire.FlagFastExit, KeepThreads: true})
	if err != nil {
		t.Fatalf("starting %s: %v", exe, err)
	}
	t.Cleanup(func() { p.Close() })
	return executor.New(p, executor.Options{FastExit: true, CheckThreads: true})
}

// exploreExample explores an example with DPOR, as stdbg find does, or with
// the plain depth-first search (dfs), bounded by a number of executions so
// that a runaway search fails the test instead of hanging it, whatever the
// machine's speed.
func exploreExample(t *testing.T, c *executor.Executor, depth int, dfs bool) *search.Result {
	t.Helper()
	st := search.NewDPOR()
	if dfs {
		st = search.NewDFS()
	}
	res, err := search.Explore(context.Background(), c, st, search.Options{MaxDepth: depth, MaxExecutions: exampleExecutions})
	if err != nil {
		t.Fatalf("exploring: %v (after %d executions)", err, res.Stats.Executions)
	}
	return res
}

// exampleExecutions bounds every exploration of an example.
const exampleExecutions = 200000

// checkExampleReplay replays a bug's schedule on a fresh execution and checks that
// it ends the same way.
func checkExampleReplay(t *testing.T, c *executor.Executor, bug search.Bug, depth int) {
	t.Helper()
	e, err := c.Begin()
	if err != nil {
		t.Fatalf("starting the replay: %v", err)
	}
	defer e.Close()
	rr, err := search.Replay(e, bug.Schedule, depth)
	if err != nil {
		t.Fatalf("replaying %v: %v", bug.Schedule, err)
	}
	if rr.Outcome == nil {
		t.Fatalf("replaying %v: no outcome (depth limited: %v)", bug.Schedule, rr.DepthLimited)
	}
	if rr.Outcome.Kind != bug.Outcome.Kind || rr.Outcome.Where != bug.Outcome.Where {
		t.Errorf("replaying %v: got %v at %q (%s), want %v at %q", bug.Schedule,
			rr.Outcome.Kind, rr.Outcome.Where, rr.Outcome.Message, bug.Outcome.Kind, bug.Outcome.Where)
	}
	if rr.Leftover != 0 {
		t.Errorf("replaying %v: the execution ended %d steps before the end of the schedule", bug.Schedule, rr.Leftover)
	}
}

func TestExamples(t *testing.T) {
	useExampleCache(t)
	files := make([]string, len(exampleTable))
	for i, ex := range exampleTable {
		files[i] = ex.file
	}
	start := time.Now()
	exes := buildExampleFiles(t, files)
	t.Logf("built %d examples in %v", len(exes), time.Since(start).Round(time.Millisecond))

	for _, ex := range exampleTable {
		t.Run(strings.TrimSuffix(ex.file, filepath.Ext(ex.file)), func(t *testing.T) {
			c := startExample(t, exes[ex.file])
			res := exploreExample(t, c, ex.depth, ex.want == exampleClean && !ex.reduced)
			st := res.Stats
			if ex.want == exampleClean {
				for _, b := range res.Bugs {
					t.Errorf("found %v: %s at %s, schedule %v", b.Outcome.Kind, b.Outcome.Message, b.Outcome.Where, b.Schedule)
				}
				if !res.Complete {
					t.Errorf("the exploration did not exhaust the schedules within depth %d", ex.depth)
				}
				if res.DepthLimited {
					t.Errorf("%d executions were cut at depth %d before the program ended", st.MaxDepthHit, ex.depth)
				}
				if st.Executions < ex.minExecutions {
					t.Errorf("only %d executions, want at least %d: the threads did not interleave", st.Executions, ex.minExecutions)
				}
				t.Logf("clean: %d executions, %d transitions, %v",
					st.Executions, st.Transitions, st.Elapsed.Round(time.Millisecond))
				return
			}
			if len(res.Bugs) != 1 {
				t.Fatalf("found %d bugs, want one %v (%d executions, complete %v, depth limited %v)",
					len(res.Bugs), ex.want, st.Executions, res.Complete, res.DepthLimited)
			}
			b := res.Bugs[0]
			o := b.Outcome
			t.Logf("%v: %s at %s; schedule of %d steps %v; %d executions, %v",
				o.Kind, o.Message, o.Where, len(b.Schedule), b.Schedule, st.Executions, st.Elapsed.Round(time.Millisecond))
			if o.Kind != ex.want && (ex.alsoOK == exampleClean || o.Kind != ex.alsoOK) {
				t.Errorf("found %v (%s), want %v", o.Kind, o.Message, ex.want)
			}
			if !strings.Contains(o.Message, ex.message) {
				t.Errorf("message %q does not contain %q", o.Message, ex.message)
			}
			if !strings.Contains(o.Where, ex.where) {
				t.Errorf("place %q does not contain %q", o.Where, ex.where)
			}
			if len(b.Schedule) != o.Step {
				t.Errorf("schedule of %d steps for an outcome at step %d", len(b.Schedule), o.Step)
			}
			checkExampleReplay(t, c, b, ex.depth)
		})
	}
}

// TestExamplesDeadlyEmbraceDepth checks the depth bound on the smallest
// deadlock: four transitions are needed (main creates the thread, takes
// its first lock, the thread starts and takes its first lock), so nothing is found at
// depth 1 and "1;1;2;2" (main locks first, then the worker starts and
// locks second) is found at depth 4.
func TestExamplesDeadlyEmbraceDepth(t *testing.T) {
	useExampleCache(t)
	exes := buildExampleFiles(t, []string{"deadly-embrace.c"})
	c := startExample(t, exes["deadly-embrace.c"])

	res := exploreExample(t, c, 1, true)
	if len(res.Bugs) != 0 {
		b := res.Bugs[0]
		t.Errorf("depth 1: found %v at %v", b.Outcome.Kind, b.Schedule)
	}
	if !res.Complete || !res.DepthLimited {
		t.Errorf("depth 1: complete %v, depth limited %v; want both", res.Complete, res.DepthLimited)
	}

	res = exploreExample(t, c, 4, true)
	if len(res.Bugs) != 1 {
		t.Fatalf("depth 4: found %d bugs, want the deadlock", len(res.Bugs))
	}
	b := res.Bugs[0]
	if b.Outcome.Kind != search.Deadlock || b.Schedule.String() != "1;1;2;2" {
		t.Errorf("depth 4: found %v with schedule %v, want deadlock with 1;1;2;2", b.Outcome.Kind, b.Schedule)
	}
	checkExampleReplay(t, c, b, 4)
}
