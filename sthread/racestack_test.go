package sthread_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/internal/rtnames"
	"github.com/stdbg/stdbg/sthread"
	"github.com/stdbg/stdbg/sthread/internal/rt"
	ssync "github.com/stdbg/stdbg/sthread/sync"
	stime "github.com/stdbg/stdbg/sthread/time"
)

// raceStackEnv marks the process that TestRaceReportsKeepTheirSize starts.
const raceStackEnv = "STDBG_TEST_RACE_STACK"

// raceLogLimit is the file-size limit (RLIMIT_FSIZE) of that process, as a
// grader's sandbox limits a submission's files (more tightly: the reports
// the test expects take a few kilobytes).
const raceLogLimit = 64 << 10

// raceAfter is the execution from which the program of
// TestRaceReportsKeepTheirSize races; every execution ends with a
// goroutine parked in a call a few frames deep (it leaks), which the end
// of the execution unwinds.
const raceAfter = 120

// recvDeep receives from c n frames below its caller.
func recvDeep(n int, c sthread.Chan[bool]) {
	if n > 0 {
		recvDeep(n-1, c)
		return
	}
	c.Recv()
}

// lockDeep counts a hit under mu n frames below its caller.
func lockDeep(n int, mu *ssync.Mutex, hits *int) {
	if n > 0 {
		lockDeep(n-1, mu, hits)
		return
	}
	mu.Lock()
	*hits++
	mu.Unlock()
}

// The race detector keeps a stack of its own per goroutine, and the frames
// that a panic unwinds stay on it: a goroutine that ran a thread in
// execution after execution, each ended by unwinding its parked threads,
// carried the program's frames of all of them, so that each report of a
// race grew with the executions before it (a grading wrote 198 reports of
// 85 KB, the trampoline's frames repeated in their stacks), and the
// detector, which tells races apart by their stacks, reported every
// repetition again. A race that appears only after many executions was
// then lost under a file-size limit: its report did not fit. Here it is
// found, its stacks hold the trampoline once each, and the reports stay
// small.
func TestRaceReportsKeepTheirSize(t *testing.T) {
	if os.Getenv(raceStackEnv) != "" {
		exploreLateRace(t)
		return
	}
	if testing.Short() {
		t.Skip("explores a program in a process of its own, built with the race detector")
	}
	dir := t.TempDir()
	out, err := raceStackChild(t, "TestRaceReportsKeepTheirSize", dir)
	if !strings.Contains(string(out), "late race found") {
		t.Errorf("the race of execution %d was not found (%v):\n%s", raceAfter, err, out)
	}
	logs, _ := filepath.Glob(filepath.Join(dir, "reports.*"))
	if len(logs) != 1 {
		t.Fatalf("%d files of race reports in %s, want 1:\n%s", len(logs), dir, out)
	}
	b, err := os.ReadFile(logs[0])
	if err != nil {
		t.Fatal(err)
	}
	reports := strings.Split(string(b), "WARNING: DATA RACE")[1:]
	if len(reports) == 0 {
		t.Fatalf("no race report in %s:\n%s", logs[0], out)
	}
	for i, rep := range reports {
		// Each stack of a report (the accesses', the goroutines'
		// creations) ends in the trampoline at most once.
		for _, st := range strings.Split(rep, "\n\n") {
			if n := strings.Count(st, "sthread/internal/rt.(*Thread).run()"); n > 1 {
				t.Errorf("report %d of %d: a stack holds the trampoline %d times:\n%s", i+1, len(reports), n, st)
				break
			}
		}
	}
	t.Logf("%d reports, %d bytes", len(reports), len(b))
	for i, rep := range reports {
		// (This program's report takes about 2 KB.)
		if len(rep) > 8<<10 {
			t.Errorf("report %d of %d takes %d bytes", i+1, len(reports), len(rep))
		}
	}
}

