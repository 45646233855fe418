package dlvbridge

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stdbg/stdbg/internal/testkit/testcache"
)

// needDlv returns a Delve executable: dlv on PATH (CI installs it), else
// the pinned version, built once per test run into a directory TestMain
// owns. These tests drive the real Delve: they never skip.
func needDlv(t *testing.T) string {
	t.Helper()
	dlvOnce.Do(func() {
		if p, err := Find(""); err == nil {
			dlvPath = p
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		dlvPath, dlvErr = Build(ctx, testDir)
	})
	if dlvErr != nil {
		t.Fatalf("no dlv on PATH and building it failed: %v", dlvErr)
	}
	return dlvPath
}

var (
	dlvOnce sync.Once
	dlvPath string
	dlvErr  error
	// testDir is the directory this test run owns (TestMain).
	testDir string
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "stdbg-dlvbridge-test-")
	if err != nil {
		panic(err)
	}
	testDir = dir
	// The targets' builds go to a stdbg cache (testcache: the test
	// run's shared one, or one of the package's own).
	remove, err := testcache.Setup()
	if err != nil {
		panic(err)
	}
	code := m.Run()
	remove()
	os.RemoveAll(dir)
	os.Exit(code)
}

// buildDebug builds a Go package of the repository with optimisations off
// into a temporary directory.
func buildDebug(t *testing.T, pkg string, test bool) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), filepath.Base(pkg))
	args := []string{"build", "-gcflags=all=-N -l", "-o", out, "."}
	if test {
		args = []string{"test", "-c", "-gcflags=all=-N -l", "-o", out, "."}
	}
	cmd := exec.Command("go", args...)
	cmd.Dir = pkg
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %v: %v\n%s", args, err, b)
	}
	return out
}

