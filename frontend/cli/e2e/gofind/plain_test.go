package gofind

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stdbg/stdbg/frontend/cli"
	"github.com/stdbg/stdbg/internal/testkit/clirun"
)

// zooCase is one program or test of examples/go/plain and what stdbg must
// find in it.
type zooCase struct {
	race   bool     // build with the race detector (slower builds and runs)
	dir    string   // under examples/go/plain
	run    string   // the test, for a test
	banner string   // the report's banner; "" for a correct version
	want   []string // in the report
	flags  []string // more flags of find
	// long: only with -e2e.long, the behaviour being asserted by
	// another case or test of the package (a Go bug kernel of
	// examples/go/kernels, which TestGoKernels finds in one build, or a
	// correct test of examples/go/plain/oracle, TestOracleExamples).
	long bool
}

// zoo lists the bug zoo of plain Go programs and tests.
var zoo = []zooCase{
	{dir: "transfer", run: "TestTransfer$", banner: "*** DEADLOCK DETECTED ***", want: []string{
		"thread 2 waits in Mutex.Lock for to.mu [mutex#2] (held by thread 3)", "transfer.go:18       to.mu.Lock()"}},
	{dir: "transfer", run: "TestTransferOrdered"},
	{dir: "latelog", run: "TestProgress$", banner: "*** MISUSE OF THE THREAD API ***", want: []string{
		"t.Logf called by goroutine 2 after TestProgress returned", "test ends", "latelog_test.go:12",
		"thread 2 fails", "latelog_test.go:17"}},
	{dir: "latelog", run: "TestProgressWaits$"},
	// The log came in the step of the Done that let the test end: one
	// execution, "exhaustive", until a goroutine's call of its test's t
	// was a step of its own.
	{dir: "latelog", run: "TestProgressCountsFirst$", banner: "*** MISUSE OF THE THREAD API ***", want: []string{
		"(Log in goroutine after TestProgressCountsFirst has completed)", "calls its test's t"}},
	{dir: "latelog", run: "TestProgressCountsFirstInSubtest$", banner: "*** MISUSE OF THE THREAD API ***", want: []string{
		"(Log in goroutine after TestProgressCountsFirstInSubtest/copy has completed)"}},
	// A subtest's late log goes to its parent, which still runs.
	{dir: "latelog", run: "TestSubtestLogsToItsParent$"},
	// Over 2,000 transitions of setup before the bug: past the depth
	// bound of C targets, within that of Go targets.
	{dir: "longsetup", flags: []string{"--no-minimise"}, banner: "*** DEADLOCK DETECTED ***", want: []string{
		"waits in Mutex.Lock for", "main.go:31  b.Lock()", "main.go:39  a.Lock()"}},
	{dir: "xtestonly", run: "TestLockOrder$", banner: "*** DEADLOCK DETECTED ***", want: []string{
		"waits in Mutex.Lock for", "lockorder_test.go:22  b.Lock()", "lockorder_test.go:30  a.Lock()"}},
	// Kernels TestSelectMissingStop, TestFirstErrorLeaksOthers.
	{long: true, dir: "fanin", banner: "*** THREADS LEAKED: BLOCKED FOREVER AT EXIT ***", want: []string{
		"waits in Chan.Send for results (no receiver)", "Select(<-results, <-cancel)", "results <- id * 10", "main.go:14", "main.go:17", "select {"}},
	// Kernel TestCallbackUnderLock.
	{long: true, dir: "doublelock", banner: "*** DEADLOCK DETECTED ***", want: []string{
		"thread 2 waits in Mutex.Lock for r.mu (held by thread 2)", "main.go:17  r.mu.Lock()"}},
	// Kernel TestRecursiveReadLock.
	{long: true, dir: "rwrecursive", banner: "*** DEADLOCK DETECTED ***", want: []string{
		"waits in RWMutex.RLock for c.mu (thread 2 is waiting to write-lock it)", "main.go:18  c.mu.RLock()",
		"waits in RWMutex.Lock for c.mu (read-locked by thread 1)"}},
	// Kernel TestTimeoutLeaksFastWorker; ctxleak below.
	{long: true, dir: "timeoutleak", banner: "*** THREADS LEAKED: BLOCKED FOREVER AT EXIT ***", want: []string{
		"time.Sleep until +50ms", "timer fires at +100ms", "waits in Chan.Send for ch (no receiver)", "main.go:20"}},
	{dir: "ctxleak", banner: "*** THREADS LEAKED: BLOCKED FOREVER AT EXIT ***", want: []string{
		"timer fires at +30ms", "waits in Chan.Send for out (no receiver)", "main.go:15", "out <- 42"}},
	// Oracle TestContextCancelStopsWorker.
	{long: true, dir: "ctxok"},
	// Kernels TestCancelledRequestLeaksHandler, TestCancelBeforeTheWorkerStarts.
	{long: true, dir: "ctxcancel", banner: "*** THREADS LEAKED: BLOCKED FOREVER AT EXIT ***", want: []string{
		"waits in Chan.Send for out (no receiver)", "main.go:18", "out <- i"}},
	// Kernels TestWaitGroupAddInGoroutine, TestRangeNeverClosed.
	{long: true, dir: "wgchan", banner: "*** DEADLOCK DETECTED ***", want: []string{
		"waits in WaitGroup.Wait for wg (counter 2)", "main.go:19  results <- i * i"}},
	// Oracle TestWaitGroupGo.
	{long: true, dir: "wgchanok"},
	// A sync.Pool is not modelled: no "exhaustive" (what
	// TestGoNotInstrumentedInVerdict asserts of other constructs).
	{long: true, dir: "bufpool", want: []string{"Search: complete over the modelled operations (the portfolio's DFS with DPOR finished)",
		"not exhaustive: 1 construct is not modelled", "Not modelled: main.go:14: sync.Pool (a pool's Get and Put"}},
	// Kernel TestCondLostSignal.
	{long: true, dir: "condsignal", banner: "*** DEADLOCK DETECTED ***", want: []string{
		"thread 1 waits in Cond.Wait for cond (not signalled)", "main.go:23"}},
	// Go's panic (with the race detector, the late send and the close
	// race first).
	{dir: "closesend", banner: "*** CRASH IN THE PROGRAM ***", want: []string{
		"panic: send on closed channel events", "main.go:18"}},
	{dir: "timerstop", banner: "*** DEADLOCK DETECTED ***", want: []string{
		"waits in Chan.Recv for t.C (no sender)", "main.go:23"}},
	// Oracle TestTimeoutAsGuard.
	{long: true, dir: "timerstopok"},
	// The clock moves on between two readings, as a real one does.
	{dir: "expiry", run: "TestExpiry$"},
	// A channel closed, and a context cancelled, by code stdbg does not
	// see (the package's initialisation, the standard library) are
	// closed for stdbg too.
	{dir: "pkginit", run: "TestReady$"},
	{dir: "pkginit", run: "TestStop$"},
	{dir: "counter", race: true, banner: "*** DATA RACE ***", want: []string{
		"WARNING: DATA RACE", "Previous write at", "main.go:22", "main.(*stats).hit"}},
	{dir: "lottery", banner: "*** CRASH IN THE PROGRAM ***", want: []string{
		"panic: slot 2 paid nothing", "main.go:34"}},
	// Minimising these spends thousands of executions for a trace no
	// clearer than the first one found.
	{dir: "atomiccount", flags: []string{"--no-minimise"}, banner: "*** CRASH IN THE PROGRAM ***", want: []string{
		"panic: served 1 requests, want 2", "atomic.Load(&mem#1)", "main.go:20  n := atomic.LoadInt64(&served)",
		"atomic.Store(&mem#1)", "main.go:21  atomic.StoreInt64(&served, n+1)"}},
	{dir: "atomiccountok"},
	// atomiccount above.
	{long: true, dir: "atomicflag", flags: []string{"--no-minimise"}, banner: "*** CRASH IN THE PROGRAM ***", want: []string{
		"panic: service started 2 times", "main.go:19  if atomic.LoadInt32(&started) == 0 {",
		"main.go:20  atomic.StoreInt32(&started, 1)", "atomic.Add(&mem#2)"}},
}

