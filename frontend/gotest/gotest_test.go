package gotest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stdbg/stdbg/frontend/session"
	"github.com/stdbg/stdbg/internal/testkit/testcache"
)

// module is a module of plain Go tests written for the tests of this
// package, shared by them (its packages build once).
var module string

// outside is a copy of testdata/outside shared by the tests that check
// it (runOutside, TestTestifyTraces): each instrumentation and build of
// one of its packages with the same settings is made once, where a copy
// per test (a module at another path) built its packages again. Nothing
// writes into it.
var outside string

func TestMain(m *testing.M) {
	// A stdbg cache of the tests' own; the test module is built with
	// sthread from the source tree under test (testcache.Setup).
	remove, err := testcache.Setup()
	if err != nil {
		panic(err)
	}
	dir, err := os.MkdirTemp("", "gotest-module-")
	if err != nil {
		panic(err)
	}
	if err := writeFiles(dir, moduleFiles); err != nil {
		panic(err)
	}
	module = dir
	if outside, err = os.MkdirTemp("", "gotest-outside-"); err != nil {
		panic(err)
	}
	if err := os.CopyFS(outside, os.DirFS("testdata/outside")); err != nil {
		panic(err)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.RemoveAll(outside)
	remove()
	os.Exit(code)
}

func writeFiles(dir string, files map[string]string) error {
	for name, text := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			return err
		}
	}
	return nil
}

var moduleFiles = map[string]string{
	"go.mod": "module example.com/m\n\ngo 1.22\n",
	"bank/bank.go": `package bank

import "sync"

type Account struct {
	mu      sync.Mutex
	balance int
}

func Transfer(from, to *Account, n int) {
	from.mu.Lock()
	to.mu.Lock()
	from.balance -= n
	to.balance += n
	to.mu.Unlock()
	from.mu.Unlock()
}
`,
	"bank/bank_test.go": `package bank

import (
	"sync"
	"testing"
)

func TestTransfer(t *testing.T) {
	a, b := &Account{balance: 10}, &Account{balance: 10}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); Transfer(a, b, 1) }()
	go func() { defer wg.Done(); Transfer(b, a, 1) }()
	wg.Wait()
}

func TestOneWay(t *testing.T) {
	a, b := &Account{balance: 10}, &Account{balance: 10}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); Transfer(a, b, 1) }()
	go func() { defer wg.Done(); Transfer(a, b, 2) }()
	wg.Wait()
	if a.balance != 7 {
		t.Fatalf("balance %d", a.balance)
	}
}

func TestSkipped(t *testing.T) {
	t.Skip("not today")
}
`,
	// Subtests, t.Parallel and t.Cleanup run on goroutines of package
	// testing: under a check they run in the execution.
	"sub/sub_test.go": `package sub

import (
	"sync"
	"testing"
)

func TestSubDeadlock(t *testing.T) {
	t.Run("fine", func(t *testing.T) {
		var mu sync.Mutex
		done := make(chan bool)
		go func() { mu.Lock(); mu.Unlock(); done <- true }()
		mu.Lock()
		mu.Unlock()
		<-done
	})
	t.Run("pair", func(t *testing.T) {
		var a, b sync.Mutex
		done := make(chan bool)
		go func() { a.Lock(); b.Lock(); b.Unlock(); a.Unlock(); done <- true }()
		b.Lock()
		a.Lock()
		a.Unlock()
		b.Unlock()
		<-done
	})
}

func TestParallel(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	done := make(chan bool)
	go func() { mu.Lock(); mu.Unlock(); done <- true }()
	mu.Lock()
	mu.Unlock()
	<-done
}

func TestCleanup(t *testing.T) {
	done := make(chan bool)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); <-done }()
	t.Cleanup(func() { close(done); wg.Wait() })
}
`,
	// TestMain runs before the tests, in every process.
	"withmain/main_test.go": `package withmain

import (
	"os"
	"sync"
	"testing"
)

var ready bool

func TestMain(m *testing.M) {
	ready = true
	os.Exit(m.Run())
}

func TestReady(t *testing.T) {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done() }()
	wg.Wait()
	if !ready {
		t.Fatal("TestMain did not run")
	}
}
`,
	// Only an external test package.
	"xonly/x.go": "package xonly\n\n// N is a number.\nconst N = 2\n",
	"xonly/x_test.go": `package xonly_test

import (
	"testing"

	"example.com/m/xonly"
)

func TestN(t *testing.T) {
	ch := make(chan int, 1)
	go func() { ch <- xonly.N }()
	if <-ch != 2 {
		t.Fatal("N")
	}
}
`,
	"notests/n.go": "package notests\n",
	"broken/b.go":  "package broken\n\nfunc F() int { return \"not an int\" }\n",
	"broken/b_test.go": `package broken

import "testing"

func TestF(t *testing.T) { F() }
`,
}

// run runs gotest in the module with the default search.
func run(t *testing.T, cfg Config) (string, *Summary) {
	t.Helper()
	var out bytes.Buffer
	cfg.Dir, cfg.Stdout, cfg.Parallel = module, &out, 1
	if cfg.Search == nil {
		cfg.Search = SearchWith(0, true)
	}
	sum, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, out.String())
	}
	return out.String(), sum
}

