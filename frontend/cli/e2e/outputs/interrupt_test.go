package outputs

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/pprof/profile"
	"golang.org/x/sys/unix"

	"github.com/stdbg/stdbg/engine/corpus"
	"github.com/stdbg/stdbg/frontend/cli"
	"github.com/stdbg/stdbg/internal/testkit/clirun"
	"github.com/stdbg/stdbg/target/ctarget"
)

// openPTY returns the two ends of a new pseudo-terminal.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals: %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		m.Close()
		t.Fatalf("unlocking the pty: %v", err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		m.Close()
		t.Fatalf("pty number: %v", err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		m.Close()
		t.Fatalf("opening the pty: %v", err)
	}
	return m, s
}

// TestInterrupt runs stdbg find, a process of its own (clirun.Command), on
// a search that does not end by itself, with its progress on a terminal;
// once the progress line shows a bug it sends a stop signal (^C, SIGTERM as timeout and CI runners send,
// SIGHUP), and checks that stdbg stops, prints the statistics, says the
// search is incomplete, saves the bug, exits with status 1, and leaves no
// target process behind.
func TestInterrupt(t *testing.T) {
	for _, sig := range []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) { testInterrupt(t, sig) })
	}
}

func testInterrupt(t *testing.T, sig os.Signal) {
	dir := t.TempDir()
	prog := ownBuild(t, "deadly-embrace.c")
	master, slave := openPTY(t)
	defer master.Close()
	corpusDir := filepath.Join(dir, "corpus")
	profPath := filepath.Join(dir, "explore.pprof")

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// Random walks with --all never run out; the seed finds the deadlock
	// in the third execution.
	cmd := clirun.Command(ctx, "find", "--all", "--strategy", "random", "--seed", "1",
		"--executions", "100000000", "--no-save=false", "--corpus", corpusDir, "--profile", profPath, prog)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = slave
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()

	// Read the progress line until it shows a bug.
	line := waitProgress(t, master, func(execs, bugs int) bool { return execs > 0 && bugs > 0 })
	if line == "" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("no progress line with a bug on the terminal; stdout:\n%s", stdout.String())
	}
	t.Logf("progress: %s", line)
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	if left := processesOf(t, prog); len(left) > 0 {
		t.Errorf("target processes left behind: %v", left)
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != cli.ExitBug {
		t.Fatalf("exit: %v, want status %d\nstdout:\n%s", err, cli.ExitBug, stdout.String())
	}
	out := stdout.String()
	for _, want := range []string{
		"*** DEADLOCK DETECTED ***",
		"Interrupted: the exploration is incomplete.",
		"Search: sampled (random walk, seed 1):",
		"Seed = 1 (repeat with --seed 1)",
		"Executions = ",
		"Saved " + corpusDir,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// The signal comes between two executions or in the middle of one,
	// which the line then says.
	if !interruptedLine.MatchString(out) {
		t.Errorf("output lacks the interrupted search's coverage:\n%s", out)
	}
	// The profile of the search so far is written too.
	pf, err := os.Open(profPath)
	if err != nil {
		t.Fatalf("no profile after the interruption: %v", err)
	}
	defer pf.Close()
	if p, err := profile.Parse(pf); err != nil {
		t.Errorf("profile after the interruption: %v", err)
	} else if len(p.Sample) == 0 {
		t.Error("empty profile after the interruption")
	}

	files, _ := filepath.Glob(filepath.Join(corpusDir, "*.json"))
	if len(files) != 1 {
		t.Fatalf("corpus files %v, want one", files)
	}
	e, err := corpus.Load(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if e.Failure.Kind != "deadlock" || e.Schedule == "" || e.Search.Strategy != "random" || e.Search.Seed != 1 {
		t.Errorf("corpus entry %+v, want the deadlock with its schedule, found by random walks of seed 1", e)
	}
}

// processesOf returns the pids of the running processes whose executable
// is exe, or is under exe when it is a directory.
func processesOf(t *testing.T, exe string) []string {
	t.Helper()
	want, err := filepath.EvalSymlinks(exe)
	if err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	var pids []string
	for _, e := range ents {
		if e.Name()[0] < '0' || e.Name()[0] > '9' {
			continue
		}
		if got, err := os.Readlink(filepath.Join("/proc", e.Name(), "exe")); err == nil && (got == want || strings.HasPrefix(got, want+"/")) {
			pids = append(pids, e.Name())
		}
	}
	return pids
}

// ownBuild builds the bundled example name as a program of the test's own
// (the example with a comment of its own: the build cache keys
// executables by their source), so that the processes a test looks for
// are not those of another test, or of another run of the tests,
// searching the example at the same time.
func ownBuild(t *testing.T, name string) string {
	t.Helper()
	src, err := os.ReadFile(clirun.Example(name))
	if err != nil {
		t.Fatal(err)
	}
	own := filepath.Join(t.TempDir(), name)
	src = append(src, fmt.Sprintf("/* %s %d */\n", t.Name(), time.Now().UnixNano())...)
	if err := os.WriteFile(own, src, 0o644); err != nil {
		t.Fatal(err)
	}
	prog, err := ctarget.Build(own)
	if err != nil {
		t.Fatal(err)
	}
	return prog
}

// A search stopped by SIGTERM before it found anything exits 143, as a
// process killed by SIGTERM would, and says it was interrupted: a C search
// driven from stdbg, and a Go search running inside the target.
func TestInterruptWithoutBug(t *testing.T) {
	t.Parallel()
	prog := ownBuild(t, "correct-counter.c")
	// The Go target is built into a cache of the test's own, where its
	// processes are found.
	goCache := t.TempDir()
	tests := []struct {
		name  string
		args  []string
		env   []string
		procs func() []string
	}{
		{"C", []string{prog}, nil, func() []string { return processesOf(t, prog) }},
		{"Go in the target", []string{"-run", "TestCheckLastZero3", filepath.Join(clirun.Root(), "examples", "go", "dpor")},
			[]string{"STDBG_CACHE=" + goCache}, func() []string { return processesOf(t, goCache) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			args := append([]string{"find", "--strategy", "random", "--seed", "1", "--executions", "100000000"}, tt.args...)
			cmd := clirun.Command(ctx, args...)
			cmd.Env = append(cmd.Env, tt.env...)
			// The progress goes to a terminal: the signal is sent once it
			// shows executions, while the search runs (a signal while the
			// target is built or started is tested apart).
			master, slave := openPTY(t)
			defer master.Close()
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, slave
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			slave.Close()
			if waitProgress(t, master, func(execs, _ int) bool { return execs > 0 }) == "" {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("no progress line with executions on the terminal; stdout:\n%s", stdout.String())
			}
			if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			err := cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 143 {
				t.Fatalf("exit: %v, want status 143\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
			}
			if !strings.Contains(stdout.String(), "Executions = ") || !strings.Contains(stdout.String(), "interrupted") ||
				strings.Contains(stdout.String(), "Executions = 0 ") {
				t.Errorf("no statistics or no word of the interruption:\n%s", stdout.String())
			}
			if left := tt.procs(); len(left) > 0 {
				t.Errorf("target processes left behind: %v", left)
			}
		})
	}
}

// liveLine is find's live line on a terminal.
var liveLine = regexp.MustCompile(`stdbg: (\d+) executions  (\d+) transitions  depth (\d+)  (\d+) exec/s  (\S+)  bugs (\d+)`)

// waitProgress reads find's progress from the terminal master until a line
// satisfies ok (given its executions and bugs), and returns that line, or
// "" when find ends or a minute passes first.
func waitProgress(t *testing.T, master *os.File, ok func(execs, bugs int) bool) string {
	t.Helper()
	seen := make(chan string, 1)
	go func() {
		r := bufio.NewReader(master)
		for {
			chunk, err := r.ReadString('\r')
			if m := liveLine.FindStringSubmatch(chunk); m != nil {
				execs, _ := strconv.Atoi(m[1])
				bugs, _ := strconv.Atoi(m[6])
				if ok(execs, bugs) && m[2] != "0" {
					seen <- m[0]
					return
				}
			}
			if err != nil {
				seen <- ""
				return
			}
		}
	}()
	select {
	case line := <-seen:
		return line
	case <-time.After(time.Minute):
		return ""
	}
}

// interruptedLine is the coverage of a sampled search stopped by a signal.
var interruptedLine = regexp.MustCompile(`interrupted( \(the execution under way was cut after \d+ transitions?\))?; schedules not sampled may hide bugs\.`)
