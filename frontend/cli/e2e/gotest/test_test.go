package gotest

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stdbg/stdbg/frontend/cli"
	"github.com/stdbg/stdbg/internal/testkit/clirun"
)

// sharedGoTestModule is a module of plain Go tests (a package whose test
// deadlocks in some schedules, one whose tests are correct, one that keeps
// state in package variables), written once for the tests of the package
// into the directory the test binary owns: its packages are built
// once for them all (clirun.Main shares the builds of one package). A
// test that writes into it removes what it wrote.
func sharedGoTestModule(t *testing.T) string {
	t.Helper()
	sharedOnce.Do(func() {
		sharedDir = filepath.Join(clirun.Dir(), "shop")
		writeGoTestModule(t, sharedDir)
	})
	if _, err := os.Stat(filepath.Join(sharedDir, "go.mod")); err != nil {
		t.Fatalf("the shared module: %v", err)
	}
	return sharedDir
}

var (
	sharedOnce sync.Once
	sharedDir  string
)

// writeGoTestModule writes the module of sharedGoTestModule into dir.
func writeGoTestModule(t *testing.T, dir string) {
	t.Helper()
	files := map[string]string{
		"go.mod": "module example.com/shop\n\ngo 1.22\n",
		"locks/locks_test.go": `package locks

import (
	"sync"
	"testing"
)

func TestOrder(t *testing.T) {
	var a, b sync.Mutex
	done := make(chan bool)
	go func() { a.Lock(); b.Lock(); b.Unlock(); a.Unlock(); done <- true }()
	b.Lock()
	a.Lock()
	a.Unlock()
	b.Unlock()
	<-done
}
`,
		"locks/more_test.go": `package locks

import (
	"sync"
	"testing"
)

func TestOrderAgain(t *testing.T) {
	var a, b sync.RWMutex
	done := make(chan bool)
	go func() { a.Lock(); b.Lock(); b.Unlock(); a.Unlock(); done <- true }()
	b.Lock()
	a.Lock()
	a.Unlock()
	b.Unlock()
	<-done
}
`,
		"count/count_test.go": `package count

import (
	"sync"
	"testing"
)

func TestCount(t *testing.T) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	n := 0
	for range 2 {
		wg.Add(1)
		go func() { defer wg.Done(); mu.Lock(); n++; mu.Unlock() }()
	}
	wg.Wait()
	if n != 2 {
		t.Fatalf("n = %d", n)
	}
}

func TestShort(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
}
`,
		// Package-level variables: hits is put back before each
		// execution, a closure's captured counter cannot be, and the
		// search says so, naming it, as it falls back on a fresh process
		// per execution.
		"state/state_test.go": `package state

import (
	"sync"
	"testing"
)

var hits int

func counter() func() int {
	n := 0
	return func() int { n++; return n }
}

var nextID = counter()

func TestHits(t *testing.T) {
	var mu sync.Mutex
	done := make(chan bool)
	for range 2 {
		go func() { mu.Lock(); hits++; nextID(); mu.Unlock(); done <- true }()
	}
	<-done
	<-done
}
`,
	}
	for name, text := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// stdbg test takes go test's flags with one dash, says a bug with its
// schedule and the command that replays it, exits 1 on a bug, 0 without,
// 2 on bad usage; stdbg find points a package of tests at it.
func TestGoTestCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	dir := sharedGoTestModule(t)
	t.Setenv("STDBG_TEST_CACHE", t.TempDir())
	t.Chdir(dir) // stdbg test's patterns are relative to it
	for _, tt := range []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"bug", []string{"test", "-race=false", "./..."}, cli.ExitBug, []string{
			"BUG        TestOrder (", "*** DEADLOCK DETECTED ***", "Path = ", "Replay: stdbg replay --schedule", "FAIL\texample.com/shop/locks\t",
			"ok         TestCount (", "ok  \texample.com/shop/count\t", "stdbg test: 5 tests in 3 packages: 3 ok, 2 BUG"}},
		{"run and short", []string{"test", "--races=false", "-run", "Count|Short", "-short", "-count=1", "./count"}, cli.ExitClean, []string{
			"ok         TestCount (", "SKIP       TestShort (", "count_test.go:24: short"}},
		{"verbose", []string{"test", "--races=false", "-v", "-run=Count", "-count", "1", "./count"}, cli.ExitClean, []string{
			"=== RUN   TestCount", "Search: exhaustive (", "Executions = "}},
		{"state", []string{"test", "--races=false", "-v", "-count=1", "./state"}, cli.ExitClean, []string{
			"ok         TestHits (", "Note: the program keeps state in its process that the search cannot put back before each execution: " +
				"nextID (state_test.go:15): holds a closure", "searching again with a fresh process per execution"}},
		{"bad pattern", []string{"test", "./nothere"}, cli.ExitUsage, nil},
		{"bad count", []string{"test", "-count=-1", "./count"}, cli.ExitUsage, nil},
		{"find ./...", []string{"find", "./..."}, cli.ExitUsage, nil},
		{"find a package of tests", []string{"find", "./count"}, cli.ExitUsage, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, errs, code := clirun.Stdbg(t, tt.args...)
			if code != tt.code {
				t.Fatalf("stdbg %s: exit %d, want %d\n%s\n%s", strings.Join(tt.args, " "), code, tt.code, out, errs)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			if tt.code == cli.ExitUsage && strings.Count(strings.TrimSpace(errs), "\n") != 0 {
				t.Errorf("not one line:\n%s", errs)
			}
			if strings.HasPrefix(tt.name, "find") && !strings.Contains(errs, "stdbg test") {
				t.Errorf("find does not point at stdbg test: %s", errs)
			}
		})
	}
	// --junit and --sarif cover the whole run.
	junit, sarifLog := filepath.Join(t.TempDir(), "junit.xml"), filepath.Join(t.TempDir(), "run.sarif")
	if out, errs, code := clirun.Stdbg(t, "test", "--races=false", "--junit", junit, "--sarif", sarifLog, "./..."); code != cli.ExitBug {
		t.Fatalf("--junit --sarif: exit %d\n%s\n%s", code, out, errs)
	}
	var suites struct {
		Suites []struct {
			Name     string `xml:"name,attr"`
			Tests    int    `xml:"tests,attr"`
			Failures int    `xml:"failures,attr"`
			Skipped  int    `xml:"skipped,attr"`
		} `xml:"testsuite"`
	}
	if b, err := os.ReadFile(junit); err != nil || xml.Unmarshal(b, &suites) != nil {
		t.Fatalf("junit: %v\n%s", err, b)
	}
	got := map[string]string{}
	for _, s := range suites.Suites {
		got[s.Name] = fmt.Sprintf("%d tests, %d failures, %d skipped", s.Tests, s.Failures, s.Skipped)
	}
	if got["example.com/shop/locks"] != "2 tests, 2 failures, 0 skipped" || got["example.com/shop/count"] != "2 tests, 0 failures, 0 skipped" {
		t.Errorf("junit suites: %v", got)
	}
	var log struct {
		Runs []struct {
			Results []struct{ RuleID string } `json:"results"`
		} `json:"runs"`
	}
	if b, err := os.ReadFile(sarifLog); err != nil || json.Unmarshal(b, &log) != nil || len(log.Runs) != 1 || len(log.Runs[0].Results) != 2 {
		t.Errorf("sarif: %v, %+v", err, log)
	}

	out, errs, code := clirun.Stdbg(t, "test", "--races=false", "-json", "./count")
	if code != cli.ExitClean {
		t.Fatalf("-json: exit %d\n%s\n%s", code, out, errs)
	}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var e map[string]any
		if err := json.Unmarshal([]byte(line), &e); err != nil || e["Action"] == nil {
			t.Errorf("not an event: %q", line)
		}
	}
}