// TestRun runs every test of the module: each test gets its line, each
// package go test's line, a package that does not build is said and the
// others go on.
func TestRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	out, sum := run(t, Config{Patterns: []string{"./..."}})
	for _, want := range []struct{ status, test, detail string }{
		{"BUG", "TestTransfer", "*** DEADLOCK DETECTED ***"},
		{"ok", "TestOneWay", "exhaustive; 2 executions"},
		{"SKIP", "TestSkipped", "bank_test.go:30: not today"},
		{"BUG", "TestSubDeadlock", "*** DEADLOCK DETECTED ***"},
		{"ok", "TestParallel", "exhaustive"},
		{"ok", "TestCleanup", "exhaustive"},
		{"ok", "TestReady", "exhaustive"},
		{"ok", "TestN", "exhaustive"},
	} {
		re := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(want.status) + ` +` + want.test + ` \(\d+\.\d\ds\): ` + regexp.QuoteMeta(want.detail))
		if !re.MatchString(out) {
			t.Errorf("no line %s %s: %s in:\n%s", want.status, want.test, want.detail, out)
		}
	}
	for _, want := range []string{
		"\nFAIL\texample.com/m/bank\t", "\nFAIL\texample.com/m/sub\t", "\nok  \texample.com/m/withmain\t", "\nok  \texample.com/m/xonly\t",
		"\n?   \texample.com/m/notests\t[no test files]\n", "\nFAIL\texample.com/m/broken [build failed]\n",
		// The subtest's goroutine ran as the test's: its lines are in the
		// trace.
		"sub_test.go:20", "sub_test.go:21",
		"stdbg test: 8 tests in 6 packages: 5 ok, 2 BUG, 1 skipped; 1 package did not build",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// Packages in go list's order, each after its tests.
	if strings.Index(out, "example.com/m/bank\t") > strings.Index(out, "TestN ") {
		t.Errorf("packages out of order:\n%s", out)
	}
	if !sum.Failing() || sum.Bugs != 2 || sum.BuildFailed != 1 {
		t.Errorf("summary %+v", sum)
	}
}

// The -json stream is go test -json's: one TestEvent per line with its
// fields, a run then the output then pass, fail or skip for every test,
// a start and a pass, fail or skip for every package.
func TestJSONEvents(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	out, _ := run(t, Config{Patterns: []string{"./bank", "./notests", "./broken"}, JSON: true})
	type testEvent struct {
		Time        *time.Time
		Action      string
		Package     string
		Test        string
		Elapsed     *float64
		Output      *string
		FailedBuild string
	}
	actions := map[string]bool{"start": true, "run": true, "pause": true, "cont": true, "pass": true, "bench": true, "fail": true, "output": true, "skip": true}
	started := map[string]bool{}
	ended := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(out))
	n := 0
	for sc.Scan() {
		n++
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		var e testEvent
		if err := dec.Decode(&e); err != nil {
			t.Fatalf("line %d: %v: %s", n, err, sc.Text())
		}
		key := e.Package + " " + e.Test
		switch {
		case !actions[e.Action]:
			t.Errorf("line %d: action %q", n, e.Action)
		case e.Package == "":
			t.Errorf("line %d: no package", n)
		case e.Time == nil:
			t.Errorf("line %d: no time (nothing was cached)", n)
		case e.Action == "output" && (e.Output == nil || !strings.HasSuffix(*e.Output, "\n")):
			t.Errorf("line %d: output without its newline", n)
		case e.Action == "start" || e.Action == "run":
			started[key] = true
		case e.Action == "pass" || e.Action == "fail" || e.Action == "skip":
			if e.Elapsed == nil {
				t.Errorf("line %d: %s without Elapsed", n, e.Action)
			}
			if !started[key] || ended[key] != "" {
				t.Errorf("line %d: %s of %q not started, or ended twice", n, e.Action, key)
			}
			ended[key] = e.Action
			if e.FailedBuild != "" && e.FailedBuild != e.Package {
				t.Errorf("line %d: FailedBuild %q", n, e.FailedBuild)
			}
		}
		if ended[key] != "" && e.Action == "output" {
			t.Errorf("line %d: output of %q after its end", n, key)
		}
	}
	for key, want := range map[string]string{
		"example.com/m/bank TestTransfer": "fail", "example.com/m/bank TestOneWay": "pass", "example.com/m/bank TestSkipped": "skip",
		"example.com/m/bank ": "fail", "example.com/m/notests ": "skip", "example.com/m/broken ": "fail",
	} {
		if ended[key] != want {
			t.Errorf("%q ended with %q, want %q", key, ended[key], want)
		}
	}
	if !regexp.MustCompile(`"Action":"fail","Package":"example.com/m/broken","Elapsed":[0-9.]+,"FailedBuild":"example.com/m/broken"}`).MatchString(out) {
		t.Errorf("no failed build event:\n%s", out)
	}
	// What go test says of a package that does not build.
	if !strings.Contains(out, `"Output":"broken/b.go:3:23: cannot use \"not an int\" (untyped string constant) as int value in return statement\n"`) {
		t.Errorf("no compiler error as the go command gives it:\n%s", out)
	}
}