var replayLine = regexp.MustCompile(`Replay: stdbg replay --schedule '([^']*)'`)

// TestPlainGoZoo checks each plain Go program or test of the zoo without
// any change to its sources: stdbg instruments it at build time, finds the
// bug of a buggy one (kind and place) and replays it, and finds nothing in
// a correct one. Each program is a build of its own: those whose
// behaviour another case or test asserts run with -e2e.long.
func TestPlainGoZoo(t *testing.T) {
	if testing.Short() {
		t.Skip("builds Go programs")
	}
	t.Setenv("STDBG_ZOO", "1")
	for _, z := range zoo {
		name := z.dir
		if z.run != "" {
			name += "/" + strings.Trim(z.run, "$")
		}
		t.Run(name, func(t *testing.T) {
			if z.long && !clirun.Long() {
				t.Skip("its behaviour is asserted by another case: run with -e2e.long")
			}
			// Mostly go build and a few executions: two at once keep
			// both CPUs busy.
			t.Parallel()
			dir := filepath.Join(clirun.Root(), "examples", "go", "plain", z.dir)
			race := fmt.Sprintf("--races=%v", z.race)
			args := append([]string{"find", race}, z.flags...)
			if z.run != "" {
				args = append(args, "--run", z.run)
			}
			out, errs, code := clirun.Stdbg(t, append(args, dir)...)
			if z.banner == "" {
				if code != cli.ExitClean {
					t.Fatalf("find on a correct version: exit %d\n%s\n%s", code, out, errs)
				}
				for _, w := range z.want {
					if !strings.Contains(out, w) {
						t.Errorf("output lacks %q:\n%s", w, out)
					}
				}
				return
			}
			if code != cli.ExitBug || !strings.Contains(out, z.banner) {
				t.Fatalf("find: exit %d, want %s\n%s\n%s", code, z.banner, out, errs)
			}
			for _, w := range z.want {
				if !strings.Contains(out, w) {
					t.Errorf("report lacks %q:\n%s", w, out)
				}
			}
			m := replayLine.FindStringSubmatch(out)
			if m == nil {
				t.Fatalf("no replay command in:\n%s", out)
			}
			args = []string{"replay", race, "--schedule", m[1]}
			if z.run != "" {
				args = append(args, "--run", z.run)
			}
			rout, rerrs, code := clirun.Stdbg(t, append(args, dir)...)
			if code != cli.ExitBug || !strings.Contains(rout, z.banner) {
				t.Fatalf("replay %q: exit %d\n%s\n%s", m[1], code, rout, rerrs)
			}
		})
	}
	// Nothing was written into the user's directories.
	if _, err := os.Stat(filepath.Join(clirun.Root(), "examples", "go", "plain", "transfer", "testdata")); err == nil {
		t.Error("find wrote into the package's directory")
	}
}

