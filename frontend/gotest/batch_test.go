package gotest

import (
	"bytes"
	"context"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
)

// batchFiles is a package whose tests are searched in shared processes:
// TestSetUp leaves the package ready, and TestFirstUse deadlocks only in
// a process where it is not (as in a process of its own); the others
// pass.
var batchFiles = map[string]string{
	"go.mod": "module example.com/b\n\ngo 1.22\n",
	"lazy/lazy.go": `package lazy

import "sync"

var (
	ready bool
	a, b  sync.Mutex
)

// SetUp makes the package ready.
func SetUp() {
	a.Lock()
	ready = true
	a.Unlock()
}

// Use sets the package up on first use, taking the locks in the order of
// its argument: two first uses in opposite orders deadlock.
func Use(ab bool) {
	first, second := &a, &b
	if !ab {
		first, second = &b, &a
	}
	first.Lock()
	if !ready {
		second.Lock()
		second.Unlock()
	}
	first.Unlock()
}
`,
	"lazy/lazy_test.go": `package lazy

import (
	"sync"
	"testing"
)

func TestSetUp(t *testing.T) {
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); SetUp() }()
	go func() { defer wg.Done(); SetUp() }()
	wg.Wait()
}

func TestFirstUse(t *testing.T) {
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); Use(true) }()
	go func() { defer wg.Done(); Use(false) }()
	wg.Wait()
}

func TestCounter(t *testing.T) {
	var mu sync.Mutex
	n := 0
	var wg sync.WaitGroup
	wg.Add(2)
	for range 2 {
		go func() { defer wg.Done(); mu.Lock(); n++; mu.Unlock() }()
	}
	wg.Wait()
	if n != 2 {
		t.Fatal(n)
	}
}

func TestChannel(t *testing.T) {
	ch := make(chan int)
	go func() { ch <- 1 }()
	if <-ch != 1 {
		t.Fatal("1")
	}
}

func TestSkips(t *testing.T) {
	t.Skip("not here")
}
`,
}

// The tests of a package are searched in turn in shared processes of its
// test binary, each with the verdict it gets in a process of its own: a
// test that finds its package as a fresh process has it (the variables
// an earlier test's executions changed are put back), a bug searched
// again alone, the others served by the shared processes.
func TestBatches(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	dir := t.TempDir()
	if err := writeFiles(dir, batchFiles); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var served []string
	batchServed = func(name string) { mu.Lock(); served = append(served, name); mu.Unlock() }
	defer func() { batchServed = nil }()
	lines := map[string]string{}
	// One shared process at a time (the tests in one), two, then a
	// process per test.
	for _, run := range []struct {
		name     string
		searches int
		alone    bool
	}{{"one", 1, false}, {"two", 2, false}, {"alone", 2, true}} {
		var out bytes.Buffer
		_, err := Run(context.Background(), Config{Dir: dir, Patterns: []string{"./lazy"}, Stdout: &out, Parallel: 1, Searches: run.searches,
			ProcessPerTest: run.alone, Search: SearchWith(0, true)})
		if err != nil {
			t.Fatalf("Run: %v\n%s", err, out.String())
		}
		// The tests' status lines, without their times.
		re := regexp.MustCompile(`(?m)^(ok|BUG|SKIP|FAIL|ERROR|incomplete) +(Test\w+) \([0-9.]+s\): (.*)$`)
		var got []string
		for _, m := range re.FindAllStringSubmatch(out.String(), -1) {
			got = append(got, m[1]+" "+m[2]+": "+m[3])
		}
		lines[run.name] = strings.Join(got, "\n")
		for _, want := range []string{"ok TestSetUp: exhaustive", "BUG TestFirstUse: *** DEADLOCK DETECTED ***", "ok TestCounter: exhaustive",
			"ok TestChannel: exhaustive", "SKIP TestSkips: lazy_test.go:"} {
			if !strings.Contains(lines[run.name], want) {
				t.Errorf("%s: no line %q in:\n%s", run.name, want, out.String())
			}
		}
		if lines[run.name] != lines["one"] {
			t.Errorf("verdicts differ: %s:\n%s\none:\n%s", run.name, lines[run.name], lines["one"])
		}
		mu.Lock()
		slices.Sort(served)
		want := []string{"TestChannel", "TestCounter", "TestSetUp", "TestSkips"}
		if run.alone {
			want = nil
		}
		if !slices.Equal(served, want) {
			t.Errorf("%s: served by shared processes: %q, want %q", run.name, served, want)
		}
		served = nil
		mu.Unlock()
	}
}
