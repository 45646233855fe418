package main

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
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/pprof/profile"
	"golang.org/x/sys/unix"

	"github.com/stdbg/stdbg/corpus"
	"github.com/stdbg/stdbg/ctarget"
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

// TestInterrupt runs a real stdbg find on a search that does not end by
// itself, with its progress on a terminal; once the progress line shows a
// bug it sends SIGINT, and checks that stdbg stops, prints the statistics,
// says the search is incomplete, saves the bug and exits with status 1.
func TestInterrupt(t *testing.T) {
	dir := t.TempDir()
	stdbgExe := filepath.Join(dir, "stdbg")
	if out, err := exec.Command("go", "build", "-o", stdbgExe, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	prog, err := ctarget.Build(example("deadly-embrace.c"))
	if err != nil {
		t.Fatal(err)
	}
	master, slave := openPTY(t)
	defer master.Close()
	corpusDir := filepath.Join(dir, "corpus")
	profPath := filepath.Join(dir, "explore.pprof")

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// Random walks with --all never run out; the seed finds the deadlock
	// in the third execution.
	cmd := exec.CommandContext(ctx, stdbgExe, "find", "--all", "--strategy", "random", "--seed", "1",
		"--executions", "100000000", "--no-save=false", "--corpus", corpusDir, "--profile", profPath, prog)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = slave
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()

	// Read the progress line until it shows a bug.
	progress := regexp.MustCompile(`stdbg: (\d+) executions  (\d+) transitions  depth (\d+)  (\d+) exec/s  (\S+)  bugs (\d+)`)
	seen := make(chan string, 1)
	go func() {
		r := bufio.NewReader(master)
		var last string
		for {
			chunk, err := r.ReadString('\r')
			if m := progress.FindStringSubmatch(chunk); m != nil {
				last = m[0]
				if m[6] != "0" && m[1] != "0" && m[2] != "0" {
					seen <- last
					return
				}
			}
			if err != nil {
				seen <- ""
				return
			}
		}
	}()
	var line string
	select {
	case line = <-seen:
	case <-time.After(time.Minute):
	}
	if line == "" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("no progress line with a bug on the terminal; stdout:\n%s", stdout.String())
	}
	t.Logf("progress: %s", line)
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitBug {
		t.Fatalf("exit: %v, want status %d\nstdout:\n%s", err, exitBug, stdout.String())
	}
	out := stdout.String()
	for _, want := range []string{
		"*** DEADLOCK DETECTED ***",
		"Interrupted: the exploration is incomplete.",
		"Search: sampled (random walk, seed 1):",
		"interrupted; schedules not sampled may hide bugs.",
		"Seed = 1 (repeat with --seed 1)",
		"Executions = ",
		"Saved " + corpusDir,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
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
