package debug

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stdbg/stdbg/frontend/cli"
	"github.com/stdbg/stdbg/internal/testkit/clirun"
	"github.com/stdbg/stdbg/internal/testkit/shellwords"
)

// bankTests are plain Go tests, without sthread, each with a bug: a
// deadlock in a top-level test, one in a subtest (t.Run), and a data race.
const bankTests = `package bank

import (
	"sync"
	"testing"
)

type account struct {
	mu      sync.Mutex
	balance int
}

// transfer locks the two accounts in the order of its arguments.
func transfer(from, to *account, n int) {
	from.mu.Lock()
	defer from.mu.Unlock()
	to.mu.Lock()
	defer to.mu.Unlock()
	from.balance -= n
	to.balance += n
}

func TestCrossed(t *testing.T) {
	a, b := &account{}, &account{}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		transfer(a, b, 1)
	}()
	transfer(b, a, 2)
	wg.Wait()
}

func TestAccounts(t *testing.T) {
	t.Run("same order", func(t *testing.T) {
		a, b := &account{}, &account{}
		done := make(chan bool)
		go func() {
			transfer(a, b, 1)
			done <- true
		}()
		transfer(a, b, 2)
		<-done
	})
	t.Run("crossed", func(t *testing.T) {
		a, b := &account{}, &account{}
		done := make(chan bool)
		go func() {
			transfer(a, b, 1)
			done <- true
		}()
		transfer(b, a, 2)
		<-done
	})
}

func TestCounter(t *testing.T) {
	n := 0
	done := make(chan bool)
	go func() {
		n++
		done <- true
	}()
	n++
	<-done
}
`

// TestReplayDlvPlainGoTests replays under Delve the bugs stdbg test and
// stdbg find report in plain Go tests, with the very replay commands they
// print plus --dlv: a top-level test, subtests (each runs on a goroutine
// of its own, which Delve must follow), a data race (the debugging build
// has the race detector, as the search's had) and, with -e2e.long, a
// schedule replayed without the race detector.
func TestReplayDlvPlainGoTests(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries, with and without the race detector, and runs Delve")
	}
	needDlv(t)
	dir := t.TempDir()
	for name, text := range map[string]string{
		"go.mod":            "module example.com/bank\n\ngo 1.24\n",
		"bank/bank_test.go": bankTests,
	} {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("STDBG_TEST_CACHE", t.TempDir())
	t.Chdir(dir) // stdbg test's patterns and the printed commands are relative to it

	replayRE := regexp.MustCompile(`(?m)^\s*Replay: stdbg replay (.+)$`)
	out, errs, code := clirun.Stdbg(t, "test", "--no-save=false", "-count=1", "./bank")
	if code != cli.ExitBug {
		t.Fatalf("stdbg test: exit %d\n%s\n%s", code, out, errs)
	}
	entries := map[string][]string{}
	for _, m := range replayRE.FindAllStringSubmatch(out, -1) {
		args, err := shellwords.Split(m[1])
		if err != nil {
			t.Fatal(err)
		}
		if len(args) == 1 && strings.HasSuffix(args[0], ".json") {
			entries[filepath.Base(filepath.Dir(args[0]))] = args
		}
	}
	out, errs, code = clirun.Stdbg(t, "find", "-run", "TestAccounts/crossed", "./bank")
	m := replayRE.FindStringSubmatch(out)
	if code != cli.ExitBug || m == nil {
		t.Fatalf("stdbg find -run TestAccounts/crossed: exit %d\n%s\n%s", code, out, errs)
	}
	found, err := shellwords.Split(m[1])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(m[1], "--schedule") || !strings.Contains(m[1], "--run") {
		t.Fatalf("find prints %q, not a schedule of a test", m[0])
	}

	tests := []struct {
		name    string
		args    []string // after replay
		outcome string
		// oneGoroutine: each thread stays in one goroutine
		oneGoroutine bool
		// long: only with -e2e.long (a second debugging build of the
		// package, without the race detector)
		long bool
	}{
		{"top-level test, stdbg test's command", entries["TestCrossed"], "deadlock: ", true, false},
		{"subtests, stdbg test's command", entries["TestAccounts"], "deadlock: ", false, false},
		{"data race, stdbg test's command", entries["TestCounter"], "data-race: WARNING: DATA RACE", true, false},
		{"subtest, stdbg find's command", found, "deadlock: ", true, false},
		{"subtest, stdbg find's command without the race detector", append([]string{"--races=false"}, found...), "deadlock: ", true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.long && !clirun.Long() {
				t.Skip("a second debugging build of the package: run with -e2e.long")
			}
			if tt.args == nil {
				t.Fatalf("stdbg test printed no replay command for this test:\n%s", out)
			}
			checkDlvReplay(t, tt.args, tt.outcome, tt.oneGoroutine)
		})
	}
}