// TestPlainGoOutsideTheCheck checks that a test waiting for a goroutine
// that its package started as it initialised (before the check, out of
// stdbg's control) is not reported as a deadlock: stdbg says that it
// cannot judge it, which goroutine keeps it from judging and where that
// goroutine was started, with exit status 2.
func TestPlainGoOutsideTheCheck(t *testing.T) {
	if testing.Short() {
		t.Skip("builds Go programs")
	}
	dir := filepath.Join(clirun.Root(), "examples", "go", "plain", "pkginit")
	out, errs, code := clirun.Stdbg(t, "find", "--races=false", "--run", "TestAsk$", dir)
	if code != cli.ExitUsage || strings.Contains(out, "DEADLOCK") {
		t.Fatalf("find: exit %d\n%s\n%s", code, out, errs)
	}
	for _, w := range []string{"stdbg cannot judge this program: no thread can go on: thread 1 is blocked",
		"a goroutine that stdbg does not control is alive", "started at pkginit.go:21 before the check"} {
		if !strings.Contains(errs, w) {
			t.Errorf("the error lacks %q:\n%s", w, errs)
		}
	}
	// stdbg test: unjudged, which claims no bug, and the package
	// passes.
	t.Setenv("STDBG_TEST_CACHE", t.TempDir())
	out, errs, code = clirun.Stdbg(t, "test", "--races=false", "-count=1", dir)
	if code != cli.ExitClean {
		t.Fatalf("stdbg test: exit %d\n%s\n%s", code, out, errs)
	}
	for _, w := range []string{"unjudged   TestAsk (", "): cannot judge: no thread can go on", "1 cannot judge", "ok         TestReady (", "ok         TestStop ("} {
		if !strings.Contains(out, w) {
			t.Errorf("stdbg test's output lacks %q:\n%s", w, out)
		}
	}
	// With the race detector: stdbg describes the server as the test
	// runs, and nothing of that may look like a race with the test's own
	// use of package fmt (the detector took fmt's printers, which stdbg's
	// scheduler shared with the program, for one, and package testing
	// failed the test).
	out, errs, code = clirun.Stdbg(t, "test", "--races=true", "-count=1", "-run", "TestPrint$", dir)
	if code != cli.ExitClean || !strings.Contains(out, "ok         TestPrint (") {
		t.Errorf("stdbg test --races=true -run TestPrint$: exit %d\n%s\n%s", code, out, errs)
	}
}