// --shard I/N deals a suite's tests to N parts: N processes run each test
// once between them, each saving its bugs in its own corpus, and stdbg
// corpus merge joins the corpora.
func TestGoTestShards(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	dir := sharedGoTestModule(t)
	t.Setenv("STDBG_TEST_CACHE", t.TempDir())
	t.Chdir(dir) // stdbg test's patterns are relative to it
	ran := map[string]int{}
	var corpora []string
	for i := range 2 {
		c := filepath.Join(t.TempDir(), "corpus")
		corpora = append(corpora, c)
		out, errs, code := clirun.Stdbg(t, "test", "--races=false", "--no-save=false", "--corpus", c, "--shard", fmt.Sprintf("%d/2", i), "-json", "./...")
		if code != cli.ExitBug {
			t.Fatalf("shard %d/2: exit %d\n%s\n%s", i, code, out, errs)
		}
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			var e struct{ Action, Package, Test string }
			if err := json.Unmarshal([]byte(line), &e); err != nil {
				t.Fatalf("shard %d/2: %q: %v", i, line, err)
			}
			if e.Test != "" && (e.Action == "pass" || e.Action == "fail" || e.Action == "skip") {
				ran[e.Package+"."+e.Test]++
			}
		}
	}
	for _, test := range []string{"example.com/shop/count.TestCount", "example.com/shop/count.TestShort", "example.com/shop/locks.TestOrder",
		"example.com/shop/locks.TestOrderAgain", "example.com/shop/state.TestHits"} {
		if ran[test] != 1 {
			t.Errorf("%s ran %d times in the shards, want once: %v", test, ran[test], ran)
		}
	}
	merged := filepath.Join(t.TempDir(), "merged")
	out, errs, code := clirun.Stdbg(t, append(append([]string{"corpus", "merge"}, corpora...), "-o", merged)...)
	if code != cli.ExitClean {
		t.Fatalf("corpus merge: exit %d\n%s\n%s", code, out, errs)
	}
	var entries []string
	filepath.WalkDir(merged, func(path string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(path, ".json") {
			entries = append(entries, strings.TrimPrefix(path, merged))
		}
		return nil
	})
	if len(entries) != 2 || !strings.Contains(strings.Join(entries, " "), "/locks/TestOrderAgain/deadlock-") {
		t.Errorf("merged corpus holds %v, want the two shards' bugs\n%s", entries, out)
	}
}
