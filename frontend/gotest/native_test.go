package gotest

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stdbg/stdbg/frontend/session"
)

// nativeFiles is a package whose tests pass every schedule explored but
// not all as go test runs them: TestAfterSetter fails in a process where
// TestSetter ran before it, and passes alone; TestSkipMe takes 2 s of
// real time before it skips itself, so that in the tests' run together
// TestSleepy, which sleeps an hour in real time (under the search, time is
// the model's), runs for less than the whole -timeout; TestLast runs
// after it. TestMain names each process of the test binary, with its
// flags and its search (none outside a search).
var nativeFiles = map[string]string{
	"go.mod": "module example.com/native\n\ngo 1.22\n",
	"native_test.go": `package native

import (
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

var setByFirst bool

func TestMain(m *testing.M) {
	if f, err := os.OpenFile(os.Getenv("NATIVE_PROCESSES"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
		f.WriteString("process " + strings.Join(os.Args[1:], " ") + " " + os.Getenv("STDBG_SEARCH") + "\n")
		f.Close()
	}
	os.Exit(m.Run())
}

func TestSetter(t *testing.T) {
	var mu sync.Mutex
	done := make(chan bool)
	go func() { mu.Lock(); setByFirst = true; mu.Unlock(); done <- true }()
	<-done
}

func TestAfterSetter(t *testing.T) {
	if setByFirst {
		t.Fatal("TestSetter ran before, in this process")
	}
}

func TestSkipMe(t *testing.T) {
	time.Sleep(2 * time.Second)
	t.Skip("not today")
}

func TestSleepy(t *testing.T) {
	done := make(chan bool)
	go func() { time.Sleep(time.Hour); done <- true }()
	<-done
}

func TestLast(t *testing.T) {
	ch := make(chan int, 1)
	go func() { ch <- 1 }()
	<-ch
}
`,
}

