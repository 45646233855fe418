package session

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stdbg/stdbg/engine/hunt"
	"github.com/stdbg/stdbg/engine/search"
)

// slowStartModule is a module of one plain Go test whose package takes
// longer to initialise than the budget of its search.
var slowStartModule = map[string]string{
	"go.mod": "module example.com/slowstart\n\ngo 1.22\n",
	"slow_test.go": `package slowstart

import (
	"sync"
	"testing"
	"time"
)

func init() { time.Sleep(1500 * time.Millisecond) }

func TestTwo(t *testing.T) {
	var mu sync.Mutex
	n := 0
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			n++
			mu.Unlock()
		}()
	}
	wg.Wait()
}
`,
}

// The budget is the search's: the time the target takes to start (here,
// to initialise its package) is not taken from it. The budget's clock
// started before the target did, and a search inside a target that took
// longer to start than the budget ran no execution at all.
func TestBudgetStartsWithTheSearch(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a test binary")
	}
	dir := t.TempDir()
	for name, text := range slowStartModule {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := findWithin(t, dir, "TestTwo", false, time.Second)
	if !got.inTarget || got.executions == 0 {
		t.Errorf("in the target %v, %d executions (budget spent %v); want a search inside the target that ran",
			got.inTarget, got.executions, got.budgetSpent)
	}
}

// spinModule is a module of one plain Go test whose goroutine spins on a
// variable that nothing sets, after it took a lock: it never reaches its
// next scheduling point.
var spinModule = map[string]string{
	"go.mod": "module example.com/spin\n\ngo 1.22\n",
	"spin_test.go": `package spin

import (
	"sync"
	"testing"
)

var stop bool

func TestSpin(t *testing.T) {
	var mu sync.Mutex
	go func() { mu.Lock(); mu.Unlock() }()
	mu.Lock()
	n := 0
	for !stop {
		n++
	}
	mu.Unlock()
	t.Log(n)
}
`,
}

// A search that stdbg drives a step at a time, a fresh process per
// execution (STDBG_REUSE=0), ends a step that outlasts the transition
// timeout with the report of the Go runtime, which keeps the checker's
// timeout itself: the timeout is found where the goroutine last stopped
// (the lock before its loop), not at "thread 1" as the checker alone,
// which cannot ask a Go program where it is, said.
func TestGoTimeoutFromTheRuntime(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a test binary")
	}
	dir := t.TempDir()
	for name, text := range spinModule {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("STDBG_REUSE", "0")
	tg, err := Resolve([]string{dir}, Build{Run: "^TestSpin$"})
	if err != nil {
		t.Fatal(err)
	}
	s, err := Start(tg, Options{FastExit: true, TransitionTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	spec, _, err := search.Spec{Strategy: search.StrategyDFS}.Normal()
	if err != nil {
		t.Fatal(err)
	}
	found, err := s.Find(context.Background(), &Find{Plan: Plan{Request: hunt.Request{Search: spec, MaxDepth: GoMaxDepth}, InTarget: true, Jobs: 1}, NoExplain: true})
	if err != nil {
		t.Fatalf("find: %v", err)
	}
	if found.InTarget || len(found.Findings) == 0 {
		t.Fatalf("in the target %v, %d findings; want a timeout found from here", found.InTarget, len(found.Findings))
	}
	o := found.Findings[0].Bug.Outcome
	if o.Kind != search.Timeout || !strings.HasPrefix(o.Where, "spin_test.go:") {
		t.Errorf("outcome %s at %q (%s); want a timeout at spin_test.go", o.Kind, o.Where, o.Message)
	}
}