// raceStackChild runs test in a process of its own, built with the race
// detector, started as stdbg starts a target, with the detector's reports
// going to a file in dir.
func raceStackChild(t *testing.T, test, dir string) ([]byte, error) {
	var cmd *exec.Cmd
	if raceBuild {
		cmd = exec.Command(os.Args[0], "-test.run=^"+test+"$", "-test.v")
	} else {
		cmd = exec.Command("go", "test", "-race", "-count=1", "-v", "-run=^"+test+"$", ".")
	}
	// (The last log_path is the one that counts.)
	env := rtnames.WithRaceLog(os.Environ())
	env[len(env)-1] += " log_path=" + filepath.Join(dir, "reports")
	cmd.Env = append(env, raceStackEnv+"=1", "STDBG_CACHE="+t.TempDir())
	return cmd.CombinedOutput()
}

// A search writes a report in every execution in which a race happens:
// under a file-size limit, those of a race repeated from the first
// execution on filled the file, and a race that appears only later could
// not be written, nor found. The runtime empties the file once it has
// taken every report in it.
func TestRaceFoundAfterManyReports(t *testing.T) {
	if os.Getenv(raceStackEnv) != "" {
		exploreRepeatedRaces(t)
		return
	}
	if testing.Short() {
		t.Skip("explores a program in a process of its own, built with the race detector")
	}
	out, err := raceStackChild(t, "TestRaceFoundAfterManyReports", t.TempDir())
	if !strings.Contains(string(out), "first race found") {
		t.Errorf("the race of every execution was not found (%v):\n%s", err, out)
	}
	if !strings.Contains(string(out), "late race found") {
		t.Errorf("the race of execution %d was not found (%v):\n%s", raceAfter, err, out)
	}
}

// underRaceLogLimit makes this process, a race build, one that hides
// stdbg's hand-overs from the detector (as a target does) and whose files
// cannot grow past raceLogLimit.
func underRaceLogLimit(t *testing.T) {
	if !raceBuild {
		t.Fatal("not built with the race detector")
	}
	rt.HideRaces()
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: raceLogLimit, Max: raceLogLimit}); err != nil {
		t.Fatal(err)
	}
}

// bumpFirst and bumpLate are the racy accesses of exploreRepeatedRaces,
// each on the line of its function, by which its report is recognised.
//
//go:noinline
func bumpFirst(p *int) { *p++ }

//go:noinline
func bumpLate(p *int) { *p++ }

// funcWhere is the place of the first line of function f as a race's
// report names it (its file's base name and the line).
func funcWhere(f any) string {
	file, line := runtime.FuncForPC(reflect.ValueOf(f).Pointer()).FileLine(reflect.ValueOf(f).Pointer())
	return filepath.Base(file) + ":" + strconv.Itoa(line)
}

// exploreRepeatedRaces explores, under the file-size limit, a program with
// a race in every execution and another in the last executions of the
// search, from execution raceAfter on, and prints which were found. An
// execution ends at the first race that its transition reports (the
// others are dropped with it), so the late access comes first. (The
// replays that explain the bugs come after the search: they race as the
// first executions do.)
func exploreRepeatedRaces(t *testing.T) {
	underRaceLogLimit(t)
	executions := 0
	f := func() {
		executions++
		lateRace := executions > raceAfter && executions <= raceAfter+10
		first, late := 0, 0
		done := sthread.MakeChan[bool](0)
		sthread.Go(func() {
			if lateRace {
				bumpLate(&late)
			}
			bumpFirst(&first)
			done.Send(true)
		})
		bumpLate(&late)
		bumpFirst(&first)
		done.Recv()
	}
	res, err := sthread.Explore(f, sthread.All(), sthread.NoMinimise(), sthread.MaxExecutions(raceAfter+10),
		sthread.Strategy(search.NewRandom(1)))
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range res.Bugs {
		if b.Kind != search.DataRace {
			continue
		}
		switch b.Where {
		case funcWhere(bumpFirst):
			t.Log("first race found")
		case funcWhere(bumpLate):
			t.Log("late race found")
		default:
			t.Logf("a race at %s", b.Where)
		}
	}
}