// A complete result is cached: the same inputs give it again without a
// build, a change to a source or -count=1 explores again.
func TestCache(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	cache := t.TempDir()
	cfg := Config{Patterns: []string{"./bank"}, Run: "TestOneWay|TestSkipped|TestTransfer", Cache: cache, CacheKey: "settings"}
	out, _ := run(t, cfg)
	if strings.Contains(out, "(cached)") {
		t.Fatalf("first run cached:\n%s", out)
	}
	out, sum := run(t, cfg)
	for _, want := range []string{"ok         TestOneWay (cached): exhaustive", "SKIP       TestSkipped (cached)", "BUG        TestTransfer ("} {
		if !strings.Contains(out, want) {
			t.Errorf("second run lacks %q:\n%s", want, out)
		}
	}
	if sum.Cached != 2 {
		t.Errorf("%d cached, want 2 (a bug is explored again)", sum.Cached)
	}
	for _, c := range []struct {
		name string
		cfg  Config
	}{
		{"other settings", Config{Patterns: cfg.Patterns, Run: "TestOneWay", Cache: cache, CacheKey: "other"}},
		{"count", Config{Patterns: cfg.Patterns, Run: "TestOneWay", Cache: cache, CacheKey: "settings", Count: 1}},
		{"short", Config{Patterns: cfg.Patterns, Run: "TestOneWay", Cache: cache, CacheKey: "settings", Short: true}},
	} {
		if out, _ := run(t, c.cfg); strings.Contains(out, "(cached)") {
			t.Errorf("%s: cached:\n%s", c.name, out)
		}
	}
	// A source changes: the package is explored again.
	path := filepath.Join(module, "bank", "bank.go")
	src, _ := os.ReadFile(path)
	defer os.WriteFile(path, src, 0o644)
	if err := os.WriteFile(path, append(append([]byte(nil), src...), "\n// changed\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, _ := run(t, Config{Patterns: cfg.Patterns, Run: "TestOneWay", Cache: cache, CacheKey: "settings"}); strings.Contains(out, "(cached)") {
		t.Errorf("changed source: cached:\n%s", out)
	}
}

// What the user gets wrong stops the run with one line.
func TestUsageErrors(t *testing.T) {
	for _, tt := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"no such directory", Config{Patterns: []string{"./nothere"}}, "directory not found"},
		{"bad -run", Config{Patterns: []string{"./bank"}, Run: "Test("}, "-run \"Test(\""},
		{"bad -skip level", Config{Patterns: []string{"./bank"}, Skip: "TestA/b("}, "-skip"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tt.cfg.Dir, tt.cfg.Search = module, SearchWith(0, true)
			_, err := Run(context.Background(), tt.cfg)
			var ue *session.UsageError
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %v, want a one-line usage error with %q", err, tt.want)
			}
		})
	}
}

func TestSelectors(t *testing.T) {
	for _, tt := range []struct {
		expr string
		want []string
	}{
		{"TestA", []string{"TestA"}},
		{"TestA/sub", []string{"TestA", "sub"}},
		{"Test[/]x/(a/b)", []string{"Test[/]x", "(a/b)"}},
		{`Test\/x/y`, []string{`Test\/x`, "y"}},
	} {
		if got := splitLevels(tt.expr); strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("splitLevels(%q) = %q, want %q", tt.expr, got, tt.want)
		}
	}
	for name, want := range map[string]bool{"Test": true, "TestA": true, "Test_x": true, "Testing": false, "TestMain": false, "Tes": false, "TestÉ": true, "Testé": false} {
		if got := isTestName(name); got != want {
			t.Errorf("isTestName(%q) = %v", name, got)
		}
	}
}

// testNames finds the tests as go test does: top-level TestXxx(*testing.T),
// whatever the name package testing is imported under.
func TestTestNames(t *testing.T) {
	dir := t.TempDir()
	err := writeFiles(dir, map[string]string{
		"a_test.go": `package a

import tt "testing"

func TestOne(t *tt.T)            {}
func TestTwo(*tt.T)              {}
func Testlower(t *tt.T)          {}
func TestBench(b *tt.B)          {}
func TestMain(m *tt.M)           {}
func TestResult(t *tt.T) error   { return nil }
func helper(t *tt.T)             {}
type s struct{}
func (s) TestMethod(t *tt.T)     {}
`,
		"b_test.go": "package a_test\n\nimport \"testing\"\n\nfunc TestX(t *testing.T) {}\n",
	})
	if err != nil {
		t.Fatal(err)
	}
	names, err := testNames(&pkg{Dir: dir, TestGoFiles: []string{"a_test.go"}, XTestGoFiles: []string{"b_test.go"}})
	if err != nil || strings.Join(names, " ") != "TestOne TestTwo TestX" {
		t.Errorf("testNames = %q, %v", names, err)
	}
}
