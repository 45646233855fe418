package gotest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stdbg/stdbg/frontend/cli"
	"github.com/stdbg/stdbg/internal/testkit/clirun"
	"github.com/stdbg/stdbg/internal/testkit/racefree"
)

// goTestRace judges an example by real Go, with -e2e.long: go test -race
// passes the tests of pkg in dir 20 times over. go test ./... runs the
// bundled examples' tests once, without the race detector.
func goTestRace(t *testing.T, dir, pkg string) {
	t.Helper()
	if !clirun.Long() {
		return
	}
	cmd := exec.Command("go", "test", "-race", "-count=20", pkg)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go test -race fails: the example is wrong: %v\n%s", err, out)
	}
}

// testLine matches the line stdbg test writes for each test.
var testLine = regexp.MustCompile(`(?m)^(ok|BUG|incomplete|unjudged|SKIP|FAIL|ERROR) +(Test\w+)`)

// TestEverydayGo: on correct Go of the shapes of almost every program
// (examples/go/plain/everyday: buffered channels that wrap around, maps
// ranged over in goroutines, random numbers, formatting and encoding in
// workers, a worker that writes much to standard error), go test -race
// never fails and stdbg test reports nothing. stdbg's model of a channel's
// buffer and its generators were seen by the race detector, which failed
// the tests ("the test failed (t.Error or t.Fail)" at runtime.goexit), and
// a write of 2 MiB to standard error blocked in the pipe stdbg held there
// (a transition timeout). go test -race judges the example with
// -e2e.long.
func TestEverydayGo(t *testing.T) {
	if testing.Short() {
		t.Skip("builds Go tests with the race detector")
	}
	t.Setenv("STDBG_ZOO", "1")
	t.Setenv("STDBG_TEST_CACHE", t.TempDir())
	dir := filepath.Join(clirun.Root(), "examples", "go", "plain", "everyday")
	goTestRace(t, dir, ".")
	out, errs, code := clirun.Stdbg(t, "test", "-count=1", "--no-save", "--budget", "3s", dir)
	lines := testLine.FindAllStringSubmatch(out, -1)
	if code != cli.ExitClean || len(lines) < 7 || strings.Contains(out+errs, "DATA RACE") {
		t.Fatalf("stdbg test on correct Go: exit %d, %d tests\n%s\n%s", code, len(lines), out, errs)
	}
	for _, m := range lines {
		if m[1] != "ok" && m[1] != "incomplete" {
			t.Errorf("%s: %s\n%s", m[2], m[1], out)
		}
	}
}

// TestRecoveredPanics: in Go a send on a closed channel, a close of a
// closed or nil channel and a negative WaitGroup counter panic, and a
// deferred recover takes the panic (examples/go/plain/recovered). stdbg
// reported each as a misuse and stopped there: the correct tests now pass,
// and the race that comes after a recovered send is found. go test -race
// judges the example with -e2e.long.
func TestRecoveredPanics(t *testing.T) {
	if testing.Short() {
		t.Skip("builds Go tests with the race detector")
	}
	dir := filepath.Join(clirun.Root(), "examples", "go", "plain", "recovered")
	goTestRace(t, dir, ".")
	t.Setenv("STDBG_ZOO", "1")
	t.Setenv("STDBG_TEST_CACHE", t.TempDir())
	out, errs, code := clirun.Stdbg(t, "test", "-count=1", "--no-save", "--budget", "3s", dir)
	got := map[string]string{}
	for _, m := range testLine.FindAllStringSubmatch(out, -1) {
		got[m[2]] = m[1]
	}
	want := map[string]string{"TestSendAfterOwnClose": "ok", "TestCloseTwice": "ok", "TestDoneTooOften": "ok", "TestRaceAfterRecovery": "BUG"}
	if code != cli.ExitBug || !reflect.DeepEqual(got, want) || !strings.Contains(out, "*** DATA RACE ***") {
		t.Fatalf("stdbg test: exit %d, tests %v, want %v and the race\n%s\n%s", code, got, want, out, errs)
	}
}