// exploreLateRace explores, under the file-size limit, a program whose
// goroutines race from execution raceAfter on, and prints whether the
// race was found.
func exploreLateRace(t *testing.T) {
	underRaceLogLimit(t)
	executions := 0
	f := func() {
		executions++
		var mu ssync.Mutex
		shared, hits := 0, 0
		done := sthread.MakeChan[bool](0)
		never := sthread.MakeChan[bool](0)
		for i := range 2 {
			sthread.Go(func() {
				lockDeep(4, &mu, &hits)
				if i == 0 && executions > raceAfter {
					shared++
				}
				lockDeep(4, &mu, &hits)
				done.Send(true)
				if i == 0 {
					recvDeep(8, never) // leaks
				}
			})
		}
		lockDeep(4, &mu, &hits)
		shared++
		lockDeep(4, &mu, &hits)
		for range 2 {
			done.Recv()
		}
	}
	res, err := sthread.Explore(f, sthread.All(), sthread.NoMinimise(), sthread.MaxExecutions(raceAfter+10),
		sthread.Strategy(search.NewRandom(1)))
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range res.Bugs {
		if b.Kind == search.DataRace {
			t.Log("late race found, after " + strconv.FormatInt(res.Stats.Executions, 10) + " executions")
		}
	}
}

// twoReports is a program whose race makes two reports in one transition:
// a goroutine writes two variables, and the checked function, once it has
// slept (which orders nothing), reads both; when the goroutine wrote
// first, the detector reports the read of each address.
func twoReports() {
	a, b := 0, 0
	done := sthread.MakeChan[bool](1)
	sthread.Go(func() {
		a++
		b++
		done.Send(true)
	})
	stime.Sleep(time.Millisecond)
	_ = a + b
	done.Recv()
}

// handOver is a correct program: what the goroutine writes is read after
// the receive that its send hands over to.
func handOver() {
	a := 0
	done := sthread.MakeChan[bool](0)
	sthread.Go(func() {
		a++
		done.Send(true)
	})
	done.Recv()
	_ = a
}

// The reports the detector makes in one transition belong to that
// transition's execution, which ends at the first. Those left in the file
// were taken by the next execution in the process at its first scheduling
// point: a correct program explored next was reported racy with the
// earlier one's stacks (and a crashing one's own race, in a later
// execution of its search, went unreported: TestProgramRacesVisible's
// flake).
func TestRaceReportsStayInTheirExecution(t *testing.T) {
	if os.Getenv(raceStackEnv) != "" {
		exploreAfterTwoReports(t)
		return
	}
	if testing.Short() {
		t.Skip("explores programs in a process of their own, built with the race detector")
	}
	// (Package testing fails the process's test for the races, which
	// the detector reports: it says what it found instead.)
	out, err := raceStackChild(t, "TestRaceReportsStayInTheirExecution", t.TempDir())
	if !strings.Contains(string(out), "explored all three\n") || strings.Contains(string(out), "wrong: ") {
		t.Fatalf("%v\n%s", err, out)
	}
}

// exploreAfterTwoReports explores twoReports, then the correct handOver,
// then twoReports again over all its schedules, in one process that hides
// its hand-overs as a target does.
func exploreAfterTwoReports(t *testing.T) {
	if !raceBuild {
		t.Fatal("not built with the race detector")
	}
	rt.HideRaces()
	res, err := sthread.Explore(twoReports, sthread.NoMinimise())
	if err != nil {
		t.Fatalf("wrong: %v", err)
	}
	if len(res.Bugs) != 1 || res.Bugs[0].Kind != search.DataRace {
		t.Fatalf("wrong: twoReports: %v, want its race", res.Bugs)
	}
	res, err = sthread.Explore(handOver, sthread.All(), sthread.NoMinimise())
	if err != nil {
		t.Fatalf("wrong: %v", err)
	}
	for _, b := range res.Bugs {
		t.Logf("wrong: a correct program explored after a race reported twice in one transition: %s", b)
	}
	res, err = sthread.Explore(twoReports, sthread.All(), sthread.NoMinimise())
	if err != nil {
		t.Fatalf("wrong: %v", err)
	}
	for _, b := range res.Bugs {
		if b.Kind != search.DataRace {
			t.Logf("wrong: twoReports, over all its schedules: %s", b)
		}
	}
	if len(res.Bugs) == 0 || !res.Complete {
		t.Logf("wrong: twoReports, over all its schedules: %d bugs, complete %v, want its race", len(res.Bugs), res.Complete)
	}
	t.Log("explored all three\n")
}
