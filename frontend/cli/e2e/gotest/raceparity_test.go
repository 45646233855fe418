package gotest

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stdbg/stdbg/frontend/cli"
	"github.com/stdbg/stdbg/internal/testkit/clirun"
)

// raceCase is a test of examples/go/plain/raceparity, or of its module at
// go 1.21 (go121), and what go test -race and stdbg find say of it.
type raceCase struct {
	name string
	// where: for a racy test, the racing lines, in the summary on
	// stderr; nil for a race-free one, of which neither may report
	// anything.
	where []string
	// first: the race is in the first schedule run, and found there.
	first bool
}

// raceParity lists the tests by module: "" is raceparity itself, at
// stdbg's go version.
var raceParity = map[string][]raceCase{
	"": {
		// A select reading a field whose channel another goroutine
		// closes and then clears (the registration of a channel by its
		// first user ordered it before every later user).
		{name: "TestSelectOnClearedField", where: []string{"raceparity.go:24", "raceparity.go:31"}},
		// A sync.Map Range callback racing with a read after a Store
		// (Range and Store were no scheduling points, so the Store
		// never ran first).
		{name: "TestRangeCallbackCounter", where: []string{"raceparity.go:49", "raceparity.go:55"}},
		{name: "TestLazyInit", where: []string{"raceparity.go:65", "raceparity.go:67"}, first: true},
		{name: "TestStatusReadAfterGo", where: []string{"raceparity_test.go:79", "raceparity_test.go:82"}},
		{name: "TestErrCheckedBeforeReceive", where: []string{"raceparity_test.go:102", "raceparity_test.go:105"}},
		// A map access races in the runtime's map code: the summary
		// names the program's line.
		{name: "TestMapWrittenFromGoroutines", where: []string{"raceparity_test.go:121"}},
		{name: "TestAppendFromGoroutines", where: []string{"raceparity_test.go:137"}},
		{name: "TestFieldWrittenAfterUnlock", where: []string{"raceparity.go:89", "raceparity.go:99"}},
		// Found in the test's last transition, where the testing package
		// also marks the test failed: once reported as "the test failed"
		// without the race's stacks.
		{name: "TestErrSetAfterDone", where: []string{"raceparity_test.go:169", "raceparity_test.go:172"}},

		// The race-free twins. The first four were reported as races,
		// or as failed tests, when a goroutine parked on its send (or in
		// its select) before its partner came.
		{name: "TestStatusReadAfterReceive"},
		{name: "TestErrCheckedAfterReceive"},
		{name: "TestBufferedHandOff"},
		{name: "TestSelectReceiverFirst"},
		{name: "TestMapWrittenUnderLock"},
		{name: "TestAppendUnderLock"},
		{name: "TestResultsByIndex"},
		{name: "TestFieldWrittenBeforeUnlock"},
	},
	// A module at go 1.21: its loop variables are shared by all the
	// iterations, so goroutines started in a loop race with the loop.
	// stdbg built it at stdbg's go version, where they are one per
	// iteration: no race, and TestSharedLoopVariable failed.
	"go121": {
		{name: "TestRangeLoopGoroutines", where: []string{"loopvar_test.go:43", "loopvar_test.go:47"}},
		{name: "TestCountingLoopGoroutines", where: []string{"loopvar_test.go:59", "loopvar_test.go:63"}},
		{name: "TestRangeLoopGoroutinesCopied"},
		{name: "TestSharedLoopVariable"},
	},
}

// goTestResult matches the result line of a test in go test -v output.
var goTestResult = regexp.MustCompile(`(?m)^\s*--- (PASS|FAIL|SKIP): (\w+) `)

// TestRaceParity checks parity with go test -race both ways on
// examples/go/plain/raceparity: each racy test is reported by a plain
// go test -race run (run for real) and by stdbg find, as a data race
// printed on several lines with both stacks and summed up on stderr; each
// race-free twin passes go test -race and stdbg find reports nothing in
// it. The module at go 1.21 is checked from a copy in a directory of the
// test's own. The runs of go test -race, which judge the example, are
// made with -e2e.long.
func TestRaceParity(t *testing.T) {
	if testing.Short() {
		t.Skip("builds Go tests with the race detector")
	}
	t.Setenv("STDBG_ZOO", "1") // the racy tests skip themselves without it
	root := filepath.Join(clirun.Root(), "examples", "go", "plain", "raceparity")
	go121 := t.TempDir()
	if err := os.CopyFS(go121, os.DirFS(filepath.Join(root, "go121"))); err != nil {
		t.Fatal(err)
	}
	dirs := map[string]string{"": root, "go121": go121}
	for mod, cases := range raceParity {
		dir := dirs[mod]
		// The example judged by real Go: with -e2e.long (go test ./...
		// runs the race-free tests once, without the race detector).
		if clirun.Long() {
			// One go test -race run per module: whether a run shows a race
			// depends on how the goroutines happen to run (a Range callback
			// runs only if the Store came first), so each test runs 50 times
			// in one process, and one report is enough.
			names := make([]string, len(cases))
			for i, c := range cases {
				names[i] = c.name
			}
			cmd := exec.Command("go", "test", "-race", "-count=50", "-v", "-run", "^("+strings.Join(names, "|")+")$", ".")
			cmd.Dir = dir
			out, _ := cmd.CombinedOutput()
			results := map[string]map[string]bool{}
			for _, m := range goTestResult.FindAllStringSubmatch(string(out), -1) {
				if results[m[2]] == nil {
					results[m[2]] = map[string]bool{}
				}
				results[m[2]][m[1]] = true
			}
			for _, c := range cases {
				switch r := results[c.name]; {
				case c.where != nil && !r["FAIL"]:
					t.Errorf("go test -race does not report the race of %s in 50 runs: the example is wrong\n%s", c.name, out)
				case c.where == nil && (r["FAIL"] || !r["PASS"]):
					t.Errorf("go test -race does not pass the race-free %s: the example is wrong\n%s", c.name, out)
				}
			}
			if t.Failed() {
				return
			}
		}
		for _, c := range cases {
			t.Run(strings.TrimPrefix(mod+"/", "/")+c.name, func(t *testing.T) {
				t.Parallel()
				args := []string{"find", "--run", "^" + c.name + "$", dir}
				if c.first {
					args = append([]string{"find", "--no-minimise"}, args[1:]...)
				}
				out, errs, code := clirun.Stdbg(t, args...)
				if c.where == nil {
					if code != cli.ExitClean || !strings.Contains(out, "No property violation found.") || !strings.Contains(out, "Search: ") ||
						strings.Contains(out+errs, "DATA RACE") {
						t.Fatalf("find on a race-free test: exit %d\n%s\n%s", code, out, errs)
					}
					return
				}
				if c.first && !strings.Contains(out, "Executions = 1 ") {
					t.Errorf("the race of the first schedule was not found in the first execution:\n%s", out)
				}
				if code != cli.ExitBug || !strings.Contains(out, "*** DATA RACE ***\nWARNING: DATA RACE\n") ||
					!regexp.MustCompile(`(?m)^Previous (read|write) at `).MatchString(out) {
					t.Fatalf("find: exit %d\n%s\n%s", code, out, errs)
				}
				for _, w := range c.where {
					if !strings.Contains(errs, w) {
						t.Errorf("the summary on stderr does not name %s:\n%s", w, errs)
					}
				}
			})
		}
	}
}