// TestPlainGoOtherModule checks a plain program of a module other than
// stdbg's: the build gets sthread from stdbg's sources through a go.mod of
// its own, and the module's files are left as they were.
func TestPlainGoOtherModule(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds a Go program")
	}
	dir := t.TempDir()
	files := map[string]string{
		"go.mod": "module example.com/shop\n\ngo 1.26\n",
		"main.go": `package main

import (
	"fmt"
	"sync"
)

func main() {
	var a, b sync.Mutex
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); a.Lock(); b.Lock(); b.Unlock(); a.Unlock() }()
	go func() { defer wg.Done(); b.Lock(); a.Lock(); a.Unlock(); b.Unlock() }()
	wg.Wait()
	fmt.Println("ok")
}
`,
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, errs, code := clirun.Stdbg(t, "find", "--races=false", dir)
	if code != cli.ExitBug || !strings.Contains(out, "*** DEADLOCK DETECTED ***") || !strings.Contains(out, "main.go:13") {
		t.Fatalf("find: exit %d\n%s\n%s", code, out, errs)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != len(files) {
		t.Errorf("the module's directory holds %d files after find, want %d", len(entries), len(files))
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "go.mod")); string(b) != files["go.mod"] {
		t.Errorf("go.mod changed:\n%s", b)
	}
}

// A Go program runs many executions in one process. One that leaves state
// in the process from one run of main to the next (here, an environment
// variable) fails in the second execution of a process, never in a fresh
// one: find sees that the failure does not reproduce in a fresh process,
// searches again with a fresh process per execution, and finds nothing.
func TestGoProcessStateFallsBack(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds a Go program")
	}
	dir := filepath.Join(clirun.Root(), "examples", "go", "plain", "processstate")
	out, errs, code := clirun.Stdbg(t, "find", "--races=false", dir)
	if code != cli.ExitClean || !strings.Contains(out, "No property violation found.") ||
		!strings.Contains(errs, "searching again with a fresh process per execution") {
		t.Fatalf("find: exit %d\n%s\n%s", code, out, errs)
	}
}

// A budget is a budget: a bug whose minimisation would take minutes (over
// 2,000 steps to shrink) is reported within the budget, not proven
// minimal. How far a search gets within 3 s depends on the machine: on a
// busy one it may end, its budget spent, before it finds the bug, which
// it must then say rather than claim the program correct. That the
// budget, and not the minimisation's own bound, ends a minimisation is
// asserted whatever the machine's speed by engine/hunt's
// TestBudgetBoundsMinimisation (a search bounded by executions alone, the
// budget the minimisation's).
func TestBudgetBoundsMinimisation(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds a Go program")
	}
	dir := filepath.Join(clirun.Root(), "examples", "go", "plain", "longsetup")
	out, errs, code := clirun.Stdbg(t, "find", "--races=false", "--budget", "3s", dir)
	switch code {
	case cli.ExitBug:
		// Whether minimisation could start before the budget ran out
		// depends on the machine; that it stopped within the budget does
		// not.
		if !strings.Contains(out, "*** DEADLOCK DETECTED ***") ||
			!strings.Contains(out, "not proven minimal: budget spent") && !strings.Contains(out, "not minimised: the budget was spent") {
			t.Fatalf("find --budget 3s: exit %d\n%s\n%s", code, out, errs)
		}
	case cli.ExitClean:
		// The search's share of the budget ended before the bug.
		if !strings.Contains(out+errs, "budget") || strings.Contains(out+errs, "exhaustive") {
			t.Fatalf("find --budget 3s: exit %d without saying the budget ended the search:\n%s\n%s", code, out, errs)
		}
		t.Logf("the budget ended the search before it found the bug (a busy machine):\n%s", out)
	default:
		t.Fatalf("find --budget 3s: exit %d\n%s\n%s", code, out, errs)
	}
}

