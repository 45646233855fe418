package session

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stdbg/stdbg/engine/hunt"
	"github.com/stdbg/stdbg/engine/search"
)

// stateModule is a module of plain Go tests that keep state in
// package-level variables: a counter, a map and a sync.Once whose test is
// correct in a fresh process only; a check-then-act on a registry, a bug
// whose schedules fail only from the registry's first state; and a
// closure's captured counter, which no one can put back.
var stateModule = map[string]string{
	"go.mod": "module example.com/state\n\ngo 1.22\n",
	"counter/counter_test.go": `package counter

import (
	"sync"
	"testing"
)

type config struct{ workers int }

var (
	hits int
	seen = map[string]int{}
	once sync.Once
	cfg  *config
)

func TestCounter(t *testing.T) {
	once.Do(func() { cfg = &config{workers: 2} })
	var mu sync.Mutex
	done := make(chan bool)
	for range cfg.workers {
		go func() { mu.Lock(); hits++; seen["w"]++; mu.Unlock(); done <- true }()
	}
	for range cfg.workers {
		<-done
	}
	if hits != 2 || seen["w"] != 2 {
		t.Fatalf("hits %d, seen %d: the counters kept an earlier run's counts", hits, seen["w"])
	}
}

var (
	regMu      sync.Mutex
	registry   = map[string]bool{}
	registered int
)

func register(name string) {
	regMu.Lock()
	known := registry[name]
	regMu.Unlock()
	if !known {
		regMu.Lock()
		registry[name] = true
		registered++
		regMu.Unlock()
	}
}

func TestRegisterOnce(t *testing.T) {
	done := make(chan bool)
	go func() { register("a"); done <- true }()
	register("a")
	<-done
	if registered != 1 {
		t.Fatalf("registered %d times", registered)
	}
}
`,
	"closure/closure_test.go": `package closure

import "testing"

func newCounter() func() int {
	n := 0
	return func() int { n++; return n }
}

var nextID = newCounter()

func TestIDs(t *testing.T) {
	ids := make(chan int)
	for range 2 {
		go func() { ids <- nextID() }()
	}
	a, b := <-ids, <-ids
	if a+b != 3 {
		t.Fatalf("ids %d and %d", a, b)
	}
}
`,
}

// A test that keeps state in package-level variables is searched inside
// its process, the variables put back before each execution, with the
// verdict a fresh process per execution gives (STDBG_RESTORE=0); one whose
// state cannot be put back falls back on a fresh process per execution,
// naming the variable.
func TestRestoreState(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	dir := t.TempDir()
	for name, text := range stateModule {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		pkg, test string
		race      bool
		inTarget  bool
		bug       search.Kind // Exited: none
		note      string
	}{
		{"counter", "TestCounter", true, true, search.Exited, ""},
		{"counter", "TestRegisterOnce", false, true, search.AssertionFailure, ""},
		{"closure", "TestIDs", false, false, search.Exited,
			"the program keeps state in its process that the search cannot put back before each execution: " +
				"nextID (closure_test.go:10): holds a closure ("},
	} {
		t.Run(tt.test, func(t *testing.T) {
			pkg := filepath.Join(dir, tt.pkg)
			got := findIn(t, pkg, tt.test, tt.race)
			if got.inTarget != tt.inTarget {
				t.Errorf("searched inside the target: %v, want %v (notes %q)", got.inTarget, tt.inTarget, got.notes)
			}
			if tt.note != "" && !slices.ContainsFunc(got.notes, func(n string) bool { return strings.Contains(n, tt.note) }) {
				t.Errorf("no note %q among %q", tt.note, got.notes)
			}
			if tt.note == "" && len(got.notes) > 0 {
				t.Errorf("notes %q", got.notes)
			}
			if want := []search.Kind{tt.bug}; tt.bug != search.Exited && !slices.Equal(got.bugs, want) || tt.bug == search.Exited && len(got.bugs) > 0 {
				t.Errorf("bugs %v, want %v", got.bugs, tt.bug)
			}
			t.Setenv("STDBG_RESTORE", "0")
			fresh := findIn(t, pkg, tt.test, tt.race)
			if fresh.inTarget {
				t.Errorf("STDBG_RESTORE=0: searched inside the target")
			}
			if !slices.Equal(fresh.bugs, got.bugs) || fresh.where != got.where || fresh.complete != got.complete {
				t.Errorf("a fresh process per execution found %v at %q (complete %v), the search inside the target %v at %q (complete %v)",
					fresh.bugs, fresh.where, fresh.complete, got.bugs, got.where, got.complete)
			}
		})
	}
}

type verdict struct {
	inTarget, complete bool
	bugs               []search.Kind
	where              string
	notes              []string
	executions         int64
	budgetSpent        bool
}

// findIn searches test of the package in dir as stdbg find does, with
// bugs minimised but not saved.
func findIn(t *testing.T, dir, test string, race bool) verdict {
	t.Helper()
	return findWithin(t, dir, test, race, 0)
}

// findWithin is findIn within a budget (0: none).
func findWithin(t *testing.T, dir, test string, race bool, budget time.Duration) verdict {
	t.Helper()
	tg, err := Resolve([]string{dir}, Build{Run: "^" + test + "$", Race: race})
	if err != nil {
		t.Fatal(err)
	}
	s, err := Start(tg, Options{FastExit: true, KeepThreads: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	spec, _, err := search.Spec{}.Normal()
	if err != nil {
		t.Fatal(err)
	}
	var v verdict
	f := &Find{Plan: Plan{Request: hunt.Request{Search: spec, MaxDepth: GoMaxDepth, Minimise: true, Budget: budget}, InTarget: true, Jobs: 1},
		Hooks: Hooks{Note: func(n string) { v.notes = append(v.notes, n) }}}
	found, err := s.Find(context.Background(), f)
	if err != nil {
		t.Fatalf("find: %v", err)
	}
	v.inTarget, v.complete = found.InTarget, found.Search.Complete
	v.executions, v.budgetSpent = found.Stats.Executions, found.BudgetSpent
	for _, fd := range found.Findings {
		v.bugs = append(v.bugs, fd.Bug.Outcome.Kind)
		v.where += fd.Bug.Outcome.Where
	}
	return v
}