// The tests whose searches found nothing run as go test runs them
// together, in one process: each gets the verdict it gets alone (a test
// that fails there, or that the process ended before, runs again alone),
// and so does a test that -timeout ended there after tests before it had
// used part of the timeout (alone, go test -run gives it the whole
// timeout); the searches of a package's tests that find nothing share one
// process; and no process is started that runs nothing (a search inside
// the test binary needs no other).
func TestNativeBatch(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	defer func(w time.Duration) { batchWait = w }(batchWait)
	batchWait = time.Hour // one batch, at the end
	dir := t.TempDir()
	if err := writeFiles(dir, nativeFiles); err != nil {
		t.Fatal(err)
	}
	procs := filepath.Join(t.TempDir(), "processes")
	t.Setenv("NATIVE_PROCESSES", procs)
	const timeout = 5 * time.Second
	search := SearchWith(0, true)
	var out strings.Builder
	sum, err := Run(context.Background(), Config{Dir: dir, Patterns: []string{"."}, Parallel: 1, Searches: 1, Timeout: timeout, Verbose: true, Stdout: &out,
		Search: func(ctx context.Context, s *session.Session, tt *Test) (*Searched, error) {
			tt.Jobs = 1 // one process per search, whatever the CPUs
			return search(ctx, s, tt)
		}})
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, out.String())
	}
	text := out.String()
	for _, want := range []struct{ status, test, detail string }{
		{"ok", "TestSetter", "exhaustive"},
		{"ok", "TestAfterSetter", "exhaustive"},
		{"SKIP", "TestSkipMe", "native_test.go:36: not today"},
		{"FAIL", "TestSleepy", "no schedule explored failed (exhaustive; 1 execution), but as go test runs it hangs: go test's timeout of 5s ended it"},
		{"ok", "TestLast", "exhaustive"},
	} {
		re := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(want.status) + ` +` + want.test + ` \(\d+\.\d\ds\): ` + regexp.QuoteMeta(want.detail))
		if !re.MatchString(text) {
			t.Errorf("no line %s %s: %s in:\n%s", want.status, want.test, want.detail, text)
		}
	}
	// The tests' own output (-v), the hung test's stacks among it.
	for _, want := range []string{"--- PASS: TestSetter", "--- SKIP: TestSkipMe", "panic: test timed out after 5s", "native_test.go:41"} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	if sum.OK != 3 || sum.Skipped != 1 || sum.Failed != 1 {
		t.Errorf("summary %+v", sum)
	}
	// One process for the searches (they find nothing: one shared
	// process of the test binary searches them in turn, one search at a
	// time), one for the tests together, and one for each test run again
	// alone: TestAfterSetter, which failed after TestSetter; TestSleepy,
	// which ran there for at most 3 s of its 5 s before -timeout ended
	// the process (TestSkipMe took the rest); TestLast, which that
	// process ended before. On a busy machine package testing's panic at
	// -timeout may come so late that TestSleepy had run the whole 5 s when
	// the panic lists it ("TestSleepy (5s)"): that is its own verdict, and
	// it is not run again. Which of the two the batch gave is not in what
	// Run prints, so either is accepted; TestHungTests asserts the rule on
	// the panic's list itself, and TestLast's run alone that a test the
	// batch gave no verdict on runs again.
	b, err := os.ReadFile(procs)
	if err != nil {
		t.Fatal(err)
	}
	all := "^(TestSetter|TestAfterSetter|TestSkipMe|TestSleepy|TestLast)$"
	want := []string{
		"-test.run=" + all + " -test.count=1 search",
		"-test.run=" + all + " -test.count=1 -test.v -test.timeout=5s",
		"-test.run=^TestAfterSetter$ -test.count=1 -test.v -test.timeout=5s",
		"-test.run=^TestLast$ -test.count=1 -test.v -test.timeout=5s",
	}
	sleepyAlone := "-test.run=^TestSleepy$ -test.count=1 -test.v -test.timeout=5s"
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		line = strings.TrimPrefix(line, "process ")
		if args, spec, ok := strings.Cut(line, " {"); ok && strings.HasPrefix(spec, `"search"`) {
			line = args + " search"
		}
		got = append(got, strings.TrimSpace(line))
	}
	if !slices.Contains(got, sleepyAlone) {
		t.Logf("TestSleepy ran the whole timeout with the other tests (a late panic): not run again")
	} else {
		want = append(want, sleepyAlone)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("processes of the test binary:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// splitNatives gives each top-level test the lines from its === RUN (and
// those of its subtests after a === NAME or === CONT), and its status.
func TestSplitNatives(t *testing.T) {
	out := strings.Split(`before
=== RUN   TestA
=== PAUSE TestA
=== RUN   TestB
=== RUN   TestB/sub
    b_test.go:3: in sub
--- FAIL: TestB (0.25s)
    --- FAIL: TestB/sub (0.00s)
=== CONT  TestA
    a_test.go:9: a's line
=== NAME  TestB
late
--- PASS: TestA (1.5s)
PASS`, "\n")
	runs, outside := splitNatives(out, map[string]bool{"TestA": true, "TestB": true})
	if strings.Join(outside, "|") != "before" {
		t.Errorf("outside = %q", outside)
	}
	a, b := runs["TestA"], runs["TestB"]
	if a == nil || b == nil {
		t.Fatalf("runs = %v", runs)
	}
	if a.status != "PASS" || a.took != 1500*time.Millisecond || b.status != "FAIL" || b.took != 250*time.Millisecond {
		t.Errorf("A %s %v, B %s %v", a.status, a.took, b.status, b.took)
	}
	if got := strings.Join(a.testOutput("TestA"), "|"); got != "=== PAUSE TestA|=== CONT  TestA|    a_test.go:9: a's line|--- PASS: TestA (1.5s)" {
		t.Errorf("A's output %q", got)
	}
	if got := strings.Join(b.testOutput("TestB"), "|"); got != "=== RUN   TestB/sub|    b_test.go:3: in sub|--- FAIL: TestB (0.25s)|    --- FAIL: TestB/sub (0.00s)|=== NAME  TestB|late" {
		t.Errorf("B's output %q", got)
	}
}

// hungTests finds the tests that package testing's timeout panic lists as
// running for the whole timeout.
func TestHungTests(t *testing.T) {
	out := strings.Split("=== RUN   TestA\n--- PASS: TestA (0.00s)\n=== RUN   TestB\npanic: test timed out after 2s\n\trunning tests:\n\t\tTestB (2s)\n\t\tTestC (1s)\n\t\tTestD/sub (2s)\n\ngoroutine 21 [running]:", "\n")
	got := hungTests(out, 2*time.Second)
	if len(got) != 1 || !got["TestB"] {
		t.Errorf("hungTests = %v, want TestB alone", got)
	}
}