// TestPlainGoRandSeed checks that the seed of a plain Go program's random
// numbers decides what find finds, is recorded in the corpus entry, and is
// used by replay and corpus run whatever the environment then says. The
// lottery draws slot 2 with seed 1, slot 1 with seed 2 and slot 0 with
// seed 5.
func TestPlainGoRandSeed(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a Go program")
	}
	dir := filepath.Join(clirun.Root(), "examples", "go", "plain", "lottery")
	// The environment's seed is recorded in the entry; another seed in
	// the environment then: the entry's own wins.
	clirun.SettingKept(t, "STDBG_RAND_SEED=2", "1", []string{"--races=false", "--no-minimise", dir},
		[]string{"panic: slot 1 paid nothing"}, "panic: slot 1 paid nothing")

	// The flag beats the environment, and the replay command carries it.
	out, errs, code := clirun.Stdbg(t, "find", "--races=false", "--no-minimise", "--rand-seed", "5", dir)
	if code != cli.ExitBug || !strings.Contains(out, "panic: slot 0 paid nothing") {
		t.Fatalf("find --rand-seed 5: exit %d\n%s\n%s", code, out, errs)
	}
	m := regexp.MustCompile(`Replay: stdbg replay --schedule '([^']*)' --rand-seed 5 `).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no replay command with the seed in:\n%s", out)
	}
	out, errs, code = clirun.Stdbg(t, "replay", "--races=false", "--schedule", m[1], "--rand-seed", "5", dir)
	if code != cli.ExitBug || !strings.Contains(out, "panic: slot 0 paid nothing") {
		t.Fatalf("replay --rand-seed 5: exit %d\n%s\n%s", code, out, errs)
	}

	if _, errs, code := clirun.Stdbg(t, "find", "--rand-seed", "-1", dir); code != cli.ExitUsage || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
		t.Errorf("find --rand-seed -1: exit %d, want %d with a one-line reason:\n%s", code, cli.ExitUsage, errs)
	}
}

// deadlineTest is a Go test that polls an atomic until a deadline read
// from the clock: its turns change the clock, so they never wait, and run
// to the depth bound when the goroutine that would end them does not run.
const deadlineTest = `package m

import (
	"sync/atomic"
	"testing"
	"time"
)

func TestDeadline(t *testing.T) {
	var result atomic.Int32
	go func() { result.Store(7) }()
	deadline := time.Now().Add(time.Second)
	for result.Load() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
	}
}
`

// TestFindGoPollDeadline: a Go test's search runs in the test's process,
// and its verdict says where the executions cut by the depth bound were
// looping too: a poll against the clock (docs/spin.md; the C polls are
// e2e/cfind's TestFindSpinLoops).
func TestFindGoPollDeadline(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a Go test")
	}
	t.Parallel()
	mod := t.TempDir()
	for name, text := range map[string]string{"go.mod": "module example.com/m\n\ngo 1.22\n", "deadline_test.go": deadlineTest} {
		if err := os.WriteFile(filepath.Join(mod, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, errs, code := clirun.Stdbg(t, "find", "--max-depth", "300", "--executions", "5", "--run", "^TestDeadline$", mod)
	if code != cli.ExitClean {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, cli.ExitClean, out, errs)
	}
	for _, w := range []string{"/!\\ Max depth reached ! /!\\", "The first execution cut was looping:",
		"thread 1 polls ", "at deadline_test.go:13", "--max-depth above 300"} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
}

// TestFindGoLivelock: find --livelock on a Go program (an sthread one)
// reports the lasso of its livelock, and replay --cycles runs it round
// (the C livelocks are e2e/cfind's).
func TestFindGoLivelock(t *testing.T) {
	t.Parallel()
	prog := filepath.Join(clirun.Root(), "examples", "go", "backoff-prog")
	out, errs, code := clirun.Stdbg(t, "find", "--memory=false", "--livelock", prog)
	if code != cli.ExitBug || !strings.Contains(out, "Path = 1;1;1;2;3 (2;2;3;3)*") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	out, errs, code = clirun.Stdbg(t, "replay", "--memory=false", "--cycles", "2", "--schedule", "1;1;1;2;3 (2;2;3;3)*", prog)
	if code != cli.ExitBug || !strings.Contains(out, "2 of the runs came back") {
		t.Fatalf("replay: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
}