// TestCorrectGoCorpus is the rule that stdbg's own state is invisible to
// the race detector, and that correct Go gets no report, checked on
// programs generated correct by construction (internal/testkit/racefree): go test
// -race passes them, and stdbg test, with the race detector on as users
// run it, reports nothing in them: no bug, no race, nothing it cannot
// judge. stdbg reported 21 of the first 40 (the test failed for races on
// its own state, misuses of recovered panics). The suite runs six; set
// STDBG_RACEFREE=N to run N more, of random seeds (printed). A race
// planted among the idioms of one more test (racefree.Racy), which go
// test -race reports, is reported too: nothing of the corpus's code is
// left out of the detector's reports. The runs of go test -race, which
// judge the generator (internal/testkit/racefree's own tests check it
// too), are made with -e2e.long.
func TestCorrectGoCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("builds Go tests with the race detector")
	}
	// 3009: encoding/json's type cache read by one worker after another filled it
	// (a false race in 5 of 8 runs with stdbg's search uninstrumented).
	seeds := []uint64{1, 3, 4, 5, 12, 13, 3009}
	if n, _ := strconv.Atoi(os.Getenv("STDBG_RACEFREE")); n > 0 {
		base := uint64(time.Now().UnixNano())
		for i := range n {
			seeds = append(seeds, base+uint64(i))
		}
		t.Logf("seeds %v", seeds)
	}
	const planted = 2
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":          "module example.com/racefree\n\ngo 1.26\n",
		"gen/gen_test.go": racefree.File("gen", seeds, 3, planted),
	}
	for name, data := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	racy := fmt.Sprintf("TestRace%d", planted)
	if clirun.Long() {
		cmd := exec.Command("go", "test", "-race", "-count=20", "-skip=^TestRace", "./gen")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go test -race fails on the generated tests: the generator is wrong: %v\n%s\n%s", err, out, files["gen/gen_test.go"])
		}
		cmd = exec.Command("go", "test", "-race", "-count=1", "-run=^"+racy+"$", "./gen")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "DATA RACE") {
			t.Fatalf("go test -race does not report the planted race: %v\n%s", err, out)
		}
	}
	t.Setenv("STDBG_TEST_CACHE", t.TempDir())
	t.Chdir(dir) // stdbg test's patterns are relative to it
	out, errs, code := clirun.Stdbg(t, "test", "-count=1", "--no-save", "--budget", "3s", "./gen")
	lines := testLine.FindAllStringSubmatch(out, -1)
	if code != cli.ExitBug || len(lines) != len(seeds)+1 || strings.Count(out, "*** DATA RACE ***") != 1 {
		t.Errorf("stdbg test on correct Go and one race: exit %d, %d tests of %d\n%s\n%s", code, len(lines), len(seeds)+1, out, errs)
	}
	for _, m := range lines {
		if m[2] == racy {
			if m[1] != "BUG" {
				t.Errorf("%s: %s, want the planted race", m[2], m[1])
			}
		} else if m[1] != "ok" && m[1] != "incomplete" {
			t.Errorf("%s: %s", m[2], m[1])
		}
	}
	if t.Failed() {
		t.Logf("the tests:\n%s", files["gen/gen_test.go"])
	}
}

// subtestTests are plain Go tests whose second subtest deadlocks in some
// schedules, after a first one that logs and formats.
const subtestTests = `package subtests

import (
	"fmt"
	"sync"
	"testing"
)

func TestTwo(t *testing.T) {
	t.Run("fine", func(t *testing.T) {
		done := make(chan string)
		go func() { done <- fmt.Sprintf("%d", 1) }()
		t.Logf("got %s", <-done)
	})
	t.Run("crossed", func(t *testing.T) {
		var a, b sync.Mutex
		done := make(chan bool)
		go func() {
			a.Lock()
			b.Lock()
			b.Unlock()
			a.Unlock()
			done <- true
		}()
		b.Lock()
		a.Lock()
		a.Unlock()
		b.Unlock()
		<-done
	})
}
`

// TestAbortedSubtest: an execution that ends while a subtest runs (here,
// deadlocked) unwinds the subtest's goroutine, which package testing then
// uses to report the subtest with package fmt and to signal its parent.
// That goroutine went on hiding its synchronisation from the race
// detector (its printer went back to fmt's pool, its signal was sent,
// unseen), and the lending goroutine, which hid nothing, was told to stop
// hiding: the search, inside the target, saw executions that did not
// repeat themselves, and searched again with a fresh process per
// execution. Now the one deadlock is all that stdbg find --all reports,
// searching inside the target.
func TestAbortedSubtest(t *testing.T) {
	if testing.Short() {
		t.Skip("builds Go tests with the race detector")
	}
	dir := t.TempDir()
	for name, text := range map[string]string{
		"go.mod":                    "module example.com/subtests\n\ngo 1.24\n",
		"subtests/subtests_test.go": subtestTests,
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
	t.Chdir(dir)
	out, errs, code := clirun.Stdbg(t, "find", "--no-save", "--all", "--no-minimise", "-run", "TestTwo", "./subtests")
	if code != cli.ExitBug || strings.Count(out, "*** DEADLOCK DETECTED ***") != 1 || strings.Contains(out+errs, "DATA RACE") ||
		strings.Contains(out+errs, "does not repeat itself") || !strings.Contains(out, "Search: exhaustive") {
		t.Fatalf("stdbg find --all: exit %d, want the one deadlock, found searching inside the target\n%s\n%s", code, out, errs)
	}
}