// TestVersionIsPinned checks that Build builds the version go.mod pins.
func TestVersionIsPinned(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^\s*` + regexp.QuoteMeta(Module) + `\s+(\S+)`).FindSubmatch(b)
	if m == nil {
		t.Fatalf("go.mod does not require %s", Module)
	}
	if string(m[1]) != Version {
		t.Errorf("go.mod pins %s %s, dlvbridge.Version is %s", Module, m[1], Version)
	}
}

func TestFind(t *testing.T) {
	cache := t.TempDir()
	built := builtPath(cache)
	if err := os.MkdirAll(filepath.Dir(built), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(built, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	onPath := t.TempDir()
	if err := os.WriteFile(filepath.Join(onPath, "dlv"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path, env, cache string
		want                   string
		notFound               bool
	}{
		{name: "on PATH", path: onPath, cache: cache, want: filepath.Join(onPath, "dlv")},
		{name: "built", path: t.TempDir(), cache: cache, want: built},
		{name: "STDBG_DLV", path: t.TempDir(), env: filepath.Join(onPath, "dlv"), cache: cache, want: filepath.Join(onPath, "dlv")},
		{name: "nowhere", path: t.TempDir(), cache: t.TempDir(), notFound: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("PATH", tt.path)
			t.Setenv("STDBG_DLV", tt.env)
			got, err := Find(tt.cache)
			if tt.notFound {
				if !errors.Is(err, ErrNotFound) {
					t.Fatalf("Find = %q, %v; want ErrNotFound", got, err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("Find = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

// TestBuild builds Delve at the pinned version, as stdbg does when dlv is
// not installed.
func TestBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds Delve")
	}
	cache := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	p, err := Build(ctx, cache)
	if err != nil {
		t.Fatal(err)
	}
	if p != builtPath(cache) {
		t.Errorf("Build = %s, want %s", p, builtPath(cache))
	}
	out, err := exec.Command(p, "version").CombinedOutput()
	if err != nil || !strings.Contains(string(out), strings.TrimPrefix(Version, "v")) {
		t.Fatalf("%s version: %v\n%s", p, err, out)
	}
	t.Setenv("PATH", t.TempDir())
	t.Setenv("STDBG_DLV", "")
	if got, err := Find(cache); err != nil || got != p {
		t.Errorf("Find after Build = %q, %v; want %q", got, err, p)
	}
}

// stepRE matches a step of the trace sthread prints for a replay.
var stepRE = regexp.MustCompile(`(?m)^\s+step (\d+)\s+thread (\d+)\s.*\s(\S+\.go):(\d+)\s`)

// traceStep is one step of that trace.
type traceStep struct {
	thread int
	file   string
	line   int
}

// inProcessTrace runs the replay without a debugger and returns the steps
// of the trace it prints.
func inProcessTrace(t *testing.T, bin string, args []string, dir, sched string) []traceStep {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "STDBG_REPLAY_SCHEDULE="+sched)
	out, _ := cmd.CombinedOutput()
	var steps []traceStep
	for _, m := range stepRE.FindAllStringSubmatch(string(out), -1) {
		k, _ := strconv.Atoi(m[1])
		th, _ := strconv.Atoi(m[2])
		line, _ := strconv.Atoi(m[4])
		if k != len(steps)+1 {
			t.Fatalf("trace step %d out of order:\n%s", k, out)
		}
		steps = append(steps, traceStep{th, m[3], line})
	}
	if len(steps) == 0 {
		t.Fatalf("no trace from %s with schedule %s:\n%s", bin, sched, out)
	}
	return steps
}

// TestFollowsSchedule drives Delve through replays of the Go examples: at
// every step Delve stops in the goroutine of the thread that runs it, at
// the source line of its operation (as the trace says), each thread keeps
// its goroutine, and the failure happens after the last step.
func TestFollowsSchedule(t *testing.T) {
	dlv := needDlv(t)
	examples := filepath.Join("..", "..", "examples", "go")
	tests := []struct {
		name, pkg string
		test      bool
		args      []string
		sched     string
		outcome   string
	}{
		{name: "embrace-prog", pkg: "embrace-prog", sched: "1;1;2;2", outcome: "deadlock: "},
		{name: "leak-prog", pkg: "leak-prog", sched: "1;1;2;2;2;1;1;3;3", outcome: "leak: "},
		{name: "embrace-test", pkg: "embrace-test", test: true, args: []string{"-test.run=^TestEmbrace$", "-test.count=1"},
			sched: "1;1;1;2;2;3;3", outcome: "deadlock: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, err := filepath.Abs(filepath.Join(examples, tt.pkg))
			if err != nil {
				t.Fatal(err)
			}
			bin := buildDebug(t, dir, tt.test)
			want := inProcessTrace(t, bin, tt.args, dir, tt.sched)
			var out strings.Builder
			b, err := Start(Config{Dlv: dlv, Program: bin, Args: tt.args, Dir: dir, Schedule: tt.sched, Stdout: &out, Stderr: &out, Timeout: time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			goroutineOf := map[int]int64{}
			threadOf := map[int64]int{}
			for k := 1; ; k++ {
				s, exit, err := b.Next()
				if err != nil {
					t.Fatalf("step %d: %v", k, err)
				}
				if exit != nil {
					t.Fatalf("the target exited (status %d) before the end of the replay", exit.Status)
				}
				if s.Over {
					if k != len(want)+1 || s.Step != len(want) {
						t.Errorf("the replay ended at stop %d (step %d), want after step %d", k, s.Step, len(want))
					}
					if !strings.HasPrefix(s.Outcome, tt.outcome) {
						t.Errorf("outcome %q, want %s...", s.Outcome, tt.outcome)
					}
					break
				}
				if k > len(want) {
					t.Fatalf("stop %d past the %d steps of the trace", k, len(want))
				}
				w := want[k-1]
				if s.Step != k || s.Steps != len(want) || s.Thread != w.thread {
					t.Errorf("stop %d: step %d/%d thread %d, want step %d/%d thread %d", k, s.Step, s.Steps, s.Thread, k, len(want), w.thread)
				}
				if filepath.Base(s.File) != w.file || s.Line != w.line {
					t.Errorf("step %d: Delve shows thread %d at %s:%d, the trace at %s:%d", k, s.Thread, filepath.Base(s.File), s.Line, w.file, w.line)
				}
				if g, ok := goroutineOf[s.Thread]; ok && g != s.Goroutine {
					t.Errorf("step %d: thread %d in goroutine %d, earlier in %d", k, s.Thread, s.Goroutine, g)
				}
				if th, ok := threadOf[s.Goroutine]; ok && th != s.Thread {
					t.Errorf("step %d: goroutine %d runs thread %d and thread %d", k, s.Goroutine, th, s.Thread)
				}
				goroutineOf[s.Thread], threadOf[s.Goroutine] = s.Goroutine, s.Thread
			}
			_, exit, err := b.Next()
			if err != nil || exit == nil || exit.Status != 1 {
				t.Fatalf("after the replay: exit %+v, %v; want status 1", exit, err)
			}
			// The target's output reaches out through Delve's: all of it
			// once Delve has ended.
			b.Close()
			if !strings.Contains(out.String(), "DETECTED") && !strings.Contains(out.String(), "LEAKED") {
				t.Errorf("the target did not report the failure:\n%s", out.String())
			}
		})
	}
}

// TestRunStopsAtBreakpoints sets a breakpoint of the user's through
// Client: Run stops there, in the goroutine of the thread whose step is
// under way, between two steps, and goes on to the next step after it;
// Next calls a stop there an error.
func TestRunStopsAtBreakpoints(t *testing.T) {
	dlv := needDlv(t)
	dir, err := filepath.Abs(filepath.Join("..", "..", "examples", "go", "embrace-prog"))
	if err != nil {
		t.Fatal(err)
	}
	bin := buildDebug(t, dir, false)
	for _, next := range []bool{false, true} {
		b, err := Start(Config{Dlv: dlv, Program: bin, Schedule: "1;1;2;2", Timeout: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		// Line 15, b.Lock() in the goroutine: thread 2 reaches it in
		// step 3 (thread starts), before the step of its b.Lock.
		bp, err := b.Client().CreateBreakpoint(&Breakpoint{File: filepath.Join(dir, "main.go"), Line: 15})
		if err != nil {
			t.Fatal(err)
		}
		var stops []string
		for range 6 {
			run := b.Run
			if next {
				run = b.Next
			}
			s, exit, err := run()
			if err != nil {
				stops = append(stops, "error")
				if !strings.Contains(err.Error(), "not at "+"github.com/stdbg/stdbg/sthread.stepHook") {
					t.Errorf("Next at a breakpoint: %v", err)
				}
				break
			}
			if exit != nil {
				stops = append(stops, "exit "+strconv.Itoa(exit.Status))
				break
			}
			switch {
			case s.Breakpoint != 0:
				stops = append(stops, "breakpoint")
				if s.Breakpoint != bp.ID || s.Thread != 2 || s.Step != 3 || filepath.Base(s.File) != "main.go" || s.Line != 15 || s.Goroutine != s.Goroutines[1] {
					t.Errorf("stop at the breakpoint: %+v; want breakpoint %d, thread 2 (goroutine of Goroutines[1]), step 3, main.go:15", s, bp.ID)
				}
			case s.Over:
				stops = append(stops, "over")
			default:
				stops = append(stops, "step "+strconv.Itoa(s.Step))
			}
		}
		want := "step 1, step 2, step 3, breakpoint, step 4, over"
		if next {
			want = "step 1, step 2, step 3, error"
		}
		if got := strings.Join(stops, ", "); got != want {
			t.Errorf("next=%v: stops %s, want %s", next, got, want)
		}
		b.Close()
	}
}

// TestHandOver leaves the process stopped at a step for another client,
// which finds the goroutine selected, reads the program's variables and
// the replay state, and runs on to the failure.
func TestHandOver(t *testing.T) {
	dlv := needDlv(t)
	dir, err := filepath.Abs(filepath.Join("..", "..", "examples", "go", "embrace-prog"))
	if err != nil {
		t.Fatal(err)
	}
	bin := buildDebug(t, dir, false)
	b, err := Start(Config{Dlv: dlv, Program: bin, Schedule: "1;1;2;2", Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var s *Stop
	for range 2 {
		if s, _, err = b.Next(); err != nil || s == nil {
			t.Fatalf("%+v %v", s, err)
		}
	}
	if err := b.HandOver(s); err != nil {
		t.Fatal(err)
	}
	c, err := Dial(b.Addr, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	st, err := c.GetState()
	if err != nil {
		t.Fatal(err)
	}
	if st.SelectedGoroutine == nil || st.SelectedGoroutine.ID != s.Goroutine {
		t.Errorf("selected goroutine %+v, want %d", st.SelectedGoroutine, s.Goroutine)
	}
	cfg := LoadConfig{MaxStringLen: 64, MaxArrayValues: 64, MaxStructFields: -1, MaxVariableRecurse: 1}
	v, err := c.EvalVariable(EvalScope{GoroutineID: s.Goroutine, Frame: s.Frame}, "transfers", cfg)
	if err != nil || v.Value != "0" {
		t.Errorf("transfers before step 2 = %+v, %v; want 0", v, err)
	}
	v, err = c.EvalVariable(EvalScope{GoroutineID: -1}, `"github.com/stdbg/stdbg/sthread".debugState.Step`, cfg)
	if err != nil || v.Value != "2" {
		t.Errorf("debugState.Step = %+v, %v; want 2", v, err)
	}
	if bps, err := c.ListBreakpoints(false); err != nil {
		t.Fatal(err)
	} else {
		for _, bp := range bps {
			if bp.ID > 0 {
				t.Errorf("the bridge left breakpoint %d (%s) behind", bp.ID, bp.FunctionName)
			}
		}
	}
	var last *DebuggerState
	for st := range c.Continue() {
		last = st
	}
	if last == nil || !last.Exited || last.ExitStatus != 1 {
		t.Fatalf("continue to the end: %+v, want exit status 1", last)
	}
	c.Detach(true)
	if err := b.Wait(30 * time.Second); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkStep measures a replay under Delve: the start of Delve on the
// target (ms/start) and each step, from continuing to the hook to the
// goroutine's user frame found (ms/step).
func BenchmarkStep(b *testing.B) {
	dlv := needDlvB(b)
	dir, err := filepath.Abs(filepath.Join("..", "..", "examples", "go", "leak-prog"))
	if err != nil {
		b.Fatal(err)
	}
	bin := filepath.Join(b.TempDir(), "leak-prog")
	cmd := exec.Command("go", "build", "-gcflags=all=-N -l", "-o", bin, ".")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("%v\n%s", err, out)
	}
	var start, steps time.Duration
	n := 0
	for b.Loop() {
		t0 := time.Now()
		br, err := Start(Config{Dlv: dlv, Program: bin, Schedule: "1;1;2;2;2;1;1;3;3", Timeout: time.Minute})
		if err != nil {
			b.Fatal(err)
		}
		start += time.Since(t0)
		t1 := time.Now()
		for {
			s, exit, err := br.Next()
			if err != nil {
				b.Fatal(err)
			}
			if exit != nil || s.Over {
				break
			}
			n++
		}
		steps += time.Since(t1)
		br.Close()
	}
	b.ReportMetric(float64(start.Milliseconds())/float64(b.N), "ms/start")
	b.ReportMetric(float64(steps.Microseconds())/1000/float64(n), "ms/step")
}

// needDlvB is needDlv for benchmarks.
func needDlvB(b *testing.B) string {
	b.Helper()
	p, err := Find("")
	if err != nil {
		b.Skip("no dlv on PATH: install it (see .ci/run)")
	}
	return p
}
